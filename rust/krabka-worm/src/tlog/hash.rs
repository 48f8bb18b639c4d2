//! [`LogHash`]: the RFC 6962 hashes of the archive log's Merkle tree.

use {
    super::error::LogError,
    base64::{Engine as _, engine::general_purpose::STANDARD},
    sha2::{Digest, Sha256},
    std::fmt,
};

/// A SHA-256 hash in the archive log's Merkle tree: a leaf hash
/// (`SHA-256(00 ‖ entry)`), an interior node (`SHA-256(01 ‖ left ‖ right)`)
/// or a tree's root, as RFC 6962 §2.1 and C2SP tlog-tiles define them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LogHash(pub [u8; 32]);

impl LogHash {
    /// The root of the empty tree: `SHA-256("")`.
    #[must_use]
    pub fn empty_root() -> Self {
        Self(Sha256::digest([]).into())
    }

    /// The hash of the leaf holding `entry`: `SHA-256(00 ‖ entry)`.
    #[must_use]
    pub fn leaf(entry: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update([0u8]);
        hasher.update(entry);
        Self(hasher.finalize().into())
    }

    /// The hash of an interior node: `SHA-256(01 ‖ left ‖ right)`.
    #[must_use]
    pub fn node(left: &Self, right: &Self) -> Self {
        let mut hasher = Sha256::new();
        hasher.update([1u8]);
        hasher.update(left.0);
        hasher.update(right.0);
        Self(hasher.finalize().into())
    }

    /// The hash in standard base64 with padding, as checkpoints and proofs
    /// carry it.
    #[must_use]
    pub fn to_base64(&self) -> String {
        STANDARD.encode(self.0)
    }

    /// A hash from its standard base64 form; anything but the canonical
    /// 44-character encoding of 32 bytes is refused.
    ///
    /// # Errors
    /// [`LogError::Malformed`] naming `what`.
    pub fn from_base64(text: &str, what: &'static str) -> Result<Self, LogError> {
        let malformed = |reason: &str| LogError::Malformed {
            what,
            reason: reason.to_owned(),
        };
        if text.len() != 44 {
            return Err(malformed("not 44 characters of base64"));
        }
        let bytes = STANDARD.decode(text).map_err(|_| malformed("not base64"))?;
        let hash: [u8; 32] = bytes.try_into().map_err(|_| malformed("not 32 bytes"))?;
        if STANDARD.encode(hash) != text {
            return Err(malformed("not canonical base64"));
        }
        Ok(Self(hash))
    }

    /// The hash in lower-case hex.
    #[must_use]
    pub fn to_hex(&self) -> String {
        crate::hex::encode(&self.0)
    }

    /// The root of a perfect subtree whose leaves (or subtree roots) are
    /// `hashes`, a power-of-two count of them; `None` for any other count.
    #[must_use]
    pub fn perfect_root(hashes: &[Self]) -> Option<Self> {
        if !hashes.len().is_power_of_two() {
            return None;
        }
        let mut level = hashes.to_vec();
        while level.len() > 1 {
            level = level
                .chunks_exact(2)
                .map(|pair| Self::node(&pair[0], &pair[1]))
                .collect();
        }
        level.first().copied()
    }
}

impl fmt::Debug for LogHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LogHash({})", self.to_hex())
    }
}

impl fmt::Display for LogHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_base64())
    }
}

impl serde::Serialize for LogHash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_base64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_root_and_the_empty_leaf_are_rfc_6962s() {
        assert_eq!(
            LogHash::empty_root().to_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            LogHash::leaf(b"").to_hex(),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
    }

    #[test]
    fn base64_round_trips_and_refuses_non_canonical_forms() {
        let hash = LogHash::leaf(b"x");
        assert_eq!(LogHash::from_base64(&hash.to_base64(), "h").unwrap(), hash);
        assert!(LogHash::from_base64("AAAA", "h").is_err());
        let mut text = hash.to_base64();
        text.replace_range(42..43, "B");
        // The last character before `=` carries two unused bits; a flip there
        // decodes to the same bytes but is not canonical, or to other bytes.
        let reparsed = LogHash::from_base64(&text, "h");
        assert!(reparsed.is_err() || reparsed.unwrap() != hash);
    }

    #[test]
    fn a_perfect_root_needs_a_power_of_two() {
        let leaves: Vec<_> = (0u8..4).map(|i| LogHash::leaf(&[i])).collect();
        let expected = LogHash::node(
            &LogHash::node(&leaves[0], &leaves[1]),
            &LogHash::node(&leaves[2], &leaves[3]),
        );
        assert_eq!(LogHash::perfect_root(&leaves), Some(expected));
        assert_eq!(LogHash::perfect_root(&leaves[..3]), None);
        assert_eq!(LogHash::perfect_root(&[]), None);
    }
}
