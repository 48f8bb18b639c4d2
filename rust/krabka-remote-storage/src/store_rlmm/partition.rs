//! One partition's state as the durable manager holds it: Kafka's metadata
//! cache (the in-memory manager's state machine, reused as it is) rebuilt
//! from the newest snapshot and the records after it, the position reached
//! in the history, and the append path that validates an event against the
//! whole history before it writes it at the next position.

use {
    super::history::{History, Listing, Written},
    crate::{cache::RemoteLogMetadataCache, dump::PartitionDump, metrics::MetadataMetrics},
    krabka_kafka::{
        MetadataEvent, MetadataRecord, MetadataSnapshot, RemoteLogSegmentState, RemoteStorageError,
        Result, TopicIdPartition,
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
    /// The oldest snapshot known to be kept: what is before it was
    /// compacted away (0: nothing yet).
    compacted_at: u64,
    /// When the history was last read up to its end.
    refreshed: Instant,
    settings: StateSettings,
    /// The cache holds an event that may not be in the history: the state
    /// must be dropped and loaded again.
    stale: bool,
}

/// How many times a load lists the directory again when what it listed
/// was compacted away before it could read it.
const LOAD_ATTEMPTS: usize = 4;

/// What a partition's state needs besides its history.
#[derive(Debug, Clone)]
pub(super) struct StateSettings {
    /// Records between snapshots.
    pub(super) snapshot_every: u64,
    /// Whether what a newer snapshot covers is deleted (a plain tier) or
    /// kept (a write-once archive, or an operator's choice).
    pub(super) compact: bool,
    /// Where the store traffic is counted.
    pub(super) metrics: Arc<MetadataMetrics>,
}

impl PartitionState {
    /// The state of `partition`: one listing of its directory, the newest
    /// snapshot, then the records after it that the listing shows (read
    /// together). Writes a snapshot when the tail was `snapshot_every`
    /// records or longer. On a history written up to a snapshot that is one
    /// listing and one read.
    ///
    /// Records written after the listing are not looked for: a write on top
    /// of a stale state loses the race for its position and reloads, and a
    /// follower's queries read through.
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Corrupt`] for a snapshot or
    /// record that does not decode.
    pub(super) fn load(history: History, settings: StateSettings) -> Result<Self> {
        let started = Instant::now();
        for _ in 0..LOAD_ATTEMPTS {
            let listing = history.scan()?;
            if let Some(state) = Self::from_listing(&history, &settings, &listing, None, started)? {
                return Ok(state);
            }
        }
        Err(RemoteStorageError::Backend {
            message: format!(
                "the remote log metadata of {} was compacted {LOAD_ATTEMPTS} times while it was read; try again",
                history.partition()
            ),
            source: None,
        })
    }

    /// The state of a partition whose directory `listing` shows (listed
    /// with others: see `ranges`), starting from `checkpointed` (its entry in
    /// this broker's checkpoint) where the listing shows it is still the
    /// state there: no snapshot after it, and the history reaching it.
    /// Otherwise, or when something listed is gone, as [`load`](Self::load).
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub(super) fn load_listed(
        history: History,
        settings: StateSettings,
        listing: &Listing,
        checkpointed: Option<MetadataSnapshot>,
    ) -> Result<Self> {
        let started = Instant::now();
        let checkpointed = checkpointed.filter(|snapshot| {
            let reached = listing
                .records
                .last()
                .copied()
                .unwrap_or(0)
                .max(listing.newest_snapshot());
            snapshot.through >= listing.newest_snapshot() && snapshot.through <= reached
        });
        match Self::from_listing(&history, &settings, listing, checkpointed, started)? {
            Some(state) => Ok(state),
            None => Self::load(history, settings),
        }
    }

    /// The state `listing` shows: from `base` when given (a state at least as
    /// new as the newest snapshot listed), else the newest snapshot listed,
    /// then the records listed after it, read together. `None` when one of
    /// them is gone (compacted since it was listed).
    fn from_listing(
        history: &History,
        settings: &StateSettings,
        listing: &Listing,
        base: Option<MetadataSnapshot>,
        started: Instant,
    ) -> Result<Option<Self>> {
        let from_checkpoint = base.is_some();
        let base = match base {
            Some(snapshot) => Some(snapshot),
            None => match listing.newest_snapshot() {
                0 => None,
                through => match history.read_snapshot(through)? {
                    Some(snapshot) => Some(snapshot),
                    None => return Ok(None),
                },
            },
        };
        let through = base.as_ref().map_or(0, |snapshot| snapshot.through);
        let cache = match base {
            Some(snapshot) => restore(snapshot.partition.clone(), snapshot)?,
            None => RemoteLogMetadataCache::new(history.partition().clone()),
        };
        let Some(tail) = history.read_records(&listing.run_after(through))? else {
            return Ok(None);
        };
        let mut state = Self {
            history: history.clone(),
            cache,
            applied: through,
            // A checkpoint's state need not be a snapshot in the store.
            snapshot_at: if from_checkpoint {
                listing.newest_snapshot()
            } else {
                through
            },
            compacted_at: listing.snapshots.first().copied().unwrap_or(0),
            refreshed: Instant::now(),
            settings: settings.clone(),
            stale: false,
        };
        if from_checkpoint {
            state.settings.metrics.checkpoint_used();
        }
        state
            .settings
            .metrics
            .listed_records_read(u64::try_from(tail.len()).unwrap_or(u64::MAX));
        for record in &tail {
            state.apply_record(record);
        }
        state.snapshot_if_due();
        state.settings.metrics.partition_loaded(started.elapsed());
        Ok(Some(state))
    }

    /// The state as a snapshot for this broker's checkpoint: `None` when
    /// there is nothing (no record applied) or the state is not the
    /// history's.
    pub(super) fn checkpoint(&self) -> Option<MetadataSnapshot> {
        if self.applied == 0 || self.stale {
            return None;
        }
        Some(self.snapshot())
    }

    /// The state through the last record applied.
    fn snapshot(&self) -> MetadataSnapshot {
        let dump = self.cache.dump();
        MetadataSnapshot {
            partition: dump.topic_id_partition,
            through: self.applied,
            segments: dump.segments,
            delete_state: dump.delete_state,
        }
    }

    /// Writes a snapshot of the state unless the newest one already holds
    /// every record applied (a broker hands a partition over, or shuts
    /// down: the next host then loads it with one listing and one read).
    pub(super) fn snapshot_now(&mut self) {
        if self.applied > self.snapshot_at && !self.stale {
            self.write_snapshot();
        }
    }

    /// What a broker does with a partition it stops leading or closes on:
    /// [`snapshot_now`](Self::snapshot_now), then, on a compacted history,
    /// deletes every record and snapshot before that snapshot but its last
    /// record (which the next writer checks for). The partition's directory
    /// then holds two objects, so listing the histories of many partitions
    /// at a restart reads few keys. Done once per snapshot; a failure is
    /// logged (the next snapshot's compaction does it).
    pub(super) fn settle(&mut self) {
        self.snapshot_now();
        if !self.settings.compact
            || self.stale
            || self.applied == 0
            || self.snapshot_at != self.applied
            || self.compacted_at >= self.applied
        {
            return;
        }
        let trimmed = self
            .history
            .scan()
            .and_then(|listing| self.history.trim(&listing, self.applied));
        match trimmed {
            Ok(deleted) => {
                self.settings
                    .metrics
                    .compacted(u64::try_from(deleted).unwrap_or(u64::MAX));
                self.compacted_at = self.applied;
            }
            Err(err) => tracing::warn!(
                partition = %self.cache.partition(),
                through = self.applied,
                error = %err,
                "could not compact the remote log metadata up to its newest snapshot; the next snapshot compacts it"
            ),
        }
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
        self.settings.metrics.caught_up(self.applied - from);
        Ok(self.applied - from)
    }

    /// What a broker that does not write the partition does to read what
    /// its leader wrote since: [`catch_up`](Self::catch_up), and when that
    /// finds nothing on a compacted history, one listing to learn whether
    /// the records after the last applied were compacted away behind a
    /// newer snapshot (a follower that did not look for a while); if so the
    /// state is loaded again from the newest snapshot. The number of records
    /// the state moved on by.
    ///
    /// # Errors
    /// As [`catch_up`](Self::catch_up) and [`load`](Self::load).
    pub(super) fn follow(&mut self) -> Result<u64> {
        let found = self.catch_up()?;
        if found > 0 || !self.settings.compact {
            return Ok(found);
        }
        let from = self.applied;
        if self.history.scan()?.newest_snapshot() <= from {
            return Ok(0);
        }
        *self = Self::load(self.history.clone(), self.settings.clone())?;
        self.settings
            .metrics
            .caught_up(self.applied.saturating_sub(from));
        Ok(self.applied.saturating_sub(from))
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
    /// leader added is not a miss). A `DeleteSegmentStarted` or
    /// `DeleteSegmentFinished` update of a segment the history no longer
    /// holds succeeds without a record: another broker finished deleting it
    /// (a new leader retried a delete a killed leader began, or an old leader
    /// finished one a new leader had already done), and the storage manager's
    /// delete of absent objects is a no-op. Kafka's topic-based manager
    /// accepts such an update too (its consumer thread logs and skips it).
    /// Every other update of an unknown segment stays
    /// [`RemoteStorageError::NotFound`]: a copy finished for a segment the
    /// history does not hold must not look tiered.
    ///
    /// When the write loses the race for its position, the state is read
    /// again and the call fails with [`RemoteStorageError::Fenced`] (unless
    /// the event is such a delete, now of an absent segment); nothing of the
    /// event is kept.
    ///
    /// # Errors
    /// The cache's validation errors, [`RemoteStorageError::Fenced`], the
    /// store's errors (the state is then [stale](Self::is_stale)).
    pub(super) fn append(&mut self, event: MetadataEvent) -> Result<()> {
        if let Err(refused) = apply(&mut self.cache, &event) {
            let refused = if self.catch_up()? == 0 {
                refused
            } else {
                match apply(&mut self.cache, &event) {
                    Ok(()) => return self.write(event),
                    Err(refused) => refused,
                }
            };
            if self.already_deleted(&event) {
                return Ok(());
            }
            return Err(refused);
        }
        self.write(event)
    }

    /// Writes `event`, which the cache already holds, at the next position.
    fn write(&mut self, event: MetadataEvent) -> Result<()> {
        // The cache holds the event now: until the write succeeds, the
        // state is not the history's.
        self.stale = true;
        let record = MetadataRecord {
            partition: self.cache.partition().clone(),
            sequence: self.applied + 1,
            event,
        };
        let mut written = self.history.write_record(&record)?;
        if written == Written::Created
            && self.settings.compact
            && self.history.below_compaction(record.sequence)?
        {
            // A position compaction had emptied: the state was behind the
            // history (another broker wrote and compacted since). The record
            // is below the newest snapshot, so no reader ever reads it; the
            // event is written again on top of the history, as after a lost
            // race.
            written = Written::Lost;
        }
        match written {
            Written::Created => {
                self.settings.metrics.record_written();
                self.applied = record.sequence;
                self.stale = false;
                self.snapshot_if_due();
                Ok(())
            }
            Written::Lost => {
                self.settings.metrics.write_fenced();
                *self = Self::load(self.history.clone(), self.settings.clone())?;
                if self.already_deleted(&record.event) {
                    return Ok(());
                }
                Err(RemoteStorageError::Fenced {
                    partition: record.partition.to_string(),
                    sequence: record.sequence,
                })
            }
        }
    }

    /// Whether `event` is a delete update of a segment the history no
    /// longer holds (another broker finished deleting it); counted and
    /// logged when it is.
    fn already_deleted(&self, event: &MetadataEvent) -> bool {
        let MetadataEvent::SegmentUpdated(update) = event else {
            return false;
        };
        let deleting = matches!(
            update.state,
            RemoteLogSegmentState::DeleteSegmentStarted
                | RemoteLogSegmentState::DeleteSegmentFinished
        );
        if !deleting || self.cache.holds(&update.remote_log_segment_id) {
            return false;
        }
        tracing::debug!(
            segment = %update.remote_log_segment_id,
            state = ?update.state,
            "a delete of a segment the history no longer holds: already deleted, nothing to write"
        );
        self.settings.metrics.delete_of_absent_segment();
        true
    }

    /// Writes a snapshot of the current state when `snapshot_every` records
    /// or more came after the newest one.
    fn snapshot_if_due(&mut self) {
        if self.applied == 0 || self.applied - self.snapshot_at < self.settings.snapshot_every {
            return;
        }
        self.write_snapshot();
    }

    /// Writes a snapshot through the last record applied, then (when the
    /// history is compacted) deletes what the snapshot before it covers:
    /// the records up to it and older snapshots. One snapshot's worth of
    /// records stays behind the newest, so a reader that listed the
    /// directory just before the new snapshot still finds what it listed;
    /// one that listed earlier lists again.
    ///
    /// A failure is logged, not returned: the records are the history, a
    /// snapshot only shortens the next load, and a compaction not done is
    /// done by the next one.
    fn write_snapshot(&mut self) {
        let snapshot = self.snapshot();
        if let Err(err) = self.history.write_snapshot(&snapshot) {
            tracing::warn!(
                partition = %snapshot.partition,
                through = snapshot.through,
                error = %err,
                "could not write a remote log metadata snapshot; the next append tries again"
            );
            return;
        }
        self.settings.metrics.snapshot_written();
        let previous = std::mem::replace(&mut self.snapshot_at, self.applied);
        if self.settings.compact && previous > self.compacted_at {
            let compacted = self
                .history
                .scan()
                .and_then(|listing| self.history.compact(&listing, previous));
            match compacted {
                Ok(deleted) => {
                    self.settings
                        .metrics
                        .compacted(u64::try_from(deleted).unwrap_or(u64::MAX));
                    self.compacted_at = previous;
                }
                Err(err) => tracing::warn!(
                    partition = %snapshot.partition,
                    through = previous,
                    error = %err,
                    "could not compact the remote log metadata; the next snapshot tries again"
                ),
            }
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
