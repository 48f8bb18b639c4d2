//! The byte format of a durable metadata manager's per-partition history:
//! append-only [`MetadataRecord`]s and the [`MetadataSnapshot`]s that let a
//! reader skip the records before them.
//!
//! A record is one event of Kafka's metadata lifecycle (a segment added, a
//! segment's state changed, a step of the partition's deletion) at a
//! sequence number; a snapshot is the state of the partition after the
//! records `1..=through`. Both are small, written once and never changed,
//! so they can live in a write-once bucket. The full specification, with an
//! example, is in `docs/metadata.md`.
//!
//! # Format (version 1, every integer big-endian)
//!
//! | Part | Bytes |
//! |---|---|
//! | record | `"KRMR"`, `u8` version = 1, `u64` sequence (≥ 1), partition, `u8` kind, body |
//! | snapshot | `"KRMS"`, `u8` version = 1, `u64` through (≥ 1), partition, `u8` delete state (`0xff`: none), `u32` count, count × segment |
//! | partition | 16-byte topic id, `i32` partition (≥ 0), `u8` name length (≤ 249), UTF-8 name |
//! | kind 0, segment added | segment |
//! | kind 1, segment updated | 16-byte segment id, `i64` event timestamp, custom, `u8` state, `i32` broker |
//! | kind 2, partition delete | `u8` delete state, `i64` event timestamp, `i32` broker |
//! | segment | 16-byte segment id, `i64` start, `i64` end, `i64` max timestamp, `i32` broker, `i64` event timestamp, `i32` size, `u8` state, `u8` transaction index empty (0 or 1), custom, `u16` epoch count (1..=4096), count × (`i32` epoch, `i64` first offset), epochs strictly increasing |
//! | custom | `u8` 0 (none), or `u8` 1, `u16` length (≤ 16 KiB), bytes |
//!
//! States are Kafka's byte ids ([`RemoteLogSegmentState::id`](crate::RemoteLogSegmentState::id),
//! [`RemotePartitionDeleteState::id`](crate::RemotePartitionDeleteState::id)).
//!
//! # Contract of the decoders
//!
//! [`decode_record`] and [`decode_snapshot`] take bytes nobody vouches for:
//! they check the length against [`MAX_RECORD_BYTES`] /
//! [`MAX_SNAPSHOT_BYTES`] before anything else, check every count against
//! the bytes left before allocating, accept only the canonical encoding
//! (booleans 0 or 1, epochs in order, no trailing bytes), validate every
//! segment with [`RemoteLogSegmentMetadata::new`](crate::RemoteLogSegmentMetadata::new)'s
//! rules, and never panic: anything else is
//! [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt). An
//! unknown version is refused the same way, naming the versions this build
//! reads. `decode(encode(x)) == x` for every value the encoders accept.
//!
//! ```
//! use krabka_kafka::{
//!     MetadataEvent, MetadataRecord, RemotePartitionDeleteMetadata, RemotePartitionDeleteState,
//!     TopicIdPartition, decode_record, encode_record,
//! };
//! use uuid::Uuid;
//!
//! let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 0);
//! let record = MetadataRecord {
//!     partition: tp.clone(),
//!     sequence: 1,
//!     event: MetadataEvent::PartitionDelete(RemotePartitionDeleteMetadata::new(
//!         tp, RemotePartitionDeleteState::DeletePartitionMarked, 7, 1,
//!     )),
//! };
//! let bytes = encode_record(&record).unwrap();
//! assert_eq!(decode_record(&bytes).unwrap(), record);
//! assert!(decode_record(&bytes[..bytes.len() - 1]).is_err());
//! ```

mod decode;
mod encode;
#[cfg(test)]
mod tests;

use crate::{
    RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate, RemotePartitionDeleteMetadata,
    RemotePartitionDeleteState, TopicIdPartition,
};
pub use {
    decode::{decode_record, decode_snapshot},
    encode::{encode_record, encode_snapshot},
};

/// The format version this build writes, and the only one it reads.
pub const METADATA_LOG_VERSION: u8 = 1;
/// The largest record the decoder accepts.
pub const MAX_RECORD_BYTES: usize = 128 * 1024;
/// The largest snapshot the decoder accepts.
pub const MAX_SNAPSHOT_BYTES: usize = 256 * 1024 * 1024;
/// The most custom-metadata bytes a segment may carry (Kafka's default
/// limit, `remote.log.metadata.custom.metadata.max.bytes`, is 128).
pub const MAX_CUSTOM_METADATA_BYTES: usize = 16 * 1024;
/// The most leader epochs one segment may list.
pub const MAX_EPOCHS_PER_SEGMENT: usize = 4096;
/// The longest topic name (Kafka's own limit).
pub const MAX_TOPIC_NAME_BYTES: usize = 249;

/// Leading bytes of a record.
const RECORD_MAGIC: &[u8; 4] = b"KRMR";
/// Leading bytes of a snapshot.
const SNAPSHOT_MAGIC: &[u8; 4] = b"KRMS";
/// The delete-state byte of a snapshot without one.
const NO_DELETE_STATE: u8 = 0xff;
/// Kind byte of [`MetadataEvent::SegmentAdded`].
const KIND_SEGMENT_ADDED: u8 = 0;
/// Kind byte of [`MetadataEvent::SegmentUpdated`].
const KIND_SEGMENT_UPDATED: u8 = 1;
/// Kind byte of [`MetadataEvent::PartitionDelete`].
const KIND_PARTITION_DELETE: u8 = 2;
/// The name of the record format in errors.
const RECORD_FORMAT: &str = "remote log metadata record";
/// The name of the snapshot format in errors.
const SNAPSHOT_FORMAT: &str = "remote log metadata snapshot";

/// One event of a partition's metadata history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataEvent {
    /// A segment was added (Kafka's `addRemoteLogSegmentMetadata`).
    SegmentAdded(RemoteLogSegmentMetadata),
    /// A segment changed state (`updateRemoteLogSegmentMetadata`).
    SegmentUpdated(RemoteLogSegmentMetadataUpdate),
    /// The partition moved in its remote deletion
    /// (`putRemotePartitionDeleteMetadata`).
    PartitionDelete(RemotePartitionDeleteMetadata),
}

impl MetadataEvent {
    /// The partition the event belongs to.
    #[must_use]
    pub fn partition(&self) -> &TopicIdPartition {
        match self {
            Self::SegmentAdded(segment) => segment.topic_id_partition(),
            Self::SegmentUpdated(update) => &update.remote_log_segment_id.topic_id_partition,
            Self::PartitionDelete(delete) => &delete.topic_id_partition,
        }
    }
}

/// An event at its place in the partition's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataRecord {
    /// The partition; every id in the event belongs to it.
    pub partition: TopicIdPartition,
    /// The record's position in the history, from 1.
    pub sequence: u64,
    /// What happened.
    pub event: MetadataEvent,
}

/// The state of a partition after the records `1..=through`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataSnapshot {
    /// The partition; every segment belongs to it.
    pub partition: TopicIdPartition,
    /// The sequence of the last record the snapshot includes (≥ 1).
    pub through: u64,
    /// Every segment not yet `DeleteSegmentFinished`.
    pub segments: Vec<RemoteLogSegmentMetadata>,
    /// Where the partition is in its remote deletion, if it is.
    pub delete_state: Option<RemotePartitionDeleteState>,
}
