//! The one error type of both SPIs.

use {
    crate::{
        RemoteLogSegmentId, RemoteLogSegmentState, RemotePartitionDeleteState, TopicIdPartition,
    },
    std::{io, path::PathBuf},
};

/// Every failure of a [`RemoteStorageManager`](crate::RemoteStorageManager) or
/// [`RemoteLogMetadataManager`](crate::RemoteLogMetadataManager).
///
/// Variants are grouped by what a caller does about them, which
/// [`RemoteStorageError::class`] returns as an [`ErrorClass`]: a missing
/// resource is [`RemoteStorageError::NotFound`] and nothing else, a transient
/// backend fault is [`RemoteStorageError::Retryable`], corrupt bytes are
/// [`RemoteStorageError::Corrupt`]. The JNI layer maps the class to Kafka's
/// exception types in one place.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteStorageError {
    /// A segment, index or metadata record does not exist.
    #[error("{resource} not found")]
    NotFound {
        /// What was looked for, for example `transaction index of segment …`.
        resource: String,
    },
    /// A create-only write found the key already present.
    #[error("{resource} already exists")]
    AlreadyExists {
        /// What was being created.
        resource: String,
    },
    /// An argument was outside its contract (a position past the end, an
    /// inverted range, an empty leader-epoch map).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A configuration is unusable; the cause names what is wrong.
    #[error("invalid configuration of {what}")]
    Config {
        /// What was being configured (`object store`, `archive signing key`).
        what: &'static str,
        /// Why it is unusable.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A segment metadata update asked for a transition Kafka forbids.
    #[error("invalid segment state transition for {id}: {from:?} -> {to:?}")]
    InvalidSegmentTransition {
        /// The segment.
        id: RemoteLogSegmentId,
        /// Its current state (`None` when it was never added).
        from: Option<RemoteLogSegmentState>,
        /// The refused target state.
        to: RemoteLogSegmentState,
    },
    /// A partition-delete record asked for a transition Kafka forbids.
    #[error("invalid partition delete transition for {partition}: {from:?} -> {to:?}")]
    InvalidPartitionDeleteTransition {
        /// The partition.
        partition: TopicIdPartition,
        /// Its current delete state, if any.
        from: Option<RemotePartitionDeleteState>,
        /// The refused target state.
        to: RemotePartitionDeleteState,
    },
    /// Bytes did not decode as the Kafka format they claim to be.
    #[error("corrupt {format} bytes: {detail}")]
    Corrupt {
        /// The format, for example `offset index` or `log`.
        format: &'static str,
        /// What was wrong and where.
        detail: String,
    },
    /// Stored bytes failed an integrity check of a format above Kafka's (a
    /// write-once archive's manifest or chain); the typed cause says which.
    #[error("{what} failed an integrity check")]
    Integrity {
        /// What was checked (`WORM manifest`, `WORM chain seal`).
        what: &'static str,
        /// The typed cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A local filesystem operation failed.
    #[error("{operation} `{}` failed", path.display())]
    Io {
        /// What was being done (`create`, `rename`, `read`, …).
        operation: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A transient backend fault (throttling, timeout, connection reset)
    /// that survived the retry budget; trying again later may succeed.
    #[error("transient remote storage failure: {message}")]
    Retryable {
        /// What failed.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A permanent backend failure (access denied, missing bucket, a server
    /// lacking a required feature).
    #[error("remote storage backend error: {message}")]
    Backend {
        /// What failed.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The operation was refused by design (for example a delete in a
    /// write-once archive, or an unsupported mode on this tier).
    #[error("refused: {0}")]
    Refused(String),
    /// The operation was cancelled by its caller before it finished.
    #[error("operation cancelled: {0}")]
    Cancelled(String),
    /// Another writer extended a partition's metadata history first: the
    /// record this call meant to write at `sequence` lost the create-only
    /// race, nothing of it was kept, and the manager re-read the history.
    /// Retrying decides again against the new state.
    #[error(
        "fenced: metadata record {sequence} of {partition} was written by another broker first; the history was re-read"
    )]
    Fenced {
        /// The partition whose history moved on.
        partition: String,
        /// The position the lost record was meant for.
        sequence: u64,
    },
}

/// What a caller should do about a [`RemoteStorageError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// The resource does not exist (Kafka: `RemoteResourceNotFoundException`).
    NotFound,
    /// A create-only write lost to an existing object.
    AlreadyExists,
    /// Trying again later may succeed (Kafka 4.2+: `RetriableRemoteStorageException`).
    Retryable,
    /// Stored bytes are corrupt or fail an integrity check.
    Integrity,
    /// The caller passed something outside the contract.
    InvalidInput,
    /// Refused by design; retrying will not help.
    Refused,
    /// Anything else (Kafka: `RemoteStorageException`).
    Other,
}

impl RemoteStorageError {
    /// The class of this error, which decides how it is reported to Kafka.
    #[must_use]
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::NotFound { .. } => ErrorClass::NotFound,
            Self::AlreadyExists { .. } => ErrorClass::AlreadyExists,
            Self::InvalidArgument(_)
            | Self::Config { .. }
            | Self::InvalidSegmentTransition { .. }
            | Self::InvalidPartitionDeleteTransition { .. } => ErrorClass::InvalidInput,
            Self::Corrupt { .. } | Self::Integrity { .. } => ErrorClass::Integrity,
            Self::Retryable { .. } | Self::Cancelled(_) | Self::Fenced { .. } => {
                ErrorClass::Retryable
            }
            Self::Refused(_) => ErrorClass::Refused,
            Self::Io { source, .. } => match source.kind() {
                io::ErrorKind::NotFound => ErrorClass::NotFound,
                io::ErrorKind::Interrupted | io::ErrorKind::TimedOut => ErrorClass::Retryable,
                _ => ErrorClass::Other,
            },
            Self::Backend { .. } => ErrorClass::Other,
        }
    }

    /// Whether this is a "not found" error.
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        self.class() == ErrorClass::NotFound
    }

    /// A [`RemoteStorageError::NotFound`] for `resource`.
    pub fn not_found(resource: impl Into<String>) -> Self {
        Self::NotFound {
            resource: resource.into(),
        }
    }

    /// A [`RemoteStorageError::Io`] for `operation` on `path`.
    pub fn io(operation: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            operation,
            path: path.into(),
            source,
        }
    }
}

/// A [`RemoteStorageError::Corrupt`] for `.log` bytes, with `detail` saying
/// what was wrong and where.
///
/// ```
/// use krabka_kafka::{corrupt_log, RemoteStorageError};
/// let err = corrupt_log("batch at position 12 is truncated");
/// assert!(matches!(err, RemoteStorageError::Corrupt { format: "log", .. }));
/// assert_eq!(err.to_string(), "corrupt log bytes: batch at position 12 is truncated");
/// ```
pub fn corrupt_log(detail: impl Into<String>) -> RemoteStorageError {
    RemoteStorageError::Corrupt {
        format: "log",
        detail: detail.into(),
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = RemoteStorageError> = std::result::Result<T, E>;
