//! The blocking reader of a ranged read through the cache.

use {
    super::{COALESCED_CHUNKS, CacheConfig, ChunkCache, ChunkSource, Pattern},
    crate::store::{
        error::{StoreError, StoreErrorClass},
        reader::io_error,
    },
    bytes::Bytes,
    std::{
        io::{self, Read},
        sync::{Arc, atomic::Ordering},
    },
};

/// A stream that has read this many times the expected fetch
/// ([`CacheConfig::expected_fetch_bytes`](super::CacheConfig::expected_fetch_bytes))
/// counts as sequential on its own.
const SEQUENTIAL_AFTER_FETCHES: u64 = 2;

/// How much deeper than configured read-ahead grows for a reader that keeps
/// catching up with it.
const MAX_DEPTH_FACTOR: u64 = 8;

/// The share of the cache that read-ahead of all sequential readers may
/// fill at its deepest: a reader alone reads ahead up to a quarter of the
/// capacity (64 MiB of the default 256 MiB, capped by
/// [`MAX_DEPTH_FACTOR`]), sixteen readers at once up to a sixty-fourth
/// each, never below the configured depth.
const READ_AHEAD_SHARE_DIVISOR: u64 = 4;

/// A [`Read`] over `[start, end)` of one object version, chunk by chunk
/// through the cache, fetching ahead once it reads sequentially.
pub struct CachedReader {
    cache: Arc<ChunkCache>,
    source: ChunkSource,
    position: u64,
    start: u64,
    end: u64,
    current: Bytes,
    sequential: bool,
    /// The last chunk read ahead up to (inclusive), when any.
    ahead_to: Option<u64>,
    /// Chunks read ahead now: the configured depth, doubled each time the
    /// reader had to wait for read-ahead, up to [`MAX_DEPTH_FACTOR`] times.
    depth: u64,
    loaded_any: bool,
    /// Whether this pass through the object (this reader and those it
    /// continues) has warmed what is read after it.
    warmed_next: bool,
    /// Chunks of the objects read after it this pass's read-ahead has
    /// asked for.
    ahead_next: u64,
    failed: Option<StoreErrorClass>,
    /// Whether it counts in the cache's sequential readers (see
    /// [`ChunkCache::sequential_readers`]).
    counted: bool,
}

impl std::fmt::Debug for CachedReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedReader")
            .field("key", &self.source.key)
            .field("position", &self.position)
            .field("end", &self.end)
            .field("sequential", &self.sequential)
            .finish_non_exhaustive()
    }
}

impl CachedReader {
    /// A reader of `[start, end)`; `continued` is the pattern of the
    /// previous reader of the object when this one starts where it stopped.
    pub(super) fn new(
        cache: Arc<ChunkCache>,
        source: ChunkSource,
        start: u64,
        end: u64,
        continued: Option<Pattern>,
    ) -> Self {
        let configured = cache.config().prefetch_chunks as u64;
        let continues = continued.is_some();
        let mut reader = Self {
            cache,
            source,
            position: start,
            start,
            end,
            current: Bytes::new(),
            sequential: continues,
            ahead_to: None,
            depth: configured,
            loaded_any: false,
            warmed_next: false,
            ahead_next: 0,
            failed: None,
            counted: false,
        };
        if let Some(pattern) = continued {
            reader.become_sequential();
            reader.depth = pattern.depth.clamp(configured, reader.max_depth());
            reader.warmed_next = pattern.warmed_next;
            reader.ahead_next = pattern.ahead_next;
            reader.ahead_to = pattern.ahead_to;
        }
        reader
    }

    /// Marks it sequential and counts it in the cache's sequential readers.
    fn become_sequential(&mut self) {
        self.sequential = true;
        if !self.counted {
            self.counted = true;
            self.cache.sequential_readers.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// The deepest it may read ahead now: its share of the cache among the
    /// sequential readers open at once, within [`MAX_DEPTH_FACTOR`] times
    /// the configured depth and never below it.
    fn max_depth(&self) -> u64 {
        let readers = self.cache.sequential_readers.load(Ordering::Acquire);
        max_read_ahead(self.cache.config(), readers)
    }

    /// Loads the chunk holding `position` into `current`.
    fn load(&mut self) -> Result<(), StoreError> {
        let chunk = self.cache.config().chunk_bytes;
        let index = self.position / chunk;
        if !self.loaded_any {
            self.loaded_any = true;
            // The rest of what a fetch reads, requested together.
            let expected = self.cache.config().expected_fetch_bytes;
            let horizon = self.end.min(self.position.saturating_add(expected));
            let last = horizon.saturating_sub(1) / chunk;
            // A fetch continuing a sequential one finds them asked for.
            let from = self
                .ahead_to
                .map_or(index + 1, |ahead| ahead.max(index) + 1);
            if last >= from {
                self.cache.prefetch(&self.source, from..=last);
                self.ahead_to = Some(last);
            }
        }
        let fetched = self.cache.chunk(&self.source, index)?;
        let bytes = fetched.bytes;
        if fetched.waited && self.sequential {
            self.depth = (self.depth * 2).min(self.max_depth()).max(self.depth);
        }
        let chunk_start = index * chunk;
        let from = usize::try_from(self.position - chunk_start).unwrap_or(usize::MAX);
        let to = usize::try_from(self.end.min(chunk_start + bytes.len() as u64) - chunk_start)
            .unwrap_or(usize::MAX);
        if from >= to || to > bytes.len() {
            return Err(StoreError::Retryable {
                message: format!(
                    "chunk {index} of {} holds {} bytes, short of position {}",
                    self.source.key,
                    bytes.len(),
                    self.position
                ),
                source: None,
            });
        }
        self.current = bytes.slice(from..to);
        if !self.sequential
            && self.position - self.start
                >= SEQUENTIAL_AFTER_FETCHES * self.cache.config().expected_fetch_bytes
        {
            self.become_sequential();
        }
        if self.sequential {
            self.read_ahead(index);
        }
        Ok(())
    }

    /// Fetches the chunks after `index` ahead, up to the configured depth
    /// and the end of the range; as that nears the object's end, warms
    /// what is read after it, and once it reaches beyond, runs on into it
    /// (see the `warm` module).
    fn read_ahead(&mut self, index: u64) {
        // More sequential readers may have opened since it grew.
        let depth = self.depth.min(self.max_depth());
        if depth == 0 || self.end == 0 {
            return;
        }
        let last = (self.end - 1) / self.cache.config().chunk_bytes;
        // Topped up in batches of a full read-ahead GET (or half the depth
        // when that is less), so GETs stay large while most of the depth
        // stays in flight, unless the end is near.
        let batch = depth.div_ceil(2).min(COALESCED_CHUNKS as u64);
        if self.end == self.source.info.size {
            // One window early: finding and opening what comes next takes
            // round trips of its own.
            if !self.warmed_next && index + 2 * depth >= last {
                self.warmed_next = true;
                self.cache.warm_next(&self.source, depth);
            }
            let beyond = (index + depth).saturating_sub(last);
            if self.warmed_next
                && beyond >= self.ahead_next + batch
                && self.cache.read_on(&self.source, beyond)
            {
                self.ahead_next = beyond;
            }
        }
        let to = last.min(index + depth);
        let from = self
            .ahead_to
            .map_or(index + 1, |ahead| ahead.max(index) + 1);
        if from <= to && (to - from + 1 >= batch || to == last) {
            self.cache.prefetch(&self.source, from..=to);
            self.ahead_to = Some(to);
        }
    }
}

/// The deepest read-ahead, in chunks, of each of `readers` sequential
/// readers open at once: their share of a quarter of the cache, within
/// [`MAX_DEPTH_FACTOR`] times the configured depth and never below it.
pub(super) fn max_read_ahead(config: &CacheConfig, readers: usize) -> u64 {
    let configured = config.prefetch_chunks as u64;
    let readers = readers.max(1) as u64;
    let share = config.capacity_bytes / config.chunk_bytes / READ_AHEAD_SHARE_DIVISOR / readers;
    share.min(configured * MAX_DEPTH_FACTOR).max(configured)
}

impl Read for CachedReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(class) = self.failed {
            return Err(io_error(
                class,
                StoreError::InvalidArgument(format!(
                    "read of {} after an earlier failure",
                    self.source.key
                )),
            ));
        }
        if buf.is_empty() || self.position >= self.end {
            return Ok(0);
        }
        if self.current.is_empty() {
            if let Err(err) = self.load() {
                self.failed = Some(err.class());
                return Err(io_error(err.class(), err));
            }
        }
        let n = buf.len().min(self.current.len());
        let head = self.current.split_to(n);
        buf.get_mut(..n)
            .ok_or_else(|| io::Error::other("read buffer shorter than its length"))?
            .copy_from_slice(&head);
        self.position += n as u64;
        if self.current.is_empty() {
            self.note_position();
        }
        Ok(n)
    }
}

impl CachedReader {
    fn note_position(&self) {
        let pattern = Pattern {
            position: self.position,
            depth: self.depth,
            warmed_next: self.warmed_next,
            ahead_next: self.ahead_next,
            ahead_to: self.ahead_to,
        };
        self.cache.note_position(&self.source.info.id, pattern);
    }
}

impl Drop for CachedReader {
    fn drop(&mut self) {
        self.note_position();
        if self.counted {
            self.cache.sequential_readers.fetch_sub(1, Ordering::AcqRel);
        }
    }
}
