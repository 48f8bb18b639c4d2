//! Errors of configuration validation.

/// A configuration was refused; the error names the offending field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectStoreConfigError {
    /// A required field was empty.
    #[error("`{field}` must not be empty")]
    Missing {
        /// The field's configuration name.
        field: &'static str,
    },
    /// A field held a value outside its valid range or syntax.
    #[error("`{field}` has invalid value `{value}`: {expected}")]
    Invalid {
        /// The field's configuration name.
        field: &'static str,
        /// The rejected value (never a secret).
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
}
