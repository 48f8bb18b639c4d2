//! How much the read cache holds and how far it reads ahead.

use {
    crate::store::error::{Result, StoreError},
    std::path::PathBuf,
};

/// Bytes the cache holds by default (256 MiB, shared by every partition a
/// broker reads).
pub const DEFAULT_CACHE_BYTES: u64 = 256 * 1024 * 1024;

/// Bytes per cached chunk and per ranged GET by default (512 KiB: a 1 MiB
/// fetch at any position touches at most three chunks, so a random read
/// fetches at most 1.5 times what it serves).
pub const DEFAULT_CHUNK_BYTES: u64 = 512 * 1024;

/// Chunks read ahead of a sequential reader by default (8 MiB at the
/// default chunk size: enough GETs in flight to cover tens of milliseconds
/// of latency at a few hundred MB/s).
pub const DEFAULT_PREFETCH_CHUNKS: usize = 16;

/// Read-ahead GETs in flight at once for the whole cache by default (each
/// holds at most one partly received chunk in memory).
pub const DEFAULT_PREFETCH_IN_FLIGHT: usize = 64;

/// Bytes a fetch is expected to read by default: what a Kafka fetch reads
/// from one stream before it closes it (`max.partition.fetch.bytes` and the
/// broker's `fetch.max.bytes` default to 1 MiB).
pub const DEFAULT_EXPECTED_FETCH_BYTES: u64 = 1024 * 1024;

/// Bytes the disk tier holds by default when it is on (16 GiB of chunk
/// files).
pub const DEFAULT_DISK_CACHE_BYTES: u64 = 16 * 1024 * 1024 * 1024;

/// The smallest chunk the cache accepts.
pub const MIN_CHUNK_BYTES: u64 = 4 * 1024;

/// The optional second tier of the read cache: chunk files in a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskCacheConfig {
    /// The directory; the cache keeps its files in a subdirectory of it
    /// that it owns (`krabka-read-cache`), emptied of them when it starts.
    pub directory: PathBuf,
    /// Bytes of chunk files held at most (each file is its chunk and a
    /// 4-byte checksum); at least two chunks.
    pub size_bytes: u64,
}

/// The read cache's sizes.
///
/// Memory: at most `capacity_bytes` of chunks are held, read-ahead
/// included; a reader holds one chunk it shares with the cache. With a disk
/// tier, up to a few chunks more wait to be written to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheConfig {
    /// Bytes of chunks held at most.
    pub capacity_bytes: u64,
    /// Bytes per chunk (and per ranged GET).
    pub chunk_bytes: u64,
    /// Chunks read ahead of a reader found to read sequentially; 0 turns
    /// read-ahead off.
    pub prefetch_chunks: usize,
    /// Read-ahead GETs in flight at once, for the whole cache.
    pub prefetch_in_flight: usize,
    /// Bytes a fetch is expected to read: the chunks covering them are
    /// requested together when a reader opens, so a fetch costs one round
    /// trip, not one per chunk; a stream that reads twice as much counts as
    /// sequential.
    pub expected_fetch_bytes: u64,
    /// The disk tier, where chunks evicted from memory go; `None` (the
    /// default) keeps the cache in memory only.
    pub disk: Option<DiskCacheConfig>,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            capacity_bytes: DEFAULT_CACHE_BYTES,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            prefetch_chunks: DEFAULT_PREFETCH_CHUNKS,
            prefetch_in_flight: DEFAULT_PREFETCH_IN_FLIGHT,
            expected_fetch_bytes: DEFAULT_EXPECTED_FETCH_BYTES,
            disk: None,
        }
    }
}

impl CacheConfig {
    /// The configuration, checked: a chunk of at least [`MIN_CHUNK_BYTES`],
    /// room for a reader's chunk plus its read-ahead, and a disk tier that
    /// holds at least two chunks.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] naming the value that does not fit.
    pub fn validated(self) -> Result<Self> {
        if self.chunk_bytes < MIN_CHUNK_BYTES {
            return Err(StoreError::InvalidArgument(format!(
                "read cache chunk size {} is below the minimum of {MIN_CHUNK_BYTES} bytes",
                self.chunk_bytes
            )));
        }
        let needed = self
            .chunk_bytes
            .saturating_mul(self.prefetch_chunks as u64 + 2);
        if self.capacity_bytes < needed {
            return Err(StoreError::InvalidArgument(format!(
                "read cache of {} bytes cannot hold a reader's chunk and its {} chunks of read-ahead \
                 ({needed} bytes at {} bytes a chunk)",
                self.capacity_bytes, self.prefetch_chunks, self.chunk_bytes
            )));
        }
        if let Some(disk) = &self.disk {
            if disk.size_bytes < self.chunk_bytes.saturating_mul(2) {
                return Err(StoreError::InvalidArgument(format!(
                    "read cache disk tier of {} bytes cannot hold two chunks of {} bytes",
                    disk.size_bytes, self.chunk_bytes
                )));
            }
        }
        Ok(self)
    }
}
