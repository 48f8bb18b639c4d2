//! [`LogError`]: every way the archive log's formats and proofs can refuse.

/// A failure of the archive log layer: a note, checkpoint, tile, entry or
/// proof that does not decode or does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// Bytes that are not of the format `what` names.
    #[error("malformed {what}: {reason}")]
    Malformed {
        /// What was being read (`checkpoint`, `signed note`, `tile`, ...).
        what: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// Bytes larger than the format's cap, refused before decoding.
    #[error("{what} is {size} bytes, above the {max} byte cap")]
    TooLarge {
        /// What was being read.
        what: &'static str,
        /// Its size.
        size: usize,
        /// The cap.
        max: usize,
    },
    /// A tree size, index or range a proof cannot be about (an index at or
    /// past the tree size, a first tree larger than the second, a size above
    /// 2^63 − 1).
    #[error("invalid tree range: {detail}")]
    InvalidRange {
        /// Which numbers, and why.
        detail: String,
    },
    /// A proof that does not prove what it claims.
    #[error("{what} proof does not verify: {detail}")]
    ProofInvalid {
        /// `inclusion` or `consistency`.
        what: &'static str,
        /// Why.
        detail: String,
    },
    /// A note whose signature by a key it names does not verify.
    #[error("signature of {name} does not verify")]
    SignatureInvalid {
        /// The key name.
        name: String,
    },
    /// A note without a signature by any key the reader knows.
    #[error("no signature by a known key")]
    NoKnownSignature,
    /// A key or key name that cannot be used (bad vkey encoding, a name with
    /// spaces or `+`, a public key that is no valid Ed25519 point).
    #[error("invalid key: {reason}")]
    InvalidKey {
        /// Why.
        reason: String,
    },
    /// A hash the tree needs and the source cannot give.
    #[error("hash at level {level}, index {index} is not available: {reason}")]
    HashUnavailable {
        /// Level of the subtree (0 for leaves).
        level: u8,
        /// Index of the subtree at that level.
        index: u64,
        /// Why.
        reason: String,
    },
}
