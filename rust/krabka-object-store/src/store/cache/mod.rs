//! The read cache: segment bytes in aligned chunks, shared by every reader
//! of a store handle, with read-ahead across fetches.
//!
//! Kafka reads a remote segment one fetch at a time: a stream opened at a
//! position, about a fetch's worth read (1 MiB per partition by default),
//! then closed; a consumer catching up asks for the next position right
//! after. Without a cache every fetch is a new ranged GET (a full round
//! trip, and a pooled connection thrown away with the unread body). With
//! it:
//! - a fetch reads aligned chunks ([`CacheConfig::chunk_bytes`]) through
//!   the cache, each one ranged GET sized to the chunk, read whole (so the
//!   connection goes back to the pool);
//! - a chunk is keyed by object key **and version** (S3 version id, GCS
//!   generation, else the ETag): every chunk of one reader comes from the
//!   version its first chunk came from (later GETs carry that version or
//!   `If-Match`), and a changed object is a failed read, never a mix;
//! - two readers of one chunk wait for one GET (single flight); a failed
//!   GET is not cached, each waiter gets the error;
//! - a fetch that starts where the previous fetch of that object stopped
//!   (within a chunk), or a stream that has read more than a fetch's worth,
//!   is sequential: the following [`CacheConfig::prefetch_chunks`] chunks
//!   are fetched ahead, within a cache-wide limit of GETs in flight, never
//!   past the object's end. Random fetches read only the chunks they touch;
//! - chunks are evicted least recently used first within
//!   [`CacheConfig::capacity_bytes`]; read-ahead evicted unread is counted
//!   ([`CacheStats::prefetch_unread_bytes`]);
//! - a sequential reader whose read-ahead reaches the end of its object
//!   warms what its tier names as the objects read next
//!   ([`NextObjects`]: the next segment's log and indexes), once per pass
//!   through the object: their first chunks are fetched ahead, as
//!   read-ahead;
//! - with a disk tier ([`CacheConfig::disk`]), evicted chunks are written to
//!   files and a chunk missing from memory is read from there before it is
//!   fetched (see the `disk` module: bounded, emptied at start, keyed by
//!   version, never failing a read).
//!
//! Segment objects are immutable (every copy has a new segment id), so an
//! object's version and size are remembered once learned; an object
//! replaced in place is noticed when a chunk GET carrying the old version
//! fails (the remembered version is then forgotten), not while every chunk
//! a reader needs is still cached.

mod chunks;
mod config;
mod disk;
#[cfg(test)]
mod disk_tests;
mod flight;
mod open;
mod reader;
#[cfg(test)]
mod tests;
mod warm;
#[cfg(test)]
mod warm_tests;

pub use {
    config::{
        CacheConfig, DEFAULT_CACHE_BYTES, DEFAULT_CHUNK_BYTES, DEFAULT_DISK_CACHE_BYTES,
        DEFAULT_EXPECTED_FETCH_BYTES, DEFAULT_PREFETCH_CHUNKS, DEFAULT_PREFETCH_IN_FLIGHT,
        DiskCacheConfig, MIN_CHUNK_BYTES,
    },
    open::open_cached,
    reader::CachedReader,
};

use {
    super::{
        StoreRuntime,
        error::{Result, StoreError},
        errors::to_store_error,
        fetch::ObjectAt,
        reader::{Pin, pin_of},
    },
    bytes::{Bytes, BytesMut},
    chunks::{ChunkKey, Chunks},
    disk::DiskTier,
    flight::{Flight, owned_error},
    futures_util::{StreamExt, future::BoxFuture},
    object_store::{GetOptions, GetRange, GetResult, ObjectStore, path::Path},
    std::{
        collections::HashMap,
        sync::{
            Arc, Mutex, MutexGuard, PoisonError,
            atomic::{AtomicU64, AtomicUsize, Ordering},
        },
        time::{Duration, Instant},
    },
};

/// Consecutive chunks read ahead in one GET at most: 8 MiB at the default
/// chunk size, the byte-range size AWS recommends. A sequential reader's
/// read-ahead reaches it once its depth has grown to twice this (it tops up
/// in batches of half its depth), so a reader that keeps up with the cache
/// asks in smaller GETs, and one that catches up in the largest.
pub(super) const COALESCED_CHUNKS: usize = 16;

/// Chunks of the next object warmed in one GET at most (see the `warm`
/// module): what a reader that goes on into it reads first, no more.
pub(super) const WARMED_CHUNKS: usize = 8;

/// Objects whose version and size are remembered, and whose last read
/// position is, at most; beyond, the memory is cleared and relearned.
const MAX_OBJECTS: usize = 16_384;

/// The objects a reader that reads its object to the end will most likely
/// read next, in the order they are worth warming: for a tier whose keys
/// sort by offset, the next segment's log and indexes, found by one listing.
/// The cache asks once per pass through an object, when a sequential
/// reader's read-ahead reaches the object's end, and fetches the first
/// chunks of each ahead (see the module documentation). A failure only means nothing is
/// warmed.
pub type NextObjects = Arc<dyn Fn() -> BoxFuture<'static, Result<Vec<Path>>> + Send + Sync>;

/// What pins an object version: the store's version id, else its ETag.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PinId {
    /// An S3 version id or a GCS generation.
    Version(String),
    /// An ETag.
    ETag(String),
}

/// One version of one object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ObjectId {
    /// The key.
    pub(crate) key: String,
    /// The version.
    pub(crate) pin: PinId,
}

impl ObjectId {
    /// The version `pin` names of `key`; `None` when the store names none
    /// (such an object is read without the cache).
    fn of(key: &Path, pin: &Pin) -> Option<Self> {
        let pin = match (&pin.version, &pin.e_tag) {
            (Some(version), _) => PinId::Version(version.clone()),
            (None, Some(e_tag)) => PinId::ETag(e_tag.clone()),
            (None, None) => return None,
        };
        Some(Self {
            key: key.to_string(),
            pin,
        })
    }
}

/// The version and size of an object as first read.
#[derive(Debug, Clone)]
pub(crate) struct ObjectInfo {
    id: Arc<ObjectId>,
    pin: Pin,
    size: u64,
}

impl ObjectInfo {
    /// The version and size of `key` that a GET's `answer` tells; `None`
    /// when the store names no version or ETag (such an object is read
    /// without the cache).
    fn of_answer(key: &Path, answer: &GetResult) -> Option<Self> {
        let pin = pin_of(answer);
        Some(Self {
            id: Arc::new(ObjectId::of(key, &pin)?),
            pin,
            size: answer.meta.size,
        })
    }
}

/// Where the last reader of an object stood and how deep it read ahead: a
/// fetch that continues it continues its read-ahead too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pattern {
    pub(crate) position: u64,
    pub(crate) depth: u64,
    /// Whether this pass through the object has warmed what is read after
    /// it (see the `warm` module).
    pub(crate) warmed_next: bool,
    /// Chunks of the objects read after it that this pass's read-ahead
    /// has asked for (see the `warm` module).
    pub(crate) ahead_next: u64,
    /// The last chunk its read-ahead asked for: the next fetch tops up
    /// from there, in batches of a full read-ahead GET, instead of asking
    /// for the few chunks each fetch moves the window by.
    pub(crate) ahead_to: Option<u64>,
}

/// What the cache has done since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Chunks a reader found held.
    pub hits: u64,
    /// Chunks a reader waited for a GET of (its own, or read-ahead's).
    pub misses: u64,
    /// Of the misses, those that joined a GET already in flight.
    pub joined: u64,
    /// Time readers spent waiting for the chunks they missed, summed over
    /// readers: what the store's latency still costs fetches (the GET that
    /// opens an object the cache does not know yet is in the fetch's
    /// time to its first byte instead).
    pub miss_wait: Duration,
    /// Chunks evicted to stay within the budget.
    pub evictions: u64,
    /// Bytes held now.
    pub bytes_held: u64,
    /// Ranged GETs made for chunks (read-ahead included).
    pub gets: u64,
    /// Bytes those GETs returned.
    pub bytes_fetched: u64,
    /// Bytes fetched ahead of a reader.
    pub prefetched_bytes: u64,
    /// Bytes fetched ahead and evicted before any reader got them.
    pub prefetch_unread_bytes: u64,
    /// Objects read next (the next segment's log and indexes) whose first
    /// chunks were fetched ahead as a reader neared the end of the object
    /// before them.
    pub warmed_objects: u64,
    /// Chunks a reader found on the disk tier (not counted in `hits` nor
    /// `misses`).
    pub disk_hits: u64,
    /// Bytes of chunk files the disk tier holds now.
    pub disk_bytes_held: u64,
    /// Chunk files evicted to keep the disk tier within its budget.
    pub disk_evictions: u64,
    /// Failures to write (or clean up) the disk tier's files.
    pub disk_write_errors: u64,
    /// Chunk files found damaged or unreadable, dropped and fetched again.
    pub disk_read_errors: u64,
}

/// Where a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A GET a reader waits for.
    Reader,
    /// A GET ahead of a reader.
    ReadAhead,
    /// The disk tier, for a reader.
    Disk,
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    joined: AtomicU64,
    miss_wait_nanos: AtomicU64,
    evictions: AtomicU64,
    gets: AtomicU64,
    bytes_fetched: AtomicU64,
    prefetched_bytes: AtomicU64,
    prefetch_unread_bytes: AtomicU64,
    warmed_objects: AtomicU64,
}

struct State {
    chunks: Chunks,
    loading: HashMap<ChunkKey, Arc<Flight>>,
    objects: HashMap<ObjectAt, ObjectInfo>,
    positions: HashMap<Arc<ObjectId>, Pattern>,
    /// The objects read after an object, as its warming found them: where
    /// its sequential reader's read-ahead runs on (see the `warm` module).
    next_objects: HashMap<Arc<ObjectId>, Arc<[Path]>>,
}

impl State {
    /// Records the objects read after `object`.
    fn remember_next(&mut self, object: &Arc<ObjectId>, next: Arc<[Path]>) {
        if self.next_objects.len() >= MAX_OBJECTS && !self.next_objects.contains_key(object) {
            self.next_objects.clear();
        }
        self.next_objects.insert(Arc::clone(object), next);
    }

    /// Records where a reader of `object` stands, replacing what was
    /// recorded only when `replace`.
    fn note_position(&mut self, object: &Arc<ObjectId>, pattern: Pattern, replace: bool) {
        let known = self.positions.contains_key(object);
        if known && !replace {
            return;
        }
        if self.positions.len() >= MAX_OBJECTS && !known {
            self.positions.clear();
        }
        self.positions.insert(Arc::clone(object), pattern);
    }
}

/// The read cache of one store handle (see the module documentation).
pub struct ChunkCache {
    config: CacheConfig,
    state: Mutex<State>,
    counters: Counters,
    prefetching: AtomicUsize,
    /// Warmings of what is read next under way (see the `warm` module).
    warming: AtomicUsize,
    /// Readers open now that read sequentially: they share the cache's
    /// room for read-ahead.
    sequential_readers: AtomicUsize,
    disk: Option<DiskTier>,
}

impl std::fmt::Debug for ChunkCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkCache")
            .field("config", &self.config)
            .field("stats", &self.stats())
            .finish()
    }
}

/// A chunk for a reader, and whether the reader had to wait for its GET.
pub(crate) struct Fetched {
    pub(crate) bytes: Bytes,
    pub(crate) waited: bool,
}

/// Where the chunks of one object come from.
#[derive(Clone)]
pub(crate) struct ChunkSource {
    pub(crate) runtime: Arc<StoreRuntime>,
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) key: Path,
    pub(crate) info: ObjectInfo,
    /// What its reader will read next, when its tier knows.
    pub(crate) next: Option<NextObjects>,
}

impl ChunkCache {
    /// An empty cache.
    ///
    /// With a disk tier, its directory is emptied of the cache's files by
    /// the tier's own thread, before any chunk is written there.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] for sizes that do not fit
    /// ([`CacheConfig::validated`]), [`StoreError::Backend`] when the disk
    /// tier's thread cannot start.
    pub fn new(config: CacheConfig) -> Result<Self> {
        let config = config.validated()?;
        let disk = match &config.disk {
            Some(disk) => Some(
                DiskTier::start(&disk.directory, disk.size_bytes, config.chunk_bytes).map_err(
                    |err| StoreError::Backend {
                        message: "cannot start the read cache's disk tier".to_owned(),
                        source: Some(Box::new(err)),
                    },
                )?,
            ),
            None => None,
        };
        Ok(Self {
            state: Mutex::new(State {
                chunks: Chunks::new(config.capacity_bytes),
                loading: HashMap::new(),
                objects: HashMap::new(),
                positions: HashMap::new(),
                next_objects: HashMap::new(),
            }),
            counters: Counters::default(),
            prefetching: AtomicUsize::new(0),
            warming: AtomicUsize::new(0),
            sequential_readers: AtomicUsize::new(0),
            disk,
            config,
        })
    }

    /// The sizes it was made with.
    #[must_use]
    pub fn config(&self) -> &CacheConfig {
        &self.config
    }

    /// What it has done so far.
    #[must_use]
    pub fn stats(&self) -> CacheStats {
        let count = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let c = &self.counters;
        let disk = self.disk.as_ref().map(DiskTier::stats).unwrap_or_default();
        CacheStats {
            hits: count(&c.hits),
            misses: count(&c.misses),
            joined: count(&c.joined),
            miss_wait: Duration::from_nanos(count(&c.miss_wait_nanos)),
            evictions: count(&c.evictions),
            bytes_held: self.lock().chunks.bytes(),
            gets: count(&c.gets),
            bytes_fetched: count(&c.bytes_fetched),
            prefetched_bytes: count(&c.prefetched_bytes),
            prefetch_unread_bytes: count(&c.prefetch_unread_bytes),
            warmed_objects: count(&c.warmed_objects),
            disk_hits: disk.hits,
            disk_bytes_held: disk.bytes_held,
            disk_evictions: disk.evictions,
            disk_write_errors: disk.write_errors,
            disk_read_errors: disk.read_errors,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets everything of the objects at `keys`, whatever their version:
    /// their version and size, their chunks, and GETs of them in flight
    /// (which then still answer their waiters but fill nothing). A tier
    /// calls it before it deletes those objects, so a later read finds them
    /// gone instead of served from memory.
    pub fn forget_keys(&self, keys: &[Path]) {
        let names: std::collections::HashSet<&str> = keys.iter().map(Path::as_ref).collect();
        let mut state = self.lock();
        state
            .objects
            .retain(|object, _| !names.contains(object.key.as_ref()));
        state
            .positions
            .retain(|object, _| !names.contains(object.key.as_str()));
        state
            .next_objects
            .retain(|object, _| !names.contains(object.key.as_str()));
        state
            .loading
            .retain(|chunk, _| !names.contains(chunk.object.key.as_str()));
        state.chunks.forget_keys(&names);
        if let Some(disk) = &self.disk {
            disk.forget(|object| names.contains(object.key.as_str()));
        }
    }

    /// What is remembered of `object`.
    fn info(&self, object: &ObjectAt) -> Option<ObjectInfo> {
        self.lock().objects.get(object).cloned()
    }

    /// Remembers `info` of `object`.
    fn learn(&self, object: ObjectAt, info: ObjectInfo) {
        let mut state = self.lock();
        if state.objects.len() >= MAX_OBJECTS {
            state.objects.clear();
        }
        state.objects.insert(object, info);
    }

    /// Remembers `info` of `object` unless something is remembered of it
    /// already; either way, what is remembered now.
    fn learn_if_absent(&self, object: ObjectAt, info: ObjectInfo) -> ObjectInfo {
        let mut state = self.lock();
        if let Some(known) = state.objects.get(&object) {
            return known.clone();
        }
        if state.objects.len() >= MAX_OBJECTS {
            state.objects.clear();
        }
        state.objects.insert(object, info.clone());
        info
    }

    /// Where the last reader of `object` stood, and how deep it read ahead.
    fn last_pattern(&self, object: &ObjectId) -> Option<Pattern> {
        self.lock().positions.get(object).copied()
    }

    /// Records where a reader of `object` stands and how deep it reads
    /// ahead.
    fn note_position(&self, object: &Arc<ObjectId>, pattern: Pattern) {
        self.lock().note_position(object, pattern, true);
    }

    /// Holds a chunk a reader got outside the cache (the first GET of an
    /// object, which also told its version).
    fn hold(&self, object: &Arc<ObjectId>, index: u64, bytes: Bytes) {
        self.counters.gets.fetch_add(1, Ordering::Relaxed);
        self.counters
            .bytes_fetched
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.counters.misses.fetch_add(1, Ordering::Relaxed);
        let key = ChunkKey {
            object: Arc::clone(object),
            index,
        };
        let evicted = self.lock().chunks.insert(key, bytes, true);
        self.count_evicted(evicted);
    }

    /// Counts what an insertion evicted and offers it to the disk tier.
    fn count_evicted(&self, evicted: chunks::Evicted) {
        self.counters
            .evictions
            .fetch_add(evicted.chunks, Ordering::Relaxed);
        self.counters
            .prefetch_unread_bytes
            .fetch_add(evicted.unread_bytes, Ordering::Relaxed);
        if let Some(disk) = &self.disk {
            for (key, bytes) in evicted.out {
                disk.offer(key, bytes);
            }
        }
    }

    /// Chunk `index` of the object `source` names: held in memory, read
    /// from the disk tier, or fetched (once, however many readers ask).
    /// Blocks the calling thread, which must not be one of the store
    /// runtime's own.
    fn chunk(self: &Arc<Self>, source: &ChunkSource, index: u64) -> Result<Fetched> {
        let key = ChunkKey {
            object: Arc::clone(&source.info.id),
            index,
        };
        let (flight, leads) = {
            let mut state = self.lock();
            if let Some(bytes) = state.chunks.get(&key) {
                self.counters.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(Fetched {
                    bytes,
                    waited: false,
                });
            }
            match state.loading.get(&key) {
                Some(flight) => {
                    self.counters.misses.fetch_add(1, Ordering::Relaxed);
                    self.counters.joined.fetch_add(1, Ordering::Relaxed);
                    (Arc::clone(flight), false)
                }
                None => {
                    let flight = Arc::new(Flight::default());
                    state.loading.insert(key.clone(), Arc::clone(&flight));
                    (flight, true)
                }
            }
        };
        if leads {
            let len = source
                .info
                .size
                .min((index + 1) * self.config.chunk_bytes)
                .saturating_sub(index * self.config.chunk_bytes);
            if let Some(bytes) = self.disk.as_ref().and_then(|disk| disk.read(&key, len)) {
                self.complete(key, &flight, Ok(bytes.clone()), Origin::Disk);
                return Ok(Fetched {
                    bytes,
                    waited: false,
                });
            }
            self.counters.misses.fetch_add(1, Ordering::Relaxed);
            self.spawn_fetch(source, vec![(key.clone(), Arc::clone(&flight))], true);
        }
        let waiting = Instant::now();
        let answer = flight.wait();
        let waited = u64::try_from(waiting.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.counters
            .miss_wait_nanos
            .fetch_add(waited, Ordering::Relaxed);
        match answer {
            Ok(bytes) => {
                // Joined read-ahead: the chunk is served now.
                self.lock().chunks.get(&key);
                Ok(Fetched {
                    bytes,
                    waited: true,
                })
            }
            Err(err) => Err(owned_error(&err)),
        }
    }

    /// Fetches chunks `indexes` of `source`'s object ahead of its reader:
    /// those neither held (in memory or on disk) nor in flight, consecutive
    /// ones up to
    /// [`COALESCED_CHUNKS`] in one GET, while the cache-wide limit of GETs
    /// in flight allows.
    fn prefetch(self: &Arc<Self>, source: &ChunkSource, indexes: std::ops::RangeInclusive<u64>) {
        let mut run: Vec<(ChunkKey, Arc<Flight>)> = Vec::new();
        for index in indexes {
            let key = ChunkKey {
                object: Arc::clone(&source.info.id),
                index,
            };
            if self.disk.as_ref().is_some_and(|disk| disk.holds(&key)) {
                self.start_run(source, &mut run);
                continue;
            }
            let mut state = self.lock();
            if state.chunks.touch(&key) || state.loading.contains_key(&key) {
                drop(state);
                self.start_run(source, &mut run);
                continue;
            }
            if run.is_empty() && !self.take_prefetch_slot() {
                return;
            }
            let flight = Arc::new(Flight::default());
            state.loading.insert(key.clone(), Arc::clone(&flight));
            drop(state);
            run.push((key, flight));
            if run.len() >= COALESCED_CHUNKS {
                self.start_run(source, &mut run);
            }
        }
        self.start_run(source, &mut run);
    }

    /// Takes one of the cache-wide read-ahead GETs in flight, when one is
    /// free; [`Self::release_prefetch_slot`] gives it back.
    fn take_prefetch_slot(&self) -> bool {
        let taken = self.prefetching.fetch_add(1, Ordering::AcqRel);
        if taken >= self.config.prefetch_in_flight {
            self.prefetching.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        true
    }

    /// Gives back a read-ahead GET's slot.
    fn release_prefetch_slot(&self) {
        self.prefetching.fetch_sub(1, Ordering::AcqRel);
    }

    /// Starts the read-ahead GET of `run` (emptying it), if it has chunks.
    fn start_run(self: &Arc<Self>, source: &ChunkSource, run: &mut Vec<(ChunkKey, Arc<Flight>)>) {
        if !run.is_empty() {
            self.spawn_fetch(source, std::mem::take(run), false);
        }
    }

    /// One ranged GET of the consecutive chunks of `run` on the runtime;
    /// each chunk's outcome goes to its flight and, when the GET
    /// succeeded, into the cache.
    fn spawn_fetch(
        self: &Arc<Self>,
        source: &ChunkSource,
        run: Vec<(ChunkKey, Arc<Flight>)>,
        for_reader: bool,
    ) {
        let (Some((first, _)), Some((last, _))) = (run.first(), run.last()) else {
            return;
        };
        let cache = Arc::clone(self);
        let chunk = self.config.chunk_bytes;
        let start = first.index * chunk;
        let range = start..source.info.size.min((last.index + 1) * chunk);
        let store = Arc::clone(&source.store);
        let path = source.key.clone();
        let pin = source.info.pin.clone();
        let origin = if for_reader {
            Origin::Reader
        } else {
            Origin::ReadAhead
        };
        source.runtime.handle().spawn(async move {
            // Each chunk is handed over as soon as its bytes have arrived:
            // a reader waiting for the first chunk of a long read-ahead GET
            // does not wait for the whole GET.
            let mut pending = run.into_iter();
            let outcome = get_chunks(&*store, &path, &pin, range, chunk, |bytes| {
                if let Some((key, flight)) = pending.next() {
                    cache.complete(key, &flight, Ok(bytes), origin);
                }
            })
            .await;
            if !for_reader {
                cache.release_prefetch_slot();
            }
            cache.counters.gets.fetch_add(1, Ordering::Relaxed);
            let undelivered: Vec<_> = pending.collect();
            if undelivered.is_empty() {
                return;
            }
            let failure = Arc::new(outcome.err().unwrap_or_else(|| StoreError::Retryable {
                message: format!("a ranged read of {path} returned fewer chunks than asked"),
                source: None,
            }));
            for (key, flight) in undelivered {
                cache.complete(key, &flight, Err(Arc::clone(&failure)), origin);
            }
        });
    }

    /// Records the outcome of the load of chunk `key` from `origin`.
    fn complete(
        &self,
        key: ChunkKey,
        flight: &Arc<Flight>,
        outcome: flight::Outcome,
        origin: Origin,
    ) {
        let outcome = {
            let mut state = self.lock();
            // A flight no longer registered was forgotten (its object was
            // deleted meanwhile): its waiters get the bytes, the cache not.
            let registered = state
                .loading
                .get(&key)
                .is_some_and(|loading| Arc::ptr_eq(loading, flight));
            if registered {
                state.loading.remove(&key);
            }
            match outcome {
                Ok(bytes) => {
                    let len = bytes.len() as u64;
                    if origin != Origin::Disk {
                        self.counters
                            .bytes_fetched
                            .fetch_add(len, Ordering::Relaxed);
                    }
                    if origin == Origin::ReadAhead {
                        self.counters
                            .prefetched_bytes
                            .fetch_add(len, Ordering::Relaxed);
                    }
                    if registered {
                        let served = origin != Origin::ReadAhead;
                        let evicted = state.chunks.insert(key, bytes.clone(), served);
                        self.count_evicted(evicted);
                    }
                    Ok(bytes)
                }
                Err(err) => {
                    // Errors are not cached; a changed object is relearned
                    // at the next fetch.
                    state.objects.retain(|_, info| info.id != key.object);
                    state.chunks.forget_object(&key.object);
                    if let Some(disk) = &self.disk {
                        disk.forget(|object| *object == *key.object);
                    }
                    Err(err)
                }
            }
        };
        flight.finish(outcome);
    }
}

/// `range` of `key` at the version `pin` names, checked to be whole, handed
/// to `deliver` in pieces of `chunk_bytes` (the last one shorter when the
/// range ends within a chunk) as they arrive.
///
/// # Errors
/// The GET's failure, or [`StoreError::Retryable`] when the store answered
/// more or fewer bytes than the range; the pieces delivered before it are
/// whole and of the pinned version.
async fn get_chunks(
    store: &dyn ObjectStore,
    key: &Path,
    pin: &Pin,
    range: std::ops::Range<u64>,
    chunk_bytes: u64,
    deliver: impl FnMut(Bytes),
) -> Result<()> {
    let mut options = GetOptions {
        range: Some(GetRange::Bounded(range.clone())),
        ..GetOptions::default()
    };
    pin.apply(&mut options);
    let answer = store
        .get_opts(key, options)
        .await
        .map_err(|e| to_store_error(e, "ranged read of", key.as_ref()))?;
    if answer.range != range {
        return Err(StoreError::Retryable {
            message: format!(
                "a ranged read of {key} for {range:?} was answered with {:?}",
                answer.range
            ),
            source: None,
        });
    }
    split_into_chunks(answer, key, chunk_bytes, deliver).await
}

/// The body of `answer` (a ranged GET of `key` starting on a chunk
/// boundary), checked to be as long as the range it answers, handed to
/// `deliver` in pieces of `chunk_bytes` as they arrive.
///
/// # Errors
/// The body's failure, or [`StoreError::Retryable`] when it held more or
/// fewer bytes than its range.
async fn split_into_chunks(
    answer: GetResult,
    key: &Path,
    chunk_bytes: u64,
    mut deliver: impl FnMut(Bytes),
) -> Result<()> {
    let wanted = answer.range.end - answer.range.start;
    let failed = |e| to_store_error(e, "ranged read of", key.as_ref());
    let mut body = answer.into_stream();
    let chunk = usize::try_from(chunk_bytes).unwrap_or(usize::MAX);
    let capacity = chunk.min(usize::try_from(wanted).unwrap_or(usize::MAX));
    let mut current = BytesMut::with_capacity(capacity);
    let mut received = 0u64;
    while let Some(piece) = body.next().await {
        let mut piece = piece.map_err(failed)?;
        received += piece.len() as u64;
        if received > wanted {
            break;
        }
        while !piece.is_empty() {
            let take = (chunk - current.len()).min(piece.len());
            current.extend_from_slice(&piece.split_to(take));
            if current.len() == chunk {
                deliver(
                    std::mem::replace(&mut current, BytesMut::with_capacity(capacity)).freeze(),
                );
            }
        }
    }
    if received != wanted {
        return Err(StoreError::Retryable {
            message: format!("a ranged read of {key} returned {received} of {wanted} bytes"),
            source: None,
        });
    }
    if !current.is_empty() {
        deliver(current.freeze());
    }
    Ok(())
}
