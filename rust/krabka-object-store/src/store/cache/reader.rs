//! The blocking reader of a ranged read through the cache.

use {
    super::{ChunkCache, ChunkSource},
    crate::store::{
        error::{StoreError, StoreErrorClass},
        reader::io_error,
    },
    bytes::Bytes,
    std::{
        io::{self, Read},
        sync::Arc,
    },
};

/// Chunks a stream reads before it counts as sequential on its own (a
/// Kafka fetch reads about 1 MiB, so a random fetch never gets this far at
/// the default chunk size).
const SEQUENTIAL_AFTER_CHUNKS: u64 = 4;

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
    failed: Option<StoreErrorClass>,
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
    /// A reader of `[start, end)`; `continues` when it starts where the
    /// previous reader of the object stopped.
    pub(super) fn new(
        cache: Arc<ChunkCache>,
        source: ChunkSource,
        start: u64,
        end: u64,
        continues: bool,
    ) -> Self {
        Self {
            cache,
            source,
            position: start,
            start,
            end,
            current: Bytes::new(),
            sequential: continues,
            ahead_to: None,
            failed: None,
        }
    }

    /// Loads the chunk holding `position` into `current`.
    fn load(&mut self) -> Result<(), StoreError> {
        let chunk = self.cache.config().chunk_bytes;
        let index = self.position / chunk;
        let bytes = self.cache.chunk(&self.source, index)?;
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
        if !self.sequential && self.position - self.start >= SEQUENTIAL_AFTER_CHUNKS * chunk {
            self.sequential = true;
        }
        if self.sequential {
            self.read_ahead(index);
        }
        Ok(())
    }

    /// Fetches the chunks after `index` ahead, up to the configured depth
    /// and the end of the range.
    fn read_ahead(&mut self, index: u64) {
        let depth = self.cache.config().prefetch_chunks as u64;
        if depth == 0 || self.end == 0 {
            return;
        }
        let last = (self.end - 1) / self.cache.config().chunk_bytes;
        let to = last.min(index + depth);
        let from = self
            .ahead_to
            .map_or(index + 1, |ahead| ahead.max(index) + 1);
        if from <= to {
            self.cache.prefetch(&self.source, from..=to);
            self.ahead_to = Some(to);
        }
    }
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
            self.cache
                .note_position(&self.source.info.id, self.position);
        }
        Ok(n)
    }
}

impl Drop for CachedReader {
    fn drop(&mut self) {
        self.cache
            .note_position(&self.source.info.id, self.position);
    }
}
