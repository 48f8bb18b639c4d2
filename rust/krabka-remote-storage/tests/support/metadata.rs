//! The one builder of segment metadata for this crate's tests: every test
//! that needs a [`RemoteLogSegmentMetadata`] starts from
//! [`SegmentMetadataBuilder::new`] (or `with_id`) and changes only what it
//! cares about.
//!
//! Included by the integration tests as `support::metadata` and by the unit
//! tests as `crate::test_metadata` (`#[path]` in `src/lib.rs`), so it names
//! the model through the crates that define it, not through this crate.

use {
    krabka_ids::LeaderEpoch,
    krabka_kafka::{
        RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentState, TopicIdPartition,
    },
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// Offsets a segment covers unless [`SegmentMetadataBuilder::end_offset`]
/// says otherwise: `[start, start + 99]`.
pub const DEFAULT_OFFSETS: i64 = 100;

/// Builds the metadata of a segment copy.
///
/// Defaults: a fresh random segment id, offsets `[start, start + 99]`,
/// timestamps 0, broker 1, a 1-byte segment in state `CopySegmentStarted`,
/// leader epoch 0 from `start`, and a transaction index that is not empty.
#[derive(Debug, Clone)]
#[must_use]
pub struct SegmentMetadataBuilder {
    id: RemoteLogSegmentId,
    start_offset: i64,
    end_offset: i64,
    max_timestamp_ms: i64,
    broker_id: i32,
    event_timestamp_ms: i64,
    size: i32,
    state: RemoteLogSegmentState,
    epochs: BTreeMap<LeaderEpoch, i64>,
    txn_index_empty: bool,
}

impl SegmentMetadataBuilder {
    /// A new segment (fresh segment id) of `partition` from `start_offset`.
    pub fn new(partition: &TopicIdPartition, start_offset: i64) -> Self {
        Self::with_id(
            RemoteLogSegmentId::new(partition.clone(), Uuid::new_v4()),
            start_offset,
        )
    }

    /// The segment `id` from `start_offset`.
    pub fn with_id(id: RemoteLogSegmentId, start_offset: i64) -> Self {
        Self {
            id,
            start_offset,
            end_offset: start_offset + DEFAULT_OFFSETS - 1,
            max_timestamp_ms: 0,
            broker_id: 1,
            event_timestamp_ms: 0,
            size: 1,
            state: RemoteLogSegmentState::CopySegmentStarted,
            epochs: BTreeMap::from([(LeaderEpoch(0), start_offset)]),
            txn_index_empty: false,
        }
    }

    /// The segment id within the same partition.
    pub fn segment_id(mut self, id: Uuid) -> Self {
        self.id = RemoteLogSegmentId::new(self.id.topic_id_partition.clone(), id);
        self
    }

    /// The last offset (inclusive).
    pub fn end_offset(mut self, end_offset: i64) -> Self {
        self.end_offset = end_offset;
        self
    }

    /// The size of the `.log` in bytes (saturating at `i32::MAX`, as Kafka's
    /// field is an `int`).
    pub fn size(mut self, bytes: usize) -> Self {
        self.size = i32::try_from(bytes).unwrap_or(i32::MAX);
        self
    }

    /// The largest record timestamp and the time of the metadata event.
    pub fn timestamps(mut self, max_timestamp_ms: i64, event_timestamp_ms: i64) -> Self {
        self.max_timestamp_ms = max_timestamp_ms;
        self.event_timestamp_ms = event_timestamp_ms;
        self
    }

    /// The segment's state.
    pub fn state(mut self, state: RemoteLogSegmentState) -> Self {
        self.state = state;
        self
    }

    /// The leader epochs and the offsets they start at.
    pub fn epochs(mut self, epochs: impl IntoIterator<Item = (LeaderEpoch, i64)>) -> Self {
        self.epochs = epochs.into_iter().collect();
        self
    }

    /// Whether the segment's transaction index is empty.
    pub fn txn_index_empty(mut self, empty: bool) -> Self {
        self.txn_index_empty = empty;
        self
    }

    /// The metadata; panics where [`RemoteLogSegmentMetadata::new`] refuses
    /// the values (a test that wants the error calls it itself).
    #[must_use]
    pub fn build(self) -> RemoteLogSegmentMetadata {
        RemoteLogSegmentMetadata::new(
            self.id,
            self.start_offset,
            self.end_offset,
            self.max_timestamp_ms,
            self.broker_id,
            self.event_timestamp_ms,
            RemoteLogSegmentDetails::new(self.size, self.state, self.epochs),
        )
        .unwrap()
        .with_txn_index_empty(self.txn_index_empty)
    }
}

/// Metadata of a new segment copy (fresh segment id) of `partition`
/// starting at `start_offset`, for a `.log` of `size` bytes.
pub fn segment_metadata(
    partition: &TopicIdPartition,
    start_offset: i64,
    size: usize,
) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::new(partition, start_offset)
        .size(size)
        .build()
}

/// Metadata of a new segment at offset 0 of a fresh partition `orders-0`,
/// for a `.log` of `size` bytes.
pub fn orders_segment(size: usize) -> RemoteLogSegmentMetadata {
    segment_metadata(&new_partition("orders", 0), 0, size)
}

/// A fresh partition of a fresh topic named `topic`.
pub fn new_partition(topic: &str, partition: i32) -> TopicIdPartition {
    TopicIdPartition::new(Uuid::new_v4(), topic, partition)
}
