//! Keys of the compacted `__diskless_wal_index` topic. Big-endian, led by an
//! `i16` key version that doubles as the key kind, so neither kind decodes
//! as the other.

use {super::DisklessError, uuid::Uuid};

/// Key of the replay fence record: a keyed record with an empty value that
/// every projection ignores. It has no version; its first two bytes (`__`)
/// are no key version.
pub const REPLAY_FENCE_KEY: &[u8] = b"__krabka_diskless_replay_fence";

/// The version in a key's first two bytes, if it has two bytes.
///
/// ```
/// use krabka_diskless::{WalDeleteFloorKey, wal_index_key_version};
/// use uuid::Uuid;
/// let key = WalDeleteFloorKey { topic_id: Uuid::nil(), partition: 0 }.encode();
/// assert_eq!(wal_index_key_version(&key), Some(1));
/// assert_eq!(wal_index_key_version(b"x"), None);
/// ```
#[must_use]
pub fn wal_index_key_version(key: &[u8]) -> Option<i16> {
    key.first_chunk::<2>().map(|v| i16::from_be_bytes(*v))
}

/// Checks a key's version and length before it is decoded.
fn check(key: &[u8], kind: &'static str, version: i16, len: usize) -> Result<(), DisklessError> {
    let found =
        wal_index_key_version(key).ok_or(DisklessError::IndexKeyTooShort { len: key.len() })?;
    if found != version {
        return Err(DisklessError::IndexKeyKindMismatch {
            kind,
            expected: version,
            found,
        });
    }
    if key.len() != len {
        return Err(DisklessError::IndexKeyLength {
            kind,
            len: key.len(),
            expected: len,
        });
    }
    Ok(())
}

/// The first `N` bytes of `bytes` after `skip`; callers check lengths first.
fn field<const N: usize>(bytes: &[u8], skip: usize) -> [u8; N] {
    bytes
        .get(skip..)
        .and_then(|rest| rest.first_chunk::<N>())
        .copied()
        .unwrap_or([0; N])
}

/// Key of the committed index range of `partition` of `topic_id` that
/// starts at `first_offset`:
/// `version i16 = 0 | topic_id 16 | partition i32 | first_offset i64`, 30 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WalIndexKey {
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition.
    pub partition: i32,
    /// First offset of the range.
    pub first_offset: i64,
}

impl WalIndexKey {
    /// Key version, which is also the key kind.
    pub const KEY_VERSION: i16 = 0;
    /// Encoded length.
    pub const LEN: usize = 30;

    /// The key's bytes.
    #[must_use]
    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..2].copy_from_slice(&Self::KEY_VERSION.to_be_bytes());
        out[2..18].copy_from_slice(self.topic_id.as_bytes());
        out[18..22].copy_from_slice(&self.partition.to_be_bytes());
        out[22..30].copy_from_slice(&self.first_offset.to_be_bytes());
        out
    }

    /// Decodes a range key.
    ///
    /// # Errors
    /// [`DisklessError::IndexKeyTooShort`],
    /// [`DisklessError::IndexKeyKindMismatch`] (another kind, or no key of
    /// ours), [`DisklessError::IndexKeyLength`].
    pub fn decode(key: &[u8]) -> Result<Self, DisklessError> {
        check(key, "range", Self::KEY_VERSION, Self::LEN)?;
        Ok(Self {
            topic_id: Uuid::from_bytes(field(key, 2)),
            partition: i32::from_be_bytes(field(key, 18)),
            first_offset: i64::from_be_bytes(field(key, 22)),
        })
    }
}

/// Key of the durable `DeleteRecords` floor of `partition` of `topic_id`:
/// `version i16 = 1 | topic_id 16 | partition i32`, 22 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WalDeleteFloorKey {
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition.
    pub partition: i32,
}

impl WalDeleteFloorKey {
    /// Key version, which is also the key kind.
    pub const KEY_VERSION: i16 = 1;
    /// Encoded length.
    pub const LEN: usize = 22;

    /// The key's bytes.
    #[must_use]
    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..2].copy_from_slice(&Self::KEY_VERSION.to_be_bytes());
        out[2..18].copy_from_slice(self.topic_id.as_bytes());
        out[18..22].copy_from_slice(&self.partition.to_be_bytes());
        out
    }

    /// Decodes a delete-floor key.
    ///
    /// # Errors
    /// As [`WalIndexKey::decode`].
    pub fn decode(key: &[u8]) -> Result<Self, DisklessError> {
        check(key, "delete-floor", Self::KEY_VERSION, Self::LEN)?;
        Ok(Self {
            topic_id: Uuid::from_bytes(field(key, 2)),
            partition: i32::from_be_bytes(field(key, 18)),
        })
    }
}

/// Any key of the `__diskless_wal_index` topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalIndexRecordKey {
    /// A committed range.
    Range(WalIndexKey),
    /// A delete floor.
    DeleteFloor(WalDeleteFloorKey),
    /// The replay fence ([`REPLAY_FENCE_KEY`]).
    ReplayFence,
}

impl WalIndexRecordKey {
    /// Classifies and decodes a key.
    ///
    /// # Errors
    /// [`DisklessError::IndexKeyTooShort`],
    /// [`DisklessError::UnknownIndexKeyVersion`],
    /// [`DisklessError::IndexKeyLength`].
    pub fn decode(key: &[u8]) -> Result<Self, DisklessError> {
        if key == REPLAY_FENCE_KEY {
            return Ok(Self::ReplayFence);
        }
        match wal_index_key_version(key) {
            None => Err(DisklessError::IndexKeyTooShort { len: key.len() }),
            Some(WalIndexKey::KEY_VERSION) => WalIndexKey::decode(key).map(Self::Range),
            Some(WalDeleteFloorKey::KEY_VERSION) => {
                WalDeleteFloorKey::decode(key).map(Self::DeleteFloor)
            }
            Some(version) => Err(DisklessError::UnknownIndexKeyVersion { version }),
        }
    }
}
