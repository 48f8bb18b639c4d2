//! [`StoreRemoteLogMetadataManager`]: a durable
//! [`RemoteLogMetadataManager`] whose history lives in the same store as
//! the tier (a directory, S3, GCS), so no Kafka topic is needed and a
//! restarted broker reads its tiered data at once.
//!
//! # Design
//!
//! Each partition has an append-only history of small records, one per
//! event (segment added, segment updated, a step of the partition's
//! deletion), at sequence-numbered keys (see `keys.rs`), in the format of
//! [`krabka_kafka::encode_record`]. A record is written **create-only** at
//! the position after the last one the writer knows, and only after the
//! writer validated the event against the whole history with Kafka's
//! transition rules (the in-memory manager's cache, reused). So two brokers
//! that both believe they lead a partition cannot both extend its history:
//! the loser's write finds the key taken, it reads the history again and
//! fails with [`RemoteStorageError::Fenced`]; retrying decides again
//! against the new state. A record is visible whole or not at all: a
//! create-only PUT is atomic, and the filesystem store writes a staging
//! file and links it into place.
//!
//! Every `snapshot_every` records a writer (or a reader that replayed a
//! longer tail) stores a snapshot of the state, create-only too, and so
//! does a broker that stops hosting a partition or closes; a reader lists
//! the partition's directory once, reads the newest snapshot and only the
//! records after it: one listing and one read after a clean hand-over.
//! Nothing is ever replaced — a deleted segment is a record. On a plain
//! tier a new snapshot compacts the history: the records and snapshots
//! the snapshot before it covers are deleted. On a write-once archive
//! (found by the archive's create-only probes under the same prefix, or
//! said with [`StoreRlmmConfig::keep_history`]) nothing is deleted.
//! The history of a partition whose topic was deleted is erased on a
//! plain tier once none of its segments is left
//! ([`RemoteLogMetadataManager::erase_deleted_partition`]).
//!
//! # Other brokers' writes
//!
//! A partition's state is loaded on first use (or ahead of it, when the
//! broker reports leadership). For a partition this broker does not lead,
//! a query reads the records written since the last look when that was
//! more than `poll_interval` ago; every query that misses (no segment, an
//! empty listing) reads them at once; and a write refused by the cached
//! state is checked again after reading them. So a follower sees a
//! leader's writes within `poll_interval`, and at once when it asks for
//! something it lacks.
//!
//! ```
//! use {
//!     krabka_ids::LeaderEpoch,
//!     krabka_remote_storage::{
//!         RemoteLogMetadataManager, RemoteLogSegmentDetails, RemoteLogSegmentId,
//!         RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState,
//!         StoreRemoteLogMetadataManager, StoreRlmmConfig, TopicIdPartition,
//!         store::StoreHandle,
//!     },
//!     std::{collections::BTreeMap, sync::Arc},
//!     uuid::Uuid,
//! };
//!
//! # fn run() -> krabka_remote_storage::Result<()> {
//! let bucket = Arc::new(object_store::memory::InMemory::new());
//! let store = || StoreHandle::new(bucket.clone(), None).unwrap();
//! let leader = StoreRemoteLogMetadataManager::new(store(), StoreRlmmConfig::default());
//! let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 0);
//! let id = RemoteLogSegmentId::new(tp.clone(), Uuid::from_u128(2));
//! let epochs = BTreeMap::from([(LeaderEpoch(0), 0)]);
//! let details = RemoteLogSegmentDetails::new(1024, RemoteLogSegmentState::CopySegmentStarted, epochs);
//! leader.add_remote_log_segment_metadata(RemoteLogSegmentMetadata::new(id.clone(), 0, 99, 0, 1, 0, details)?)?;
//! leader.update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate::new(
//!     id, 1, None, RemoteLogSegmentState::CopySegmentFinished, 1,
//! ))?;
//! // Another broker, or this one after a restart, reads the same history.
//! let restarted = StoreRemoteLogMetadataManager::new(store(), StoreRlmmConfig::default());
//! assert!(restarted.remote_log_segment_metadata(&tp, LeaderEpoch(0), 42)?.is_some());
//! # Ok(())
//! # }
//! # run().unwrap();
//! ```

mod checkpoint;
mod history;
mod keys;
mod partition;
mod ranges;
#[cfg(test)]
mod tests;
mod view;

pub use view::{HistoryView, UnreadableHistory, read_histories};

use {
    self::{
        checkpoint::Checkpoints,
        history::{History, Listing},
        partition::{PartitionState, StateSettings},
    },
    crate::{cache::RemoteLogMetadataCache, metrics::MetadataMetrics, store_bridge::spi_error},
    krabka_ids::LeaderEpoch,
    krabka_kafka::{
        HistoryErasure, MetadataEvent, MetadataSnapshot, RemoteLogMetadataManager,
        RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate, RemotePartitionDeleteMetadata,
        RemoteStorageError, Result, TopicIdPartition, encode_snapshot,
    },
    krabka_object_store::{
        ObjectStoreConfig,
        store::{StoreHandle, metered::RequestMetrics},
    },
    std::{
        collections::{HashMap, HashSet},
        fmt,
        sync::{
            Arc, Mutex, MutexGuard, PoisonError, RwLock,
            atomic::{AtomicBool, Ordering},
        },
        time::{Duration, SystemTime},
    },
};

/// The default directory of the histories under the store's prefix.
pub const DEFAULT_RLMM_ROOT: &str = "remote-log-metadata";
/// The default number of records between snapshots.
pub const DEFAULT_SNAPSHOT_EVERY: u64 = 32;
/// The default bound on how stale a follower's view may be.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The default number of partitions loaded at once after a leadership
/// change (and written up to a snapshot at once on close). A load waits on
/// the store (a listing and a read after a clean shutdown), not on the CPU:
/// loaded one by one, a broker leading thousands of partitions on an object
/// store with tens of milliseconds per request would take minutes to be
/// ready; 16 at once took 35.1 s for 10,000 partitions at 25 ms, 64 took 15.0 s.
pub const DEFAULT_LOAD_CONCURRENCY: usize = 64;

/// Settings of a [`StoreRemoteLogMetadataManager`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreRlmmConfig {
    /// The directory of the histories under the store's prefix (default
    /// [`DEFAULT_RLMM_ROOT`]); no segment key of a tier can collide with
    /// it, so the tier and its metadata may share a bucket or directory.
    pub root: String,
    /// Records between snapshots (default [`DEFAULT_SNAPSHOT_EVERY`]; at
    /// least 1): the longest tail a reader replays.
    pub snapshot_every: u64,
    /// How stale the view of a partition this broker does not lead may be
    /// (default [`DEFAULT_POLL_INTERVAL`]).
    pub poll_interval: Duration,
    /// Keep every record and snapshot, and the histories of deleted
    /// topics (default false: compact on a plain tier). A store holding a
    /// write-once archive's probes keeps them whatever this says.
    pub keep_history: bool,
    /// Partitions loaded (and, on close, snapshotted) at once, each on a
    /// thread of its own (default [`DEFAULT_LOAD_CONCURRENCY`]; at least
    /// 1).
    pub load_concurrency: usize,
    /// The broker this manager runs in (Kafka passes `node.id`): names its
    /// checkpoint, the state of every partition it held written when it
    /// closes and read when it restarts. `None` (default): no checkpoint.
    pub broker_id: Option<i32>,
}

impl Default for StoreRlmmConfig {
    fn default() -> Self {
        Self {
            root: DEFAULT_RLMM_ROOT.to_owned(),
            snapshot_every: DEFAULT_SNAPSHOT_EVERY,
            poll_interval: DEFAULT_POLL_INTERVAL,
            keep_history: false,
            load_concurrency: DEFAULT_LOAD_CONCURRENCY,
            broker_id: None,
        }
    }
}

/// Longest a closing manager spends writing snapshots of the partitions
/// it leads; what it did not reach loads its tail next time.
const CLOSE_SNAPSHOT_BUDGET: Duration = Duration::from_secs(30);

/// One partition's state; `None` until loaded, and again after a failure
/// left it unlike the history.
type Slot = Arc<Mutex<Option<PartitionState>>>;

/// A partition a background load will load: its listing when it was
/// listed with others, its entry in this broker's checkpoint.
type QueuedLoad = (TopicIdPartition, Option<Listing>, Option<MetadataSnapshot>);

/// A durable [`RemoteLogMetadataManager`] keeping each partition's
/// history in a store, with Kafka's lifecycle rules: append-only records
/// written create-only at sequence-numbered keys (a writer that loses the
/// race for a position is [`RemoteStorageError::Fenced`]), and snapshots so
/// a reader replays a bounded tail. The design, record format and
/// behaviour on restart are in `docs/metadata.md`.
///
/// # Contract
///
/// - Thread-safe; calls on one partition are serialised, calls on
///   different partitions are not.
/// - Answers as [`InmemoryRemoteLogMetadataManager`](crate::InmemoryRemoteLogMetadataManager)
///   does for the same events (the same state machine answers), and as it
///   would after a restart: everything any broker recorded in the store.
/// - A write returns once its record is durable in the store.
/// - [`is_ready`](RemoteLogMetadataManager::is_ready) is true once the
///   partition's state is loaded (loading starts when the broker reports
///   the partition's leadership, or at the first question about it).
///
/// Cloning is cheap and shares the state: clones are one manager.
#[derive(Clone)]
pub struct StoreRemoteLogMetadataManager {
    store: StoreHandle,
    config: StoreRlmmConfig,
    partitions: Arc<RwLock<HashMap<TopicIdPartition, Slot>>>,
    leaders: Arc<RwLock<HashSet<TopicIdPartition>>>,
    metrics: Arc<MetadataMetrics>,
    /// Whether the history is compacted, once known.
    compacts: Arc<std::sync::OnceLock<bool>>,
    /// Partitions a background load will load: not ready, and not loaded
    /// by `is_ready` meanwhile.
    pending: Arc<Mutex<HashSet<TopicIdPartition>>>,
    /// Whether this broker's checkpoint was read (by the first load).
    checkpoint_read: Arc<AtomicBool>,
    /// Whether partitions loaded together are listed in ranges (the store
    /// lists from an offset).
    lists_ranges: bool,
}

impl fmt::Debug for StoreRemoteLogMetadataManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreRemoteLogMetadataManager")
            .field("store", &self.store)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl StoreRemoteLogMetadataManager {
    /// A manager over `store`. Nothing is read until a partition is used.
    #[must_use]
    pub fn new(store: StoreHandle, mut config: StoreRlmmConfig) -> Self {
        config.snapshot_every = config.snapshot_every.max(1);
        Self {
            lists_ranges: ranges::lists_from_an_offset(&store),
            store,
            config,
            partitions: Arc::default(),
            leaders: Arc::default(),
            metrics: Arc::default(),
            compacts: Arc::default(),
            pending: Arc::default(),
            checkpoint_read: Arc::default(),
        }
    }

    /// The same manager counting its store traffic into `metrics` (shared
    /// with other managers, for a process-wide view) instead of its own.
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<MetadataMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// The same manager listing partitions loaded together in ranges
    /// whatever its store (an in-memory store lists from an offset by
    /// filtering a whole listing: right, if not fast).
    #[cfg(test)]
    fn listing_ranges(mut self) -> Self {
        self.lists_ranges = true;
        self
    }

    /// What this manager wrote and read: records, fenced writes,
    /// snapshots, partition loads.
    #[must_use]
    pub fn metrics(&self) -> &Arc<MetadataMetrics> {
        &self.metrics
    }

    /// The requests this manager made of its store, by operation and
    /// outcome.
    #[must_use]
    pub fn store_requests(&self) -> &Arc<RequestMetrics> {
        self.store.request_metrics()
    }

    /// A manager over the store `store` describes.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] when no store can be built from it.
    pub fn from_config(store: &ObjectStoreConfig, config: StoreRlmmConfig) -> Result<Self> {
        let handle = StoreHandle::from_config(store).map_err(spi_error)?;
        Ok(Self::new(handle, config))
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &StoreRlmmConfig {
        &self.config
    }

    /// Whether histories are compacted and deleted topics' erased: not
    /// when [`StoreRlmmConfig::keep_history`] says so, nor when the store
    /// holds a write-once archive's create-only probes (the archive keeps
    /// its history; a delete there would at best be refused and at worst
    /// hide a version behind a delete marker). Asked of the store once.
    fn compacts(&self) -> bool {
        if self.config.keep_history {
            return false;
        }
        *self.compacts.get_or_init(|| match self.holds_archive() {
            Ok(archive) => {
                if archive {
                    tracing::info!(
                        "the remote log metadata shares its store with a write-once archive: its history is kept whole"
                    );
                }
                !archive
            }
            Err(err) => {
                tracing::warn!(error = %err, "could not tell whether the remote log metadata store holds a write-once archive; its history is kept whole");
                false
            }
        })
    }

    /// Whether the store lists a write-once archive's probes.
    fn holds_archive(&self) -> Result<bool> {
        let probes = self
            .store
            .key(krabka_object_store::CREATE_ONLY_PROBE_DIR)
            .map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let found = self.store.runtime().block_on(async move {
            use futures_util::TryStreamExt;
            store
                .list(Some(&probes))
                .try_next()
                .await
                .map(|first| first.is_some())
                .map_err(|err| {
                    krabka_object_store::store::errors::to_store_error(
                        err,
                        "listing of",
                        probes.as_ref(),
                    )
                })
        });
        found.map_err(spi_error)
    }

    /// What a partition's state is loaded with.
    fn settings(&self) -> StateSettings {
        StateSettings {
            snapshot_every: self.config.snapshot_every,
            compact: self.compacts(),
            metrics: Arc::clone(&self.metrics),
        }
    }

    /// Writes snapshots of `partitions` where they have records after
    /// their newest snapshot, on up to `load_concurrency` threads, for at
    /// most `budget`.
    fn snapshot_partitions(&self, partitions: Vec<TopicIdPartition>, budget: Duration) {
        let deadline = std::time::Instant::now() + budget;
        let threads = partitions.len().min(self.config.load_concurrency.max(1));
        let queue = Mutex::new(partitions.into_iter());
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    while std::time::Instant::now() < deadline {
                        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                        let Some(partition) = next else {
                            return;
                        };
                        let slot = self.slot(&partition);
                        if let Some(state) = lock(&slot).as_mut() {
                            state.settle();
                        }
                    }
                });
            }
        });
    }

    /// The slot of `partition`, created empty if needed.
    fn slot(&self, partition: &TopicIdPartition) -> Slot {
        if let Some(slot) = read(&self.partitions).get(partition) {
            return Arc::clone(slot);
        }
        let mut partitions = self
            .partitions
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(partitions.entry(partition.clone()).or_default())
    }

    /// The state of `partition` in `slot`, loaded if it is not.
    fn loaded<'a>(
        &self,
        partition: &TopicIdPartition,
        slot: &'a mut Option<PartitionState>,
    ) -> Result<&'a mut PartitionState> {
        if slot.is_none() {
            let history = History::new(self.store.clone(), &self.config.root, partition.clone());
            *slot = Some(PartitionState::load(history, self.settings())?);
        }
        slot.as_mut().ok_or_else(|| RemoteStorageError::Backend {
            message: format!("remote log metadata of {partition} is not loaded"),
            source: None,
        })
    }

    /// Runs `with` on the loaded state of `partition`, read up to date if
    /// this broker does not lead it and the last read is older than the
    /// poll interval. A state `with` left unlike the history is dropped.
    fn with_state<T>(
        &self,
        partition: &TopicIdPartition,
        with: impl FnOnce(&mut PartitionState, bool) -> Result<T>,
    ) -> Result<T> {
        let slot = self.slot(partition);
        let mut guard = lock(&slot);
        let leads = read(&self.leaders).contains(partition);
        let state = self.loaded(partition, &mut guard)?;
        if !leads && state.since_refresh() >= self.config.poll_interval {
            state.follow()?;
        }
        let result = with(state, leads);
        if state.is_stale() {
            *guard = None;
        }
        result
    }

    /// `query` on `partition`'s cache; when it `misses`, once more after
    /// reading what other brokers wrote since (one read of the next
    /// position when nothing was written: misses are rare on the broker's
    /// paths, and an answer must not wait for the poll interval).
    fn query<T>(
        &self,
        partition: &TopicIdPartition,
        query: impl Fn(&RemoteLogMetadataCache) -> T,
        misses: impl Fn(&T) -> bool,
    ) -> Result<T> {
        self.with_state(partition, |state, leads| {
            let answer = query(state.cache());
            if !misses(&answer) {
                return Ok(answer);
            }
            let found = if leads {
                state.catch_up()?
            } else {
                state.follow()?
            };
            if found > 0 {
                return Ok(query(state.cache()));
            }
            Ok(answer)
        })
    }

    /// Records `event` in its partition's history.
    fn append(&self, event: MetadataEvent) -> Result<()> {
        let partition = event.partition().clone();
        self.with_state(&partition, |state, _| state.append(event))
    }

    /// Loads `partitions` (marked pending) on up to `load_concurrency`
    /// threads: their directories listed together where the store lists
    /// from an offset (a few listings for thousands of partitions), each
    /// started from this broker's checkpoint where a listing shows it is
    /// still the state (the first load after a start only), then the records
    /// after it. Failures are logged (the partition stays not ready, and its
    /// first use tries again).
    fn load_all(&self, partitions: Vec<TopicIdPartition>) {
        let started = std::time::Instant::now();
        let mut checkpoint = self.read_checkpoint();
        let checkpoint_read = started.elapsed();
        let mut listings = if self.lists_ranges && self.compacts() {
            ranges::scan_many(
                &self.store,
                &self.config.root,
                &partitions,
                self.config.load_concurrency,
            )
            .unwrap_or_else(|err| {
                tracing::warn!(
                    error = %err,
                    "could not list the remote log metadata of {} partitions together; listing each alone",
                    partitions.len()
                );
                HashMap::new()
            })
        } else {
            HashMap::new()
        };
        let listed = started.elapsed();
        let (count, from_checkpoint) = (partitions.len(), checkpoint.len());
        let work: Vec<_> = partitions
            .into_iter()
            .map(|partition| {
                let listing = listings.remove(&partition);
                let checkpointed = checkpoint.remove(&partition);
                (partition, listing, checkpointed)
            })
            .collect();
        drop(checkpoint);
        let threads = work.len().min(self.config.load_concurrency.max(1));
        let queue = Mutex::new(work.into_iter());
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let spawned = std::thread::Builder::new()
                    .name("krabka-rlmm-load".to_owned())
                    .spawn_scoped(scope, || self.load_queued(&queue));
                if let Err(err) = spawned {
                    // The threads already started load everything; with none,
                    // partitions load on first use.
                    tracing::warn!(
                        error = %err,
                        "could not start a remote log metadata loading thread"
                    );
                    break;
                }
            }
        });
        // What no thread reached loads on first use.
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        for (partition, _, _) in queue.into_inner().unwrap_or_else(PoisonError::into_inner) {
            pending.remove(&partition);
        }
        drop(pending);
        tracing::info!(
            partitions = count,
            checkpoint_entries = from_checkpoint,
            checkpoint_ms = checkpoint_read.as_millis(),
            listed_ms = listed.saturating_sub(checkpoint_read).as_millis(),
            loaded_ms = started.elapsed().saturating_sub(listed).as_millis(),
            "loaded the remote log metadata of the partitions this broker leads and follows"
        );
    }

    /// Loads the partitions `queue` hands out until it is empty; any number
    /// of threads share one queue.
    fn load_queued(&self, queue: &Mutex<std::vec::IntoIter<QueuedLoad>>) {
        loop {
            let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some((partition, listing, checkpointed)) = next else {
                return;
            };
            let slot = self.slot(&partition);
            let mut guard = lock(&slot);
            if guard.is_none() {
                let history =
                    History::new(self.store.clone(), &self.config.root, partition.clone());
                // A checkpoint entry is checked against a listing: the
                // shared one, or the partition's own.
                let loaded =
                    match (listing, checkpointed) {
                        (None, None) => PartitionState::load(history, self.settings()),
                        (listing, checkpointed) => listing
                            .map_or_else(|| history.scan(), Ok)
                            .and_then(|listing| {
                                PartitionState::load_listed(
                                    history,
                                    self.settings(),
                                    &listing,
                                    checkpointed,
                                )
                            }),
                    };
                match loaded {
                    Ok(state) => *guard = Some(state),
                    Err(err) => tracing::warn!(
                        %partition,
                        error = %err,
                        "could not load the remote log metadata; the partition is not ready yet"
                    ),
                }
            }
            drop(guard);
            self.pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&partition);
        }
    }

    /// This broker's newest checkpoint, once: the first load after a start
    /// reads it, later ones find nothing (what they load, this broker led or
    /// followed since). Empty without a broker id, on a history kept whole,
    /// or when it cannot be read (logged; partitions then load alone).
    fn read_checkpoint(&self) -> HashMap<TopicIdPartition, MetadataSnapshot> {
        let Some(broker) = self.config.broker_id else {
            return HashMap::new();
        };
        if self.checkpoint_read.swap(true, Ordering::SeqCst) || !self.compacts() {
            return HashMap::new();
        }
        match Checkpoints::new(self.store.clone(), &self.config.root, broker).read_newest() {
            Ok(found) => {
                tracing::info!(
                    broker,
                    partitions = found.len(),
                    "read the remote log metadata checkpoint"
                );
                found
            }
            Err(err) => {
                tracing::warn!(broker, error = %err, "could not read the remote log metadata checkpoint; partitions load from their histories");
                HashMap::new()
            }
        }
    }

    /// Writes this broker's checkpoint: the state of every partition it
    /// holds (loaded and the history's), so that its restart reads a few
    /// objects instead of a snapshot per partition. Only with a broker id,
    /// on a compacted history (an archive keeps its histories whole and
    /// loads them alone). A failure is logged: a restart without it loads
    /// each partition from its history.
    fn write_checkpoint(&self) {
        let Some(broker) = self.config.broker_id else {
            return;
        };
        if !self.compacts() {
            return;
        }
        let slots: Vec<Slot> = read(&self.partitions).values().cloned().collect();
        // Each state is encoded as it is taken: the checkpoint holds bytes,
        // not a copy of every partition's segments.
        let snapshots: Vec<_> = slots
            .iter()
            .filter_map(|slot| {
                let snapshot = lock(slot).as_ref().and_then(PartitionState::checkpoint)?;
                encode_snapshot(&snapshot)
                    .inspect_err(|err| {
                        tracing::warn!(partition = %snapshot.partition, error = %err, "a partition's state left out of the checkpoint");
                    })
                    .ok()
            })
            .collect();
        if snapshots.is_empty() {
            return;
        }
        let written_ms = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            });
        match Checkpoints::new(self.store.clone(), &self.config.root, broker)
            .write(snapshots, written_ms, true)
        {
            Ok(written) => {
                self.metrics.checkpoint_written();
                tracing::info!(
                    broker,
                    partitions = written.partitions,
                    parts = written.parts,
                    bytes = written.bytes,
                    "wrote the remote log metadata checkpoint"
                );
            }
            Err(err) => tracing::warn!(
                broker,
                error = %err,
                "could not write the remote log metadata checkpoint; the next start loads each partition from its history"
            ),
        }
    }

    /// The position reached in `partition`'s history (0: nothing), loading
    /// it if needed; for tests and diagnostics.
    ///
    /// # Errors
    /// The store's errors.
    pub fn applied(&self, partition: &TopicIdPartition) -> Result<u64> {
        self.with_state(partition, |state, _| Ok(state.applied()))
    }
}

/// The lock of `slot`; a panic while it was held may have left the state
/// unlike the history, so a poisoned state is dropped and loaded again.
fn lock(slot: &Mutex<Option<PartitionState>>) -> MutexGuard<'_, Option<PartitionState>> {
    slot.lock().unwrap_or_else(|poisoned| {
        let mut guard = poisoned.into_inner();
        *guard = None;
        slot.clear_poison();
        guard
    })
}

/// A read guard on `lock`, recovered if a panicking holder poisoned it (the
/// maps it guards are only inserted into and removed from whole).
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

impl RemoteLogMetadataManager for StoreRemoteLogMetadataManager {
    fn add_remote_log_segment_metadata(&self, metadata: RemoteLogSegmentMetadata) -> Result<()> {
        self.append(MetadataEvent::SegmentAdded(metadata))
    }

    fn update_remote_log_segment_metadata(
        &self,
        update: RemoteLogSegmentMetadataUpdate,
    ) -> Result<()> {
        self.append(MetadataEvent::SegmentUpdated(update))
    }

    fn remote_log_segment_metadata(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
        offset: i64,
    ) -> Result<Option<RemoteLogSegmentMetadata>> {
        self.query(
            partition,
            |cache| cache.segment_for(leader_epoch, offset).cloned(),
            Option::is_none,
        )
    }

    fn highest_offset_for_epoch(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<Option<i64>> {
        self.query(
            partition,
            |cache| cache.highest_offset_for_epoch(leader_epoch),
            Option::is_none,
        )
    }

    fn list_remote_log_segments(
        &self,
        partition: &TopicIdPartition,
    ) -> Result<Vec<RemoteLogSegmentMetadata>> {
        self.query(partition, RemoteLogMetadataCache::list, Vec::is_empty)
    }

    fn list_remote_log_segments_by_epoch(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
    ) -> Result<Vec<RemoteLogSegmentMetadata>> {
        self.query(
            partition,
            |cache| cache.list_by_epoch(leader_epoch),
            Vec::is_empty,
        )
    }

    fn put_remote_partition_delete_metadata(
        &self,
        metadata: RemotePartitionDeleteMetadata,
    ) -> Result<()> {
        self.append(MetadataEvent::PartitionDelete(metadata))
    }

    /// Kafka's `nextSegmentWithTxnIndex`, as
    /// [`InmemoryRemoteLogMetadataManager`](crate::InmemoryRemoteLogMetadataManager)
    /// answers it.
    fn next_segment_with_txn_index(
        &self,
        partition: &TopicIdPartition,
        leader_epoch: LeaderEpoch,
        offset: i64,
    ) -> Result<Option<RemoteLogSegmentMetadata>> {
        self.query(
            partition,
            |cache| {
                cache
                    .next_segment_with_txn_index(leader_epoch, offset)
                    .cloned()
            },
            Option::is_none,
        )
    }

    /// True once the partition's state is loaded. A partition not being
    /// loaded by another thread is loaded here (the broker asks from its
    /// task threads, never from its metadata thread).
    fn is_ready(&self, partition: &TopicIdPartition) -> bool {
        if self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(partition)
        {
            // A background load will load it.
            return false;
        }
        let slot = self.slot(partition);
        let Ok(mut guard) = slot.try_lock() else {
            // Being loaded (or written) by another thread right now.
            return false;
        };
        match self.loaded(partition, &mut guard) {
            Ok(_) => true,
            Err(err) => {
                tracing::warn!(%partition, error = %err, "remote log metadata not loaded yet");
                false
            }
        }
    }

    /// Records which partitions this broker leads (a led partition is not
    /// polled: its leader is its writer). A partition this broker now leads
    /// is read again from the store before it is ready, so a new leader
    /// continues where the old one stopped. Every named partition is then
    /// loaded on background threads (up to `load_concurrency` partitions at
    /// once), so the broker's metadata thread does not wait for the store.
    fn on_partition_leadership_changes(
        &self,
        leaders: &HashSet<TopicIdPartition>,
        followers: &HashSet<TopicIdPartition>,
    ) {
        {
            let mut led = self.leaders.write().unwrap_or_else(PoisonError::into_inner);
            led.extend(leaders.iter().cloned());
            for partition in followers {
                led.remove(partition);
            }
        }
        for partition in leaders {
            *lock(&self.slot(partition)) = None;
        }
        let partitions: Vec<_> = leaders.iter().chain(followers).cloned().collect();
        if partitions.is_empty() {
            return;
        }
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(partitions.iter().cloned());
        let manager = self.clone();
        let loading = partitions.clone();
        let spawned = std::thread::Builder::new()
            .name("krabka-rlmm-load".to_owned())
            .spawn(move || manager.load_all(loading));
        if let Err(err) = spawned {
            // The partitions load on first use.
            tracing::warn!(error = %err, "could not start the remote log metadata loading");
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for partition in &partitions {
                pending.remove(partition);
            }
        }
    }

    /// Forgets the partitions' state in memory; their histories stay in the
    /// store for whichever broker hosts them next. The ones this broker led
    /// are first written up to a snapshot on a background thread, so the
    /// next host loads each with one listing and one read.
    fn on_stop_partitions(&self, partitions: &HashSet<TopicIdPartition>) {
        let mut handed_over = Vec::new();
        {
            let mut led = self.leaders.write().unwrap_or_else(PoisonError::into_inner);
            let mut held = self
                .partitions
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            for partition in partitions {
                let was_led = led.remove(partition);
                if let Some(slot) = held.remove(partition) {
                    if was_led {
                        handed_over.push(slot);
                    }
                }
            }
        }
        if handed_over.is_empty() {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("krabka-rlmm-snapshot".to_owned())
            .spawn(move || {
                for slot in handed_over {
                    if let Some(state) = lock(&slot).as_mut() {
                        state.settle();
                    }
                }
            });
        if let Err(err) = spawned {
            tracing::warn!(error = %err, "could not start a remote log metadata snapshot thread");
        }
    }

    /// Erases `partition`'s history when its topic is deleted: on a plain
    /// tier, once the history (read afresh) names no segment that is not
    /// deleted, every object of its directory is deleted. A history that
    /// still names segments is kept (the leader is still deleting them, or
    /// a deletion failed: `krabka-tier fsck` reports it), and so is every
    /// history on a write-once archive.
    fn erase_deleted_partition(&self, partition: &TopicIdPartition) -> Result<HistoryErasure> {
        self.on_stop_partitions(&HashSet::from([partition.clone()]));
        if !self.compacts() {
            return Ok(HistoryErasure::Kept(
                "the history is kept whole (a write-once archive, or metadata.history.keep=true)"
                    .to_owned(),
            ));
        }
        let history = History::new(self.store.clone(), &self.config.root, partition.clone());
        if history.scan()?.keys.is_empty() {
            return Ok(HistoryErasure::Absent);
        }
        // Read without writing: no snapshot, no compaction.
        let read_only = StateSettings {
            snapshot_every: u64::MAX,
            compact: false,
            metrics: Arc::clone(&self.metrics),
        };
        let state = PartitionState::load(history.clone(), read_only)?;
        let left = state.cache().list();
        if !left.is_empty() {
            return Ok(HistoryErasure::Pending(format!(
                "{} of its segments are not deleted (the first: {} in state {:?})",
                left.len(),
                left[0].remote_log_segment_id(),
                left[0].state()
            )));
        }
        let erased = history.erase(&history.scan()?)?;
        self.metrics.history_erased();
        Ok(HistoryErasure::Erased(erased))
    }

    /// Writes the partitions this broker leads up to a snapshot (for at
    /// most `CLOSE_SNAPSHOT_BUDGET`), so after a clean restart each loads
    /// with one listing and one read.
    fn close(&self) {
        let led: Vec<_> = read(&self.leaders).iter().cloned().collect();
        self.snapshot_partitions(led, CLOSE_SNAPSHOT_BUDGET);
        self.write_checkpoint();
    }
}
