//! Remote segment identity, metadata and metadata updates.

use {
    crate::{RemoteLogSegmentState, RemoteStorageError, Result, TopicIdPartition},
    krabka_ids::LeaderEpoch,
    serde::{Deserialize, Serialize},
    std::{collections::BTreeMap, fmt},
    uuid::Uuid,
};

/// The id of one remote copy of a log segment.
///
/// Kafka makes a new id for every copy attempt, so two attempts at the same
/// offsets never share an id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RemoteLogSegmentId {
    /// The partition the segment belongs to.
    pub topic_id_partition: TopicIdPartition,
    /// The id of this copy.
    pub id: Uuid,
}

impl RemoteLogSegmentId {
    /// The segment copy `id` of `topic_id_partition`.
    #[must_use]
    pub fn new(topic_id_partition: TopicIdPartition, id: Uuid) -> Self {
        Self {
            topic_id_partition,
            id,
        }
    }
}

impl fmt::Display for RemoteLogSegmentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "segment {} of {}",
            crate::kafka_uuid(self.id),
            self.topic_id_partition
        )
    }
}

/// Opaque bytes a [`RemoteStorageManager`](crate::RemoteStorageManager)
/// returns from a copy; Kafka stores them with the segment metadata and hands
/// them back on later calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CustomMetadata(pub Vec<u8>);

impl CustomMetadata {
    /// The raw bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The size, state and leader epochs of a segment, grouped to keep
/// [`RemoteLogSegmentMetadata::new`]'s argument list readable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteLogSegmentDetails {
    /// Size of the `.log` file in bytes.
    pub segment_size_in_bytes: i32,
    /// Lifecycle state.
    pub state: RemoteLogSegmentState,
    /// Leader epoch → first offset written in that epoch, within the segment.
    pub segment_leader_epochs: BTreeMap<LeaderEpoch, i64>,
}

impl RemoteLogSegmentDetails {
    /// Groups the details of a segment.
    #[must_use]
    pub fn new(
        segment_size_in_bytes: i32,
        state: RemoteLogSegmentState,
        segment_leader_epochs: BTreeMap<LeaderEpoch, i64>,
    ) -> Self {
        Self {
            segment_size_in_bytes,
            state,
            segment_leader_epochs,
        }
    }
}

/// Everything Kafka knows about one remote log segment
/// (Kafka's `RemoteLogSegmentMetadata`).
///
/// Built only through [`RemoteLogSegmentMetadata::new`], which refuses what
/// Kafka refuses, so every value is well-formed:
///
/// ```
/// use krabka_ids::LeaderEpoch;
/// use krabka_kafka::*;
/// use std::collections::BTreeMap;
/// use uuid::Uuid;
///
/// let id = RemoteLogSegmentId::new(TopicIdPartition::new(Uuid::nil(), "t", 0), Uuid::nil());
/// let no_epochs = RemoteLogSegmentDetails::new(10, RemoteLogSegmentState::CopySegmentStarted, BTreeMap::new());
/// assert!(RemoteLogSegmentMetadata::new(id.clone(), 0, 9, 0, 1, 0, no_epochs).is_err());
///
/// let epochs = BTreeMap::from([(LeaderEpoch(0), 0)]);
/// let inverted = RemoteLogSegmentDetails::new(10, RemoteLogSegmentState::CopySegmentStarted, epochs.clone());
/// assert!(RemoteLogSegmentMetadata::new(id.clone(), 10, 9, 0, 1, 0, inverted).is_err());
///
/// let negative = RemoteLogSegmentDetails::new(-1, RemoteLogSegmentState::CopySegmentStarted, epochs);
/// assert!(RemoteLogSegmentMetadata::new(id, 0, 9, 0, 1, 0, negative).is_err());
/// ```
///
/// Deserialization goes through the same validation, so a malformed document
/// (for example an RLMM dump with an inverted offset range) is refused with
/// the constructor's error instead of producing an invalid value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawSegmentMetadata")]
pub struct RemoteLogSegmentMetadata {
    remote_log_segment_id: RemoteLogSegmentId,
    start_offset: i64,
    end_offset: i64,
    max_timestamp_ms: i64,
    broker_id: i32,
    event_timestamp_ms: i64,
    segment_size_in_bytes: i32,
    custom_metadata: Option<CustomMetadata>,
    state: RemoteLogSegmentState,
    segment_leader_epochs: BTreeMap<LeaderEpoch, i64>,
    txn_index_empty: bool,
}

impl RemoteLogSegmentMetadata {
    /// Validated metadata of a segment.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] when the leader-epoch map is
    /// empty, an offset is negative, `end_offset < start_offset`, the size is
    /// negative, or a leader epoch starts after `end_offset`.
    pub fn new(
        remote_log_segment_id: RemoteLogSegmentId,
        start_offset: i64,
        end_offset: i64,
        max_timestamp_ms: i64,
        broker_id: i32,
        event_timestamp_ms: i64,
        details: RemoteLogSegmentDetails,
    ) -> Result<Self> {
        let RemoteLogSegmentDetails {
            segment_size_in_bytes,
            state,
            segment_leader_epochs,
        } = details;
        let invalid = |reason: String| {
            Err(RemoteStorageError::InvalidArgument(format!(
                "{remote_log_segment_id}: {reason}"
            )))
        };
        if segment_leader_epochs.is_empty() {
            return invalid("segment_leader_epochs must not be empty".to_owned());
        }
        if start_offset < 0 {
            return invalid(format!("start_offset {start_offset} must not be negative"));
        }
        if end_offset < start_offset {
            return invalid(format!(
                "end_offset {end_offset} must not be below start_offset {start_offset}"
            ));
        }
        if segment_size_in_bytes < 0 {
            return invalid(format!(
                "segment_size_in_bytes {segment_size_in_bytes} must not be negative"
            ));
        }
        if let Some((epoch, offset)) = segment_leader_epochs
            .iter()
            .find(|(_, offset)| **offset > end_offset)
        {
            return invalid(format!(
                "leader epoch {epoch} starts at {offset}, after end_offset {end_offset}"
            ));
        }
        Ok(Self {
            remote_log_segment_id,
            start_offset,
            end_offset,
            max_timestamp_ms,
            broker_id,
            event_timestamp_ms,
            segment_size_in_bytes,
            custom_metadata: None,
            state,
            segment_leader_epochs,
            txn_index_empty: false,
        })
    }

    /// The segment's id.
    #[must_use]
    pub fn remote_log_segment_id(&self) -> &RemoteLogSegmentId {
        &self.remote_log_segment_id
    }

    /// The partition the segment belongs to.
    #[must_use]
    pub fn topic_id_partition(&self) -> &TopicIdPartition {
        &self.remote_log_segment_id.topic_id_partition
    }

    /// First offset in the segment (inclusive).
    #[must_use]
    pub fn start_offset(&self) -> i64 {
        self.start_offset
    }

    /// Last offset in the segment (inclusive).
    #[must_use]
    pub fn end_offset(&self) -> i64 {
        self.end_offset
    }

    /// Largest record timestamp in the segment.
    #[must_use]
    pub fn max_timestamp_ms(&self) -> i64 {
        self.max_timestamp_ms
    }

    /// Broker that produced this metadata event.
    #[must_use]
    pub fn broker_id(&self) -> i32 {
        self.broker_id
    }

    /// When this metadata event happened.
    #[must_use]
    pub fn event_timestamp_ms(&self) -> i64 {
        self.event_timestamp_ms
    }

    /// Size of the `.log` file in bytes.
    #[must_use]
    pub fn segment_size_in_bytes(&self) -> i32 {
        self.segment_size_in_bytes
    }

    /// Custom metadata the storage manager returned from the copy, if any.
    #[must_use]
    pub fn custom_metadata(&self) -> Option<&CustomMetadata> {
        self.custom_metadata.as_ref()
    }

    /// Lifecycle state.
    #[must_use]
    pub fn state(&self) -> RemoteLogSegmentState {
        self.state
    }

    /// Leader epoch → first offset of that epoch within the segment.
    #[must_use]
    pub fn segment_leader_epochs(&self) -> &BTreeMap<LeaderEpoch, i64> {
        &self.segment_leader_epochs
    }

    /// Kafka's `isTxnIdxEmpty()`: the segment has no aborted transactions.
    #[must_use]
    pub fn txn_index_empty(&self) -> bool {
        self.txn_index_empty
    }

    /// The last offset of `epoch` inside this segment: one before the next
    /// epoch's start, or the segment's end offset. `None` when the segment
    /// holds no records of `epoch`.
    #[must_use]
    pub fn epoch_end_offset(&self, epoch: LeaderEpoch) -> Option<i64> {
        self.segment_leader_epochs.get(&epoch)?;
        let next_start = self
            .segment_leader_epochs
            .range((std::ops::Bound::Excluded(epoch), std::ops::Bound::Unbounded))
            .next()
            .map(|(_, start)| *start);
        Some(next_start.map_or(self.end_offset, |start| start.saturating_sub(1)))
    }

    /// This metadata with `custom_metadata` attached.
    #[must_use]
    pub fn with_custom_metadata(mut self, custom_metadata: Option<CustomMetadata>) -> Self {
        self.custom_metadata = custom_metadata;
        self
    }

    /// This metadata with Kafka's `txnIdxEmpty` flag set to `empty`.
    #[must_use]
    pub fn with_txn_index_empty(mut self, empty: bool) -> Self {
        self.txn_index_empty = empty;
        self
    }

    /// This metadata with `update` applied (Kafka's `createWithUpdates`):
    /// state, event timestamp and broker id are taken from the update; custom
    /// metadata is replaced only when the update carries some.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] if the update is for another
    /// segment, [`RemoteStorageError::InvalidSegmentTransition`] if the state
    /// change is not allowed.
    pub fn with_update(&self, update: &RemoteLogSegmentMetadataUpdate) -> Result<Self> {
        if update.remote_log_segment_id != self.remote_log_segment_id {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "update for {} applied to {}",
                update.remote_log_segment_id, self.remote_log_segment_id
            )));
        }
        if !RemoteLogSegmentState::is_valid_transition(Some(self.state), update.state) {
            return Err(RemoteStorageError::InvalidSegmentTransition {
                id: self.remote_log_segment_id.clone(),
                from: Some(self.state),
                to: update.state,
            });
        }
        let mut updated = self.clone();
        updated.state = update.state;
        updated.event_timestamp_ms = update.event_timestamp_ms;
        updated.broker_id = update.broker_id;
        if update.custom_metadata.is_some() {
            updated.custom_metadata.clone_from(&update.custom_metadata);
        }
        Ok(updated)
    }
}

/// The serialized form of [`RemoteLogSegmentMetadata`], checked by
/// [`RemoteLogSegmentMetadata::new`] before it becomes one.
#[derive(Deserialize)]
struct RawSegmentMetadata {
    remote_log_segment_id: RemoteLogSegmentId,
    start_offset: i64,
    end_offset: i64,
    max_timestamp_ms: i64,
    broker_id: i32,
    event_timestamp_ms: i64,
    segment_size_in_bytes: i32,
    custom_metadata: Option<CustomMetadata>,
    state: RemoteLogSegmentState,
    segment_leader_epochs: BTreeMap<LeaderEpoch, i64>,
    txn_index_empty: bool,
}

impl TryFrom<RawSegmentMetadata> for RemoteLogSegmentMetadata {
    type Error = RemoteStorageError;

    fn try_from(raw: RawSegmentMetadata) -> Result<Self> {
        let metadata = Self::new(
            raw.remote_log_segment_id,
            raw.start_offset,
            raw.end_offset,
            raw.max_timestamp_ms,
            raw.broker_id,
            raw.event_timestamp_ms,
            RemoteLogSegmentDetails::new(
                raw.segment_size_in_bytes,
                raw.state,
                raw.segment_leader_epochs,
            ),
        )?;
        Ok(metadata
            .with_custom_metadata(raw.custom_metadata)
            .with_txn_index_empty(raw.txn_index_empty))
    }
}

/// A change of a segment's state (Kafka's `RemoteLogSegmentMetadataUpdate`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteLogSegmentMetadataUpdate {
    /// The segment being updated.
    pub remote_log_segment_id: RemoteLogSegmentId,
    /// When the event happened.
    pub event_timestamp_ms: i64,
    /// Custom metadata from the copy, if the update carries it.
    pub custom_metadata: Option<CustomMetadata>,
    /// The new state.
    pub state: RemoteLogSegmentState,
    /// The broker recording the event.
    pub broker_id: i32,
}

impl RemoteLogSegmentMetadataUpdate {
    /// An update moving `remote_log_segment_id` to `state`.
    #[must_use]
    pub fn new(
        remote_log_segment_id: RemoteLogSegmentId,
        event_timestamp_ms: i64,
        custom_metadata: Option<CustomMetadata>,
        state: RemoteLogSegmentState,
        broker_id: i32,
    ) -> Self {
        Self {
            remote_log_segment_id,
            event_timestamp_ms,
            custom_metadata,
            state,
            broker_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use {super::*, RemoteLogSegmentState::*};

    fn segment(epochs: &[(i32, i64)], start: i64, end: i64) -> RemoteLogSegmentMetadata {
        let tp = TopicIdPartition::new(Uuid::from_u128(1), "t", 0);
        RemoteLogSegmentMetadata::new(
            RemoteLogSegmentId::new(tp, Uuid::from_u128(2)),
            start,
            end,
            0,
            1,
            0,
            RemoteLogSegmentDetails::new(
                100,
                CopySegmentStarted,
                epochs.iter().map(|(e, o)| (LeaderEpoch(*e), *o)).collect(),
            ),
        )
        .unwrap()
    }

    #[test]
    fn negative_start_offset_is_refused() {
        let tp = TopicIdPartition::new(Uuid::nil(), "t", 0);
        let err = RemoteLogSegmentMetadata::new(
            RemoteLogSegmentId::new(tp, Uuid::nil()),
            -1,
            5,
            0,
            0,
            0,
            RemoteLogSegmentDetails::new(
                1,
                CopySegmentStarted,
                BTreeMap::from([(LeaderEpoch(0), 0)]),
            ),
        )
        .unwrap_err();
        assert!(matches!(err, RemoteStorageError::InvalidArgument(_)));
    }

    #[test]
    fn epoch_end_offsets_stop_before_the_next_epoch() {
        let md = segment(&[(0, 0), (3, 50)], 0, 99);
        assert_eq!(md.epoch_end_offset(LeaderEpoch(0)), Some(49));
        assert_eq!(md.epoch_end_offset(LeaderEpoch(3)), Some(99));
        assert_eq!(md.epoch_end_offset(LeaderEpoch(1)), None);
        let last = segment(&[(0, 0), (i32::MAX, 7)], 0, 9);
        assert_eq!(last.epoch_end_offset(LeaderEpoch(i32::MAX)), Some(9));
        let low = segment(&[(0, 0), (1, i64::MIN)], 0, 9);
        assert_eq!(low.epoch_end_offset(LeaderEpoch(0)), Some(i64::MIN));
    }

    #[test]
    fn update_applies_state_and_keeps_custom_metadata_unless_given() {
        let md = segment(&[(0, 0)], 0, 9).with_custom_metadata(Some(CustomMetadata(vec![1])));
        let update = RemoteLogSegmentMetadataUpdate::new(
            md.remote_log_segment_id().clone(),
            77,
            None,
            CopySegmentFinished,
            4,
        );
        let updated = md.with_update(&update).unwrap();
        assert_eq!(updated.state(), CopySegmentFinished);
        assert_eq!(updated.event_timestamp_ms(), 77);
        assert_eq!(updated.broker_id(), 4);
        assert_eq!(updated.custom_metadata(), Some(&CustomMetadata(vec![1])));
    }

    #[test]
    fn update_refuses_backwards_transitions_and_foreign_ids() {
        let md = segment(&[(0, 0)], 0, 9);
        let finished = md
            .with_update(&RemoteLogSegmentMetadataUpdate::new(
                md.remote_log_segment_id().clone(),
                1,
                None,
                CopySegmentFinished,
                1,
            ))
            .unwrap();
        let back = RemoteLogSegmentMetadataUpdate::new(
            md.remote_log_segment_id().clone(),
            2,
            None,
            CopySegmentStarted,
            1,
        );
        assert!(matches!(
            finished.with_update(&back),
            Err(RemoteStorageError::InvalidSegmentTransition { .. })
        ));
        let mut foreign = back;
        foreign.remote_log_segment_id.id = Uuid::from_u128(99);
        foreign.state = DeleteSegmentStarted;
        assert!(matches!(
            finished.with_update(&foreign),
            Err(RemoteStorageError::InvalidArgument(_))
        ));
    }

    #[test]
    fn deserialization_refuses_what_the_constructor_refuses() {
        let md = segment(&[(0, 0), (2, 5)], 0, 9);
        let mut json = serde_json::to_value(&md).unwrap();
        json["end_offset"] = serde_json::json!(-3);
        assert!(serde_json::from_value::<RemoteLogSegmentMetadata>(json.clone()).is_err());
        json["end_offset"] = serde_json::json!(9);
        json["segment_leader_epochs"] = serde_json::json!({});
        assert!(serde_json::from_value::<RemoteLogSegmentMetadata>(json.clone()).is_err());
        json["segment_leader_epochs"] = serde_json::json!({"0": 0});
        json["segment_size_in_bytes"] = serde_json::json!(-1);
        assert!(serde_json::from_value::<RemoteLogSegmentMetadata>(json.clone()).is_err());
        json["segment_size_in_bytes"] = serde_json::json!(1);
        assert!(serde_json::from_value::<RemoteLogSegmentMetadata>(json).is_ok());
    }

    #[test]
    fn metadata_round_trips_through_json() {
        let md = segment(&[(0, 0), (2, 5)], 0, 9)
            .with_txn_index_empty(true)
            .with_custom_metadata(Some(CustomMetadata(vec![7, 8])));
        let json = serde_json::to_string(&md).unwrap();
        let back: RemoteLogSegmentMetadata = serde_json::from_str(&json).unwrap();
        assert_eq!(back, md);
    }
}
