//! `WormError`: every way the write-once archive layer can refuse or fail.

use {
    super::{ChainHead, EpochId, ManifestSeq},
    std::{io, path::PathBuf},
};

/// A failure of the write-once (WORM) archive layer.
///
/// The variants are grouped by what they mean to an auditor:
///
/// - **the bytes are not a manifest of this format** — [`WormError::ManifestTooLarge`],
///   [`WormError::ManifestDecode`], [`WormError::ManifestTrailingBytes`],
///   [`WormError::ManifestNotCanonical`], [`WormError::UnsupportedFormatVersion`],
///   [`WormError::MalformedSignature`];
/// - **the manifest is not attested** — [`WormError::Unsigned`],
///   [`WormError::UntrustedKey`] (continuity may still hold, authorship is not proved);
/// - **evidence of tampering** — [`WormError::SignatureInvalid`],
///   [`WormError::PublicKeyMismatch`] and the chain
///   breaks ([`WormError::ChainGap`], [`WormError::ChainReplay`],
///   [`WormError::ChainFork`], [`WormError::ChainHeadMismatch`],
///   [`WormError::ChainEpochMismatch`]);
/// - **configuration and key material** — [`WormError::InvalidKeyId`],
///   [`WormError::InvalidPublicKey`], [`WormError::DuplicateKeyId`],
///   [`WormError::SigningKeyRead`], [`WormError::SigningKeyDecode`];
/// - **chain records in Kafka's custom metadata** —
///   [`WormError::MalformedChainRecord`], [`WormError::UnsupportedChainRecordVersion`],
///   [`WormError::ChainExhausted`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WormError {
    /// The manifest object is larger than [`MAX_MANIFEST_BYTES`](crate::MAX_MANIFEST_BYTES);
    /// it is refused before it is decoded.
    #[error("manifest is {size} bytes, above the {max} byte cap")]
    ManifestTooLarge {
        /// Size of the refused object in bytes.
        size: usize,
        /// The cap.
        max: usize,
    },
    /// The manifest bytes are not JSON of the manifest shape (missing or
    /// unknown fields, wrong types, bad hex, a leader-epoch list out of order).
    #[error("manifest does not decode")]
    ManifestDecode {
        /// The decoder's complaint.
        #[source]
        source: serde_json::Error,
    },
    /// Bytes follow the manifest's JSON value (including whitespace).
    #[error("manifest has {} trailing byte(s) after offset {offset}", len - offset)]
    ManifestTrailingBytes {
        /// Where the JSON value ends.
        offset: usize,
        /// Total length of the object.
        len: usize,
    },
    /// The manifest decodes but is not the one canonical encoding of its
    /// value (whitespace, key order, escapes, upper-case hex, number forms).
    #[error("manifest is not in canonical form: first difference at byte {offset}")]
    ManifestNotCanonical {
        /// Offset of the first byte that differs from the canonical encoding.
        offset: usize,
    },
    /// The manifest declares a format version this build does not read.
    #[error(
        "manifest format version {found} is not supported: this build reads version {supported}"
    )]
    UnsupportedFormatVersion {
        /// The version the manifest declares.
        found: u32,
        /// The only version this build reads and writes.
        supported: u32,
    },
    /// A signature block whose fields have the wrong length.
    #[error("malformed signature by key `{key_id}`: {field} is {len} bytes, expected {expected}")]
    MalformedSignature {
        /// The key id the signature names.
        key_id: String,
        /// `public_key` or `signature`.
        field: &'static str,
        /// The length found.
        len: usize,
        /// The length required.
        expected: usize,
    },
    /// The manifest carries no signature.
    #[error("manifest is unsigned")]
    Unsigned,
    /// The manifest is signed by a key id the trusted key set does not hold.
    #[error("manifest is signed by key `{key_id}`, which is not a trusted key")]
    UntrustedKey {
        /// The key id named by the signature.
        key_id: String,
    },
    /// The public key carried in the signature block is not the key trusted
    /// under its key id. Verification never uses the carried key; a mismatch
    /// is refused so that every byte of a manifest is accounted for.
    #[error("the public key carried for key `{key_id}` is not the trusted key of that id")]
    PublicKeyMismatch {
        /// The key id named by the signature.
        key_id: String,
    },
    /// The signature does not verify against the trusted key registered
    /// under its key id (strict Ed25519 verification).
    #[error("signature does not verify against the trusted key `{key_id}`")]
    SignatureInvalid {
        /// The key id named by the signature.
        key_id: String,
    },
    /// A manifest's sequence number skips ahead of the next expected one: a
    /// manifest is missing or the manifests are out of order.
    #[error(
        "chain gap in epoch {epoch_id}: expected seq {expected}, the manifest records seq {found}"
    )]
    ChainGap {
        /// The chain epoch.
        epoch_id: EpochId,
        /// The next sequence number the chain expects.
        expected: ManifestSeq,
        /// The sequence number the manifest records.
        found: ManifestSeq,
    },
    /// A manifest already accepted at this sequence number is presented again.
    #[error("chain replay in epoch {epoch_id}: seq {seq} was already accepted with the same head")]
    ChainReplay {
        /// The chain epoch.
        epoch_id: EpochId,
        /// The replayed sequence number.
        seq: ManifestSeq,
    },
    /// Two different manifests claim the same chain position.
    #[error(
        "chain fork in epoch {epoch_id} at seq {seq}: head {accepted} was accepted, {conflicting} conflicts"
    )]
    ChainFork {
        /// The chain epoch.
        epoch_id: EpochId,
        /// The contested sequence number.
        seq: ManifestSeq,
        /// Head of the manifest accepted first.
        accepted: ChainHead,
        /// Head of the conflicting manifest.
        conflicting: ChainHead,
    },
    /// A manifest at the expected sequence number does not build on the
    /// running head: it extends some other history.
    #[error(
        "chain head mismatch in epoch {epoch_id} at seq {seq}: the manifest records prev_head {found_prev}, the running head is {expected_prev}"
    )]
    ChainHeadMismatch {
        /// The chain epoch.
        epoch_id: EpochId,
        /// The manifest's sequence number.
        seq: ManifestSeq,
        /// The running head of the chain.
        expected_prev: ChainHead,
        /// The `prev_head` the manifest records.
        found_prev: ChainHead,
    },
    /// A manifest of another chain epoch was presented to a walk of one epoch.
    #[error(
        "chain epoch mismatch: walking epoch {expected}, the manifest belongs to epoch {found}"
    )]
    ChainEpochMismatch {
        /// The epoch being walked.
        expected: EpochId,
        /// The manifest's epoch.
        found: EpochId,
    },
    /// The chain reached sequence number `u64::MAX`; it cannot be extended.
    #[error("chain epoch {epoch_id} is exhausted: seq u64::MAX has no successor")]
    ChainExhausted {
        /// The exhausted epoch.
        epoch_id: EpochId,
    },
    /// Text given as a chain head is not 64 hexadecimal characters.
    #[error("expected 64 hexadecimal characters for a chain head, got `{text}`")]
    InvalidChainHead {
        /// The refused text (at most 80 characters of it).
        text: String,
    },
    /// Custom metadata carries the chain-record magic but does not decode.
    #[error("malformed WORM chain record: {reason}")]
    MalformedChainRecord {
        /// What was wrong.
        reason: String,
    },
    /// A chain record of a version this build does not read.
    #[error("unsupported WORM chain record version {found}: this build reads version {supported}")]
    UnsupportedChainRecordVersion {
        /// The version byte found.
        found: u8,
        /// The version this build reads and writes.
        supported: u8,
    },
    /// A key id that is empty, too long, or uses characters outside
    /// `[A-Za-z0-9._-]`.
    #[error("invalid key id `{key_id}`: {reason}")]
    InvalidKeyId {
        /// The refused key id.
        key_id: String,
        /// What rule it breaks.
        reason: &'static str,
    },
    /// A public key that is not 32 bytes, not a curve point, or of small order.
    #[error("invalid public key for key id `{key_id}`: {reason}")]
    InvalidPublicKey {
        /// The key id it was registered under.
        key_id: String,
        /// What was wrong.
        reason: &'static str,
    },
    /// A trusted key set was given the same key id twice.
    #[error("key id `{key_id}` is given more than once")]
    DuplicateKeyId {
        /// The repeated key id.
        key_id: String,
    },
    /// The signing key file could not be read.
    #[error("cannot read signing key `{}`", path.display())]
    SigningKeyRead {
        /// The key file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The signing key is not an unencrypted PKCS#8 Ed25519 key (DER or PEM),
    /// or its file is larger than any such key.
    #[error("signing key {origin} is not an unencrypted PKCS#8 Ed25519 key: {reason}")]
    SigningKeyDecode {
        /// The file path, or `bytes` for an in-memory key.
        origin: String,
        /// What was wrong.
        reason: String,
        /// The PKCS#8 decoder's error, when it refused the key.
        #[source]
        source: Option<ed25519_dalek::pkcs8::Error>,
    },
}

/// A [`WormError`] as the SPI's error, the `WormError` kept as the typed
/// cause: key and configuration problems are
/// [`RemoteStorageError::Config`](krabka_kafka::RemoteStorageError::Config),
/// an exhausted chain is
/// [`RemoteStorageError::Refused`](krabka_kafka::RemoteStorageError::Refused),
/// every manifest or chain-record defect is
/// [`RemoteStorageError::Integrity`](krabka_kafka::RemoteStorageError::Integrity).
impl From<WormError> for krabka_kafka::RemoteStorageError {
    fn from(err: WormError) -> Self {
        match err {
            WormError::SigningKeyRead { .. }
            | WormError::SigningKeyDecode { .. }
            | WormError::InvalidKeyId { .. }
            | WormError::InvalidPublicKey { .. }
            | WormError::DuplicateKeyId { .. }
            | WormError::InvalidChainHead { .. } => Self::Config {
                what: "write-once archive",
                source: Box::new(err),
            },
            WormError::ChainExhausted { .. } => Self::Refused(err.to_string()),
            other => Self::Integrity {
                what: "WORM manifest",
                source: Box::new(other),
            },
        }
    }
}

#[cfg(test)]
mod spi_tests {
    use {
        super::*,
        krabka_kafka::{ErrorClass, RemoteStorageError},
    };

    #[test]
    fn worm_errors_keep_their_type_across_the_spi() {
        let err = RemoteStorageError::from(WormError::Unsigned);
        assert_eq!(err.class(), ErrorClass::Integrity);
        let RemoteStorageError::Integrity { source, .. } = err else {
            panic!("not an integrity error");
        };
        assert!(matches!(
            source.downcast_ref::<WormError>(),
            Some(WormError::Unsigned)
        ));
        let exhausted = RemoteStorageError::from(WormError::ChainExhausted {
            epoch_id: EpochId(uuid::Uuid::nil()),
        });
        assert_eq!(exhausted.class(), ErrorClass::Refused);
    }
}
