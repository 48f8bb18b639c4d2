//! Transfer tuning of the store layer.

use crate::{DEFAULT_MULTIPART_CHUNK_SIZE, DEFAULT_MULTIPART_THRESHOLD};

/// Parts of one multipart upload in flight at once (by default).
pub const DEFAULT_PARTS_IN_FLIGHT: usize = 4;

/// Bytes per ranged GET when a fetch is split into chunks (8 MiB, the size
/// AWS recommends for byte-range fetches).
pub const DEFAULT_FETCH_CHUNK_SIZE: usize = 8 * 1024 * 1024;

/// Ranged GETs of one fetch that may run ahead of the reader.
pub const DEFAULT_FETCH_PARALLELISM: usize = 4;

/// S3's limit on the number of parts of one multipart upload, and the
/// engine's for every backend (GCS allows as many, Azure more).
pub const MAX_PARTS: u64 = 10_000;

// An upload the engine accepts must be one Azure can commit too.
const _: () = assert!(MAX_PARTS <= crate::AZURE_MAX_BLOCKS);

/// How a create-only upload in parts keeps a second writer from replacing
/// the first one's object. A multipart completion cannot carry a create-only
/// precondition on either store, so the guarantee comes from the bucket,
/// and the two buckets guarantee different things.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CreateOnlyParts {
    /// S3 with versioning and Object Lock: the key is first reserved with an
    /// empty create-only PUT (only one writer can), then the upload completes
    /// as a new version of that key, whose version id is pinned. A bucket
    /// that refuses to replace an object cannot work this way.
    #[default]
    ReserveKey,
    /// GCS with a locked bucket retention policy (Bucket Lock): no
    /// reservation. A HEAD first refuses a key that exists; the completion
    /// then creates the object, and a completion that would replace an
    /// object under retention is refused by the bucket itself (the start-up
    /// probe checks that the bucket refuses a replacement). The generation
    /// the completion returns is pinned.
    RetentionGuarded,
}

/// How the tier splits uploads and downloads.
///
/// Memory per copy is at most `max(multipart_threshold, parts_in_flight ×
/// multipart_chunk_size)`; memory per open reader at most
/// `(fetch_parallelism + 1) × fetch_chunk_size` plus a few network frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Files of at least this many bytes are uploaded in parts.
    pub multipart_threshold: u64,
    /// Bytes per part.
    pub multipart_chunk_size: usize,
    /// Parts uploaded concurrently; each holds one part buffer.
    pub parts_in_flight: usize,
    /// Bytes per ranged GET.
    pub fetch_chunk_size: usize,
    /// Ranged GETs prefetched ahead of the reader.
    pub fetch_parallelism: usize,
    /// How a create-only upload in parts is kept create-only; set from the
    /// backend by [`StoreHandle::from_config`](super::StoreHandle::from_config).
    pub create_only_parts: CreateOnlyParts,
}

impl Tuning {
    /// Files of at least `threshold` bytes are uploaded in parts of
    /// `chunk_size` bytes (values below 1 are raised to 1).
    #[must_use]
    pub fn with_multipart(mut self, threshold: u64, chunk_size: usize) -> Self {
        self.multipart_threshold = threshold.max(1);
        self.multipart_chunk_size = chunk_size.max(1);
        self
    }

    /// Parts of one multipart upload in flight at once (at least 1).
    #[must_use]
    pub fn with_parts_in_flight(mut self, parts: usize) -> Self {
        self.parts_in_flight = parts.max(1);
        self
    }

    /// The same tuning with create-only uploads in parts kept create-only
    /// by `parts`.
    #[must_use]
    pub fn with_create_only_parts(mut self, parts: CreateOnlyParts) -> Self {
        self.create_only_parts = parts;
        self
    }

    /// Ranged GETs of `chunk_size` bytes, `parallelism` of them ahead of
    /// the reader (each at least 1).
    #[must_use]
    pub fn with_fetch(mut self, chunk_size: usize, parallelism: usize) -> Self {
        self.fetch_chunk_size = chunk_size.max(1);
        self.fetch_parallelism = parallelism.max(1);
        self
    }
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            multipart_threshold: DEFAULT_MULTIPART_THRESHOLD,
            multipart_chunk_size: DEFAULT_MULTIPART_CHUNK_SIZE,
            parts_in_flight: DEFAULT_PARTS_IN_FLIGHT,
            fetch_chunk_size: DEFAULT_FETCH_CHUNK_SIZE,
            fetch_parallelism: DEFAULT_FETCH_PARALLELISM,
            create_only_parts: CreateOnlyParts::default(),
        }
    }
}
