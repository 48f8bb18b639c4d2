//! What can go wrong reading or writing the chunked format.

use {crate::ObjectKind, std::path::PathBuf, thiserror::Error, uuid::Uuid};

/// An error of the chunked segment format. Each names the segment (and the
/// object and chunk, where there is one), never a key's bytes.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The envelope object is not a well-formed envelope.
    #[error("the envelope of segment {segment} is malformed: {reason}")]
    MalformedEnvelope {
        /// The segment, or nil when the envelope is too short to name one.
        segment: Uuid,
        /// What is wrong with it.
        reason: String,
    },
    /// A stored chunk did not decrypt, decompress or match its expected
    /// length: the wrong key, or a truncated, swapped, moved or altered
    /// chunk.
    #[error(
        "chunk {chunk} of the {kind} of segment {segment} is corrupt or was not written for this place: {reason}"
    )]
    CorruptChunk {
        /// The segment.
        segment: Uuid,
        /// The object the chunk belongs to.
        kind: ObjectKind,
        /// The chunk's number in the object.
        chunk: u32,
        /// Why it was refused.
        reason: &'static str,
    },
    /// The stored object ended before the chunks the envelope lists.
    #[error(
        "the {kind} of segment {segment} is truncated: chunk {chunk} needs {expected} stored bytes, {found} remain"
    )]
    Truncated {
        /// The segment.
        segment: Uuid,
        /// The object.
        kind: ObjectKind,
        /// The chunk that is cut short.
        chunk: u32,
        /// The bytes the chunk needs.
        expected: u64,
        /// The bytes that were there.
        found: u64,
    },
    /// The envelope does not describe the object asked for.
    #[error("the envelope of segment {segment} has no {kind}")]
    MissingObject {
        /// The segment.
        segment: Uuid,
        /// The object asked for.
        kind: ObjectKind,
    },
    /// A byte range outside the object was asked for.
    #[error(
        "position {position} is past the end ({size} bytes) of the {kind} of segment {segment}"
    )]
    OutOfRange {
        /// The segment.
        segment: Uuid,
        /// The object.
        kind: ObjectKind,
        /// The position asked for.
        position: u64,
        /// The object's original size.
        size: u64,
    },
    /// The segment is encrypted and no key ring was configured to read it.
    #[error(
        "segment {segment} is encrypted (key {key_id:?}) and no encryption keys are configured"
    )]
    NoKeys {
        /// The segment.
        segment: Uuid,
        /// The id of the key that wrapped its data key.
        key_id: String,
    },
    /// The key that wrapped the segment's data key is not configured.
    #[error(
        "segment {segment} was encrypted under key {key_id:?}, which is not among the configured keys ({known})"
    )]
    UnknownKey {
        /// The segment.
        segment: Uuid,
        /// The id recorded in the envelope.
        key_id: String,
        /// The configured key ids, comma-separated.
        known: String,
    },
    /// The configured key could not unwrap the data key: the wrong private
    /// key for that id, or an altered envelope.
    #[error(
        "the data key of segment {segment} does not unwrap with key {key_id:?} (the wrong private key for that id, or an altered envelope)"
    )]
    UnwrapFailed {
        /// The segment.
        segment: Uuid,
        /// The key id.
        key_id: String,
    },
    /// Encrypting, wrapping or drawing random bytes failed in the crypto
    /// library.
    #[error("{0} failed in the crypto library")]
    Crypto(&'static str),
    /// A key file is missing, unreadable, not a supported key, or open to
    /// other users.
    #[error("key file {path}: {reason}")]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A key service (KMS) failed or refused a call; the message is the
    /// service's.
    #[error("the key service: {0}")]
    KeyService(String),
    /// The key configuration is inconsistent.
    #[error("encryption keys: {0}")]
    KeyConfig(String),
    /// A setting is out of its range.
    #[error("{0}")]
    InvalidSetting(String),
    /// zstd failed to compress a chunk.
    #[error("compression of chunk {chunk} of the {kind} failed: {source}")]
    Compression {
        /// The object.
        kind: ObjectKind,
        /// The chunk.
        chunk: u32,
        /// zstd's error.
        source: std::io::Error,
    },
    /// Reading the source or the stored bytes failed.
    #[error("{action} the {kind} of segment {segment}: {source}")]
    Io {
        /// What was being done ("reading", "writing").
        action: &'static str,
        /// The object.
        kind: ObjectKind,
        /// The segment.
        segment: Uuid,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl EnvelopeError {
    /// A malformed-envelope error.
    pub(crate) fn malformed(segment: Uuid, reason: impl Into<String>) -> Self {
        Self::MalformedEnvelope {
            segment,
            reason: reason.into(),
        }
    }

    /// This error as an [`std::io::Error`] (kind `InvalidData` unless it
    /// wraps one), for readers; [`EnvelopeError::from_io`] gets it back.
    #[must_use]
    pub fn into_io(self) -> std::io::Error {
        let kind = match &self {
            Self::Io { source, .. } => source.kind(),
            _ => std::io::ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, self)
    }

    /// The envelope error an I/O error of a decoding reader carries, if any.
    #[must_use]
    pub fn from_io(err: &std::io::Error) -> Option<&Self> {
        err.get_ref()?.downcast_ref::<Self>()
    }
}

/// The result type of this crate.
pub type Result<T, E = EnvelopeError> = std::result::Result<T, E>;
