//! [`LogEntry`]: what one leaf of the archive log records — a sealed
//! manifest, by the key of its chain seal and the SHA-256 of its bytes.

use {
    super::error::LogError,
    crate::digest::Sha256Digest,
    sha2::{Digest, Sha256},
};

/// The domain that starts every entry.
pub const LOG_ENTRY_DOMAIN: &[u8] = b"krabka-worm-log-entry-v1\0";

/// The longest seal key an entry holds.
pub const MAX_SEAL_KEY_BYTES: usize = 1024;

/// One leaf of the archive log: the chain seal of a committed segment copy.
///
/// Bytes: [`LOG_ENTRY_DOMAIN`] ‖ `u16` length of the key ‖ the seal's key
/// relative to the archive prefix (UTF-8) ‖ the 32-byte SHA-256 of the seal
/// object's bytes. The seal names its partition, chain epoch and sequence
/// number; its hash commits to the whole manifest, signature included.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LogEntry {
    /// The seal's key, relative to the archive prefix
    /// (`<topic>-<partition>-<topic id>/_chain/<epoch>/<seq>.seal`).
    pub seal_key: String,
    /// SHA-256 of the seal object.
    pub seal_sha256: Sha256Digest,
}

impl LogEntry {
    /// The entry of a seal stored under `seal_key` with these `bytes`.
    #[must_use]
    pub fn of_seal(seal_key: &str, bytes: &[u8]) -> Self {
        Self {
            seal_key: seal_key.to_owned(),
            seal_sha256: Sha256Digest(Sha256::digest(bytes).into()),
        }
    }

    /// The entry's bytes.
    ///
    /// # Errors
    /// [`LogError::TooLarge`] for a key above [`MAX_SEAL_KEY_BYTES`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, LogError> {
        let key = self.seal_key.as_bytes();
        if key.len() > MAX_SEAL_KEY_BYTES {
            return Err(LogError::TooLarge {
                what: "seal key",
                size: key.len(),
                max: MAX_SEAL_KEY_BYTES,
            });
        }
        let mut out = Vec::with_capacity(LOG_ENTRY_DOMAIN.len() + 2 + key.len() + 32);
        out.extend_from_slice(LOG_ENTRY_DOMAIN);
        out.extend_from_slice(&(key.len() as u16).to_be_bytes());
        out.extend_from_slice(key);
        out.extend_from_slice(&self.seal_sha256.0);
        Ok(out)
    }

    /// Decodes an entry; exactly one encoding is accepted.
    ///
    /// # Errors
    /// [`LogError::Malformed`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LogError> {
        let malformed = |reason: &str| LogError::Malformed {
            what: "log entry",
            reason: reason.to_owned(),
        };
        let rest = bytes
            .strip_prefix(LOG_ENTRY_DOMAIN)
            .ok_or_else(|| malformed("it does not start with the entry domain"))?;
        let (len, rest) = rest
            .split_first_chunk::<2>()
            .ok_or_else(|| malformed("truncated before the key length"))?;
        let len = usize::from(u16::from_be_bytes(*len));
        if len == 0 || len > MAX_SEAL_KEY_BYTES {
            return Err(malformed("the key length is 0 or above the cap"));
        }
        if rest.len() != len + 32 {
            return Err(malformed("its length does not match the key length"));
        }
        let (key, hash) = rest.split_at(len);
        let seal_key = std::str::from_utf8(key)
            .map_err(|_| malformed("the key is not UTF-8"))?
            .to_owned();
        Ok(Self {
            seal_key,
            seal_sha256: Sha256Digest(hash.try_into().unwrap_or([0; 32])),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_round_trips_and_refuses_other_bytes() {
        let entry = LogEntry::of_seal(
            "t-0-AAAAAAAAAAAAAAAAAAAAAA/_chain/e/00000000000000000000.seal",
            b"seal",
        );
        let bytes = entry.to_bytes().unwrap();
        assert_eq!(LogEntry::from_bytes(&bytes).unwrap(), entry);
        assert!(LogEntry::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(LogEntry::from_bytes(&longer).is_err());
        assert!(LogEntry::from_bytes(&bytes[1..]).is_err());
        let long = LogEntry::of_seal(&"k".repeat(MAX_SEAL_KEY_BYTES + 1), b"");
        assert!(long.to_bytes().is_err());
    }
}
