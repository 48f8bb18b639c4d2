//! Every way a native call can fail, and which Kafka exception each becomes.

use {
    crate::{config::ConfigError, wire::WireError},
    krabka_remote_storage::{ErrorClass, RemoteStorageError},
};

/// A failure of one native call, before it is thrown to Java.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// The storage or metadata manager failed.
    #[error(transparent)]
    Storage(#[from] RemoteStorageError),
    /// Bytes from the Java side did not decode.
    #[error("malformed request from the Java adapter: {0}")]
    Wire(#[from] WireError),
    /// The plugin configuration was refused.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `worm.enabled` is true but the write-once archive mode cannot start:
    /// an unusable signing key, or a bucket that does not prove it is
    /// locked (or cannot be reached to prove it).
    #[error("`worm.enabled` is true but the write-once archive cannot start")]
    WormStartup(#[source] RemoteStorageError),
    /// `worm.enabled` is false, but the bucket (under the prefix) holds a
    /// write-once archive, and `worm.allow.plain.on.archive` is not set.
    #[error(
        "`worm.enabled` is false, but the bucket holds a write-once archive (it has the archive's \
         `_krabka-worm-probe/` objects): turn `worm.enabled` back on, or set \
         `worm.allow.plain.on.archive=true` to run the plain tier beside the archive on purpose"
    )]
    PlainOnArchive,
    /// A JNI call failed (usually because a Java exception is pending).
    #[error("JNI call failed: {0}")]
    Jni(#[from] jni::errors::Error),
    /// The handle is unknown: never issued, or already closed.
    #[error("{kind} handle {handle} is closed or was never opened")]
    StaleHandle {
        /// What the handle should name (`storage manager`, `stream`, …).
        kind: &'static str,
        /// The handle value.
        handle: i64,
    },
    /// An argument from the Java side was outside its contract.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The native log bridge could not be installed.
    #[error("native logs cannot reach the broker's log")]
    LogInstall(#[from] crate::logging::InstallError),
    /// The tier replay source could not be opened or read.
    #[error(transparent)]
    Tier(#[from] krabka_tier::FeedError),
    /// Native code panicked on a worker thread.
    #[error("native panic: {0}")]
    Panic(String),
}

/// The Kafka exception a [`BridgeError`] is thrown as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExceptionKind {
    /// `RemoteResourceNotFoundException`.
    NotFound,
    /// `RetriableRemoteStorageException` where the broker has it (Kafka
    /// 4.2+), else `RemoteStorageException`.
    Retriable,
    /// `RemoteStorageException`.
    Storage,
}

impl ExceptionKind {
    /// The exception for an error class of the core crate. This is the one
    /// place where [`ErrorClass`] meets Kafka's exception types.
    #[must_use]
    pub fn for_class(class: ErrorClass) -> Self {
        match class {
            ErrorClass::NotFound => Self::NotFound,
            ErrorClass::Retryable => Self::Retriable,
            _ => Self::Storage,
        }
    }
}

impl BridgeError {
    /// The Kafka exception this error is thrown as.
    #[must_use]
    pub fn exception_kind(&self) -> ExceptionKind {
        match self {
            Self::Storage(err) | Self::WormStartup(err) => ExceptionKind::for_class(err.class()),
            Self::Wire(_)
            | Self::Config(_)
            | Self::PlainOnArchive
            | Self::Jni(_)
            | Self::StaleHandle { .. }
            | Self::InvalidArgument(_)
            | Self::LogInstall(_)
            | Self::Tier(_)
            | Self::Panic(_) => ExceptionKind::Storage,
        }
    }
}

/// The text of a panic payload: `panic!` with a literal gives `&str`, with
/// format arguments a `String`.
#[must_use]
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use {super::*, std::io};

    #[test]
    fn not_found_and_retryable_classes_pick_their_exceptions() {
        let missing = BridgeError::from(RemoteStorageError::not_found("transaction index"));
        assert_eq!(missing.exception_kind(), ExceptionKind::NotFound);
        let io_missing = BridgeError::from(RemoteStorageError::io(
            "open",
            "/x",
            io::Error::from(io::ErrorKind::NotFound),
        ));
        assert_eq!(io_missing.exception_kind(), ExceptionKind::NotFound);
        let transient = BridgeError::from(RemoteStorageError::Retryable {
            message: "503".to_owned(),
            source: None,
        });
        assert_eq!(transient.exception_kind(), ExceptionKind::Retriable);
        let corrupt = BridgeError::from(RemoteStorageError::Corrupt {
            format: "log",
            detail: "x".to_owned(),
        });
        assert_eq!(corrupt.exception_kind(), ExceptionKind::Storage);
        let panic = BridgeError::Panic("boom".to_owned());
        assert_eq!(panic.exception_kind(), ExceptionKind::Storage);
    }

    #[test]
    fn exception_messages_carry_the_whole_cause_chain_once() {
        let startup = BridgeError::WormStartup(RemoteStorageError::Retryable {
            message: "cannot check the protection of bucket `b`".to_owned(),
            source: Some(Box::new(io::Error::other("connection refused"))),
        });
        assert_eq!(
            crate::boundary::message_with_causes(&startup),
            "`worm.enabled` is true but the write-once archive cannot start: \
             transient remote storage failure: cannot check the protection of bucket `b`: \
             connection refused"
        );
        // A cause already in the message is not repeated.
        let transparent = BridgeError::from(RemoteStorageError::not_found("index"));
        assert_eq!(
            crate::boundary::message_with_causes(&transparent),
            "index not found"
        );
    }

    #[test]
    fn panic_payloads_of_both_string_kinds_are_read() {
        let literal: Box<dyn std::any::Any + Send> = Box::new("literal");
        assert_eq!(panic_message(literal.as_ref()), "literal");
        let formatted: Box<dyn std::any::Any + Send> = Box::new(format!("offset {}", 7));
        assert_eq!(panic_message(formatted.as_ref()), "offset 7");
        let other: Box<dyn std::any::Any + Send> = Box::new(7_u32);
        assert_eq!(
            panic_message(other.as_ref()),
            "panic with a non-string payload"
        );
    }
}
