//! The one error type of the store layer.

use std::{io, path::PathBuf};

/// A boxed underlying cause.
pub type BoxedSource = Box<dyn std::error::Error + Send + Sync>;

/// Every failure of the store layer: uploads, ranged reads, deletes, the
/// runtime and the bucket probes.
///
/// Variants are classified by what a caller does about them
/// ([`StoreError::class`]); the tiers above turn them into their own SPI
/// error one to one, keeping this error as the cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The object does not exist.
    #[error("{resource} not found")]
    NotFound {
        /// What was looked for.
        resource: String,
    },
    /// A create-only write found the key already present.
    #[error("{resource} already exists")]
    AlreadyExists {
        /// What was being created.
        resource: String,
        /// The store's answer.
        #[source]
        source: Option<BoxedSource>,
    },
    /// An argument was outside its contract (an invalid key, an inverted
    /// range, a position past the end).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The store configuration is unusable (a bad field, a client that
    /// cannot be built).
    #[error("invalid object store configuration")]
    Config(#[source] crate::ObjectStoreBuildError),
    /// A local file could not be read.
    #[error("{operation} `{}` failed", path.display())]
    Io {
        /// What was being done (`open`, `stat`, `read`).
        operation: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A transient fault (throttling, 5xx, timeout, reset, a lost
    /// conditional write) that survived the retry budget.
    #[error("transient object store failure: {message}")]
    Retryable {
        /// What failed.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<BoxedSource>,
    },
    /// A permanent failure (access denied, a missing bucket, an unsupported
    /// operation, a runtime that cannot start).
    #[error("object store backend error: {message}")]
    Backend {
        /// What failed.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<BoxedSource>,
    },
    /// The bucket does not give a guarantee the caller requires (for
    /// example, it is not write-once).
    #[error("refused: {0}")]
    Refused(String),
    /// The operation was cancelled by its caller.
    #[error("operation cancelled: {0}")]
    Cancelled(String),
}

/// What a caller should do about a [`StoreError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorClass {
    /// The object does not exist.
    NotFound,
    /// A create-only write lost to an existing object.
    AlreadyExists,
    /// Trying again later may succeed.
    Retryable,
    /// The caller passed something outside the contract.
    InvalidInput,
    /// Refused by design; retrying will not help.
    Refused,
    /// Anything else.
    Other,
}

impl StoreError {
    /// The class of this error.
    #[must_use]
    pub fn class(&self) -> StoreErrorClass {
        match self {
            Self::NotFound { .. } => StoreErrorClass::NotFound,
            Self::AlreadyExists { .. } => StoreErrorClass::AlreadyExists,
            Self::InvalidArgument(_) | Self::Config(_) => StoreErrorClass::InvalidInput,
            Self::Retryable { .. } | Self::Cancelled(_) => StoreErrorClass::Retryable,
            Self::Refused(_) => StoreErrorClass::Refused,
            Self::Io { source, .. } if source.kind() == io::ErrorKind::NotFound => {
                StoreErrorClass::NotFound
            }
            Self::Io { .. } | Self::Backend { .. } => StoreErrorClass::Other,
        }
    }

    /// A [`StoreError::NotFound`] for `resource`.
    pub fn not_found(resource: impl Into<String>) -> Self {
        Self::NotFound {
            resource: resource.into(),
        }
    }

    /// A [`StoreError::Io`] for `operation` on `path`.
    pub fn io(operation: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            operation,
            path: path.into(),
            source,
        }
    }

    /// A [`StoreError::Backend`] with `message` and `source`.
    pub fn backend(message: impl Into<String>, source: impl Into<BoxedSource>) -> Self {
        Self::Backend {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

/// Shorthand for results of the store layer.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
