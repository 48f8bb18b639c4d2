//! `RemoteIndexCache`: a bounded on-disk cache of remote index objects
//! (Kafka's `RemoteIndexCache`), so a cold read downloads each index once
//! rather than once per `Fetch`.
//!
//! The cache is sized by **total bytes**, evicts the least recently used
//! entries, and keeps each entry as a file
//! `<log dir>/remote-log-index-cache/<segment uuid><index suffix>` written
//! through the crate's staging helper. Opening it empties the directory: a
//! restart re-downloads (there is no header to validate an old file with).

use {
    crate::{IndexType, RemoteStorageError, Result, fs_publish},
    std::{
        collections::{BTreeMap, HashMap},
        fs, io,
        path::{Path, PathBuf},
        sync::{
            Mutex, MutexGuard, PoisonError,
            atomic::{AtomicU64, Ordering},
        },
    },
    uuid::Uuid,
};

/// Name of the cache directory under the broker's log directory.
pub const REMOTE_INDEX_CACHE_DIR: &str = "remote-log-index-cache";

/// Default byte budget (Kafka's `remote.log.index.file.cache.total.size.bytes`
/// default, 1 GiB).
pub const DEFAULT_INDEX_CACHE_TOTAL_SIZE_BYTES: u64 = 1024 * 1024 * 1024;

/// How a [`RemoteIndexCache::get_or_fetch`] was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexCacheOutcome {
    /// Read from the cache; the fetcher did not run.
    Hit,
    /// The fetcher ran; the result was stored when it fits the budget.
    Miss,
    /// The cache is disabled; the fetcher ran and nothing was stored.
    Disabled,
}

/// Counters and occupancy of a [`RemoteIndexCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexCacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that ran the fetcher.
    pub misses: u64,
    /// Entries evicted to make room.
    pub evictions: u64,
    /// Entries currently cached.
    pub entries: u64,
    /// Bytes currently cached.
    pub bytes: u64,
}

/// The key of one cached index: the segment id and the index type.
type Key = (Uuid, IndexType);

/// A bounded, LRU, on-disk cache of remote indexes.
///
/// # Contract
///
/// - **Thread-safe.** Lookups may run from many threads. The bookkeeping lock
///   is never held while the fetcher runs or while a hit is read from disk:
///   concurrent misses of one key both fetch (the bytes are identical; the
///   last store wins).
/// - **Bounded by bytes.** After every store the cached total is at most the
///   budget; an entry larger than the whole budget is returned but never
///   stored. Files of stores in progress may exceed it briefly.
/// - **Never wrong, at worst slower.** A cache file that vanished or cannot be
///   read turns the lookup into a miss; a failure to write the cache is
///   logged and the fetched bytes are still returned.
/// - **No panics on lock poisoning.** The lock is recovered: no code runs
///   under it that could leave the bookkeeping half-updated.
#[derive(Debug)]
pub struct RemoteIndexCache {
    inner: Option<Enabled>,
}

#[derive(Debug)]
struct Enabled {
    dir: PathBuf,
    max_bytes: u64,
    state: Mutex<State>,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

/// LRU bookkeeping: entries, recency order and the byte total.
#[derive(Debug, Default)]
struct State {
    entries: HashMap<Key, Entry>,
    /// Logical time of last use → key; the first entry is the LRU one.
    recency: BTreeMap<u64, Key>,
    clock: u64,
    total_bytes: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    size: u64,
    last_used: u64,
}

impl State {
    fn tick(&mut self) -> u64 {
        self.clock = self.clock.wrapping_add(1);
        self.clock
    }

    /// Marks `key` as just used; `false` when it is not cached.
    fn touch(&mut self, key: Key) -> bool {
        let now = self.tick();
        let Some(entry) = self.entries.get_mut(&key) else {
            return false;
        };
        self.recency.remove(&entry.last_used);
        entry.last_used = now;
        self.recency.insert(now, key);
        true
    }

    /// Forgets `key` without touching its file.
    fn forget(&mut self, key: Key) -> Option<Entry> {
        let entry = self.entries.remove(&key)?;
        self.recency.remove(&entry.last_used);
        self.total_bytes = self.total_bytes.saturating_sub(entry.size);
        Some(entry)
    }

    /// Forgets and returns the least recently used key.
    fn pop_lru(&mut self) -> Option<Key> {
        let (_, key) = self.recency.pop_first()?;
        if let Some(entry) = self.entries.remove(&key) {
            self.total_bytes = self.total_bytes.saturating_sub(entry.size);
        }
        Some(key)
    }

    fn insert(&mut self, key: Key, size: u64) {
        let now = self.tick();
        self.entries.insert(
            key,
            Entry {
                size,
                last_used: now,
            },
        );
        self.recency.insert(now, key);
        self.total_bytes = self.total_bytes.saturating_add(size);
    }
}

impl RemoteIndexCache {
    /// A cache in `<log_dir>/remote-log-index-cache` holding at most
    /// `max_bytes`. The directory is emptied (or created).
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] when `max_bytes` is 0 (use
    /// [`RemoteIndexCache::disabled`]); [`RemoteStorageError::Io`] when the
    /// directory cannot be emptied or created.
    pub fn new(log_dir: impl AsRef<Path>, max_bytes: u64) -> Result<Self> {
        if max_bytes == 0 {
            return Err(RemoteStorageError::InvalidArgument(
                "index cache size must be positive: set it above the largest index object, or disable the cache".to_owned(),
            ));
        }
        let dir = log_dir.as_ref().join(REMOTE_INDEX_CACHE_DIR);
        match fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(RemoteStorageError::io("remove directory", dir, err)),
        }
        fs::create_dir_all(&dir)
            .map_err(|err| RemoteStorageError::io("create directory", &dir, err))?;
        Ok(Self {
            inner: Some(Enabled {
                dir,
                max_bytes,
                state: Mutex::new(State::default()),
                hits: AtomicU64::new(0),
                misses: AtomicU64::new(0),
                evictions: AtomicU64::new(0),
            }),
        })
    }

    /// A cache that stores nothing: every lookup runs the fetcher and
    /// returns [`IndexCacheOutcome::Disabled`]; its stats stay zero.
    #[must_use]
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// Whether the cache stores anything.
    #[must_use]
    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The cache directory, when enabled.
    #[must_use]
    pub fn dir(&self) -> Option<&Path> {
        self.inner.as_ref().map(|cache| cache.dir.as_path())
    }

    /// The byte budget, when enabled.
    #[must_use]
    pub fn max_bytes(&self) -> Option<u64> {
        self.inner.as_ref().map(|cache| cache.max_bytes)
    }

    /// The index `index_type` of segment `segment_id`: from the cache, or
    /// from `fetch` (run without any lock held) and then stored.
    ///
    /// # Errors
    /// Only the error of `fetch`, in which case nothing is stored.
    pub fn get_or_fetch<F>(
        &self,
        segment_id: Uuid,
        index_type: IndexType,
        fetch: F,
    ) -> Result<(Vec<u8>, IndexCacheOutcome)>
    where
        F: FnOnce() -> Result<Vec<u8>>,
    {
        let Some(cache) = &self.inner else {
            return fetch().map(|bytes| (bytes, IndexCacheOutcome::Disabled));
        };
        let key = (segment_id, index_type);
        if cache.lock().touch(key) {
            let path = cache.path(key);
            match fs::read(&path) {
                Ok(bytes) => {
                    cache.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok((bytes, IndexCacheOutcome::Hit));
                }
                Err(err) => {
                    tracing::debug!(error = %err, path = %path.display(),
                        "cached index unreadable, fetching it again");
                    cache.drop_entry(key);
                }
            }
        }
        cache.misses.fetch_add(1, Ordering::Relaxed);
        let bytes = fetch()?;
        cache.store(key, &bytes);
        Ok((bytes, IndexCacheOutcome::Miss))
    }

    /// Drops every index of `segment_id` from the cache (Kafka does this when
    /// a segment moves to `DeleteSegmentStarted`).
    pub fn remove_segment(&self, segment_id: Uuid) {
        if let Some(cache) = &self.inner {
            for index_type in IndexType::ALL {
                cache.drop_entry((segment_id, index_type));
            }
        }
    }

    /// Current counters and occupancy.
    #[must_use]
    pub fn stats(&self) -> IndexCacheStats {
        let Some(cache) = &self.inner else {
            return IndexCacheStats::default();
        };
        let (entries, bytes) = {
            let state = cache.lock();
            (state.entries.len(), state.total_bytes)
        };
        IndexCacheStats {
            hits: cache.hits.load(Ordering::Relaxed),
            misses: cache.misses.load(Ordering::Relaxed),
            evictions: cache.evictions.load(Ordering::Relaxed),
            entries: u64::try_from(entries).unwrap_or(u64::MAX),
            bytes,
        }
    }
}

impl Enabled {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing under this lock can panic half-way through an update, so
        // the state of a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn path(&self, (segment_id, index_type): Key) -> PathBuf {
        self.dir.join(format!(
            "{}{}",
            segment_id.hyphenated(),
            index_type.suffix()
        ))
    }

    /// Forgets `key` and removes its file.
    fn drop_entry(&self, key: Key) {
        let path = self.path(key);
        let mut state = self.lock();
        state.forget(key);
        remove_quietly(&path);
    }

    /// Stores `bytes` under `key` when they fit the budget, evicting least
    /// recently used entries. Failures are logged, never returned: the
    /// caller already has its bytes.
    fn store(&self, key: Key, bytes: &[u8]) {
        let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if size > self.max_bytes {
            tracing::debug!(
                size,
                max_bytes = self.max_bytes,
                "index larger than the cache, not cached"
            );
            return;
        }
        let path = self.path(key);
        // Written outside the lock; only the rename happens under it, so the
        // map and the directory always agree.
        let staged = match fs_publish::stage_reader(&path, &mut &bytes[..], Path::new("<index>")) {
            Ok(staged) => staged,
            Err(err) => {
                tracing::warn!(error = %err, "could not write the index cache");
                return;
            }
        };
        let mut state = self.lock();
        if let Err(err) = staged.commit() {
            tracing::warn!(error = %err, "could not publish an index cache file");
            state.forget(key);
            remove_quietly(&path);
            return;
        }
        state.forget(key);
        while state.total_bytes.saturating_add(size) > self.max_bytes {
            let Some(victim) = state.pop_lru() else {
                break;
            };
            remove_quietly(&self.path(victim));
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
        state.insert(key, size);
    }
}

fn remove_quietly(path: &Path) {
    if let Err(err) = fs::remove_file(path) {
        if err.kind() != io::ErrorKind::NotFound {
            tracing::warn!(error = %err, path = %path.display(), "could not remove an index cache file");
        }
    }
}

#[cfg(test)]
mod tests;
