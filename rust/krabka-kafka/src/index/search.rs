//! Searches over `.log` bytes: the batch holding an offset, and the first
//! record at or after a timestamp.

use {
    super::{LogOffset, RecordBatch, TimestampMs, batch::record_batches, corruption::Corruption},
    crate::Result,
};

/// The first batch whose last offset is `>= offset`: the batch that holds
/// `offset`, or the next one when `offset` fell into a gap (compaction,
/// transaction markers). `Ok(None)` when every batch ends before `offset`.
///
/// Batches are decoded in order from the start of `data`, which is
/// typically the segment read from the position
/// [`position_for_relative_offset`](super::position_for_relative_offset)
/// gave. Kafka's `FileRecords.searchForOffsetFromPosition` does the same.
///
/// # Errors
///
/// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
/// with format `log` for the first batch before the answer that fails to
/// decode (truncated, unsupported magic, bad length or CRC, …).
pub fn first_batch_at_or_after(data: &[u8], offset: LogOffset) -> Result<Option<RecordBatch<'_>>> {
    for batch in record_batches(data) {
        let batch = batch?;
        if batch.last_offset() >= offset {
            return Ok(Some(batch));
        }
    }
    Ok(None)
}

/// The offset and timestamp of the first record, in log order, whose offset
/// is `>= floor_offset` and whose timestamp is `>= target_ts`; `Ok(None)`
/// when there is none in `data`.
///
/// This is Kafka's `FileRecords.searchForTimestamp`: a batch whose max
/// timestamp is below the target (or whose last offset is below the floor)
/// is skipped without decoding its records; otherwise its records are
/// decoded (decompressed with at most
/// [`DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES`](super::DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES))
/// and checked in order. Control records count like any other, as in Kafka.
///
/// # Errors
///
/// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
/// with format `log` when a batch or record before the answer fails to
/// decode, including offset or timestamp deltas that overflow.
pub fn first_record_at_or_after_timestamp(
    data: &[u8],
    floor_offset: LogOffset,
    target_ts: TimestampMs,
) -> Result<Option<(LogOffset, TimestampMs)>> {
    let mut batches = record_batches(data);
    while let Some(batch) = batches.next_batch() {
        let batch = batch.map_err(|(position, c)| c.in_batch_at(position))?;
        if batch.max_timestamp() < target_ts || batch.last_offset() < floor_offset {
            continue;
        }
        let found = first_matching_record(&batch, floor_offset, target_ts)
            .map_err(|c| c.in_batch_at(batch.position()))?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

fn first_matching_record(
    batch: &RecordBatch<'_>,
    floor_offset: LogOffset,
    target_ts: TimestampMs,
) -> Result<Option<(LogOffset, TimestampMs)>, Corruption> {
    let records = batch.decode_records(super::DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES)?;
    let mut iter = records.iter();
    while let Some(record) = iter.next_record() {
        let record = record?;
        if record.offset() >= floor_offset && record.timestamp() >= target_ts {
            return Ok(Some((record.offset(), record.timestamp())));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
