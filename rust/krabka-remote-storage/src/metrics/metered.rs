//! A storage manager that counts what the tier under it does.

use {
    super::{FailureClass, TierMetrics},
    crate::{
        CancellationToken, CustomMetadata, DeleteOutcome, IndexType, LogSegmentData,
        RemoteLogSegmentMetadata, RemoteStorageManager, Result, SegmentReader,
    },
    std::{
        io::{self, Read},
        sync::{
            Arc,
            atomic::{AtomicI64, Ordering},
        },
        time::Instant,
    },
};

/// Any tier, with every operation counted into its [`TierMetrics`]. It
/// changes nothing else: results and errors are the tier's.
#[derive(Debug)]
pub struct MeteredStorage<T> {
    tier: T,
    metrics: Arc<TierMetrics>,
}

impl<T: RemoteStorageManager> MeteredStorage<T> {
    /// `tier` counted into fresh metrics.
    pub fn new(tier: T) -> Self {
        Self {
            tier,
            metrics: Arc::new(TierMetrics::new()),
        }
    }

    /// The metrics this storage counts into.
    #[must_use]
    pub fn metrics(&self) -> &Arc<TierMetrics> {
        &self.metrics
    }

    /// The tier under the counters.
    #[must_use]
    pub fn tier(&self) -> &T {
        &self.tier
    }
}

/// Adds 1 to a gauge for as long as it lives.
struct InFlight<'a>(&'a AtomicI64);

impl<'a> InFlight<'a> {
    fn enter(gauge: &'a AtomicI64) -> Self {
        gauge.fetch_add(1, Ordering::Relaxed);
        Self(gauge)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<T: RemoteStorageManager> RemoteStorageManager for MeteredStorage<T> {
    fn copy_log_segment_data_cancellable(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        let metrics = &self.metrics;
        let started = Instant::now();
        let result = {
            let _in_flight = InFlight::enter(&metrics.copies_in_flight);
            self.tier
                .copy_log_segment_data_cancellable(metadata, segment, cancel)
        };
        match &result {
            Ok(_) => {
                metrics.copies.record(started.elapsed());
                // The size of what was copied; the broker's figure when the
                // file is gone already.
                let bytes = std::fs::metadata(&segment.log_segment).map_or_else(
                    |_| u64::try_from(metadata.segment_size_in_bytes()).unwrap_or(0),
                    |file| file.len(),
                );
                metrics.copy_bytes.fetch_add(bytes, Ordering::Relaxed);
            }
            Err(err) => metrics.copy_failures.record(err),
        }
        result
    }

    fn fetch_log_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start_position: u64,
        end_position: Option<u64>,
    ) -> Result<SegmentReader> {
        let metrics = &self.metrics;
        let started = Instant::now();
        metrics.fetches.fetch_add(1, Ordering::Relaxed);
        let size = u64::try_from(metadata.segment_size_in_bytes()).unwrap_or(0);
        let last = end_position.map_or(size, |end| end.saturating_add(1).min(size));
        metrics
            .fetch_bytes_requested
            .fetch_add(last.saturating_sub(start_position), Ordering::Relaxed);
        match self
            .tier
            .fetch_log_segment(metadata, start_position, end_position)
        {
            Ok(reader) => {
                metrics.fetch_open_streams.fetch_add(1, Ordering::Relaxed);
                Ok(Box::new(MeteredReader {
                    reader,
                    metrics: Arc::clone(metrics),
                    started: Some(started),
                }))
            }
            Err(err) => {
                metrics.fetch_failures.record(&err);
                Err(err)
            }
        }
    }

    fn fetch_index(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        index: IndexType,
    ) -> Result<Vec<u8>> {
        let metrics = &self.metrics;
        let started = Instant::now();
        let result = self.tier.fetch_index(metadata, index);
        match &result {
            Ok(bytes) => {
                metrics.index_fetches.record(started.elapsed());
                metrics
                    .index_fetch_bytes
                    .fetch_add(bytes.len() as u64, Ordering::Relaxed);
            }
            Err(err) => metrics.index_fetch_failures.record(err),
        }
        result
    }

    fn delete_log_segment_data(
        &self,
        metadata: &RemoteLogSegmentMetadata,
    ) -> Result<DeleteOutcome> {
        let metrics = &self.metrics;
        let result = self.tier.delete_log_segment_data(metadata);
        match &result {
            Ok(outcome) => {
                metrics.deletes.fetch_add(1, Ordering::Relaxed);
                if matches!(outcome, DeleteOutcome::RetainedByArchive { .. }) {
                    metrics.deletes_retained.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(err) => metrics.delete_failures.record(err),
        }
        result
    }
}

/// A fetch stream counting the bytes it serves and the time to its first
/// bytes; an open stream until dropped.
struct MeteredReader {
    reader: SegmentReader,
    metrics: Arc<TierMetrics>,
    /// When the fetch was opened, until its first bytes are recorded.
    started: Option<Instant>,
}

impl Read for MeteredReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.reader.read(buf) {
            Ok(n) => {
                if let Some(started) = self.started.take() {
                    self.metrics.fetch_first_byte.record(started.elapsed());
                }
                self.metrics
                    .fetch_bytes_served
                    .fetch_add(n as u64, Ordering::Relaxed);
                Ok(n)
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => Err(err),
            Err(err) => {
                self.metrics
                    .fetch_failures
                    .record_class(FailureClass::Other);
                Err(err)
            }
        }
    }
}

impl Drop for MeteredReader {
    fn drop(&mut self) {
        self.metrics
            .fetch_open_streams
            .fetch_sub(1, Ordering::Relaxed);
    }
}
