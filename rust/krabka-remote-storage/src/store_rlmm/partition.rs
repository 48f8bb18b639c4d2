//! One partition's state as the durable manager holds it: Kafka's metadata
//! cache (the in-memory manager's state machine, reused as it is) rebuilt
//! from the newest snapshot and the records after it, the position reached
//! in the history, and the append path that validates an event against the
//! whole history before it writes it at the next position.

use {
    super::history::{History, Written},
    crate::{cache::RemoteLogMetadataCache, dump::PartitionDump, metrics::MetadataMetrics},
    krabka_kafka::{
        MetadataEvent, MetadataRecord, MetadataSnapshot, RemoteStorageError, Result,
        TopicIdPartition,
    },
    std::{
        sync::Arc,
        time::{Duration, Instant},
    },
};

/// A partition's cache and where it stands in the history.
#[derive(Debug)]
pub(super) struct PartitionState {
    history: History,
    cache: RemoteLogMetadataCache,
    /// The last record the cache includes (0: none).
    applied: u64,
    /// The newest snapshot known to exist (0: none).
    snapshot_at: u64,
    /// When the history was last read up to its end.
    refreshed: Instant,
    /// Records between snapshots.
    snapshot_every: u64,
    /// The cache holds an event that may not be in the history: the state
    /// must be dropped and loaded again.
    stale: bool,
    /// Where the store traffic is counted.
    metrics: Arc<MetadataMetrics>,
}

impl PartitionState {
    /// The state of `partition`: the newest snapshot, then every record
    /// after it (those a listing shows read together, then any newer one by
    /// one). Writes a snapshot when the tail was longer than
    /// `snapshot_every` records.
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Corrupt`] for a snapshot or
    /// record that does not decode.
    pub(super) fn load(
        history: History,
        snapshot_every: u64,
        metrics: Arc<MetadataMetrics>,
    ) -> Result<Self> {
        let started = Instant::now();
        let (cache, applied) = match history.latest_snapshot()? {
            Some(snapshot) => (
                restore(snapshot.partition.clone(), snapshot.clone())?,
                snapshot.through,
            ),
            None => (RemoteLogMetadataCache::new(history.partition().clone()), 0),
        };
        let mut state = Self {
            history,
            cache,
            applied,
            snapshot_at: applied,
            refreshed: Instant::now(),
            snapshot_every,
            stale: false,
            metrics,
        };
        let listed = state.history.read_listed_records(state.applied)?;
        state
            .metrics
            .listed_records_read(u64::try_from(listed.len()).unwrap_or(u64::MAX));
        for record in &listed {
            state.apply_record(record);
        }
        state.catch_up()?;
        state.snapshot_if_due();
        state.metrics.partition_loaded(started.elapsed());
        Ok(state)
    }

    /// The cache.
    pub(super) fn cache(&self) -> &RemoteLogMetadataCache {
        &self.cache
    }

    /// How long ago the history was last read to its end.
    pub(super) fn since_refresh(&self) -> Duration {
        self.refreshed.elapsed()
    }

    /// Whether the state must be dropped and loaded again.
    pub(super) fn is_stale(&self) -> bool {
        self.stale
    }

    /// The last record the cache includes.
    pub(super) fn applied(&self) -> u64 {
        self.applied
    }

    /// Applies every record written after the last one applied; the number
    /// applied.
    ///
    /// # Errors
    /// The store's errors and those of [`History::read_record`].
    pub(super) fn catch_up(&mut self) -> Result<u64> {
        let from = self.applied;
        while let Some(record) = self.history.read_record(self.applied + 1)? {
            self.apply_record(&record);
        }
        self.refreshed = Instant::now();
        self.metrics.caught_up(self.applied - from);
        Ok(self.applied - from)
    }

    /// Applies `record`, the one after the last applied.
    fn apply_record(&mut self, record: &MetadataRecord) {
        if let Err(err) = apply(&mut self.cache, &record.event) {
            // Every writer validated the record against the history
            // before it; every reader skips it alike, so all agree.
            tracing::warn!(
                partition = %self.cache.partition(),
                sequence = record.sequence,
                error = %err,
                "skipping a remote log metadata record that does not apply"
            );
        }
        self.applied = record.sequence;
    }

    /// Validates `event` against the history and writes it at the next
    /// position, create-only.
    ///
    /// An event the cache refuses is checked once more after reading the
    /// records other brokers wrote since (an update of a segment another
    /// leader added is not a miss). When the write loses the race for its
    /// position, the state is read again and the call fails with
    /// [`RemoteStorageError::Fenced`]; nothing of the event is kept.
    ///
    /// # Errors
    /// The cache's validation errors, [`RemoteStorageError::Fenced`], the
    /// store's errors (the state is then [stale](Self::is_stale)).
    pub(super) fn append(&mut self, event: MetadataEvent) -> Result<()> {
        if let Err(refused) = apply(&mut self.cache, &event) {
            if self.catch_up()? == 0 {
                return Err(refused);
            }
            apply(&mut self.cache, &event)?;
        }
        // The cache holds the event now: until the write succeeds, the
        // state is not the history's.
        self.stale = true;
        let record = MetadataRecord {
            partition: self.cache.partition().clone(),
            sequence: self.applied + 1,
            event,
        };
        match self.history.write_record(&record)? {
            Written::Created => {
                self.metrics.record_written();
                self.applied = record.sequence;
                self.stale = false;
                self.snapshot_if_due();
                Ok(())
            }
            Written::Lost => {
                self.metrics.write_fenced();
                let metrics = Arc::clone(&self.metrics);
                *self = Self::load(self.history.clone(), self.snapshot_every, metrics)?;
                Err(RemoteStorageError::Fenced {
                    partition: record.partition.to_string(),
                    sequence: record.sequence,
                })
            }
        }
    }

    /// Writes a snapshot of the current state when `snapshot_every` records
    /// or more came after the newest one. A failure is logged, not
    /// returned: the records are the history, a snapshot only shortens the
    /// next load, and the next append tries again.
    fn snapshot_if_due(&mut self) {
        if self.applied == 0 || self.applied - self.snapshot_at < self.snapshot_every {
            return;
        }
        let dump = self.cache.dump();
        let snapshot = MetadataSnapshot {
            partition: dump.topic_id_partition,
            through: self.applied,
            segments: dump.segments,
            delete_state: dump.delete_state,
        };
        match self.history.write_snapshot(&snapshot) {
            Ok(()) => {
                self.metrics.snapshot_written();
                self.snapshot_at = self.applied;
            }
            Err(err) => tracing::warn!(
                partition = %snapshot.partition,
                through = snapshot.through,
                error = %err,
                "could not write a remote log metadata snapshot; the next append tries again"
            ),
        }
    }
}

/// `event` applied to `cache` with Kafka's transition rules; the cache is
/// unchanged when it is refused.
fn apply(cache: &mut RemoteLogMetadataCache, event: &MetadataEvent) -> Result<()> {
    match event {
        MetadataEvent::SegmentAdded(segment) => cache.add(segment.clone()),
        MetadataEvent::SegmentUpdated(update) => cache.update(update),
        MetadataEvent::PartitionDelete(delete) => cache.put_delete_state(delete.state),
    }
}

/// The cache a snapshot describes.
fn restore(
    partition: TopicIdPartition,
    snapshot: MetadataSnapshot,
) -> Result<RemoteLogMetadataCache> {
    RemoteLogMetadataCache::restore(PartitionDump {
        topic_id_partition: partition,
        segments: snapshot.segments,
        delete_state: snapshot.delete_state,
    })
    .map_err(|err| RemoteStorageError::Corrupt {
        format: "remote log metadata snapshot",
        detail: err.to_string(),
    })
}
