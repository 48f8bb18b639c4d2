//! A string whose `Debug` and `Display` never reveal it.

use {
    serde::{Deserialize, Serialize},
    std::fmt,
};

/// A secret value (an access key secret, a service-account key) that is
/// redacted whenever it is formatted.
///
/// ```
/// use krabka_object_store::Secret;
/// let secret = Secret::new("hunter2");
/// assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
/// assert_eq!(secret.expose(), "hunter2");
/// ```
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for handing to the client library that needs it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}
