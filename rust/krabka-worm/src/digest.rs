//! The two 32-byte values of the archive: an object's SHA-256
//! ([`Sha256Digest`]) and a position of the hash chain ([`ChainHead`]).

use {
    super::{ManifestSeq, WormError, hex},
    sha2::{Digest, Sha256},
    std::str::FromStr,
};

/// The SHA-256 of an object's bytes: the only integrity claim a manifest
/// makes about an object. Text form: 64 lower-case hex characters.
///
/// ```
/// use krabka_worm::Sha256Digest;
/// assert_eq!(
///     Sha256Digest::of(b"abc").to_string(),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Digest(pub [u8; 32]);

impl Sha256Digest {
    /// The SHA-256 of `bytes`.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// The raw 32 bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

hex::hex32_newtype_serde!(Sha256Digest);

/// A position of a partition's hash chain: the SHA-256 that commits to a
/// manifest and, through its `prev_head`, to every manifest before it.
///
/// `head = SHA-256(prev_head ‖ seq as u64 big-endian ‖ canonical body bytes)`;
/// the first manifest of an epoch builds on [`ChainHead::GENESIS`].
/// Text form: 64 lower-case hex characters ([`FromStr`] also accepts
/// upper case, for heads typed in by an operator; JSON accepts lower case
/// only).
///
/// ```
/// use krabka_worm::{ChainHead, ManifestSeq};
/// let head = ChainHead::GENESIS.extend(ManifestSeq(0), b"abc");
/// assert_eq!(head.to_string().len(), 64);
/// assert_eq!(head.to_string().parse::<ChainHead>().unwrap(), head);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChainHead(pub [u8; 32]);

impl ChainHead {
    /// The head every chain epoch starts from: 32 zero bytes.
    pub const GENESIS: Self = Self([0; 32]);

    /// The head after appending `value` at sequence number `seq`:
    /// `SHA-256(self ‖ seq.to_be_bytes() ‖ value)`.
    #[must_use]
    pub fn extend(&self, seq: ManifestSeq, value: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(self.0);
        hasher.update(seq.0.to_be_bytes());
        hasher.update(value);
        Self(hasher.finalize().into())
    }

    /// The raw 32 bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

hex::hex32_newtype_serde!(ChainHead);

impl FromStr for ChainHead {
    type Err = WormError;

    /// Parses 64 hex characters of either case.
    ///
    /// # Errors
    /// [`WormError::InvalidChainHead`] for anything else.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        hex::decode_array::<32>(text, true)
            .map(Self)
            .map_err(|_| WormError::InvalidChainHead {
                text: text.chars().take(80).collect(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_fips_vector() {
        assert_eq!(
            Sha256Digest::of(b"").to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn extend_hashes_prev_seq_and_value_in_that_order() {
        let mut preimage = vec![0u8; 32];
        preimage.extend_from_slice(&7u64.to_be_bytes());
        preimage.extend_from_slice(b"value");
        assert_eq!(
            ChainHead::GENESIS.extend(ManifestSeq(7), b"value").0,
            Sha256Digest::of(&preimage).0
        );
        assert_ne!(
            ChainHead::GENESIS.extend(ManifestSeq(7), b"value"),
            ChainHead::GENESIS.extend(ManifestSeq(8), b"value")
        );
    }

    #[test]
    fn json_form_is_lower_case_hex_of_exactly_32_bytes() {
        let head = ChainHead([0xab; 32]);
        let json = serde_json::to_string(&head).unwrap();
        assert_eq!(json, format!("\"{}\"", "ab".repeat(32)));
        assert_eq!(serde_json::from_str::<ChainHead>(&json).unwrap(), head);
        for bad in [
            format!("\"{}\"", "AB".repeat(32)),
            format!("\"{}\"", "ab".repeat(31)),
            format!("\"{}\"", "ab".repeat(33)),
            format!("\"{}a\"", "ab".repeat(31)),
            "\"\"".to_owned(),
            "null".to_owned(),
            "[1,2]".to_owned(),
        ] {
            assert!(serde_json::from_str::<ChainHead>(&bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<Sha256Digest>(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn from_str_accepts_either_case_but_only_64_hex_digits() {
        let upper = "AB".repeat(32);
        assert_eq!(upper.parse::<ChainHead>().unwrap(), ChainHead([0xab; 32]));
        assert!(matches!(
            "ab".parse::<ChainHead>(),
            Err(WormError::InvalidChainHead { .. })
        ));
        assert!(matches!(
            "zz".repeat(32).parse::<ChainHead>(),
            Err(WormError::InvalidChainHead { .. })
        ));
    }

    #[test]
    fn debug_names_the_type() {
        assert_eq!(
            format!("{:?}", ChainHead::GENESIS),
            format!("ChainHead({})", "0".repeat(64))
        );
    }
}
