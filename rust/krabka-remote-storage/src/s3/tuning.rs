//! Transfer tuning of the object-store tier.

use krabka_object_store::{DEFAULT_MULTIPART_CHUNK_SIZE, DEFAULT_MULTIPART_THRESHOLD};

/// Parts of one multipart upload in flight at once (by default).
pub(crate) const DEFAULT_PARTS_IN_FLIGHT: usize = 4;

/// Bytes per ranged GET when a fetch is split into chunks (8 MiB, the size
/// AWS recommends for byte-range fetches).
pub(crate) const DEFAULT_FETCH_CHUNK_SIZE: usize = 8 * 1024 * 1024;

/// Ranged GETs of one fetch that may run ahead of the reader.
pub(crate) const DEFAULT_FETCH_PARALLELISM: usize = 4;

/// S3's limit on the number of parts of one multipart upload.
pub(crate) const MAX_PARTS: u64 = 10_000;

/// How the tier splits uploads and downloads.
///
/// Memory per copy is at most `max(multipart_threshold, parts_in_flight ×
/// multipart_chunk_size)`; memory per open reader at most
/// `(fetch_parallelism + 1) × fetch_chunk_size` plus a few network frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// Files of at least this many bytes are uploaded in parts.
    pub(crate) multipart_threshold: u64,
    /// Bytes per part.
    pub(crate) multipart_chunk_size: usize,
    /// Parts uploaded concurrently; each holds one part buffer.
    pub(crate) parts_in_flight: usize,
    /// Bytes per ranged GET.
    pub(crate) fetch_chunk_size: usize,
    /// Ranged GETs prefetched ahead of the reader.
    pub(crate) fetch_parallelism: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            multipart_threshold: DEFAULT_MULTIPART_THRESHOLD,
            multipart_chunk_size: DEFAULT_MULTIPART_CHUNK_SIZE,
            parts_in_flight: DEFAULT_PARTS_IN_FLIGHT,
            fetch_chunk_size: DEFAULT_FETCH_CHUNK_SIZE,
            fetch_parallelism: DEFAULT_FETCH_PARALLELISM,
        }
    }
}
