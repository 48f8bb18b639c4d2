//! The `RemoteLogMetadataManager` SPI: the source of truth for which remote
//! segments exist and in which state.

use {
    crate::{
        RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate, RemotePartitionDeleteMetadata,
        Result, TopicIdPartition,
    },
    krabka_ids::LeaderEpoch,
    std::collections::HashSet,
};

/// Stores and answers queries about remote segment metadata (Kafka's
/// `RemoteLogMetadataManager`).
///
/// # Contract
///
/// - **Synchronous and thread-safe**: readers and writers may call at once.
/// - **Lifecycle**: a segment is added in
///   [`CopySegmentStarted`](crate::RemoteLogSegmentState::CopySegmentStarted)
///   and moves only along
///   [`RemoteLogSegmentState::is_valid_transition`](crate::RemoteLogSegmentState::is_valid_transition);
///   a self-transition is a harmless retry.
/// - **Visibility**: only `CopySegmentFinished` segments answer offset and
///   epoch lookups ([`Self::remote_log_segment_metadata`],
///   [`Self::highest_offset_for_epoch`]); listings return every segment that
///   is not `DeleteSegmentFinished`, sorted by start offset.
/// - **Misses** are `Ok(None)` (or an empty list), never an error; an update
///   of an unknown segment is
///   [`RemoteStorageError::NotFound`](crate::RemoteStorageError::NotFound).
pub trait RemoteLogMetadataManager: Send + Sync {
    /// Records a new segment, which must be in `CopySegmentStarted` state.
    ///
    /// # Errors
    /// `InvalidArgument` for another state or a segment id already known.
    fn add_remote_log_segment_metadata(&self, metadata: RemoteLogSegmentMetadata) -> Result<()>;

    /// Moves a known segment to a new state.
    ///
    /// # Errors
    /// `NotFound` for an unknown segment, `InvalidSegmentTransition` for a
    /// forbidden move, `InvalidArgument` for a move to `CopySegmentStarted`.
    fn update_remote_log_segment_metadata(
        &self,
        update: RemoteLogSegmentMetadataUpdate,
    ) -> Result<()>;

    /// The finished segment holding `offset` written in `leader_epoch`.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn remote_log_segment_metadata(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
        offset: i64,
    ) -> Result<Option<RemoteLogSegmentMetadata>>;

    /// The highest offset of `leader_epoch` held by finished segments: the
    /// epoch's end offset within each segment, maximised.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn highest_offset_for_epoch(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<Option<i64>>;

    /// Every segment of the partition not yet `DeleteSegmentFinished`, sorted
    /// by start offset.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn list_remote_log_segments(
        &self,
        partition: &TopicIdPartition,
    ) -> Result<Vec<RemoteLogSegmentMetadata>>;

    /// The segments of [`Self::list_remote_log_segments`] that hold records
    /// of `leader_epoch`, sorted by start offset.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn list_remote_log_segments_by_epoch(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<Vec<RemoteLogSegmentMetadata>>;

    /// Records a step of a partition's remote deletion.
    ///
    /// # Errors
    /// `InvalidPartitionDeleteTransition` for a forbidden step.
    fn put_remote_partition_delete_metadata(
        &self,
        metadata: RemotePartitionDeleteMetadata,
    ) -> Result<()>;

    /// The first finished segment at or after `offset` in `leader_epoch`
    /// whose transaction index is not empty (Kafka's
    /// `nextSegmentWithTxnIndex`, KIP-1058).
    ///
    /// The default is Kafka's interface default: the segment holding
    /// `offset`, whatever its transaction index, which is always correct but
    /// makes the broker read more transaction indexes than needed. Managers
    /// that track `txn_index_empty` override it.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn next_segment_with_txn_index(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
        offset: i64,
    ) -> Result<Option<RemoteLogSegmentMetadata>> {
        self.remote_log_segment_metadata(partition, leader_epoch, offset)
    }

    /// Total size of the partition's listed segments of `leader_epoch`.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn remote_log_size(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<u64> {
        Ok(self
            .list_remote_log_segments_by_epoch(partition, leader_epoch)?
            .iter()
            .map(|segment| u64::try_from(segment.segment_size_in_bytes()).unwrap_or(0))
            .sum())
    }

    /// Whether the manager has caught up for `partition` (Kafka's `isReady`).
    fn is_ready(&self, _partition: &TopicIdPartition) -> bool {
        true
    }

    /// Tells the manager which partitions this broker now leads and follows.
    fn on_partition_leadership_changes(
        &self,
        _leaders: &HashSet<TopicIdPartition>,
        _followers: &HashSet<TopicIdPartition>,
    ) {
    }

    /// Tells the manager this broker no longer hosts `partitions`.
    fn on_stop_partitions(&self, _partitions: &HashSet<TopicIdPartition>) {}

    /// Erases what the manager keeps of `partition`, whose topic the caller
    /// knows to be deleted (Kafka tells a metadata manager only that it
    /// stopped hosting a partition, never why). A history that still names
    /// segments not deleted is [`HistoryErasure::Pending`]; one on a
    /// write-once store is [`HistoryErasure::Kept`]. The default forgets
    /// what is held in memory.
    ///
    /// # Errors
    /// Only on a failure of the store behind the manager.
    fn erase_deleted_partition(&self, partition: &TopicIdPartition) -> Result<HistoryErasure> {
        self.on_stop_partitions(&HashSet::from([partition.clone()]));
        Ok(HistoryErasure::Absent)
    }

    /// Called once when the broker closes the manager, before it is
    /// dropped: a durable manager leaves its histories quick to load.
    fn close(&self) {}
}

/// What became of the metadata history of a partition whose topic was
/// deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryErasure {
    /// Its objects were deleted (how many).
    Erased(usize),
    /// Nothing was stored for it.
    Absent,
    /// It still names segments that are not deleted (which, and in what
    /// state): asked again once the leader deleted them, it is erased.
    Pending(String),
    /// It stays for good, and why (a write-once archive).
    Kept(String),
}

impl std::fmt::Display for HistoryErasure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Erased(objects) => write!(f, "erased: {objects} objects deleted"),
            Self::Absent => f.write_str("absent: nothing stored"),
            Self::Pending(reason) => write!(f, "pending: {reason}"),
            Self::Kept(reason) => write!(f, "kept: {reason}"),
        }
    }
}
