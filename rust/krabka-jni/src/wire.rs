//! The byte format that carries Kafka's metadata objects across the JNI
//! boundary.
//!
//! The Java adapters encode `RemoteLogSegmentMetadata` and friends with
//! `io.krabka.remote.storage.Wire` into one `byte[]` per call; this module
//! decodes them into the model of `krabka-remote-storage` and encodes results
//! back. One array per call keeps the glue free of per-field JNI calls.
//!
//! All integers are big-endian (Java's `DataOutputStream`). Strings are a
//! `u32` byte length and UTF-8. Absent optionals are a length of `-1`.
//!
//! ```text
//! partition  := topic_id:16 topic:string partition:i32
//! segment_id := partition segment_uuid:16
//! metadata   := segment_id start:i64 end:i64 max_ts:i64 broker:i32 event_ts:i64
//!               size:i32 state:u8 txn_idx_empty:u8 custom:bytes? epochs
//! epochs     := count:i32 (epoch:i32 start_offset:i64){count}
//! update     := segment_id event_ts:i64 custom:bytes? state:u8 broker:i32
//! delete     := partition state:u8 event_ts:i64 broker:i32
//! config     := count:i32 (key:string value:string){count}
//! ```
//!
//! Decoding never trusts a length or count: each is checked against the bytes
//! that remain before anything is allocated, and trailing bytes are refused.

use {
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        CustomMetadata, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState, RemotePartitionDeleteMetadata,
        RemotePartitionDeleteState, TopicIdPartition,
    },
    std::collections::{BTreeMap, HashSet},
    uuid::Uuid,
};

/// Smallest encoding of one leader-epoch entry.
const EPOCH_ENTRY_LEN: usize = 4 + 8;
/// Smallest encoding of a partition (empty topic name).
const MIN_PARTITION_LEN: usize = 16 + 4 + 4;
/// Smallest encoding of a config entry (two empty strings).
const MIN_CONFIG_ENTRY_LEN: usize = 4 + 4;

/// Why bytes from the Java side did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The input ended inside a field.
    #[error("truncated {field}: needed {needed} more bytes, {remaining} left")]
    Truncated {
        /// The field being read.
        field: &'static str,
        /// Bytes the field needed.
        needed: usize,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A length or count was negative or larger than the input.
    #[error("invalid {field} length {value}")]
    BadLength {
        /// The field whose length was wrong.
        field: &'static str,
        /// The value read.
        value: i32,
    },
    /// A string was not UTF-8.
    #[error("{field} is not valid UTF-8")]
    BadUtf8 {
        /// The field.
        field: &'static str,
    },
    /// An enum byte had no meaning.
    #[error("unknown {field} id {value}")]
    UnknownId {
        /// The field.
        field: &'static str,
        /// The value read.
        value: u8,
    },
    /// Bytes were left over after the value.
    #[error("{count} trailing bytes after the {what}")]
    Trailing {
        /// The value that was decoded.
        what: &'static str,
        /// How many bytes were left.
        count: usize,
    },
    /// The fields decoded but do not make a valid value.
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// The value.
        what: &'static str,
        /// Why it was refused.
        reason: String,
    },
}

/// A cursor over bytes from the Java side.
#[derive(Debug)]
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, field: &'static str, len: usize) -> Result<&'a [u8], WireError> {
        if len > self.bytes.len() {
            return Err(WireError::Truncated {
                field,
                needed: len,
                remaining: self.bytes.len(),
            });
        }
        let (head, tail) = self.bytes.split_at(len);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], WireError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(field, N)?);
        Ok(out)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, WireError> {
        Ok(self.array::<1>(field)?[0])
    }

    fn bool(&mut self, field: &'static str) -> Result<bool, WireError> {
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(WireError::UnknownId { field, value }),
        }
    }

    fn i32(&mut self, field: &'static str) -> Result<i32, WireError> {
        Ok(i32::from_be_bytes(self.array(field)?))
    }

    fn i64(&mut self, field: &'static str) -> Result<i64, WireError> {
        Ok(i64::from_be_bytes(self.array(field)?))
    }

    fn uuid(&mut self, field: &'static str) -> Result<Uuid, WireError> {
        Ok(Uuid::from_bytes(self.array(field)?))
    }

    /// A length or count, checked to leave room for `count * min_item` bytes.
    fn count(&mut self, field: &'static str, min_item: usize) -> Result<usize, WireError> {
        let value = self.i32(field)?;
        let count = usize::try_from(value).map_err(|_| WireError::BadLength { field, value })?;
        if count.saturating_mul(min_item.max(1)) > self.bytes.len() {
            return Err(WireError::BadLength { field, value });
        }
        Ok(count)
    }

    fn string(&mut self, field: &'static str) -> Result<String, WireError> {
        let len = self.count(field, 1)?;
        let bytes = self.take(field, len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError::BadUtf8 { field })
    }

    fn optional_bytes(&mut self, field: &'static str) -> Result<Option<Vec<u8>>, WireError> {
        let value = self.i32(field)?;
        if value == -1 {
            return Ok(None);
        }
        let len = usize::try_from(value).map_err(|_| WireError::BadLength { field, value })?;
        Ok(Some(self.take(field, len)?.to_vec()))
    }

    fn finish(self, what: &'static str) -> Result<(), WireError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(WireError::Trailing {
                what,
                count: self.bytes.len(),
            })
        }
    }

    fn partition(&mut self) -> Result<TopicIdPartition, WireError> {
        let topic_id = self.uuid("topic id")?;
        let topic = self.string("topic name")?;
        let partition = self.i32("partition")?;
        Ok(TopicIdPartition::new(topic_id, topic, partition))
    }

    fn segment_id(&mut self) -> Result<RemoteLogSegmentId, WireError> {
        let partition = self.partition()?;
        Ok(RemoteLogSegmentId::new(partition, self.uuid("segment id")?))
    }

    fn segment_state(&mut self) -> Result<RemoteLogSegmentState, WireError> {
        let field = "segment state";
        let value = self.u8(field)?;
        RemoteLogSegmentState::from_id(value).ok_or(WireError::UnknownId { field, value })
    }

    fn metadata(&mut self) -> Result<RemoteLogSegmentMetadata, WireError> {
        let id = self.segment_id()?;
        let start_offset = self.i64("start offset")?;
        let end_offset = self.i64("end offset")?;
        let max_timestamp_ms = self.i64("max timestamp")?;
        let broker_id = self.i32("broker id")?;
        let event_timestamp_ms = self.i64("event timestamp")?;
        let size = self.i32("segment size")?;
        let state = self.segment_state()?;
        let txn_index_empty = self.bool("txn index empty")?;
        let custom = self.optional_bytes("custom metadata")?;
        let count = self.count("leader epoch count", EPOCH_ENTRY_LEN)?;
        let mut epochs = BTreeMap::new();
        for _ in 0..count {
            let epoch = LeaderEpoch(self.i32("leader epoch")?);
            epochs.insert(epoch, self.i64("leader epoch start offset")?);
        }
        let details = RemoteLogSegmentDetails::new(size, state, epochs);
        RemoteLogSegmentMetadata::new(
            id,
            start_offset,
            end_offset,
            max_timestamp_ms,
            broker_id,
            event_timestamp_ms,
            details,
        )
        .map(|metadata| {
            metadata
                .with_custom_metadata(custom.map(CustomMetadata))
                .with_txn_index_empty(txn_index_empty)
        })
        .map_err(|err| WireError::Invalid {
            what: "segment metadata",
            reason: err.to_string(),
        })
    }
}

/// Decodes one segment's metadata.
///
/// # Errors
/// [`WireError`] for malformed bytes or metadata Kafka would refuse.
pub fn decode_metadata(bytes: &[u8]) -> Result<RemoteLogSegmentMetadata, WireError> {
    let mut reader = Reader { bytes };
    let metadata = reader.metadata()?;
    reader.finish("segment metadata")?;
    Ok(metadata)
}

/// Decodes a segment metadata update.
///
/// # Errors
/// [`WireError`] for malformed bytes.
pub fn decode_update(bytes: &[u8]) -> Result<RemoteLogSegmentMetadataUpdate, WireError> {
    let mut reader = Reader { bytes };
    let id = reader.segment_id()?;
    let event_timestamp_ms = reader.i64("event timestamp")?;
    let custom = reader.optional_bytes("custom metadata")?;
    let state = reader.segment_state()?;
    let broker_id = reader.i32("broker id")?;
    reader.finish("segment metadata update")?;
    Ok(RemoteLogSegmentMetadataUpdate::new(
        id,
        event_timestamp_ms,
        custom.map(CustomMetadata),
        state,
        broker_id,
    ))
}

/// Decodes a partition-delete record.
///
/// # Errors
/// [`WireError`] for malformed bytes.
pub fn decode_partition_delete(bytes: &[u8]) -> Result<RemotePartitionDeleteMetadata, WireError> {
    let mut reader = Reader { bytes };
    let partition = reader.partition()?;
    let field = "partition delete state";
    let value = reader.u8(field)?;
    let state =
        RemotePartitionDeleteState::from_id(value).ok_or(WireError::UnknownId { field, value })?;
    let event_timestamp_ms = reader.i64("event timestamp")?;
    let broker_id = reader.i32("broker id")?;
    reader.finish("partition delete metadata")?;
    Ok(RemotePartitionDeleteMetadata::new(
        partition,
        state,
        event_timestamp_ms,
        broker_id,
    ))
}

/// Decodes one partition.
///
/// # Errors
/// [`WireError`] for malformed bytes.
pub fn decode_partition(bytes: &[u8]) -> Result<TopicIdPartition, WireError> {
    let mut reader = Reader { bytes };
    let partition = reader.partition()?;
    reader.finish("partition")?;
    Ok(partition)
}

/// Decodes a set of partitions (a count, then each partition).
///
/// # Errors
/// [`WireError`] for malformed bytes.
pub fn decode_partitions(bytes: &[u8]) -> Result<HashSet<TopicIdPartition>, WireError> {
    let mut reader = Reader { bytes };
    let count = reader.count("partition count", MIN_PARTITION_LEN)?;
    let mut partitions = HashSet::with_capacity(count);
    for _ in 0..count {
        partitions.insert(reader.partition()?);
    }
    reader.finish("partition set")?;
    Ok(partitions)
}

/// Decodes configuration entries, in the order they were written.
///
/// # Errors
/// [`WireError`] for malformed bytes.
pub fn decode_config(bytes: &[u8]) -> Result<Vec<(String, String)>, WireError> {
    let mut reader = Reader { bytes };
    let count = reader.count("config entry count", MIN_CONFIG_ENTRY_LEN)?;
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let key = reader.string("config key")?;
        let value = reader.string("config value")?;
        entries.push((key, value));
    }
    reader.finish("config")?;
    Ok(entries)
}

/// Appends the encodings this module decodes.
#[derive(Debug, Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// The bytes written so far.
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    fn i32(&mut self, value: i32) {
        self.bytes.extend_from_slice(&value.to_be_bytes());
    }

    fn i64(&mut self, value: i64) {
        self.bytes.extend_from_slice(&value.to_be_bytes());
    }

    /// A length as Java's `int`; the model's sizes are far below `i32::MAX`,
    /// and a larger one would be refused by the Java decoder.
    fn len(&mut self, len: usize) {
        self.i32(i32::try_from(len).unwrap_or(i32::MAX));
    }

    fn string(&mut self, value: &str) {
        self.len(value.len());
        self.bytes.extend_from_slice(value.as_bytes());
    }

    fn partition(&mut self, partition: &TopicIdPartition) {
        self.bytes.extend_from_slice(partition.topic_id.as_bytes());
        self.string(&partition.topic);
        self.i32(partition.partition);
    }

    /// Appends a count of items that follow.
    pub fn count(&mut self, count: usize) {
        self.len(count);
    }

    /// Appends a presence byte for an optional value that follows.
    pub fn present(&mut self, present: bool) {
        self.bytes.push(u8::from(present));
    }

    /// Appends one segment's metadata.
    pub fn metadata(&mut self, metadata: &RemoteLogSegmentMetadata) {
        let id = metadata.remote_log_segment_id();
        self.partition(&id.topic_id_partition);
        self.bytes.extend_from_slice(id.id.as_bytes());
        self.i64(metadata.start_offset());
        self.i64(metadata.end_offset());
        self.i64(metadata.max_timestamp_ms());
        self.i32(metadata.broker_id());
        self.i64(metadata.event_timestamp_ms());
        self.i32(metadata.segment_size_in_bytes());
        self.bytes.push(metadata.state().id());
        self.present(metadata.txn_index_empty());
        match metadata.custom_metadata() {
            Some(custom) => {
                self.len(custom.as_bytes().len());
                self.bytes.extend_from_slice(custom.as_bytes());
            }
            None => self.i32(-1),
        }
        self.len(metadata.segment_leader_epochs().len());
        for (epoch, offset) in metadata.segment_leader_epochs() {
            self.i32(epoch.get());
            self.i64(*offset);
        }
    }
}

/// Encodes an optional segment metadata: a presence byte, then the metadata.
#[must_use]
pub fn encode_optional_metadata(metadata: Option<&RemoteLogSegmentMetadata>) -> Vec<u8> {
    let mut writer = Writer::default();
    writer.present(metadata.is_some());
    if let Some(metadata) = metadata {
        writer.metadata(metadata);
    }
    writer.into_bytes()
}

/// Encodes a list of segment metadata: a count, then each metadata.
#[must_use]
pub fn encode_metadata_list(list: &[RemoteLogSegmentMetadata]) -> Vec<u8> {
    let mut writer = Writer::default();
    writer.count(list.len());
    for metadata in list {
        writer.metadata(metadata);
    }
    writer.into_bytes()
}

#[cfg(test)]
mod tests;
