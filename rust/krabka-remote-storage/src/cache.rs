//! The per-partition metadata cache behind
//! [`InmemoryRemoteLogMetadataManager`](crate::InmemoryRemoteLogMetadataManager),
//! after Kafka's `RemoteLogMetadataCache` and `RemoteLogLeaderEpochState`.
//!
//! # What each query sees
//!
//! | query \ state                  | CopyStarted | CopyFinished | DeleteStarted | DeleteFinished |
//! |--------------------------------|-------------|--------------|---------------|----------------|
//! | [`segment_for`], highest, txn  |             | ✓            |               |                |
//! | [`list`], [`list_by_epoch`]    | ✓           | ✓            | ✓             |                |
//!
//! A `DeleteSegmentFinished` update removes the segment entirely, so a later
//! update of the same id is `NotFound`, as in Kafka.
//!
//! # Leader epochs inside a segment
//!
//! A segment holds records of epoch `e` from the offset its leader-epoch map
//! gives for `e` (never before the segment's start) to one before the next
//! epoch's start, or to the segment's end: its **span** for `e`. A segment
//! `[0, 99]` with epochs `{0: 0, 1: 50}` serves epoch 0 for `0..=49` and
//! epoch 1 for `50..=99`.
//!
//! # Overlapping uploads
//!
//! After a leader change the new leader may upload a segment that covers
//! offsets an old leader already uploaded in the same epoch. Kafka then
//! serves the newer, wider upload and keeps the older one listed
//! ("unreferenced") so that it can be deleted. Here the rule is stated on the
//! finished spans of each epoch, independent of arrival order: a span is
//! **shadowed** when another finished span of the epoch contains it; of two
//! identical spans the one with the later event timestamp (then the higher
//! segment id) serves. Only unshadowed spans serve reads. This agrees with
//! Kafka whenever Kafka replaces a segment (Kafka only replaces spans the new
//! one contains), and it keeps two properties Kafka's incremental bookkeeping
//! loses in corner cases: a lookup finds a segment whenever some finished
//! segment holds the offset in that epoch, and the answers depend only on
//! the set of segments, so a restored dump answers like the original.
//!
//! # Highest offset of an epoch
//!
//! The end of the epoch's last served span: the highest offset of the epoch
//! that a segment finished **now** holds, as the trait contract says. Kafka's
//! cache instead remembers the highest end ever reached, even after those
//! segments started deletion, and forgets it on restart; here the answer
//! falls back when a segment leaves `CopySegmentFinished`.
//!
//! [`segment_for`]: RemoteLogMetadataCache::segment_for
//! [`list`]: RemoteLogMetadataCache::list
//! [`list_by_epoch`]: RemoteLogMetadataCache::list_by_epoch

use {
    crate::{
        RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState,
        RemotePartitionDeleteState, RemoteStorageError, Result, TopicIdPartition,
        dump::PartitionDump,
    },
    krabka_ids::LeaderEpoch,
    std::{
        collections::{BTreeMap, BTreeSet, HashMap},
        ops::Bound::{Excluded, Unbounded},
    },
    uuid::Uuid,
};

/// The offsets of one leader epoch inside one finished segment, and the rank
/// that decides between two identical spans (higher serves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct EpochSpan {
    /// First offset of the epoch in the segment (inclusive).
    start: i64,
    /// Last offset of the epoch in the segment (inclusive).
    end: i64,
    /// `(event timestamp, segment id)` of the segment.
    rank: (i64, Uuid),
}

impl EpochSpan {
    /// The span of `epoch` in `segment`; `None` when the segment holds no
    /// record of it.
    fn of(segment: &RemoteLogSegmentMetadata, epoch: LeaderEpoch) -> Option<Self> {
        let epochs = segment.segment_leader_epochs();
        let first = *epochs.get(&epoch)?;
        let start = first.max(segment.start_offset());
        let next_start = epochs
            .range((Excluded(epoch), Unbounded))
            .next()
            .map(|(_, offset)| *offset);
        let end = next_start
            .map_or(segment.end_offset(), |next| next.saturating_sub(1))
            .min(segment.end_offset());
        (start <= end).then_some(Self {
            start,
            end,
            rank: (
                segment.event_timestamp_ms(),
                segment.remote_log_segment_id().id,
            ),
        })
    }

    /// The segment id.
    fn id(&self) -> Uuid {
        self.rank.1
    }

    /// Whether `self` makes `other` redundant: it holds every offset of
    /// `other` and is either wider or ranks higher.
    fn shadows(&self, other: &Self) -> bool {
        let contains = self.start <= other.start && self.end >= other.end;
        let wider = self.start != other.start || self.end != other.end;
        contains && (wider || self.rank > other.rank)
    }
}

/// What the cache knows about one leader epoch of the partition.
#[derive(Debug, Default)]
struct EpochState {
    /// Every listed segment carrying the epoch, as `(start offset, id)`.
    members: BTreeSet<(i64, Uuid)>,
    /// The span of every `CopySegmentFinished` segment carrying the epoch.
    finished: BTreeSet<EpochSpan>,
    /// The unshadowed finished spans by start. No span here contains
    /// another, so both starts and ends strictly increase.
    served: BTreeMap<i64, EpochSpan>,
}

impl EpochState {
    /// Adds `span` to the served spans unless one of them shadows it, and
    /// drops the served spans it shadows.
    fn serve(&mut self, span: EpochSpan) {
        // The served span starting at or before `span` with the highest end:
        // if any served span contains `span`, this one does.
        let floor = self.served.range(..=span.start).next_back();
        if floor.is_some_and(|(_, floor)| floor.shadows(&span)) {
            return;
        }
        let shadowed: Vec<i64> = self
            .served
            .range(span.start..)
            .take_while(|(_, served)| served.end <= span.end)
            .map(|(start, _)| *start)
            .collect();
        for start in shadowed {
            self.served.remove(&start);
        }
        self.served.insert(span.start, span);
    }

    /// Withdraws `span` (already gone from `finished`) and lets the spans it
    /// shadowed serve again.
    fn unserve(&mut self, span: &EpochSpan) {
        if self.served.get(&span.start) != Some(span) {
            return;
        }
        self.served.remove(&span.start);
        let lowest = EpochSpan {
            start: span.start,
            end: i64::MIN,
            rank: (i64::MIN, Uuid::nil()),
        };
        let highest = EpochSpan {
            start: span.end,
            end: i64::MAX,
            rank: (i64::MAX, Uuid::from_u128(u128::MAX)),
        };
        let uncovered: Vec<EpochSpan> = self
            .finished
            .range(lowest..=highest)
            .filter(|candidate| candidate.end <= span.end)
            .copied()
            .collect();
        for candidate in uncovered {
            self.serve(candidate);
        }
    }

    /// The served span holding `offset`.
    fn span_for(&self, offset: i64) -> Option<&EpochSpan> {
        let (_, span) = self.served.range(..=offset).next_back()?;
        (offset <= span.end).then_some(span)
    }
}

/// The remote-segment metadata of one partition (crate-private; see the
/// module docs for its rules).
#[derive(Debug)]
pub(crate) struct RemoteLogMetadataCache {
    /// The partition, as first named to the cache.
    partition: TopicIdPartition,
    /// Every segment not yet `DeleteSegmentFinished`, by id.
    segments: HashMap<Uuid, RemoteLogSegmentMetadata>,
    /// The same segments as `(start offset, id)`: the listing order.
    by_start: BTreeSet<(i64, Uuid)>,
    /// Per leader epoch: members, finished spans and served spans.
    epochs: BTreeMap<LeaderEpoch, EpochState>,
    /// Where the partition is in its remote deletion.
    delete_state: Option<RemotePartitionDeleteState>,
}

impl RemoteLogMetadataCache {
    /// An empty cache for `partition`.
    pub(crate) fn new(partition: TopicIdPartition) -> Self {
        Self {
            partition,
            segments: HashMap::new(),
            by_start: BTreeSet::new(),
            epochs: BTreeMap::new(),
            delete_state: None,
        }
    }

    /// A cache holding exactly what `dump` describes. The states are taken
    /// as they are (they are the product of earlier valid transitions); the
    /// dump itself must be well-formed.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] when a segment belongs to
    /// another partition, is `DeleteSegmentFinished` (such a segment is gone
    /// and never exported), or repeats a segment id of the partition.
    pub(crate) fn restore(dump: PartitionDump) -> Result<Self> {
        let PartitionDump {
            topic_id_partition,
            segments,
            delete_state,
        } = dump;
        let mut cache = Self::new(topic_id_partition);
        cache.delete_state = delete_state;
        for segment in segments {
            let id = segment.remote_log_segment_id();
            let refused = if segment.topic_id_partition() != &cache.partition {
                Some("belongs to another partition")
            } else if segment.state() == RemoteLogSegmentState::DeleteSegmentFinished {
                Some("is DeleteSegmentFinished, which a dump never holds")
            } else if cache.segments.contains_key(&id.id) {
                Some("appears twice")
            } else {
                None
            };
            if let Some(reason) = refused {
                return Err(RemoteStorageError::InvalidArgument(format!(
                    "dump of partition {}: {id} {reason}",
                    cache.partition
                )));
            }
            cache.insert(segment);
        }
        Ok(cache)
    }

    /// The partition, as first named to the cache.
    pub(crate) fn partition(&self) -> &TopicIdPartition {
        &self.partition
    }

    /// A snapshot of the cache: segments by `(start offset, id)`.
    pub(crate) fn dump(&self) -> PartitionDump {
        PartitionDump {
            topic_id_partition: self.partition.clone(),
            segments: self.list(),
            delete_state: self.delete_state,
        }
    }

    /// Whether the cache holds neither segments nor a delete state.
    pub(crate) fn is_empty(&self) -> bool {
        self.segments.is_empty() && self.delete_state.is_none()
    }

    /// Records a new segment.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] when the segment is not in
    /// `CopySegmentStarted` state or its id is already known.
    pub(crate) fn add(&mut self, segment: RemoteLogSegmentMetadata) -> Result<()> {
        let id = segment.remote_log_segment_id();
        if segment.state() != RemoteLogSegmentState::CopySegmentStarted {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "{id} must be added in state CopySegmentStarted, not {:?}",
                segment.state()
            )));
        }
        if self.segments.contains_key(&id.id) {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "{id} is already known"
            )));
        }
        self.insert(segment);
        Ok(())
    }

    /// Applies `update` to a known segment.
    ///
    /// A self-transition is a harmless retry: the state stays, and the event
    /// timestamp and broker id are refreshed from the update, as is the
    /// custom metadata when the update carries some. A `DeleteSegmentFinished`
    /// update removes the segment.
    ///
    /// # Errors
    /// [`RemoteStorageError::NotFound`] for an unknown segment,
    /// [`RemoteStorageError::InvalidArgument`] for a move to
    /// `CopySegmentStarted`, [`RemoteStorageError::InvalidSegmentTransition`]
    /// for any other move Kafka forbids. Nothing changes on error.
    pub(crate) fn update(&mut self, update: &RemoteLogSegmentMetadataUpdate) -> Result<()> {
        let id = &update.remote_log_segment_id;
        let current = self
            .segments
            .get(&id.id)
            .filter(|segment| segment.topic_id_partition() == &id.topic_id_partition)
            .ok_or_else(|| RemoteStorageError::not_found(format!("metadata of {id}")))?;
        if update.state == RemoteLogSegmentState::CopySegmentStarted {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "{id} cannot be updated to CopySegmentStarted, which only an add records"
            )));
        }
        let updated = current.with_update(update)?;
        self.remove(id.id);
        if updated.state() != RemoteLogSegmentState::DeleteSegmentFinished {
            self.insert(updated);
        }
        Ok(())
    }

    /// Whether the cache holds segment `id`, in any state.
    pub(crate) fn holds(&self, id: &crate::RemoteLogSegmentId) -> bool {
        self.segments
            .get(&id.id)
            .is_some_and(|segment| segment.topic_id_partition() == &id.topic_id_partition)
    }

    /// The finished segment that serves `offset` in `epoch`.
    pub(crate) fn segment_for(
        &self,
        epoch: LeaderEpoch,
        offset: i64,
    ) -> Option<&RemoteLogSegmentMetadata> {
        let span = self.epochs.get(&epoch)?.span_for(offset)?;
        self.segments
            .get(&span.id())
            .filter(|segment| segment.state() == RemoteLogSegmentState::CopySegmentFinished)
    }

    /// The last offset of `epoch` held by a finished segment.
    pub(crate) fn highest_offset_for_epoch(&self, epoch: LeaderEpoch) -> Option<i64> {
        let state = self.epochs.get(&epoch)?;
        // Served ends increase with starts: the last served span ends highest.
        state.served.values().next_back().map(|span| span.end)
    }

    /// Kafka's `nextSegmentWithTxnIndex`: from the finished segment serving
    /// `offset` in `epoch`, follow the epoch's lineage (the segment serving
    /// one past each segment's end) to the first segment whose transaction
    /// index is not empty. The walk stops, with `None`, where the lineage
    /// ends: `offset` or a successor not served in `epoch`.
    pub(crate) fn next_segment_with_txn_index(
        &self,
        epoch: LeaderEpoch,
        offset: i64,
    ) -> Option<&RemoteLogSegmentMetadata> {
        let mut segment = self.segment_for(epoch, offset)?;
        // Each step moves past the previous segment's end, so the walk ends.
        while segment.txn_index_empty() {
            segment = self.segment_for(epoch, segment.end_offset().checked_add(1)?)?;
        }
        Some(segment)
    }

    /// Every segment, sorted by `(start offset, id)`.
    pub(crate) fn list(&self) -> Vec<RemoteLogSegmentMetadata> {
        self.collect(&self.by_start)
    }

    /// The segments carrying `epoch`, sorted by `(start offset, id)`.
    pub(crate) fn list_by_epoch(&self, epoch: LeaderEpoch) -> Vec<RemoteLogSegmentMetadata> {
        self.epochs
            .get(&epoch)
            .map(|state| self.collect(&state.members))
            .unwrap_or_default()
    }

    /// Records the next step of the partition's remote deletion.
    /// `DeletePartitionFinished` drops every segment; its state is kept so a
    /// retried finish stays harmless.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidPartitionDeleteTransition`] when
    /// [`RemotePartitionDeleteState::is_valid_transition`] refuses the step.
    pub(crate) fn put_delete_state(&mut self, to: RemotePartitionDeleteState) -> Result<()> {
        if !RemotePartitionDeleteState::is_valid_transition(self.delete_state, to) {
            return Err(RemoteStorageError::InvalidPartitionDeleteTransition {
                partition: self.partition.clone(),
                from: self.delete_state,
                to,
            });
        }
        self.delete_state = Some(to);
        if to == RemotePartitionDeleteState::DeletePartitionFinished {
            self.segments.clear();
            self.by_start.clear();
            self.epochs.clear();
        }
        Ok(())
    }

    /// The metadata of `ids`, in their order.
    fn collect(&self, ids: &BTreeSet<(i64, Uuid)>) -> Vec<RemoteLogSegmentMetadata> {
        ids.iter()
            .filter_map(|(_, id)| self.segments.get(id))
            .cloned()
            .collect()
    }

    /// Stores `segment` (whose id must be new) and indexes it.
    fn insert(&mut self, segment: RemoteLogSegmentMetadata) {
        let id = segment.remote_log_segment_id().id;
        let start = segment.start_offset();
        let finished = segment.state() == RemoteLogSegmentState::CopySegmentFinished;
        self.by_start.insert((start, id));
        for &epoch in segment.segment_leader_epochs().keys() {
            let state = self.epochs.entry(epoch).or_default();
            state.members.insert((start, id));
            if let Some(span) = EpochSpan::of(&segment, epoch).filter(|_| finished) {
                state.finished.insert(span);
                state.serve(span);
            }
        }
        self.segments.insert(id, segment);
    }

    /// Removes segment `id` and every index entry of it.
    fn remove(&mut self, id: Uuid) {
        let Some(segment) = self.segments.remove(&id) else {
            return;
        };
        let start = segment.start_offset();
        let finished = segment.state() == RemoteLogSegmentState::CopySegmentFinished;
        self.by_start.remove(&(start, id));
        for &epoch in segment.segment_leader_epochs().keys() {
            let Some(state) = self.epochs.get_mut(&epoch) else {
                continue;
            };
            state.members.remove(&(start, id));
            if let Some(span) = EpochSpan::of(&segment, epoch).filter(|_| finished) {
                state.finished.remove(&span);
                state.unserve(&span);
            }
            if state.members.is_empty() {
                self.epochs.remove(&epoch);
            }
        }
    }
}

#[cfg(test)]
mod tests;
