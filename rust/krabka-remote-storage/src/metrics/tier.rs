//! The metrics of one tier and their catalog.

use {
    super::{
        archive::ArchiveMetrics,
        stat::{FailureClass, Failures, TimeStat},
    },
    krabka_object_store::store::{
        cache::{CacheStats, ChunkCache},
        metered::{Operation, Outcome, RequestMetrics},
    },
    std::sync::{
        Arc, OnceLock,
        atomic::{AtomicI64, AtomicU64, Ordering},
    },
};

/// How a metric's value behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Only grows (a count or a byte total since the tier was opened).
    Counter,
    /// Goes up and down (operations in flight, open streams), or a mean or
    /// a maximum.
    Gauge,
}

impl MetricKind {
    /// `counter` or `gauge`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Counter => "counter",
            Self::Gauge => "gauge",
        }
    }
}

/// One metric of the catalog: its name, its tag if it has one, its kind
/// and its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricDef {
    /// Kafka-style name (`copy-bytes-total`).
    pub name: &'static str,
    /// A tag `(key, value)` that tells series of one name apart
    /// (`("error-class", "not-found")`).
    pub tag: Option<(&'static str, &'static str)>,
    /// Counter or gauge.
    pub kind: MetricKind,
    /// What the value means, for the docs and the metric's description.
    pub description: &'static str,
}

/// What one tier did since it was opened: copies, fetches, index fetches
/// and deletes. Updated by [`MeteredStorage`](super::MeteredStorage),
/// read by [`TierMetrics::snapshot`].
#[derive(Debug, Default)]
pub struct TierMetrics {
    pub(super) copies: TimeStat,
    pub(super) copy_bytes: AtomicU64,
    pub(super) copies_in_flight: AtomicI64,
    pub(super) copy_failures: Failures,
    pub(super) fetches: AtomicU64,
    pub(super) fetch_bytes_requested: AtomicU64,
    pub(super) fetch_bytes_served: AtomicU64,
    pub(super) fetch_first_byte: TimeStat,
    pub(super) fetch_open_streams: AtomicI64,
    pub(super) fetch_failures: Failures,
    pub(super) index_fetches: TimeStat,
    pub(super) index_fetch_bytes: AtomicU64,
    pub(super) index_fetch_failures: Failures,
    pub(super) deletes: AtomicU64,
    pub(super) deletes_retained: AtomicU64,
    pub(super) delete_failures: Failures,
    read_cache: OnceLock<Arc<ChunkCache>>,
    requests: OnceLock<Arc<RequestMetrics>>,
    archive: OnceLock<Arc<ArchiveMetrics>>,
}

/// The metric names of one [`Operation`]: its count by outcome, its mean
/// and maximum latency, and what it is.
struct OperationNames {
    operation: Operation,
    total: &'static str,
    avg: &'static str,
    max: &'static str,
    what: &'static str,
}

const fn names(
    operation: Operation,
    total: &'static str,
    avg: &'static str,
    max: &'static str,
    what: &'static str,
) -> OperationNames {
    OperationNames {
        operation,
        total,
        avg,
        max,
        what,
    }
}

/// Every operation's names, in the order of [`Operation::ALL`].
const OPERATIONS: [OperationNames; Operation::ALL.len()] = [
    names(
        Operation::Get,
        "object-store-get-total",
        "object-store-get-time-avg",
        "object-store-get-time-max",
        "GETs of whole objects or byte ranges (fetches, index reads, manifests, metadata records)",
    ),
    names(
        Operation::Head,
        "object-store-head-total",
        "object-store-head-time-avg",
        "object-store-head-time-max",
        "HEADs (existence and size checks)",
    ),
    names(
        Operation::Put,
        "object-store-put-total",
        "object-store-put-time-avg",
        "object-store-put-time-max",
        "single-request uploads (files below the multipart threshold, create-only records, seals)",
    ),
    names(
        Operation::MultipartCreate,
        "object-store-multipart-create-total",
        "object-store-multipart-create-time-avg",
        "object-store-multipart-create-time-max",
        "multipart uploads started",
    ),
    names(
        Operation::PartUpload,
        "object-store-part-upload-total",
        "object-store-part-upload-time-avg",
        "object-store-part-upload-time-max",
        "parts of multipart uploads",
    ),
    names(
        Operation::MultipartComplete,
        "object-store-multipart-complete-total",
        "object-store-multipart-complete-time-avg",
        "object-store-multipart-complete-time-max",
        "multipart uploads completed",
    ),
    names(
        Operation::MultipartAbort,
        "object-store-multipart-abort-total",
        "object-store-multipart-abort-time-avg",
        "object-store-multipart-abort-time-max",
        "multipart uploads aborted (a failed or cancelled copy; `ok` is an abort done, any other outcome an abort that failed and may leave parts behind)",
    ),
    names(
        Operation::List,
        "object-store-list-total",
        "object-store-list-time-avg",
        "object-store-list-time-max",
        "listings (each counted once, however many pages)",
    ),
    names(
        Operation::Delete,
        "object-store-delete-total",
        "object-store-delete-time-avg",
        "object-store-delete-time-max",
        "object deletes (one per object, batches included)",
    ),
    names(
        Operation::Copy,
        "object-store-copy-total",
        "object-store-copy-time-avg",
        "object-store-copy-time-max",
        "server-side copies",
    ),
];

pub(super) fn counter(name: &'static str, description: &'static str) -> MetricDef {
    MetricDef {
        name,
        tag: None,
        kind: MetricKind::Counter,
        description,
    }
}

pub(super) fn gauge(name: &'static str, description: &'static str) -> MetricDef {
    MetricDef {
        name,
        tag: None,
        kind: MetricKind::Gauge,
        description,
    }
}

fn load(value: &AtomicU64) -> f64 {
    value.load(Ordering::Relaxed) as f64
}

fn load_signed(value: &AtomicI64) -> f64 {
    value.load(Ordering::Relaxed) as f64
}

impl TierMetrics {
    /// New metrics, all zero.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reports the read cache the tier reads through (`read-cache-*`); once,
    /// later calls are ignored. Without one those metrics stay 0.
    pub fn attach_read_cache(&self, cache: Arc<ChunkCache>) {
        let _ = self.read_cache.set(cache);
    }

    /// Reports the requests of the store the tier writes and reads through
    /// (`object-store-*`); once, later calls are ignored. Without them
    /// those metrics stay 0 (the filesystem tier).
    pub fn attach_store_requests(&self, requests: Arc<RequestMetrics>) {
        let _ = self.requests.set(requests);
    }

    /// Reports the write-once archive's commits (`archive-*`); once, later
    /// calls are ignored. Without an archive those metrics stay 0.
    pub fn attach_archive(&self, archive: Arc<ArchiveMetrics>) {
        let _ = self.archive.set(archive);
    }

    /// Every metric with its current value, always in the order of
    /// [`TierMetrics::catalog`].
    #[must_use]
    pub fn snapshot(&self) -> Vec<(MetricDef, f64)> {
        let mut out = vec![
            (
                counter(
                    "copy-total",
                    "Segments copied to the tier (successful copies).",
                ),
                self.copies.count() as f64,
            ),
            (
                counter(
                    "copy-bytes-total",
                    "Bytes of the `.log` files of the segments copied (indexes not included).",
                ),
                load(&self.copy_bytes),
            ),
            (
                gauge(
                    "copy-time-avg",
                    "Mean duration of a successful copy, in milliseconds, since the plugin started.",
                ),
                self.copies.avg_ms(),
            ),
            (
                gauge(
                    "copy-time-max",
                    "Longest successful copy, in milliseconds, since the plugin started.",
                ),
                self.copies.max_ms(),
            ),
            (
                gauge("copy-in-flight", "Copies running now."),
                load_signed(&self.copies_in_flight),
            ),
        ];
        push_failures(
            &mut out,
            "copy-failures-total",
            "Copies that failed, by class of error.",
            &self.copy_failures,
        );
        out.extend([
            (
                counter("fetch-total", "Segment fetches opened (the broker's remote reads)."),
                load(&self.fetches),
            ),
            (
                counter(
                    "fetch-bytes-requested-total",
                    "Bytes the opened fetches asked for (to the requested end, or to the end of the segment).",
                ),
                load(&self.fetch_bytes_requested),
            ),
            (
                counter(
                    "fetch-bytes-served-total",
                    "Bytes of segment data the fetch streams returned to the broker.",
                ),
                load(&self.fetch_bytes_served),
            ),
            (
                gauge(
                    "fetch-first-byte-time-avg",
                    "Mean time from opening a fetch to its first bytes (or its end), in milliseconds.",
                ),
                self.fetch_first_byte.avg_ms(),
            ),
            (
                gauge(
                    "fetch-first-byte-time-max",
                    "Longest time from opening a fetch to its first bytes, in milliseconds.",
                ),
                self.fetch_first_byte.max_ms(),
            ),
            (
                gauge("fetch-open-streams", "Fetch streams open now (not yet closed by the broker)."),
                load_signed(&self.fetch_open_streams),
            ),
        ]);
        push_failures(
            &mut out,
            "fetch-failures-total",
            "Fetches that failed to open, or whose stream failed (class `other`), by class of error.",
            &self.fetch_failures,
        );
        out.extend([
            (
                counter(
                    "index-fetch-total",
                    "Indexes fetched (offset, time, transaction, producer snapshot, leader epoch).",
                ),
                self.index_fetches.count() as f64,
            ),
            (
                counter("index-fetch-bytes-total", "Bytes of the indexes fetched."),
                load(&self.index_fetch_bytes),
            ),
            (
                gauge(
                    "index-fetch-time-avg",
                    "Mean duration of a successful index fetch, in milliseconds.",
                ),
                self.index_fetches.avg_ms(),
            ),
            (
                gauge(
                    "index-fetch-time-max",
                    "Longest successful index fetch, in milliseconds.",
                ),
                self.index_fetches.max_ms(),
            ),
        ]);
        push_failures(
            &mut out,
            "index-fetch-failures-total",
            "Index fetches that failed, by class of error (a missing optional index is `not-found`).",
            &self.index_fetch_failures,
        );
        out.extend([
            (
                counter(
                    "delete-total",
                    "Segment deletes that succeeded, including those a write-once archive retained.",
                ),
                load(&self.deletes),
            ),
            (
                counter(
                    "delete-retained-total",
                    "Deletes a write-once archive answered by keeping the segment (its bytes stay).",
                ),
                load(&self.deletes_retained),
            ),
        ]);
        push_failures(
            &mut out,
            "delete-failures-total",
            "Deletes that failed, by class of error.",
            &self.delete_failures,
        );
        let cache = self
            .read_cache
            .get()
            .map_or_else(CacheStats::default, |cache| cache.stats());
        out.extend([
            (
                counter(
                    "read-cache-hits-total",
                    "Chunks a fetch found in the read cache (S3 and GCS; 0 on the filesystem tier).",
                ),
                cache.hits as f64,
            ),
            (
                counter(
                    "read-cache-misses-total",
                    "Chunks a fetch waited for a GET of (its own, or one already in flight).",
                ),
                cache.misses as f64,
            ),
            (
                counter(
                    "read-cache-miss-wait-time-total",
                    "Time fetches waited for chunks the read cache did not hold, in milliseconds, summed over fetches.",
                ),
                cache.miss_wait.as_secs_f64() * 1000.0,
            ),
            (
                counter(
                    "read-cache-evictions-total",
                    "Chunks evicted from the read cache to stay within its size.",
                ),
                cache.evictions as f64,
            ),
            (
                gauge("read-cache-bytes-held", "Bytes the read cache holds now (native memory)."),
                cache.bytes_held as f64,
            ),
            (
                counter(
                    "read-cache-gets-total",
                    "Ranged GETs the read cache made, read-ahead included.",
                ),
                cache.gets as f64,
            ),
            (
                counter(
                    "read-cache-bytes-fetched-total",
                    "Bytes those GETs returned.",
                ),
                cache.bytes_fetched as f64,
            ),
            (
                counter(
                    "read-cache-prefetched-bytes-total",
                    "Bytes fetched ahead of a reader (sequential reads).",
                ),
                cache.prefetched_bytes as f64,
            ),
            (
                counter(
                    "read-cache-prefetch-unread-bytes-total",
                    "Bytes fetched ahead and evicted before any fetch read them (wasted read-ahead).",
                ),
                cache.prefetch_unread_bytes as f64,
            ),
            (
                counter(
                    "read-cache-warmed-objects-total",
                    "Objects of a next segment (log, indexes) fetched ahead as a reader neared the end of the one before.",
                ),
                cache.warmed_objects as f64,
            ),
            (
                counter(
                    "read-cache-disk-hits-total",
                    "Chunks a fetch found on the read cache's disk tier instead of fetching them.",
                ),
                cache.disk_hits as f64,
            ),
            (
                gauge(
                    "read-cache-disk-bytes-held",
                    "Bytes of chunk files the read cache's disk tier holds now.",
                ),
                cache.disk_bytes_held as f64,
            ),
            (
                counter(
                    "read-cache-disk-evictions-total",
                    "Chunk files evicted to keep the read cache's disk tier within its size.",
                ),
                cache.disk_evictions as f64,
            ),
            (
                counter(
                    "read-cache-disk-write-errors-total",
                    "Chunk files the disk tier could not write or remove (reads go on without them).",
                ),
                cache.disk_write_errors as f64,
            ),
            (
                counter(
                    "read-cache-disk-read-errors-total",
                    "Chunk files found damaged or unreadable, dropped and fetched again.",
                ),
                cache.disk_read_errors as f64,
            ),
        ]);
        self.push_requests(&mut out);
        self.push_archive(&mut out);
        out
    }

    fn push_requests(&self, out: &mut Vec<(MetricDef, f64)>) {
        let requests = self.requests.get();
        for names in &OPERATIONS {
            let op = names.operation;
            out.extend(Outcome::ALL.into_iter().map(|outcome| {
                (
                    MetricDef {
                        name: names.total,
                        tag: Some(("outcome", outcome.label())),
                        kind: MetricKind::Counter,
                        description: names.what,
                    },
                    requests.map_or(0.0, |r| r.count(op, outcome) as f64),
                )
            }));
            out.extend([
                (
                    gauge(
                        names.avg,
                        "Mean latency of this operation's requests (every outcome), in milliseconds.",
                    ),
                    requests.map_or(0.0, |r| r.latency(op).avg_ms()),
                ),
                (
                    gauge(
                        names.max,
                        "Longest request of this operation (every outcome), in milliseconds.",
                    ),
                    requests.map_or(0.0, |r| r.latency(op).max_ms()),
                ),
            ]);
        }
        out.push((
            counter(
                "object-store-part-upload-bytes-total",
                "Bytes of the multipart parts uploaded successfully.",
            ),
            requests.map_or(0.0, |r| r.part_bytes() as f64),
        ));
        out.push((
            gauge(
                "object-store-upload-bytes-in-flight",
                "Bytes of uploads (single PUTs and multipart parts) handed to the object store and not yet answered: the copy path's native buffers in flight.",
            ),
            requests.map_or(0.0, |r| r.upload_bytes_in_flight() as f64),
        ));
    }

    fn push_archive(&self, out: &mut Vec<(MetricDef, f64)>) {
        let archive = self.archive.get();
        out.extend([
            (
                counter(
                    "archive-seals-written-total",
                    "Seals the write-once archive wrote create-only: copies committed to their partition's chain.",
                ),
                archive.map_or(0.0, |a| a.seals() as f64),
            ),
            (
                counter(
                    "archive-fence-losses-total",
                    "Seal writes that found their chain position taken by another writer (the copy failed as retryable; its retry continues the chain).",
                ),
                archive.map_or(0.0, |a| a.fence_losses() as f64),
            ),
            (
                counter(
                    "archive-manifests-written-total",
                    "Manifests written beside their segments (finishing a commit), including those a later copy wrote to repair one.",
                ),
                archive.map_or(0.0, |a| a.manifests() as f64),
            ),
        ]);
    }

    /// Every metric a snapshot holds, in snapshot order.
    #[must_use]
    pub fn catalog() -> Vec<MetricDef> {
        Self::new()
            .snapshot()
            .into_iter()
            .map(|(def, _)| def)
            .collect()
    }
}

fn push_failures(
    out: &mut Vec<(MetricDef, f64)>,
    name: &'static str,
    description: &'static str,
    failures: &Failures,
) {
    out.extend(FailureClass::ALL.into_iter().map(|class| {
        (
            MetricDef {
                name,
                tag: Some(("error-class", class.label())),
                kind: MetricKind::Counter,
                description,
            },
            failures.get(class) as f64,
        )
    }));
}
