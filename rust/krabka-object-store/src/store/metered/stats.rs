//! The counters of [`MeteredObjectStore`](super::MeteredObjectStore).

use {
    crate::store::errors::{Failure, classify, gave_up_after_retries, throttled},
    std::{
        sync::{
            Arc,
            atomic::{AtomicI64, AtomicU64, Ordering},
        },
        time::Duration,
    },
};

/// Count, total and maximum of a duration, updated without a lock.
#[derive(Debug, Default)]
pub struct TimeStat {
    count: AtomicU64,
    total_nanos: AtomicU64,
    max_nanos: AtomicU64,
}

impl TimeStat {
    /// Records one duration.
    pub fn record(&self, elapsed: Duration) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.total_nanos.fetch_add(nanos, Ordering::Relaxed);
        self.max_nanos.fetch_max(nanos, Ordering::Relaxed);
    }

    /// How many durations were recorded.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The mean of the recorded durations in milliseconds, 0 when none.
    #[must_use]
    pub fn avg_ms(&self) -> f64 {
        let count = self.count();
        if count == 0 {
            return 0.0;
        }
        nanos_to_ms(self.total_nanos.load(Ordering::Relaxed)) / count as f64
    }

    /// The longest recorded duration in milliseconds, 0 when none.
    #[must_use]
    pub fn max_ms(&self) -> f64 {
        nanos_to_ms(self.max_nanos.load(Ordering::Relaxed))
    }
}

fn nanos_to_ms(nanos: u64) -> f64 {
    nanos as f64 / 1_000_000.0
}

/// A kind of request to the object store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// A GET of a whole object or of byte ranges.
    Get,
    /// A HEAD (a GET of the metadata only).
    Head,
    /// A single-request upload of a whole object.
    Put,
    /// The start of a multipart upload.
    MultipartCreate,
    /// One part of a multipart upload.
    PartUpload,
    /// The completion of a multipart upload.
    MultipartComplete,
    /// The abort of a multipart upload (its parts are dropped).
    MultipartAbort,
    /// A listing of the keys under a prefix (every page of it).
    List,
    /// The delete of one object.
    Delete,
    /// A server-side copy of one object.
    Copy,
}

impl Operation {
    /// Every operation, in the order of snapshots.
    pub const ALL: [Self; 10] = [
        Self::Get,
        Self::Head,
        Self::Put,
        Self::MultipartCreate,
        Self::PartUpload,
        Self::MultipartComplete,
        Self::MultipartAbort,
        Self::List,
        Self::Delete,
        Self::Copy,
    ];

    /// Its name in metric names (`multipart-create`).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Head => "head",
            Self::Put => "put",
            Self::MultipartCreate => "multipart-create",
            Self::PartUpload => "part-upload",
            Self::MultipartComplete => "multipart-complete",
            Self::MultipartAbort => "multipart-abort",
            Self::List => "list",
            Self::Delete => "delete",
            Self::Copy => "copy",
        }
    }
}

/// How a request ended; every request has exactly one outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It succeeded (possibly after retries inside `object_store`).
    Ok,
    /// The object (or the upload) does not exist.
    NotFound,
    /// A conditional request lost: a create-only write found an object at
    /// its key, or a precondition failed. Expected on create-only paths (the
    /// archive's fence, the metadata manager's records).
    Conflict,
    /// It failed with a throttling answer (HTTP 429 or 503, `SlowDown`)
    /// still there after `object_store`'s retries.
    Throttled,
    /// It failed with another transient error (5xx, timeout, connection)
    /// that `object_store` had retried before it gave up.
    Retried,
    /// Any other failure (access denied, missing bucket, a failure not
    /// retried).
    Failed,
}

impl Outcome {
    /// Every outcome, in the order of snapshots.
    pub const ALL: [Self; 6] = [
        Self::Ok,
        Self::NotFound,
        Self::Conflict,
        Self::Throttled,
        Self::Retried,
        Self::Failed,
    ];

    /// The value of the `outcome` tag.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::NotFound => "not-found",
            Self::Conflict => "conflict",
            Self::Throttled => "throttled",
            Self::Retried => "retried",
            Self::Failed => "failed",
        }
    }

    /// The outcome of a request that ended with `result`.
    #[must_use]
    pub fn of<T>(result: &object_store::Result<T>) -> Self {
        match result {
            Ok(_) => Self::Ok,
            Err(err) => Self::of_error(err),
        }
    }

    /// The outcome of a request that failed with `err`.
    #[must_use]
    pub fn of_error(err: &object_store::Error) -> Self {
        match classify(err) {
            Failure::NotFound => Self::NotFound,
            Failure::Precondition => Self::Conflict,
            _ if throttled(err) => Self::Throttled,
            _ if gave_up_after_retries(err) => Self::Retried,
            _ => Self::Failed,
        }
    }
}

/// The requests of one operation: how many ended each way, and their
/// latency (every outcome).
#[derive(Debug, Default)]
struct OperationStats {
    outcomes: [AtomicU64; Outcome::ALL.len()],
    latency: TimeStat,
}

/// What a store was asked, by [`Operation`] and [`Outcome`], since it was
/// opened. Shared (`Arc`) by every clone of the store.
#[derive(Debug, Default)]
pub struct RequestMetrics {
    operations: [OperationStats; Operation::ALL.len()],
    part_bytes: AtomicU64,
    upload_bytes_in_flight: AtomicI64,
}

impl RequestMetrics {
    /// New metrics, all zero.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one request of `operation` that ended as `outcome` after
    /// `elapsed`.
    pub fn record(&self, operation: Operation, outcome: Outcome, elapsed: Duration) {
        let stats = &self.operations[operation as usize];
        stats.outcomes[outcome as usize].fetch_add(1, Ordering::Relaxed);
        stats.latency.record(elapsed);
    }

    /// Requests of `operation` that ended as `outcome`.
    #[must_use]
    pub fn count(&self, operation: Operation, outcome: Outcome) -> u64 {
        self.operations[operation as usize].outcomes[outcome as usize].load(Ordering::Relaxed)
    }

    /// The latency of every request of `operation`.
    #[must_use]
    pub fn latency(&self, operation: Operation) -> &TimeStat {
        &self.operations[operation as usize].latency
    }

    /// Adds the size of a part handed to a multipart upload.
    pub(super) fn add_part_bytes(&self, bytes: u64) {
        self.part_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Bytes handed to the store for upload (single PUTs and multipart
    /// parts) whose request has not ended yet.
    #[must_use]
    pub fn upload_bytes_in_flight(&self) -> i64 {
        self.upload_bytes_in_flight.load(Ordering::Relaxed)
    }

    /// Holds `bytes` in [`upload_bytes_in_flight`](Self::upload_bytes_in_flight)
    /// until the returned guard is dropped.
    pub(super) fn uploading(self: &Arc<Self>, bytes: u64) -> Uploading {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        self.upload_bytes_in_flight
            .fetch_add(bytes, Ordering::Relaxed);
        Uploading {
            metrics: Arc::clone(self),
            bytes,
        }
    }

    /// Bytes of the parts uploaded successfully.
    #[must_use]
    pub fn part_bytes(&self) -> u64 {
        self.part_bytes.load(Ordering::Relaxed)
    }
}

/// Bytes of an upload request in flight, released when dropped (also when
/// the request is cancelled).
pub(super) struct Uploading {
    metrics: Arc<RequestMetrics>,
    bytes: i64,
}

impl Drop for Uploading {
    fn drop(&mut self) {
        self.metrics
            .upload_bytes_in_flight
            .fetch_sub(self.bytes, Ordering::Relaxed);
    }
}
