//! `InmemoryRemoteLogMetadataManager`: a process-memory
//! [`RemoteLogMetadataManager`] with Kafka's semantics.

use {
    crate::{
        RemoteLogMetadataManager, RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
        RemotePartitionDeleteMetadata, RemoteStorageError, Result, TopicIdPartition,
        cache::RemoteLogMetadataCache, dump::RlmmCacheDump,
    },
    krabka_ids::LeaderEpoch,
    std::{
        collections::{BTreeMap, BTreeSet},
        fmt,
        sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard},
    },
};

/// One partition's cache behind its own lock.
type SharedCache = Arc<RwLock<RemoteLogMetadataCache>>;

/// A [`RemoteLogMetadataManager`] that keeps all metadata in process memory
/// (not durable), enforcing Kafka's segment and partition-delete lifecycles.
///
/// # Semantics
///
/// - Segments and their lookups follow Kafka's `RemoteLogMetadataCache`:
///   only `CopySegmentFinished` segments answer
///   [`remote_log_segment_metadata`](RemoteLogMetadataManager::remote_log_segment_metadata),
///   [`highest_offset_for_epoch`](RemoteLogMetadataManager::highest_offset_for_epoch)
///   and
///   [`next_segment_with_txn_index`](RemoteLogMetadataManager::next_segment_with_txn_index),
///   within the offsets each leader epoch covers in the segment; where an
///   old and a new leader uploaded overlapping segments of one epoch, the
///   segment whose offsets contain the other's serves, and both stay listed.
/// - A self-transition is a harmless retry: the state stays, the event
///   timestamp and broker id are refreshed from the update, and so is the
///   custom metadata when the update carries some. `DeleteSegmentFinished`
///   removes the segment, so updating it again is `NotFound`, as in Kafka.
/// - Partition deletion follows
///   [`RemotePartitionDeleteState::is_valid_transition`](crate::RemotePartitionDeleteState::is_valid_transition),
///   self-transitions included. `DeletePartitionFinished` drops the
///   partition's segments and keeps its delete state, so a retried finish
///   stays harmless (Kafka's test-only in-memory manager forgets the state
///   and then refuses the retry). Segments added afterwards are accepted, as
///   Kafka's managers accept them.
/// - A partition the manager never heard of answers `Ok(None)` or an empty
///   list; an update of a segment in it is `NotFound`.
///
/// # Concurrency
///
/// Each partition has its own [`RwLock`], and a map lock guards only the set
/// of partitions, so calls on different partitions do not wait for each
/// other and readers of one partition share it. Every call sees a
/// partition either before or after any one update, never in between. A
/// poisoned lock is recovered rather than propagated: the cache validates
/// each change before it mutates anything, so a panic elsewhere cannot leave
/// it half-updated.
///
/// ```
/// use {
///     krabka_ids::LeaderEpoch,
///     krabka_remote_storage::{
///         InmemoryRemoteLogMetadataManager, RemoteLogMetadataManager, RemoteLogSegmentDetails,
///         RemoteLogSegmentId, RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
///         RemoteLogSegmentState, TopicIdPartition,
///     },
///     std::collections::BTreeMap,
///     uuid::Uuid,
/// };
///
/// # fn run() -> krabka_remote_storage::Result<()> {
/// let manager = InmemoryRemoteLogMetadataManager::new();
/// let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 0);
/// let id = RemoteLogSegmentId::new(tp.clone(), Uuid::from_u128(2));
/// let epochs = BTreeMap::from([(LeaderEpoch(0), 0), (LeaderEpoch(1), 50)]);
/// let details = RemoteLogSegmentDetails::new(1024, RemoteLogSegmentState::CopySegmentStarted, epochs);
/// manager.add_remote_log_segment_metadata(RemoteLogSegmentMetadata::new(id.clone(), 0, 99, 0, 1, 0, details)?)?;
/// // Not readable until the copy has finished.
/// assert!(manager.remote_log_segment_metadata(&tp, LeaderEpoch(0), 10)?.is_none());
/// manager.update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate::new(
///     id, 1, None, RemoteLogSegmentState::CopySegmentFinished, 1,
/// ))?;
/// assert!(manager.remote_log_segment_metadata(&tp, LeaderEpoch(0), 49)?.is_some());
/// assert!(manager.remote_log_segment_metadata(&tp, LeaderEpoch(0), 50)?.is_none());
/// assert_eq!(manager.highest_offset_for_epoch(&tp, LeaderEpoch(0))?, Some(49));
/// assert_eq!(manager.highest_offset_for_epoch(&tp, LeaderEpoch(1))?, Some(99));
/// # Ok(())
/// # }
/// # run().unwrap();
/// ```
#[derive(Default)]
pub struct InmemoryRemoteLogMetadataManager {
    /// Every partition the manager has heard of, by `(topic id, partition)`.
    partitions: RwLock<BTreeMap<TopicIdPartition, SharedCache>>,
    /// With [`Self::warning_on_unknown_partitions`]: the partitions already
    /// warned about.
    warned: Option<Mutex<BTreeSet<TopicIdPartition>>>,
}

impl fmt::Debug for InmemoryRemoteLogMetadataManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InmemoryRemoteLogMetadataManager")
            .field("partitions", &read(&self.partitions).len())
            .finish()
    }
}

impl InmemoryRemoteLogMetadataManager {
    /// An empty manager.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same manager, logging a WARN the first time it is asked about a
    /// partition it holds nothing for: in a broker, after a restart, that is
    /// a partition whose tiered data this manager forgot (it would otherwise
    /// look empty, silently).
    #[must_use]
    pub fn warning_on_unknown_partitions(mut self) -> Self {
        self.warned = Some(Mutex::default());
        self
    }

    /// A snapshot of every partition that holds segments or a delete state,
    /// sorted by `(topic id, partition)`, segments by
    /// `(start offset, segment id)`. Each partition is captured atomically;
    /// a write to another partition during the export may or may not show.
    #[must_use]
    pub fn export(&self) -> RlmmCacheDump {
        let caches: Vec<SharedCache> = read(&self.partitions).values().cloned().collect();
        RlmmCacheDump {
            partitions: caches
                .iter()
                .map(|cache| read(cache))
                .filter(|cache| !cache.is_empty())
                .map(|cache| cache.dump())
                .collect(),
        }
    }

    /// Replaces the content of every partition `dump` names with the dump's
    /// (partitions it does not name are left alone). The states are taken
    /// as dumped, without transition checks: they are the product of valid
    /// transitions. An entry with no segments and no delete state empties
    /// its partition.
    ///
    /// The whole dump is checked before anything changes, so a refused dump
    /// leaves the manager as it was.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] when a partition appears twice
    /// or, within a partition, a segment id appears twice, a segment belongs
    /// to another partition, or a segment is `DeleteSegmentFinished`.
    pub fn import(&self, dump: RlmmCacheDump) -> Result<()> {
        let mut named = BTreeSet::new();
        let mut restored = Vec::with_capacity(dump.partitions.len());
        for partition in dump.partitions {
            if !named.insert(partition.topic_id_partition.clone()) {
                return Err(RemoteStorageError::InvalidArgument(format!(
                    "dump names partition {} twice",
                    partition.topic_id_partition
                )));
            }
            restored.push(RemoteLogMetadataCache::restore(partition)?);
        }
        let mut partitions = write(&self.partitions);
        for cache in restored {
            match partitions.get(cache.partition()) {
                Some(shared) => *write(shared) = cache,
                None => {
                    partitions.insert(cache.partition().clone(), Arc::new(RwLock::new(cache)));
                }
            }
        }
        Ok(())
    }

    /// The cache of `partition`, if the manager has heard of it.
    fn cache(&self, partition: &TopicIdPartition) -> Option<SharedCache> {
        read(&self.partitions).get(partition).cloned()
    }

    /// The cache of `partition`, created empty if needed.
    fn cache_or_create(&self, partition: &TopicIdPartition) -> SharedCache {
        if let Some(cache) = self.cache(partition) {
            return cache;
        }
        write(&self.partitions)
            .entry(partition.clone())
            .or_insert_with(|| {
                Arc::new(RwLock::new(RemoteLogMetadataCache::new(partition.clone())))
            })
            .clone()
    }

    /// `query` on the cache of `partition`, or `T::default()` for a
    /// partition the manager never heard of.
    fn query<T: Default>(
        &self,
        partition: &TopicIdPartition,
        query: impl FnOnce(&RemoteLogMetadataCache) -> T,
    ) -> T {
        match self.cache(partition) {
            Some(cache) => query(&read(&cache)),
            None => {
                self.warn_unknown(partition);
                T::default()
            }
        }
    }

    /// The WARN of [`Self::warning_on_unknown_partitions`], once per
    /// partition.
    fn warn_unknown(&self, partition: &TopicIdPartition) {
        let Some(warned) = &self.warned else {
            return;
        };
        let first = warned
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(partition.clone());
        if first {
            tracing::warn!(
                %partition,
                "the in-memory remote log metadata manager holds nothing for this partition: if \
                 the broker restarted, every segment tiered before is forgotten and unreadable \
                 (use rlmm.config.metadata.manager=store for durable metadata)"
            );
        }
    }
}

/// A read guard on `lock`, recovered if a panicking holder poisoned it.
fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| {
        tracing::warn!("recovering a poisoned remote log metadata lock");
        PoisonError::into_inner(poisoned)
    })
}

/// A write guard on `lock`, recovered if a panicking holder poisoned it.
fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|poisoned| {
        tracing::warn!("recovering a poisoned remote log metadata lock");
        PoisonError::into_inner(poisoned)
    })
}

impl RemoteLogMetadataManager for InmemoryRemoteLogMetadataManager {
    fn add_remote_log_segment_metadata(&self, metadata: RemoteLogSegmentMetadata) -> Result<()> {
        let cache = self.cache_or_create(metadata.topic_id_partition());
        let mut cache = write(&cache);
        cache.add(metadata)
    }

    fn update_remote_log_segment_metadata(
        &self,
        update: RemoteLogSegmentMetadataUpdate,
    ) -> Result<()> {
        let id = &update.remote_log_segment_id;
        let cache = self
            .cache(&id.topic_id_partition)
            .ok_or_else(|| RemoteStorageError::not_found(format!("metadata of {id}")))?;
        let mut cache = write(&cache);
        cache.update(&update)
    }

    fn remote_log_segment_metadata(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
        offset: i64,
    ) -> Result<Option<RemoteLogSegmentMetadata>> {
        Ok(self.query(partition, |cache| {
            cache.segment_for(leader_epoch, offset).cloned()
        }))
    }

    fn highest_offset_for_epoch(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<Option<i64>> {
        Ok(self.query(partition, |cache| {
            cache.highest_offset_for_epoch(leader_epoch)
        }))
    }

    fn list_remote_log_segments(
        &self,
        partition: &TopicIdPartition,
    ) -> Result<Vec<RemoteLogSegmentMetadata>> {
        Ok(self.query(partition, RemoteLogMetadataCache::list))
    }

    fn list_remote_log_segments_by_epoch(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<Vec<RemoteLogSegmentMetadata>> {
        Ok(self.query(partition, |cache| cache.list_by_epoch(leader_epoch)))
    }

    fn put_remote_partition_delete_metadata(
        &self,
        metadata: RemotePartitionDeleteMetadata,
    ) -> Result<()> {
        let cache = self.cache_or_create(&metadata.topic_id_partition);
        let mut cache = write(&cache);
        cache.put_delete_state(metadata.state)
    }

    /// Kafka's `nextSegmentWithTxnIndex`: starting at the finished segment
    /// that serves `offset` in `leader_epoch`, the first segment of the
    /// epoch's lineage (each next segment serves the offset one past the
    /// previous one's end) whose transaction index is not empty. `None` when
    /// `offset` is not served in the epoch or the lineage ends first; the
    /// broker then asks again with the next epoch.
    fn next_segment_with_txn_index(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
        offset: i64,
    ) -> Result<Option<RemoteLogSegmentMetadata>> {
        Ok(self.query(partition, |cache| {
            cache
                .next_segment_with_txn_index(leader_epoch, offset)
                .cloned()
        }))
    }
}

#[cfg(test)]
mod tests;
