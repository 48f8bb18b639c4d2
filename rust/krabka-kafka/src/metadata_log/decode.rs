//! The decoders: bytes nobody vouches for to values, or a
//! [`RemoteStorageError::Corrupt`] (never a panic).

use {
    super::{
        KIND_PARTITION_DELETE, KIND_SEGMENT_ADDED, KIND_SEGMENT_UPDATED, MAX_CUSTOM_METADATA_BYTES,
        MAX_EPOCHS_PER_SEGMENT, MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES, METADATA_LOG_VERSION,
        MetadataEvent, MetadataRecord, MetadataSnapshot, NO_DELETE_STATE, RECORD_FORMAT,
        RECORD_MAGIC, SNAPSHOT_FORMAT, SNAPSHOT_MAGIC,
    },
    crate::{
        CustomMetadata, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState, RemotePartitionDeleteMetadata,
        RemotePartitionDeleteState, RemoteStorageError, Result, TopicIdPartition,
        index::cursor::Cursor,
    },
    krabka_ids::LeaderEpoch,
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// The fewest bytes one encoded segment takes (no custom metadata, one
/// epoch): what a count is checked against before anything is allocated.
const MIN_SEGMENT_BYTES: usize = 16 + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 1 + 1 + 2 + 12;

/// A record from its bytes.
///
/// # Errors
/// [`RemoteStorageError::Corrupt`] (format `remote log metadata record`)
/// for anything but the canonical encoding of a valid record; see the
/// module docs.
pub fn decode_record(bytes: &[u8]) -> Result<MetadataRecord> {
    let mut fields = Fields::open(bytes, RECORD_FORMAT, RECORD_MAGIC, MAX_RECORD_BYTES)?;
    let sequence = fields.sequence("sequence")?;
    let partition = fields.partition()?;
    let event = match fields.u8("kind")? {
        KIND_SEGMENT_ADDED => MetadataEvent::SegmentAdded(fields.segment(&partition)?),
        KIND_SEGMENT_UPDATED => {
            let id = RemoteLogSegmentId::new(partition.clone(), fields.uuid("segment id")?);
            let event_timestamp_ms = fields.i64("event timestamp")?;
            let custom = fields.custom()?;
            let state = fields.segment_state()?;
            let broker_id = fields.i32("broker id")?;
            MetadataEvent::SegmentUpdated(RemoteLogSegmentMetadataUpdate::new(
                id,
                event_timestamp_ms,
                custom,
                state,
                broker_id,
            ))
        }
        KIND_PARTITION_DELETE => {
            let byte = fields.u8("delete state")?;
            let state = delete_state(byte).ok_or_else(|| fields.bad_delete_state(byte))?;
            let event_timestamp_ms = fields.i64("event timestamp")?;
            let broker_id = fields.i32("broker id")?;
            MetadataEvent::PartitionDelete(RemotePartitionDeleteMetadata::new(
                partition.clone(),
                state,
                event_timestamp_ms,
                broker_id,
            ))
        }
        kind => {
            return Err(fields.corrupt(format!(
                "unknown event kind {kind} (valid: 0 segment added, 1 segment updated, 2 partition delete)"
            )));
        }
    };
    fields.finish()?;
    Ok(MetadataRecord {
        partition,
        sequence,
        event,
    })
}

/// A snapshot from its bytes.
///
/// # Errors
/// [`RemoteStorageError::Corrupt`] (format `remote log metadata snapshot`)
/// for anything but the canonical encoding of a valid snapshot; see the
/// module docs.
pub fn decode_snapshot(bytes: &[u8]) -> Result<MetadataSnapshot> {
    let mut fields = Fields::open(bytes, SNAPSHOT_FORMAT, SNAPSHOT_MAGIC, MAX_SNAPSHOT_BYTES)?;
    let through = fields.sequence("through")?;
    let partition = fields.partition()?;
    let byte = fields.u8("delete state")?;
    let delete_state = match byte {
        NO_DELETE_STATE => None,
        byte => Some(delete_state(byte).ok_or_else(|| fields.bad_delete_state(byte))?),
    };
    let count = usize::try_from(fields.u32("segment count")?).unwrap_or(usize::MAX);
    if count.saturating_mul(MIN_SEGMENT_BYTES) > fields.cursor.remaining() {
        return Err(fields.corrupt(format!(
            "{count} segments cannot fit in the {} bytes left",
            fields.cursor.remaining()
        )));
    }
    let mut segments = Vec::with_capacity(count);
    for _ in 0..count {
        segments.push(fields.segment(&partition)?);
    }
    fields.finish()?;
    Ok(MetadataSnapshot {
        partition,
        through,
        segments,
        delete_state,
    })
}

/// The delete state with Kafka's byte id `byte`.
fn delete_state(byte: u8) -> Option<RemotePartitionDeleteState> {
    RemotePartitionDeleteState::from_id(byte)
}

/// A cursor whose errors are [`RemoteStorageError::Corrupt`] of one format.
struct Fields<'a> {
    cursor: Cursor<'a>,
    format: &'static str,
}

impl<'a> Fields<'a> {
    /// Checks the size, the magic and the version.
    fn open(bytes: &'a [u8], format: &'static str, magic: &[u8; 4], max: usize) -> Result<Self> {
        let mut fields = Self {
            cursor: Cursor::new(bytes),
            format,
        };
        if bytes.len() > max {
            return Err(fields.corrupt(format!("{} bytes (valid: at most {max})", bytes.len())));
        }
        if fields.take(4, "magic")? != magic {
            return Err(fields.corrupt(format!(
                "bad magic (valid: {})",
                String::from_utf8_lossy(magic)
            )));
        }
        let version = fields.u8("version")?;
        if version != METADATA_LOG_VERSION {
            return Err(fields.corrupt(format!(
                "unknown version {version} (valid: {METADATA_LOG_VERSION})"
            )));
        }
        Ok(fields)
    }

    /// The error for `detail`.
    fn corrupt(&self, detail: String) -> RemoteStorageError {
        RemoteStorageError::Corrupt {
            format: self.format,
            detail,
        }
    }

    /// The error for a delete-state byte that names no state.
    fn bad_delete_state(&self, byte: u8) -> RemoteStorageError {
        self.corrupt(format!(
            "unknown partition delete state {byte} (valid: 0 marked, 1 started, 2 finished)"
        ))
    }

    /// Refuses trailing bytes.
    fn finish(&self) -> Result<()> {
        match self.cursor.remaining() {
            0 => Ok(()),
            left => Err(self.corrupt(format!("{left} trailing bytes"))),
        }
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let read = self.cursor.take(n, what);
        read.map_err(|err| self.corrupt(err.to_string()))
    }

    fn u8(&mut self, what: &'static str) -> Result<u8> {
        let read = self.cursor.u8(what);
        read.map_err(|err| self.corrupt(err.to_string()))
    }

    fn u16(&mut self, what: &'static str) -> Result<u16> {
        let read = self.cursor.u16(what);
        read.map_err(|err| self.corrupt(err.to_string()))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32> {
        let read = self.cursor.u32(what);
        read.map_err(|err| self.corrupt(err.to_string()))
    }

    fn i32(&mut self, what: &'static str) -> Result<i32> {
        let read = self.cursor.i32(what);
        read.map_err(|err| self.corrupt(err.to_string()))
    }

    fn i64(&mut self, what: &'static str) -> Result<i64> {
        let read = self.cursor.i64(what);
        read.map_err(|err| self.corrupt(err.to_string()))
    }

    /// A sequence number, at least 1.
    fn sequence(&mut self, what: &'static str) -> Result<u64> {
        let read = self.cursor.u64(what);
        match read.map_err(|err| self.corrupt(err.to_string()))? {
            0 => Err(self.corrupt(format!("{what} 0 (valid: from 1)"))),
            sequence => Ok(sequence),
        }
    }

    fn uuid(&mut self, what: &'static str) -> Result<Uuid> {
        let bytes = self.take(16, what)?;
        let bytes: [u8; 16] = bytes
            .try_into()
            .map_err(|_| self.corrupt(format!("truncated {what}")))?;
        Ok(Uuid::from_bytes(bytes))
    }

    /// Topic id, partition and name.
    fn partition(&mut self) -> Result<TopicIdPartition> {
        let topic_id = self.uuid("topic id")?;
        let partition = self.i32("partition")?;
        if partition < 0 {
            return Err(self.corrupt(format!("partition {partition} is negative")));
        }
        let len = self.u8("topic name length")?;
        if usize::from(len) > super::MAX_TOPIC_NAME_BYTES {
            return Err(self.corrupt(format!(
                "topic name of {len} bytes (valid: at most {})",
                super::MAX_TOPIC_NAME_BYTES
            )));
        }
        let name = self.take(usize::from(len), "topic name")?;
        let name = std::str::from_utf8(name)
            .map_err(|err| self.corrupt(format!("topic name is not UTF-8: {err}")))?;
        Ok(TopicIdPartition::new(topic_id, name, partition))
    }

    /// A segment state byte.
    fn segment_state(&mut self) -> Result<RemoteLogSegmentState> {
        let byte = self.u8("segment state")?;
        RemoteLogSegmentState::from_id(byte).ok_or_else(|| {
            self.corrupt(format!(
                "unknown segment state {byte} (valid: 0 copy started, 1 copy finished, 2 delete started, 3 delete finished)"
            ))
        })
    }

    /// Optional custom metadata.
    fn custom(&mut self) -> Result<Option<CustomMetadata>> {
        match self.u8("custom metadata flag")? {
            0 => Ok(None),
            1 => {
                let len = usize::from(self.u16("custom metadata length")?);
                if len > MAX_CUSTOM_METADATA_BYTES {
                    return Err(self.corrupt(format!(
                        "custom metadata of {len} bytes (valid: at most {MAX_CUSTOM_METADATA_BYTES})"
                    )));
                }
                Ok(Some(CustomMetadata(
                    self.take(len, "custom metadata")?.to_vec(),
                )))
            }
            flag => Err(self.corrupt(format!("custom metadata flag {flag} (valid: 0 or 1)"))),
        }
    }

    /// A segment of `partition`, validated by its constructor.
    fn segment(&mut self, partition: &TopicIdPartition) -> Result<RemoteLogSegmentMetadata> {
        let id = RemoteLogSegmentId::new(partition.clone(), self.uuid("segment id")?);
        let start = self.i64("start offset")?;
        let end = self.i64("end offset")?;
        let max_timestamp_ms = self.i64("max timestamp")?;
        let broker_id = self.i32("broker id")?;
        let event_timestamp_ms = self.i64("event timestamp")?;
        let size = self.i32("segment size")?;
        let state = self.segment_state()?;
        let txn_index_empty = match self.u8("transaction index empty")? {
            0 => false,
            1 => true,
            flag => {
                return Err(self.corrupt(format!(
                    "transaction index empty flag {flag} (valid: 0 or 1)"
                )));
            }
        };
        let custom = self.custom()?;
        let epochs = self.epochs()?;
        let details = RemoteLogSegmentDetails::new(size, state, epochs);
        let segment = RemoteLogSegmentMetadata::new(
            id,
            start,
            end,
            max_timestamp_ms,
            broker_id,
            event_timestamp_ms,
            details,
        )
        .map_err(|err| self.corrupt(err.to_string()))?;
        Ok(segment
            .with_custom_metadata(custom)
            .with_txn_index_empty(txn_index_empty))
    }

    /// The leader-epoch map of a segment, epochs strictly increasing.
    fn epochs(&mut self) -> Result<BTreeMap<LeaderEpoch, i64>> {
        let count = usize::from(self.u16("epoch count")?);
        if count == 0 || count > MAX_EPOCHS_PER_SEGMENT {
            return Err(self.corrupt(format!(
                "{count} leader epochs (valid: 1..={MAX_EPOCHS_PER_SEGMENT})"
            )));
        }
        let mut epochs = BTreeMap::new();
        let mut previous = None;
        for _ in 0..count {
            let epoch = self.i32("leader epoch")?;
            let offset = self.i64("epoch start offset")?;
            if previous.is_some_and(|previous| epoch <= previous) {
                return Err(self.corrupt(format!(
                    "leader epoch {epoch} does not follow {} (epochs increase)",
                    previous.unwrap_or_default()
                )));
            }
            previous = Some(epoch);
            epochs.insert(LeaderEpoch(epoch), offset);
        }
        Ok(epochs)
    }
}
