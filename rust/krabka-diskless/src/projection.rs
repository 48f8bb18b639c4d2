//! The reducer that folds committed `__diskless_wal_index` records into a
//! capture.

use {
    super::{
        CapturedWalRange, DisklessError, DisklessPartitionCapture, DisklessWalCapture,
        WalDeleteFloorRecord, WalFlushRecord, WalIndexEntry, WalIndexKey, WalIndexRecordKey,
    },
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// A topic a capture is authorised to include.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureTopic {
    /// Topic name.
    pub name: String,
    /// Number of partitions.
    pub partitions: i32,
}

/// The state of the WAL index after the records applied so far: the live
/// ranges by key and the delete floors by partition.
///
/// ```
/// use krabka_diskless::*;
/// use std::collections::BTreeMap;
/// use uuid::Uuid;
/// let topic_id = Uuid::from_u128(1);
/// let entry = WalIndexEntry { topic_id, partition: 0, first_offset: 0, last_offset: 9,
///     byte_start: 6, byte_len: 100, max_timestamp_ms: 0 };
/// let (key, value) = keyed_entry("wal/a", entry);
/// let mut projection = WalCaptureProjection::new();
/// projection.apply(Some(&key), Some(&value)).unwrap();
/// let topics = BTreeMap::from([(topic_id, CaptureTopic { name: "t".into(), partitions: 2 })]);
/// let capture = projection.capture(&topics, vec![1], 0).unwrap();
/// assert_eq!(capture.partitions.len(), 2); // the empty partition 1 is kept
/// assert_eq!(capture.partitions[0].recovery_cutoff, 10);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalCaptureProjection {
    ranges: BTreeMap<WalIndexKey, (String, WalIndexEntry)>,
    floors: BTreeMap<(Uuid, i32), i64>,
}

impl WalCaptureProjection {
    /// An empty index.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one committed record (`value: None` is a tombstone).
    ///
    /// A delete-floor value raises the partition's floor (floors only rise);
    /// a range value replaces the range under its key; a tombstone removes
    /// either; the replay fence is ignored. A refused record changes nothing.
    ///
    /// # Errors
    /// [`DisklessError::UnkeyedIndexRecord`], key decoding errors, value
    /// decoding errors, [`DisklessError::FloorKeyMismatch`],
    /// [`DisklessError::NegativeFloor`], [`DisklessError::RangeKeyMismatch`],
    /// [`DisklessError::InvalidIndexEntry`].
    pub fn apply(&mut self, key: Option<&[u8]>, value: Option<&[u8]>) -> Result<(), DisklessError> {
        let key = key.ok_or(DisklessError::UnkeyedIndexRecord)?;
        match (WalIndexRecordKey::decode(key)?, value) {
            (WalIndexRecordKey::ReplayFence, _) => {}
            (WalIndexRecordKey::DeleteFloor(key), None) => {
                self.floors.remove(&(key.topic_id, key.partition));
            }
            (WalIndexRecordKey::DeleteFloor(key), Some(value)) => {
                let record = WalDeleteFloorRecord::decode(value)?;
                if (record.topic_id, record.partition) != (key.topic_id, key.partition) {
                    return Err(DisklessError::FloorKeyMismatch {
                        key_topic_id: key.topic_id,
                        key_partition: key.partition,
                        record_topic_id: record.topic_id,
                        record_partition: record.partition,
                    });
                }
                if record.floor < 0 {
                    return Err(DisklessError::NegativeFloor {
                        floor: record.floor,
                    });
                }
                let floor = self
                    .floors
                    .entry((key.topic_id, key.partition))
                    .or_insert(0);
                *floor = (*floor).max(record.floor);
            }
            (WalIndexRecordKey::Range(key), None) => {
                self.ranges.remove(&key);
            }
            (WalIndexRecordKey::Range(key), Some(value)) => {
                let record = WalFlushRecord::decode(value)?;
                let entry = record
                    .entries
                    .iter()
                    .find(|entry| entry.key() == key)
                    .copied()
                    .ok_or(DisklessError::RangeKeyMismatch {
                        topic_id: key.topic_id,
                        partition: key.partition,
                        first_offset: key.first_offset,
                    })?;
                let invalid = |reason| DisklessError::InvalidIndexEntry {
                    topic_id: entry.topic_id,
                    partition: entry.partition,
                    reason,
                };
                if entry.last_offset < entry.first_offset || entry.first_offset < 0 {
                    return Err(invalid("its offsets are negative or inverted"));
                }
                if entry.byte_len == 0 {
                    return Err(invalid("it holds no bytes"));
                }
                if record.object_key.is_empty() {
                    return Err(invalid("its object key is empty"));
                }
                self.ranges.insert(key, (record.object_key, entry));
            }
        }
        Ok(())
    }

    /// The capture of every partition of every authorised topic (empty
    /// partitions included, index state of other topics ignored), ordered
    /// by topic name and partition.
    ///
    /// Ranges of a partition are sorted; adjacent ranges of one object that
    /// are contiguous in offsets and in bytes merge into one (unless the
    /// merged run would exceed 4 GiB, when they stay apart). The delete floor
    /// is the recorded floor or 0, the recovery cutoff
    /// `max(floor, last offset + 1)`. The result is validated.
    ///
    /// # Errors
    /// [`DisklessError::InvalidPartitionCount`],
    /// [`DisklessError::PartitionOutsideTopic`] (index state beyond a
    /// topic's partition count), [`DisklessError::OverlappingRanges`],
    /// [`DisklessError::InvalidCapture`].
    pub fn capture(
        &self,
        topics: &BTreeMap<Uuid, CaptureTopic>,
        source_cutoffs: Vec<i64>,
        captured_at_ms: u64,
    ) -> Result<DisklessWalCapture, DisklessError> {
        for (topic_id, topic) in topics {
            if topic.partitions < 0 {
                return Err(DisklessError::InvalidPartitionCount {
                    topic: topic.name.clone(),
                    count: topic.partitions,
                });
            }
            let outside = self
                .ranges
                .keys()
                .map(|key| (key.topic_id, key.partition))
                .chain(self.floors.keys().copied())
                .find(|(id, partition)| {
                    id == topic_id && (*partition < 0 || *partition >= topic.partitions)
                });
            if let Some((_, partition)) = outside {
                return Err(DisklessError::PartitionOutsideTopic {
                    topic: topic.name.clone(),
                    partition,
                    count: topic.partitions,
                });
            }
        }
        let mut ordered: Vec<(&Uuid, &CaptureTopic)> = topics.iter().collect();
        ordered.sort_by(|a, b| (&a.1.name, a.0).cmp(&(&b.1.name, b.0)));
        let mut partitions = Vec::new();
        for (topic_id, topic) in ordered {
            for partition in 0..topic.partitions {
                partitions.push(self.partition(*topic_id, &topic.name, partition)?);
            }
        }
        let capture = DisklessWalCapture {
            format_version: DisklessWalCapture::FORMAT_VERSION,
            captured_at_ms,
            source_cutoffs,
            partitions,
            metadata_snapshot_sha256: None,
            rlmm_snapshot_sha256: None,
            group_offsets_sha256: None,
            authentication: None,
        };
        capture.validate()?;
        Ok(capture)
    }

    fn partition(
        &self,
        topic_id: Uuid,
        topic: &str,
        partition: i32,
    ) -> Result<DisklessPartitionCapture, DisklessError> {
        let from = WalIndexKey {
            topic_id,
            partition,
            first_offset: i64::MIN,
        };
        let to = WalIndexKey {
            topic_id,
            partition,
            first_offset: i64::MAX,
        };
        let mut ranges: Vec<CapturedWalRange> = Vec::new();
        for (object_key, entry) in self.ranges.range(from..=to).map(|(_, v)| v) {
            if let Some(last) = ranges.last_mut() {
                if entry.first_offset <= last.entry.last_offset {
                    return Err(DisklessError::OverlappingRanges {
                        topic: topic.to_owned(),
                        partition,
                    });
                }
                if let Some(merged) = merge(last, object_key, entry) {
                    *last = merged;
                    continue;
                }
            }
            ranges.push(CapturedWalRange {
                object_key: object_key.clone(),
                entry: *entry,
            });
        }
        let delete_floor = self
            .floors
            .get(&(topic_id, partition))
            .copied()
            .unwrap_or(0);
        let end = ranges.last().map_or(delete_floor, |range| {
            range.entry.last_offset.saturating_add(1)
        });
        Ok(DisklessPartitionCapture {
            topic: topic.to_owned(),
            topic_id,
            partition,
            delete_floor,
            recovery_cutoff: delete_floor.max(end),
            ranges,
        })
    }
}

/// `previous` extended by `entry` when they are one object's adjacent runs:
/// contiguous in offsets and in bytes, and together at most 4 GiB.
fn merge(
    previous: &CapturedWalRange,
    object_key: &str,
    entry: &WalIndexEntry,
) -> Option<CapturedWalRange> {
    let last = &previous.entry;
    let contiguous = previous.object_key == object_key
        && last.last_offset.checked_add(1) == Some(entry.first_offset)
        && last.byte_start.checked_add(u64::from(last.byte_len)) == Some(entry.byte_start);
    if !contiguous {
        return None;
    }
    Some(CapturedWalRange {
        object_key: previous.object_key.clone(),
        entry: WalIndexEntry {
            last_offset: entry.last_offset,
            byte_len: last.byte_len.checked_add(entry.byte_len)?,
            max_timestamp_ms: last.max_timestamp_ms.max(entry.max_timestamp_ms),
            ..*last
        },
    })
}
