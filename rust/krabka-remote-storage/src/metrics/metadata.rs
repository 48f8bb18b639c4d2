//! What the durable remote log metadata manager did.

use {
    super::{
        stat::TimeStat,
        tier::{MetricDef, counter, gauge},
    },
    std::{
        sync::atomic::{AtomicU64, Ordering},
        time::Duration,
    },
};

/// The durable metadata manager's store traffic, counted by
/// [`StoreRemoteLogMetadataManager`](crate::StoreRemoteLogMetadataManager);
/// read by [`MetadataMetrics::snapshot`]. Several managers may count into one (the JNI layer shares one per
/// process).
#[derive(Debug, Default)]
pub struct MetadataMetrics {
    records_written: AtomicU64,
    fenced_writes: AtomicU64,
    snapshots_written: AtomicU64,
    loads: TimeStat,
    catch_ups: AtomicU64,
    records_read: AtomicU64,
    objects_compacted: AtomicU64,
    histories_erased: AtomicU64,
    deletes_of_absent_segments: AtomicU64,
    checkpoints_written: AtomicU64,
    checkpoint_loads: AtomicU64,
}

impl MetadataMetrics {
    /// New metrics, all zero.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn record_written(&self) {
        self.records_written.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn write_fenced(&self) {
        self.fenced_writes.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot_written(&self) {
        self.snapshots_written.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn partition_loaded(&self, elapsed: Duration) {
        self.loads.record(elapsed);
    }

    /// Records a load read together from a listing of the partition's tail.
    pub(crate) fn listed_records_read(&self, records: u64) {
        self.records_read.fetch_add(records, Ordering::Relaxed);
    }

    pub(crate) fn compacted(&self, objects: u64) {
        self.objects_compacted.fetch_add(objects, Ordering::Relaxed);
    }

    pub(crate) fn checkpoint_written(&self) {
        self.checkpoints_written.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn checkpoint_used(&self) {
        self.checkpoint_loads.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn history_erased(&self) {
        self.histories_erased.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn delete_of_absent_segment(&self) {
        self.deletes_of_absent_segments
            .fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn caught_up(&self, records: u64) {
        self.catch_ups.fetch_add(1, Ordering::Relaxed);
        self.records_read.fetch_add(records, Ordering::Relaxed);
    }

    /// Records written create-only (one per metadata event).
    #[must_use]
    pub fn records_written(&self) -> u64 {
        self.records_written.load(Ordering::Relaxed)
    }

    /// Record writes that lost their position to another writer.
    #[must_use]
    pub fn fenced_writes(&self) -> u64 {
        self.fenced_writes.load(Ordering::Relaxed)
    }

    /// Snapshots written.
    #[must_use]
    pub fn snapshots_written(&self) -> u64 {
        self.snapshots_written.load(Ordering::Relaxed)
    }

    /// Partition loads (snapshot and records read from the store).
    #[must_use]
    pub fn loads(&self) -> &TimeStat {
        &self.loads
    }

    /// Reads of a history's tail (loads, polls of partitions this broker
    /// does not lead, read-throughs after a miss or a refused event).
    #[must_use]
    pub fn catch_ups(&self) -> u64 {
        self.catch_ups.load(Ordering::Relaxed)
    }

    /// Records those reads found and applied.
    #[must_use]
    pub fn records_read(&self) -> u64 {
        self.records_read.load(Ordering::Relaxed)
    }

    /// Records and snapshots deleted because a newer snapshot covers them.
    #[must_use]
    pub fn objects_compacted(&self) -> u64 {
        self.objects_compacted.load(Ordering::Relaxed)
    }

    /// Histories of deleted partitions erased from the store.
    #[must_use]
    pub fn histories_erased(&self) -> u64 {
        self.histories_erased.load(Ordering::Relaxed)
    }

    /// Delete updates of segments the history had already deleted,
    /// accepted without a record (a delete retried after a leader change).
    #[must_use]
    pub fn deletes_of_absent_segments(&self) -> u64 {
        self.deletes_of_absent_segments.load(Ordering::Relaxed)
    }

    /// Checkpoints this broker wrote when it closed (the state of every
    /// partition it held, in a few objects).
    #[must_use]
    pub fn checkpoints_written(&self) -> u64 {
        self.checkpoints_written.load(Ordering::Relaxed)
    }

    /// Partitions loaded from this broker's checkpoint (no snapshot read).
    #[must_use]
    pub fn checkpoint_loads(&self) -> u64 {
        self.checkpoint_loads.load(Ordering::Relaxed)
    }

    /// Every metric with its current value, always in the same order.
    #[must_use]
    pub fn snapshot(&self) -> Vec<(MetricDef, f64)> {
        vec![
            (
                counter(
                    "metadata-records-written-total",
                    "Remote log metadata records the durable metadata manager wrote create-only (one per event: a copy starts and finishes with one each, a delete with two).",
                ),
                self.records_written() as f64,
            ),
            (
                counter(
                    "metadata-fenced-writes-total",
                    "Record writes that lost their position to another writer (the event failed as fenced; the partition was read again).",
                ),
                self.fenced_writes() as f64,
            ),
            (
                counter(
                    "metadata-snapshots-written-total",
                    "Snapshots of a partition's metadata written (every `snapshot.every` records, and when a partition is handed over or the broker stops).",
                ),
                self.snapshots_written() as f64,
            ),
            (
                counter(
                    "metadata-partition-loads-total",
                    "Partitions loaded from the store (newest snapshot, then the records after it).",
                ),
                self.loads.count() as f64,
            ),
            (
                gauge(
                    "metadata-partition-load-time-avg",
                    "Mean time to load a partition's metadata, in milliseconds.",
                ),
                self.loads.avg_ms(),
            ),
            (
                gauge(
                    "metadata-partition-load-time-max",
                    "Longest load of a partition's metadata, in milliseconds.",
                ),
                self.loads.max_ms(),
            ),
            (
                counter(
                    "metadata-catch-ups-total",
                    "Reads of a partition's newest records: at load, polls of partitions this broker does not lead, and read-throughs after a miss.",
                ),
                self.catch_ups() as f64,
            ),
            (
                counter(
                    "metadata-records-read-total",
                    "Records those reads found and applied (records this broker wrote itself are not read back).",
                ),
                self.records_read() as f64,
            ),
            (
                counter(
                    "metadata-objects-compacted-total",
                    "Metadata records and snapshots deleted because a newer snapshot covers them (a plain tier; an archive keeps its whole history).",
                ),
                self.objects_compacted() as f64,
            ),
            (
                counter(
                    "metadata-histories-erased-total",
                    "Metadata histories of deleted topics' partitions erased from the store (a plain tier).",
                ),
                self.histories_erased() as f64,
            ),
            (
                counter(
                    "metadata-deletes-of-absent-segments-total",
                    "DELETE_SEGMENT_STARTED/FINISHED updates of segments the history no longer holds, accepted without a record: a delete retried by a new leader, or finished by an old one, after another broker deleted the segment.",
                ),
                self.deletes_of_absent_segments() as f64,
            ),
            (
                counter(
                    "metadata-checkpoints-written-total",
                    "Checkpoints written when the manager closed: the state of every partition the broker held, in a few objects read at its restart.",
                ),
                self.checkpoints_written() as f64,
            ),
            (
                counter(
                    "metadata-checkpoint-loads-total",
                    "Partitions loaded from the broker's checkpoint, checked against a listing of their history (no snapshot read).",
                ),
                self.checkpoint_loads() as f64,
            ),
        ]
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
