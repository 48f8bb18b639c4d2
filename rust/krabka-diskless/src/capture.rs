//! The capture: a portable JSON freeze of the WAL index
//! (`restore-inputs/<capture-id>/diskless-wal-index.json`), with the rules
//! a restore relies on.

use {
    super::{CAPTURE_STATE_KEY, CaptureViolation, DisklessError, WalIndexEntry},
    krabka_worm::{SegmentManifest, Sha256Digest},
    serde::{Deserialize, Serialize},
    std::collections::BTreeSet,
    uuid::Uuid,
};

/// The largest capture document [`DisklessWalCapture::from_slice`] reads.
pub const MAX_CAPTURE_BYTES: usize = 256 * 1024 * 1024;

/// The longest Kafka topic name.
const MAX_TOPIC_LEN: usize = 249;

/// A frozen WAL index: for every captured partition, its delete floor,
/// recovery cutoff and committed ranges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisklessWalCapture {
    /// [`DisklessWalCapture::FORMAT_VERSION`].
    pub format_version: u16,
    /// When the capture was taken.
    pub captured_at_ms: u64,
    /// The index topic's offsets the capture was read up to, one per index partition.
    pub source_cutoffs: Vec<i64>,
    /// The captured partitions.
    pub partitions: Vec<DisklessPartitionCapture>,
    /// SHA-256 of the cluster-metadata snapshot taken with the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_snapshot_sha256: Option<Sha256Digest>,
    /// SHA-256 of the remote-log-metadata snapshot taken with the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rlmm_snapshot_sha256: Option<Sha256Digest>,
    /// SHA-256 of the consumer-group offsets taken with the capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_offsets_sha256: Option<Sha256Digest>,
    /// The signed manifest sealing the capture
    /// ([`DisklessWalCapture::seal`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<SegmentManifest>,
}

/// One captured partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisklessPartitionCapture {
    /// Topic name.
    pub topic: String,
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition.
    pub partition: i32,
    /// Offsets below the floor were deleted (`DeleteRecords`).
    pub delete_floor: i64,
    /// The first offset a restore does not have: `max(delete_floor, last offset + 1)`.
    pub recovery_cutoff: i64,
    /// The committed ranges, strictly increasing.
    pub ranges: Vec<CapturedWalRange>,
}

/// One committed range and the WAL object holding it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapturedWalRange {
    /// Key of the WAL object.
    pub object_key: String,
    /// Where the range lies in it.
    pub entry: WalIndexEntry,
}

/// Just the version of a capture document, whatever its shape.
#[derive(Deserialize)]
struct VersionProbe {
    format_version: Option<u64>,
}

/// Checks a Kafka topic name that is also used as a path component.
fn check_topic_name(topic: &str) -> Result<(), CaptureViolation> {
    let reason = if topic.is_empty() {
        "a topic name must not be empty"
    } else if topic.len() > MAX_TOPIC_LEN {
        "a topic name must be at most 249 characters"
    } else if topic == "." || topic == ".." {
        "a topic name must not be `.` or `..`"
    } else if !topic
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        "a topic name may only use the characters A-Z a-z 0-9 . _ -"
    } else {
        return Ok(());
    };
    Err(CaptureViolation::InvalidTopicName {
        topic: topic.chars().take(80).collect(),
        reason,
    })
}

impl DisklessPartitionCapture {
    fn validate(&self) -> Result<(), CaptureViolation> {
        let topic = || self.topic.clone();
        let partition = self.partition;
        check_topic_name(&self.topic)?;
        if partition < 0 {
            return Err(CaptureViolation::NegativePartition {
                topic: topic(),
                partition,
            });
        }
        if self.delete_floor < 0 {
            return Err(CaptureViolation::NegativeDeleteFloor {
                topic: topic(),
                partition,
                floor: self.delete_floor,
            });
        }
        let mut previous_last: Option<i64> = None;
        let mut expected = self.delete_floor;
        for range in &self.ranges {
            let entry = &range.entry;
            if range.object_key.is_empty() || range.object_key == CAPTURE_STATE_KEY {
                return Err(CaptureViolation::InvalidObjectKey {
                    topic: topic(),
                    partition,
                    key: range.object_key.clone(),
                });
            }
            if entry.topic_id != self.topic_id || entry.partition != partition {
                return Err(CaptureViolation::ForeignRange {
                    topic: topic(),
                    partition,
                    entry_topic_id: entry.topic_id,
                    entry_partition: entry.partition,
                });
            }
            if entry.first_offset < 0
                || entry.last_offset < entry.first_offset
                || entry.byte_len == 0
            {
                return Err(CaptureViolation::InvalidRange {
                    topic: topic(),
                    partition,
                    first_offset: entry.first_offset,
                    last_offset: entry.last_offset,
                    byte_len: entry.byte_len,
                });
            }
            if let Some(previous_last) = previous_last {
                if entry.first_offset <= previous_last {
                    return Err(CaptureViolation::RangesNotIncreasing {
                        topic: topic(),
                        partition,
                        previous_last,
                        first_offset: entry.first_offset,
                    });
                }
            }
            previous_last = Some(entry.last_offset);
            let end = entry.last_offset.checked_add(1).ok_or_else(|| {
                CaptureViolation::OffsetOverflow {
                    topic: topic(),
                    partition,
                }
            })?;
            if end <= self.delete_floor {
                continue; // entirely below the floor: deleted data, no contiguity demanded
            }
            if entry.first_offset > expected {
                return Err(CaptureViolation::Gap {
                    topic: topic(),
                    partition,
                    at: expected,
                });
            }
            expected = end;
        }
        if self.recovery_cutoff != expected {
            return Err(CaptureViolation::RecoveryCutoffMismatch {
                topic: topic(),
                partition,
                expected,
                declared: self.recovery_cutoff,
            });
        }
        Ok(())
    }
}

impl DisklessWalCapture {
    /// The capture format version this build writes and reads.
    pub const FORMAT_VERSION: u16 = 1;

    /// Checks every rule a restore relies on:
    ///
    /// - no negative source cutoff;
    /// - per partition: a valid topic name (non-empty, at most 249
    ///   characters, not `.` or `..`, only `[A-Za-z0-9._-]`, so it cannot
    ///   escape a path), a partition and a delete floor not below zero, no
    ///   `(topic_id, partition)` twice;
    /// - per range: a non-empty object key that is not the reserved state
    ///   key, the partition's own topic and partition, `0 <= first <= last`,
    ///   at least one byte, strictly increasing and non-overlapping;
    /// - ranges reaching above the delete floor are contiguous from it;
    /// - `recovery_cutoff == max(delete_floor, last offset + 1)`.
    ///
    /// # Errors
    /// The first [`CaptureViolation`] found.
    pub fn validate(&self) -> Result<(), CaptureViolation> {
        if self.format_version != Self::FORMAT_VERSION {
            return Err(CaptureViolation::FormatVersion {
                found: self.format_version,
            });
        }
        if let Some((index, value)) = self
            .source_cutoffs
            .iter()
            .enumerate()
            .find(|(_, cutoff)| **cutoff < 0)
        {
            return Err(CaptureViolation::NegativeSourceCutoff {
                index,
                value: *value,
            });
        }
        let mut seen = BTreeSet::new();
        for partition in &self.partitions {
            partition.validate()?;
            if !seen.insert((partition.topic_id, partition.partition)) {
                return Err(CaptureViolation::DuplicatePartition {
                    topic_id: partition.topic_id,
                    partition: partition.partition,
                });
            }
        }
        Ok(())
    }

    /// Reads and validates a capture document.
    ///
    /// The format version is probed first: a document without one predates
    /// krabka 1.0, and one of another version is refused with what to do.
    ///
    /// # Errors
    /// [`DisklessError::CaptureTooLarge`],
    /// [`DisklessError::CaptureMissingFormatVersion`],
    /// [`DisklessError::UnsupportedCaptureVersion`],
    /// [`DisklessError::CaptureDecode`], [`DisklessError::InvalidCapture`].
    pub fn from_slice(bytes: &[u8]) -> Result<Self, DisklessError> {
        if bytes.len() > MAX_CAPTURE_BYTES {
            return Err(DisklessError::CaptureTooLarge {
                size: bytes.len(),
                max: MAX_CAPTURE_BYTES,
            });
        }
        let probe: VersionProbe = serde_json::from_slice(bytes)
            .map_err(|source| DisklessError::CaptureDecode { source })?;
        match probe.format_version {
            None => return Err(DisklessError::CaptureMissingFormatVersion),
            Some(found) if found != u64::from(Self::FORMAT_VERSION) => {
                return Err(DisklessError::UnsupportedCaptureVersion { found });
            }
            Some(_) => {}
        }
        let capture: Self = serde_json::from_slice(bytes)
            .map_err(|source| DisklessError::CaptureDecode { source })?;
        capture.validate()?;
        Ok(capture)
    }

    /// The document's JSON bytes.
    ///
    /// # Errors
    /// [`DisklessError::CaptureEncode`] (not expected for any value).
    pub fn to_vec(&self) -> Result<Vec<u8>, DisklessError> {
        serde_json::to_vec(self).map_err(DisklessError::CaptureEncode)
    }
}
