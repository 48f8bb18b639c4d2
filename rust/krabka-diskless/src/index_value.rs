//! Values of the `__diskless_wal_index` topic: an `i16` big-endian version
//! followed by a wincode body.

use {
    super::{
        DisklessError, WalIndexKey, WincodeError,
        wincode::{Reader, Writer},
    },
    serde::{Deserialize, Serialize},
    uuid::Uuid,
};

/// Minimum wincode size of a [`WalIndexEntry`].
const ENTRY_MIN_LEN: u64 = 24 + 4 + 8 + 8 + 8 + 4 + 8;

/// One committed range: offsets `first_offset..=last_offset` of a partition
/// live at `byte_start..byte_start + byte_len` of a WAL object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalIndexEntry {
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition.
    pub partition: i32,
    /// First offset.
    pub first_offset: i64,
    /// Last offset (inclusive).
    pub last_offset: i64,
    /// Offset of the run within its WAL object.
    pub byte_start: u64,
    /// Length of the run.
    pub byte_len: u32,
    /// Largest record timestamp in the range (drives `retention.ms`).
    pub max_timestamp_ms: i64,
}

impl WalIndexEntry {
    fn write(&self, w: &mut Writer) {
        w.uuid(&self.topic_id);
        w.i32(self.partition);
        w.i64(self.first_offset);
        w.i64(self.last_offset);
        w.u64(self.byte_start);
        w.u32(self.byte_len);
        w.i64(self.max_timestamp_ms);
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, WincodeError> {
        Ok(Self {
            topic_id: r.uuid()?,
            partition: r.i32()?,
            first_offset: r.i64()?,
            last_offset: r.i64()?,
            byte_start: r.u64()?,
            byte_len: r.u32()?,
            max_timestamp_ms: r.i64()?,
        })
    }

    /// The range key this entry is published under.
    #[must_use]
    pub fn key(&self) -> WalIndexKey {
        WalIndexKey {
            topic_id: self.topic_id,
            partition: self.partition,
            first_offset: self.first_offset,
        }
    }
}

/// Splits a value into its version and body.
fn versioned<'a>(value: &'a [u8], record: &'static str) -> Result<(i16, &'a [u8]), DisklessError> {
    value
        .split_first_chunk::<2>()
        .map(|(version, body)| (i16::from_be_bytes(*version), body))
        .ok_or(DisklessError::RecordTooShort {
            record,
            len: value.len(),
        })
}

/// The record a flusher publishes for a WAL object: the object's key and
/// the ranges it holds. Value: `2 as i16 BE ‖ wincode(object_key, entries)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalFlushRecord {
    /// Key of the WAL object in the store.
    pub object_key: String,
    /// The ranges the object holds.
    pub entries: Vec<WalIndexEntry>,
}

impl WalFlushRecord {
    /// The value version this build writes and reads.
    pub const FORMAT_VERSION: i16 = 2;
    const RECORD: &'static str = "index record";

    /// The record's value bytes.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Self::FORMAT_VERSION.to_be_bytes().to_vec());
        w.str(&self.object_key);
        w.len(self.entries.len());
        for entry in &self.entries {
            entry.write(&mut w);
        }
        w.0
    }

    /// Decodes a value.
    ///
    /// # Errors
    /// [`DisklessError::RecordTooShort`],
    /// [`DisklessError::UnsupportedFlushRecordVersion`],
    /// [`DisklessError::MalformedRecord`].
    pub fn decode(value: &[u8]) -> Result<Self, DisklessError> {
        let (version, body) = versioned(value, Self::RECORD)?;
        if version != Self::FORMAT_VERSION {
            return Err(DisklessError::UnsupportedFlushRecordVersion { found: version });
        }
        let malformed = |source| DisklessError::MalformedRecord {
            record: Self::RECORD,
            source,
        };
        let mut r = Reader::new(body);
        let object_key = r.str().map_err(malformed)?;
        let count = r.seq_len(ENTRY_MIN_LEN).map_err(malformed)?;
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            entries.push(WalIndexEntry::read(&mut r).map_err(malformed)?);
        }
        r.finish().map_err(malformed)?;
        Ok(Self {
            object_key,
            entries,
        })
    }
}

/// The one-range keyed record a flusher publishes for `entry` of the WAL
/// object `object_key`: the range key and a flush-record value.
#[must_use]
pub fn keyed_entry(object_key: &str, entry: WalIndexEntry) -> ([u8; WalIndexKey::LEN], Vec<u8>) {
    let value = WalFlushRecord {
        object_key: object_key.to_owned(),
        entries: vec![entry],
    }
    .encode();
    (entry.key().encode(), value)
}

/// The durable `DeleteRecords` floor of a partition. Value:
/// `0 as i16 BE ‖ wincode(topic_id, partition, floor)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WalDeleteFloorRecord {
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition.
    pub partition: i32,
    /// Offsets below the floor are deleted.
    pub floor: i64,
}

impl WalDeleteFloorRecord {
    /// The value version this build writes and reads.
    pub const VERSION: i16 = 0;
    const RECORD: &'static str = "delete-floor record";

    /// The record's value bytes.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Self::VERSION.to_be_bytes().to_vec());
        w.uuid(&self.topic_id);
        w.i32(self.partition);
        w.i64(self.floor);
        w.0
    }

    /// Decodes a value.
    ///
    /// # Errors
    /// [`DisklessError::RecordTooShort`],
    /// [`DisklessError::UnsupportedFloorRecordVersion`],
    /// [`DisklessError::MalformedRecord`].
    pub fn decode(value: &[u8]) -> Result<Self, DisklessError> {
        let (version, body) = versioned(value, Self::RECORD)?;
        if version != Self::VERSION {
            return Err(DisklessError::UnsupportedFloorRecordVersion { found: version });
        }
        let malformed = |source| DisklessError::MalformedRecord {
            record: Self::RECORD,
            source,
        };
        let mut r = Reader::new(body);
        let record = Self {
            topic_id: r.uuid().map_err(malformed)?,
            partition: r.i32().map_err(malformed)?,
            floor: r.i64().map_err(malformed)?,
        };
        r.finish().map_err(malformed)?;
        Ok(record)
    }
}
