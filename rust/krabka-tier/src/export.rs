//! [`export_partition`]: the records of one partition, decoded from its
//! segment logs in offset order, committed only by default.

use {
    crate::{
        PartitionListing, SegmentListing, TierError,
        batches::{BatchStream, StreamProblem},
        epochs::{EpochLineage, parse_leader_epoch_checkpoint},
    },
    krabka_kafka::{
        IndexType, LogOffset, TimestampMs,
        index::{AbortedTxnIndexEntry, RecordBatch, parse_txn_index},
    },
    object_store::{ObjectStore, ObjectStoreExt, path::Path},
    serde::Serialize,
};

/// Which records to export. Bounds are inclusive; `None` is open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportRange {
    /// The first offset.
    pub from_offset: Option<LogOffset>,
    /// The last offset.
    pub to_offset: Option<LogOffset>,
    /// The earliest record timestamp.
    pub from_timestamp: Option<TimestampMs>,
    /// The latest record timestamp.
    pub to_timestamp: Option<TimestampMs>,
    /// Also export records of aborted transactions (a `read_uncommitted`
    /// view); control batches are never exported.
    pub uncommitted: bool,
}

impl ExportRange {
    fn offset_in(&self, offset: LogOffset) -> bool {
        self.from_offset.is_none_or(|from| offset >= from)
            && self.to_offset.is_none_or(|to| offset <= to)
    }

    fn timestamp_in(&self, timestamp: TimestampMs) -> bool {
        self.from_timestamp.is_none_or(|from| timestamp >= from)
            && self.to_timestamp.is_none_or(|to| timestamp <= to)
    }
}

/// One exported record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedRecord<'a> {
    /// Topic name.
    pub topic: &'a str,
    /// Partition number.
    pub partition: i32,
    /// Offset.
    pub offset: LogOffset,
    /// Timestamp (create or log-append time, as the batch says).
    pub timestamp: TimestampMs,
    /// Key, `None` for null.
    pub key: Option<&'a [u8]>,
    /// Value, `None` for null (a tombstone).
    pub value: Option<&'a [u8]>,
    /// Headers in order: key and nullable value.
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
}

/// Something the export could not read, with where it is; the export went
/// on where it safely could.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportProblem {
    /// The object.
    pub key: String,
    /// The byte position in it, when known.
    pub position: Option<u64>,
    /// The offset, when known.
    pub offset: Option<LogOffset>,
    /// What is wrong, and what was skipped.
    pub detail: String,
}

/// What an export did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExportSummary {
    /// Records written (with [`export_partition_batches`]: the records of
    /// the batches written).
    pub records: u64,
    /// Segment copies read.
    pub segments: u64,
    /// Batches of aborted transactions left out.
    pub aborted_batches: u64,
    /// Control batches (transaction markers) left out.
    pub control_batches: u64,
    /// Batches left out because an earlier segment copy already exported
    /// their offsets (overlapping copies).
    pub overlapping_batches: u64,
    /// Batches left out because they are off the leader-epoch lineage: a
    /// copy from a leader whose records from that offset on were truncated
    /// when a newer leader took over (the broker never served them).
    pub divergent_batches: u64,
    /// The leader-epoch lineage the copies were chosen by, `(epoch, start
    /// offset)` in offset order.
    pub lineage: Vec<(i32, LogOffset)>,
    /// What the reader chose where segment copies overlap or diverge, one
    /// line each (not problems: nothing readable was skipped).
    pub notices: Vec<String>,
    /// Offset ranges `[first, last]` within the export that no segment
    /// holds.
    pub gaps: Vec<(LogOffset, LogOffset)>,
    /// What could not be read.
    pub problems: Vec<ExportProblem>,
}

impl ExportSummary {
    /// Whether anything was skipped for a problem (not by the selection).
    #[must_use]
    pub fn skipped_anything(&self) -> bool {
        !self.problems.is_empty()
    }
}

/// Exports the records of `partition` selected by `range`, in offset
/// order, to `sink`. Records of aborted transactions are left out (unless
/// `range.uncommitted`), using every transaction index of the partition;
/// control batches always. Overlapping segment copies export each offset
/// once. A corrupt batch (bad CRC, undecodable records), a truncated log or
/// a missing file is an [`ExportProblem`]: the export skips what it cannot
/// read and goes on.
///
/// # Errors
/// [`TierError::Output`] when `sink` fails; [`TierError::Store`] when a
/// read fails for a reason other than the object's absence.
pub async fn export_partition(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    range: &ExportRange,
    sink: &mut dyn FnMut(&ExportedRecord<'_>) -> std::io::Result<()>,
) -> Result<ExportSummary, TierError> {
    export_partition_observed(store, partition, range, sink, &mut |_, _| {}).await
}

/// Where an export writes.
pub enum ExportSink<'s> {
    /// Record by record.
    Records(&'s mut dyn FnMut(&ExportedRecord<'_>) -> std::io::Result<()>),
    /// Whole record batches, their original bytes.
    Batches(&'s mut dyn FnMut(&ExportedBatch<'_>) -> std::io::Result<()>),
}

impl std::fmt::Debug for ExportSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Records(_) => "ExportSink::Records",
            Self::Batches(_) => "ExportSink::Batches",
        })
    }
}

/// One exported record batch: the bytes Kafka wrote, unchanged (a `.log`
/// is such batches one after the other).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedBatch<'a> {
    /// Topic name.
    pub topic: &'a str,
    /// Partition number.
    pub partition: i32,
    /// The batch's base offset.
    pub base_offset: LogOffset,
    /// The batch's last offset.
    pub last_offset: LogOffset,
    /// The number of records in it.
    pub records: u32,
    /// The batch, from its base offset field to its last byte.
    pub bytes: &'a [u8],
}

/// Exports the record batches of `partition` that hold a record selected by
/// `range`, whole and byte for byte, in offset order, to `sink`: the same
/// choice of batches as [`export_partition`] (lineage, overlaps, committed
/// only unless `range.uncommitted`, control batches never), without
/// decoding records unless a bound cuts through a batch. A transaction
/// commits or aborts its batches whole, so a written batch holds only
/// committed records.
///
/// # Errors
/// Those of [`export_partition`].
pub async fn export_partition_batches(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    range: &ExportRange,
    sink: &mut dyn FnMut(&ExportedBatch<'_>) -> std::io::Result<()>,
    progress: &mut dyn FnMut(&SegmentListing, &ExportSummary),
) -> Result<ExportSummary, TierError> {
    export_to(
        store,
        partition,
        range,
        &mut ExportSink::Batches(sink),
        progress,
    )
    .await
}

/// [`export_partition`], calling `progress` after each segment copy read
/// with the copy and the summary so far (for progress lines of long runs).
///
/// # Errors
/// Those of [`export_partition`].
pub async fn export_partition_observed(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    range: &ExportRange,
    sink: &mut dyn FnMut(&ExportedRecord<'_>) -> std::io::Result<()>,
    progress: &mut dyn FnMut(&SegmentListing, &ExportSummary),
) -> Result<ExportSummary, TierError> {
    export_to(
        store,
        partition,
        range,
        &mut ExportSink::Records(sink),
        progress,
    )
    .await
}

async fn export_to(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    range: &ExportRange,
    sink: &mut ExportSink<'_>,
    progress: &mut dyn FnMut(&SegmentListing, &ExportSummary),
) -> Result<ExportSummary, TierError> {
    let mut summary = ExportSummary::default();
    let aborted = if range.uncommitted {
        Vec::new()
    } else {
        aborted_transactions(store, partition, &mut summary).await?
    };
    let lineage = lineage(store, partition, &mut summary).await?;
    summary.lineage = lineage.entries().collect();
    let mut export = Export {
        partition,
        range,
        aborted: &aborted,
        lineage: &lineage,
        next: range.from_offset,
        summary,
        copy: CopyNotes::default(),
    };
    for segment in &partition.segments {
        if range.to_offset.is_some_and(|to| segment.start_offset > to) {
            break;
        }
        let flow = export.export_segment(store, segment, sink).await?;
        progress(segment, &export.summary);
        if flow == Flow::Stop {
            break;
        }
    }
    Ok(export.summary)
}

/// The partition's leader-epoch lineage, from each copy's
/// `.leader_epoch_checkpoint` (the plugin uploads one with every segment),
/// or from the batch headers of a copy without a readable one.
async fn lineage(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    summary: &mut ExportSummary,
) -> Result<EpochLineage, TierError> {
    let mut entries = Vec::new();
    for segment in &partition.segments {
        if let Some(key) = segment.file(IndexType::LeaderEpoch.suffix()) {
            if let Some(bytes) = read_small(store, key).await? {
                match parse_leader_epoch_checkpoint(&bytes) {
                    Ok(found) => {
                        entries.extend(found);
                        continue;
                    }
                    Err(err) => summary.notices.push(format!(
                        "{key}: {err}; the copy's epochs are taken from its batch headers"
                    )),
                }
            }
        }
        let Some(log) = segment.log_key.as_deref() else {
            continue;
        };
        entries.extend(batch_epochs(store, log).await?);
    }
    Ok(EpochLineage::from_entries(entries))
}

/// The first `(epoch, base offset)` of each leader epoch in a `.log`, from
/// the batch headers (what can be framed; the export reports the rest).
async fn batch_epochs(store: &dyn ObjectStore, key: &str) -> Result<Vec<(i32, i64)>, TierError> {
    let mut batches = match BatchStream::open(store, key).await {
        Ok(batches) => batches,
        Err(TierError::Store {
            source: object_store::Error::NotFound { .. },
            ..
        }) => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut entries: Vec<(i32, i64)> = Vec::new();
    loop {
        match batches.next().await {
            Ok(Some(raw)) => {
                if let Some((epoch, base)) = raw.leader_epoch() {
                    if entries.last().is_none_or(|&(e, _)| e != epoch) {
                        entries.push((epoch, base));
                    }
                }
            }
            Ok(None) | Err(Ok(_)) => return Ok(entries),
            Err(Err(err)) => return Err(err),
        }
    }
}

/// The whole object at `key`, `None` when it does not exist.
async fn read_small(store: &dyn ObjectStore, key: &str) -> Result<Option<bytes::Bytes>, TierError> {
    let bytes = match store.get(&Path::from(key)).await {
        Ok(got) => got.bytes().await,
        Err(err) => Err(err),
    };
    match bytes {
        Ok(bytes) => Ok(Some(bytes)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(source) => Err(TierError::Store {
            operation: "read of",
            key: key.to_owned(),
            source,
        }),
    }
}

/// Every aborted transaction recorded in the partition's transaction
/// indexes (a transaction can abort in a later segment than its records).
async fn aborted_transactions(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    summary: &mut ExportSummary,
) -> Result<Vec<AbortedTxnIndexEntry>, TierError> {
    let mut aborted = Vec::new();
    for segment in &partition.segments {
        let Some(key) = segment.file(IndexType::Transaction.suffix()) else {
            continue;
        };
        let Some(bytes) = read_small(store, key).await? else {
            continue;
        };
        match parse_txn_index(&bytes) {
            Ok(entries) => aborted.extend_from_slice(entries),
            Err(err) => summary.problems.push(ExportProblem {
                key: key.to_owned(),
                position: None,
                offset: None,
                detail: format!(
                    "{err}; aborted transactions it records may be exported as committed"
                ),
            }),
        }
    }
    Ok(aborted)
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

struct Export<'e> {
    partition: &'e PartitionListing,
    range: &'e ExportRange,
    aborted: &'e [AbortedTxnIndexEntry],
    lineage: &'e EpochLineage,
    /// The next offset expected: every earlier one was exported or passed.
    next: Option<LogOffset>,
    summary: ExportSummary,
    /// What the copy being read overlapped or diverged in.
    copy: CopyNotes,
}

/// Offsets of the current segment copy left out, for its notices.
#[derive(Debug, Default)]
struct CopyNotes {
    /// `[first, last]` already exported from an earlier copy.
    overlapped: Option<(LogOffset, LogOffset)>,
    /// `[first, last]` off the lineage, and the epochs they were written in.
    divergent: Option<(LogOffset, LogOffset, i32)>,
}

impl CopyNotes {
    fn overlap(&mut self, first: LogOffset, last: LogOffset) {
        let range = self.overlapped.get_or_insert((first, last));
        range.0 = range.0.min(first);
        range.1 = range.1.max(last);
    }

    fn diverge(&mut self, first: LogOffset, last: LogOffset, epoch: i32) {
        let range = self.divergent.get_or_insert((first, last, epoch));
        range.0 = range.0.min(first);
        range.1 = range.1.max(last);
    }
}

impl Export<'_> {
    async fn export_segment(
        &mut self,
        store: &dyn ObjectStore,
        segment: &SegmentListing,
        sink: &mut ExportSink<'_>,
    ) -> Result<Flow, TierError> {
        let Some(key) = segment.log_key.as_deref() else {
            self.problem(
                segment_key(segment),
                None,
                None,
                "the segment copy has no .log: skipped",
            );
            return Ok(Flow::Go);
        };
        self.summary.segments += 1;
        self.copy = CopyNotes::default();
        let flow = self.read_copy(store, key, sink).await;
        self.note_copy(key);
        flow
    }

    /// Notices for what the copy just read overlapped or diverged in.
    fn note_copy(&mut self, key: &str) {
        let notes = std::mem::take(&mut self.copy);
        if let Some((first, last)) = notes.overlapped {
            self.summary.notices.push(format!(
                "{key}: offsets {first}..={last} overlap an earlier segment copy; each offset is exported once"
            ));
        }
        if let Some((first, last, epoch)) = notes.divergent {
            let served = self
                .lineage
                .epoch_at(first)
                .map_or_else(|| "-".to_owned(), |e| e.to_string());
            self.summary.notices.push(format!(
                "{key}: offsets {first}..={last} (leader epoch {epoch}) are off the leader-epoch lineage (epoch {served} from offset {first}): left out, as the broker would serve another copy's"
            ));
        }
    }

    async fn read_copy(
        &mut self,
        store: &dyn ObjectStore,
        key: &str,
        sink: &mut ExportSink<'_>,
    ) -> Result<Flow, TierError> {
        let mut batches = BatchStream::open(store, key).await?;
        loop {
            let raw = match batches.next().await {
                Ok(Some(raw)) => raw,
                Ok(None) => return Ok(Flow::Go),
                Err(Ok(problem)) => {
                    let position = match problem {
                        StreamProblem::Truncated { position, .. }
                        | StreamProblem::BadLength { position, .. } => position,
                    };
                    let detail = format!("{problem}; the rest of the segment is skipped");
                    self.problem(key, Some(position), None, &detail);
                    return Ok(Flow::Go);
                }
                Err(Err(err)) => return Err(err),
            };
            let position = usize::try_from(raw.position).unwrap_or(usize::MAX);
            let batch = match RecordBatch::parse(&raw.bytes, position) {
                Ok(batch) => batch,
                Err(err) => {
                    let offset = raw
                        .bytes
                        .get(..8)
                        .map(|b| i64::from_be_bytes(b.try_into().unwrap_or([0; 8])));
                    let detail = format!("{err}; the batch is skipped");
                    self.problem(key, Some(raw.position), offset, &detail);
                    continue;
                }
            };
            if self.export_batch(key, &batch, sink)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
    }

    fn export_batch(
        &mut self,
        key: &str,
        batch: &RecordBatch<'_>,
        sink: &mut ExportSink<'_>,
    ) -> Result<Flow, TierError> {
        if self
            .range
            .to_offset
            .is_some_and(|to| batch.base_offset() > to)
        {
            return Ok(Flow::Stop);
        }
        if self
            .range
            .from_offset
            .is_some_and(|from| batch.last_offset() < from)
        {
            return Ok(Flow::Go);
        }
        if !self
            .lineage
            .serves(batch.partition_leader_epoch(), batch.base_offset())
        {
            self.summary.divergent_batches += 1;
            self.copy.diverge(
                batch.base_offset(),
                batch.last_offset(),
                batch.partition_leader_epoch(),
            );
            return Ok(Flow::Go);
        }
        if self.next.is_some_and(|next| batch.last_offset() < next) {
            self.summary.overlapping_batches += 1;
            self.copy.overlap(batch.base_offset(), batch.last_offset());
            return Ok(Flow::Go);
        }
        if let Some(next) = self.next {
            if batch.base_offset() > next {
                self.summary.gaps.push((next, batch.base_offset() - 1));
            }
        }
        let already = self.next;
        self.next = Some(batch.next_offset());
        if batch.is_control() {
            self.summary.control_batches += 1;
            return Ok(Flow::Go);
        }
        if batch.is_transactional() && self.is_aborted(batch) {
            self.summary.aborted_batches += 1;
            return Ok(Flow::Go);
        }
        let sink = match sink {
            ExportSink::Records(sink) => sink,
            ExportSink::Batches(sink) => {
                return self.export_whole(key, batch, already, &mut **sink);
            }
        };
        let records = match batch.records() {
            Ok(records) => records,
            Err(err) => {
                let detail = format!("{err}; the batch is skipped");
                self.problem(
                    key,
                    Some(batch.position() as u64),
                    Some(batch.base_offset()),
                    &detail,
                );
                return Ok(Flow::Go);
            }
        };
        for record in &records {
            let record = match record {
                Ok(record) => record,
                Err(err) => {
                    let detail = format!("{err}; the rest of the batch is skipped");
                    self.problem(
                        key,
                        Some(batch.position() as u64),
                        Some(batch.base_offset()),
                        &detail,
                    );
                    break;
                }
            };
            let offset = record.offset();
            if already.is_some_and(|next| offset < next)
                || !self.range.offset_in(offset)
                || !self.range.timestamp_in(record.timestamp())
            {
                continue;
            }
            let headers = record.headers().iter().map(|h| (h.key, h.value)).collect();
            let exported = ExportedRecord {
                topic: &self.partition.topic,
                partition: self.partition.partition,
                offset,
                timestamp: record.timestamp(),
                key: record.key(),
                value: record.value(),
                headers,
            };
            sink(&exported).map_err(TierError::Output)?;
            self.summary.records += 1;
        }
        Ok(Flow::Go)
    }

    /// Writes `batch` whole when it holds a selected record.
    fn export_whole(
        &mut self,
        key: &str,
        batch: &RecordBatch<'_>,
        already: Option<LogOffset>,
        sink: &mut dyn FnMut(&ExportedBatch<'_>) -> std::io::Result<()>,
    ) -> Result<Flow, TierError> {
        let inside = self
            .range
            .from_offset
            .is_none_or(|f| batch.base_offset() >= f)
            && self
                .range
                .to_offset
                .is_none_or(|t| batch.last_offset() <= t)
            && self.range.from_timestamp.is_none()
            && self.range.to_timestamp.is_none()
            && already.is_none_or(|next| batch.base_offset() >= next);
        if !inside {
            let selected = match batch.records() {
                Ok(records) => (&records).into_iter().any(|record| {
                    record.is_ok_and(|r| {
                        already.is_none_or(|next| r.offset() >= next)
                            && self.range.offset_in(r.offset())
                            && self.range.timestamp_in(r.timestamp())
                    })
                }),
                Err(err) => {
                    let detail = format!("{err}; the batch is skipped");
                    self.problem(
                        key,
                        Some(batch.position() as u64),
                        Some(batch.base_offset()),
                        &detail,
                    );
                    return Ok(Flow::Go);
                }
            };
            if !selected {
                return Ok(Flow::Go);
            }
            if let Some(next) = already.filter(|&next| batch.base_offset() < next) {
                self.summary.notices.push(format!(
                    "{key}: the batch at offset {} repeats offsets {}..={} written from an earlier copy (a batch is written whole)",
                    batch.base_offset(),
                    batch.base_offset(),
                    next - 1
                ));
            }
        }
        let exported = ExportedBatch {
            topic: &self.partition.topic,
            partition: self.partition.partition,
            base_offset: batch.base_offset(),
            last_offset: batch.last_offset(),
            records: batch.records_count(),
            bytes: batch.as_bytes(),
        };
        sink(&exported).map_err(TierError::Output)?;
        self.summary.records += u64::from(batch.records_count());
        Ok(Flow::Go)
    }

    fn is_aborted(&self, batch: &RecordBatch<'_>) -> bool {
        let (producer, offset) = (batch.producer_id(), batch.base_offset());
        self.aborted.iter().any(|entry| {
            entry.producer_id() == producer
                && entry.first_offset() <= offset
                && offset <= entry.last_offset()
        })
    }

    fn problem(
        &mut self,
        key: &str,
        position: Option<u64>,
        offset: Option<LogOffset>,
        detail: &str,
    ) {
        self.summary.problems.push(ExportProblem {
            key: key.to_owned(),
            position,
            offset,
            detail: detail.to_owned(),
        });
    }
}

/// Some key of the segment copy, for a problem about the copy as a whole.
fn segment_key(segment: &SegmentListing) -> &str {
    segment.files.values().next().map_or("", String::as_str)
}
