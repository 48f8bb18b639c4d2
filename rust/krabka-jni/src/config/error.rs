//! The refusals of the storage manager's configuration.

use {
    super::keys::{ConfigKey, Plugin},
    krabka_object_store::ObjectStoreConfigError,
};

/// A refused storage-manager configuration; names the key whenever one is
/// to blame, and never shows a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A key the storage manager does not know.
    #[error("unknown configuration key `{key}`; valid keys are {}", valid_keys())]
    Unknown {
        /// The key.
        key: String,
    },
    /// A required key is missing or blank.
    #[error("`{key}` is required when `backend` is `{backend}`")]
    Missing {
        /// The key.
        key: ConfigKey,
        /// The chosen backend.
        backend: &'static str,
    },
    /// A key the write-once archive mode needs is missing or blank.
    #[error("`{key}` is required when `worm.enabled` is true")]
    MissingForWorm {
        /// The key.
        key: ConfigKey,
    },
    /// A value that is not of its key's type or not among its valid values
    /// (the rules of [`ConfigKey::spec`]).
    #[error("`{key}` has invalid value `{value}`: expected {}", key.expected())]
    Invalid {
        /// The key.
        key: ConfigKey,
        /// The rejected value (`<redacted>` for secrets).
        value: String,
    },
    /// A value refused by a rule across keys or by the object store's own
    /// checks.
    #[error("`{key}` has invalid value `{value}`: expected {expected}")]
    Refused {
        /// The key.
        key: ConfigKey,
        /// The rejected value (`<redacted>` for secrets).
        value: String,
        /// What would be accepted.
        expected: &'static str,
    },
    /// A member of a key family names an id its list does not hold.
    #[error("`{key}` names a key pair that `{list}` does not list")]
    UnlistedMember {
        /// The member key.
        key: String,
        /// The key that lists the ids.
        list: ConfigKey,
    },
    /// An id of a list key lacks a member key it needs.
    #[error("`{key}` is required for every id `{list}` lists")]
    MissingMember {
        /// The missing key.
        key: String,
        /// The key that lists the ids.
        list: ConfigKey,
    },
    /// The object store refused the configuration for a reason no key of
    /// this plugin names.
    #[error("invalid object store configuration: {0}")]
    ObjectStore(#[source] ObjectStoreConfigError),
}

impl ConfigError {
    /// [`ConfigError::Invalid`], with the value redacted for a secret key.
    #[must_use]
    pub fn invalid(key: ConfigKey, value: &str) -> Self {
        Self::Invalid {
            key,
            value: shown(key, value),
        }
    }

    /// [`ConfigError::Refused`], with the value redacted for a secret key.
    #[must_use]
    pub fn refused(key: ConfigKey, value: &str, expected: &'static str) -> Self {
        Self::Refused {
            key,
            value: shown(key, value),
            expected,
        }
    }
}

/// `value` as an error may show it.
fn shown(key: ConfigKey, value: &str) -> String {
    if key.is_secret() {
        "<redacted>".to_owned()
    } else {
        value.to_owned()
    }
}

/// The storage manager's keys, sorted, for [`ConfigError::Unknown`].
fn valid_keys() -> String {
    let mut names: Vec<&str> = ConfigKey::of(Plugin::StorageManager)
        .map(ConfigKey::name)
        .collect();
    names.sort_unstable();
    names.join(", ")
}
