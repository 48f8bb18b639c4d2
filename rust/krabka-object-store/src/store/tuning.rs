//! Transfer tuning of the store layer.

use crate::{DEFAULT_MULTIPART_CHUNK_SIZE, DEFAULT_MULTIPART_THRESHOLD};

/// Parts of one multipart upload in flight at once (by default).
///
/// An object store serves each connection at a bounded rate (Amazon S3 about
/// 85–90 MB/s), so a copy goes as fast as its parts in flight allow. Sixteen
/// parts of the default 5 MiB hold 80 MiB, where `aws s3 cp` keeps ten
/// parts of 8 MiB in flight.
pub const DEFAULT_PARTS_IN_FLIGHT: usize = 16;

/// Bytes per ranged GET when a fetch is split into chunks (8 MiB, the size
/// AWS recommends for byte-range fetches).
pub const DEFAULT_FETCH_CHUNK_SIZE: usize = 8 * 1024 * 1024;

/// Ranged GETs of one fetch that may run ahead of the reader.
pub const DEFAULT_FETCH_PARALLELISM: usize = 4;

/// S3's limit on the number of parts of one multipart upload, and the
/// engine's for every backend (GCS allows as many, Azure more).
pub const MAX_PARTS: u64 = 10_000;

/// Parts are raised to a multiple of this when an object needs larger ones
/// than configured (1 MiB).
const PART_ROUNDING: usize = 1 << 20;

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

/// How one multipart upload is cut into parts and how many of them go up at
/// once: [`Tuning::part_plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartPlan {
    /// Bytes per part (the last may be shorter).
    pub part_size: usize,
    /// Parts in flight at once; each holds one part buffer.
    pub in_flight: usize,
}

/// How the tier splits uploads and downloads.
///
/// Memory per copy is at most `max(multipart_threshold, parts_in_flight ×
/// multipart_chunk_size)` (the upload budget; see [`Tuning::part_plan`]);
/// memory per open reader at most
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

    /// How an upload of `len` bytes (`None`: not known up front) is cut.
    ///
    /// Parts are `multipart_chunk_size` bytes and `parts_in_flight` of them
    /// go up at once, except for an object too large for [`MAX_PARTS`] parts
    /// of that size: its parts grow (to a whole MiB) until it fits, and
    /// fewer of them go up at once so the memory they hold stays within the
    /// budget of `parts_in_flight × multipart_chunk_size` (one part at least).
    /// No more parts are in flight than the object has.
    #[must_use]
    pub fn part_plan(&self, len: Option<u64>) -> PartPlan {
        let chunk = self.multipart_chunk_size.max(1);
        let wanted = self.parts_in_flight.max(1);
        let budget = wanted.saturating_mul(chunk);
        let Some(len) = len else {
            return PartPlan {
                part_size: chunk,
                in_flight: wanted,
            };
        };
        let mut part_size = chunk;
        if len.div_ceil(chunk as u64) > MAX_PARTS {
            let needed = usize::try_from(len.div_ceil(MAX_PARTS)).unwrap_or(usize::MAX);
            let rounding = if chunk >= PART_ROUNDING {
                PART_ROUNDING
            } else {
                1
            };
            part_size = needed.div_ceil(rounding).saturating_mul(rounding);
        }
        let parts = usize::try_from(len.div_ceil(part_size as u64).max(1)).unwrap_or(usize::MAX);
        PartPlan {
            part_size,
            in_flight: wanted.min(budget / part_size).min(parts).max(1),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1024 * 1024;

    #[test]
    fn a_segment_goes_up_in_parts_of_the_chunk_size_all_slots_busy() {
        let plan = Tuning::default().part_plan(Some(1 << 30));
        assert_eq!(
            plan,
            PartPlan {
                part_size: DEFAULT_MULTIPART_CHUNK_SIZE,
                in_flight: DEFAULT_PARTS_IN_FLIGHT,
            }
        );
    }

    #[test]
    fn no_more_parts_are_in_flight_than_the_object_has() {
        let plan = Tuning::default().part_plan(Some(11 * MIB as u64));
        assert_eq!(plan.part_size, DEFAULT_MULTIPART_CHUNK_SIZE);
        assert_eq!(plan.in_flight, 3);
    }

    #[test]
    fn an_object_too_large_for_ten_thousand_parts_gets_larger_parts_and_fewer_in_flight() {
        let tuning = Tuning::default().with_multipart(16 * MIB as u64, 5 * MIB);
        let len = 100_000_000_000u64;
        let plan = tuning.part_plan(Some(len));
        assert_eq!(plan.part_size, 10 * MIB, "rounded up to whole MiB");
        assert!(len.div_ceil(plan.part_size as u64) <= MAX_PARTS);
        assert_eq!(
            plan.in_flight, 8,
            "16 x 5 MiB of memory, in parts of 10 MiB"
        );
    }

    #[test]
    fn a_part_larger_than_the_budget_still_goes_up_one_at_a_time() {
        let tuning = Tuning::default()
            .with_multipart(1, 5 * MIB)
            .with_parts_in_flight(2);
        let plan = tuning.part_plan(Some(1_000_000_000_000));
        assert_eq!(plan.part_size, 96 * MIB);
        assert_eq!(plan.in_flight, 1);
    }

    #[test]
    fn a_stream_of_unknown_length_takes_the_configured_plan() {
        let tuning = Tuning::default()
            .with_multipart(1, 7 * MIB)
            .with_parts_in_flight(3);
        assert_eq!(
            tuning.part_plan(None),
            PartPlan {
                part_size: 7 * MIB,
                in_flight: 3,
            }
        );
    }

    #[test]
    fn small_test_parts_are_raised_exactly_not_to_a_mebibyte() {
        let tuning = Tuning::default()
            .with_multipart(1, 16)
            .with_parts_in_flight(4);
        let plan = tuning.part_plan(Some(200_000));
        assert_eq!(plan.part_size, 20);
        assert_eq!(plan.in_flight, 3);
    }
}
