//! Decoders for the on-disk formats Apache Kafka writes for a log segment:
//! the offset index (`.index`), the time index (`.timeindex`), the
//! transaction index (`.txnindex`) and the record batches of the `.log`.
//!
//! Everything here is pure: bytes in, borrowed views out, no I/O. The bytes
//! are untrusted (they come back from a remote tier), so every decoder
//! returns [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
//! for malformed input and never panics; they are fuzzed (`fuzz/` at the root
//! of the repository) and checked against segments written by Kafka itself
//! (`tests/fixtures/kafka/`).
//!
//! | File | Entry (big-endian) | Parser |
//! |---|---|---|
//! | `.index` | relative offset `u32`, position `u32` (8 bytes) | [`parse_offset_index`] → `&[`[`OffsetIndexEntry`]`]` |
//! | `.timeindex` | timestamp `i64`, relative offset `u32` (12 bytes) | [`parse_time_index`] → `&[`[`TimeIndexEntry`]`]` |
//! | `.txnindex` | version `i16`, producer id, first, last, last stable offset `i64` (34 bytes) | [`parse_txn_index`] → `&[`[`AbortedTxnIndexEntry`]`]` |
//! | `.log` | magic v2 record batches | [`RecordBatch`], [`record_batches`], [`first_batch_at_or_after`], [`first_record_at_or_after_timestamp`] |
//!
//! The index parsers are zero-copy: they check the bytes and reinterpret
//! them as a slice of entries. The lookup helpers ([`position_for_relative_offset`],
//! [`relative_offset_floor_for_timestamp`], [`end_position_for`],
//! [`txn_overlaps`]) turn entries into byte ranges and scan starts.
//!
//! # Reading by offset
//!
//! ```
//! use krabka_kafka::index::{parse_offset_index, position_for_relative_offset};
//!
//! // Two entries: relative offset 10 at byte 4096, relative offset 25 at byte 8192.
//! let bytes = [0, 0, 0, 10, 0, 0, 16, 0, 0, 0, 0, 25, 0, 0, 32, 0];
//! let entries = parse_offset_index(&bytes)?;
//! assert_eq!(position_for_relative_offset(entries, 9), 0); // before the first entry
//! assert_eq!(position_for_relative_offset(entries, 17), 4096); // floor entry
//! assert_eq!(position_for_relative_offset(entries, 25), 8192); // exact entry
//! # Ok::<(), krabka_kafka::RemoteStorageError>(())
//! ```
//!
//! A reader fetches the segment from that position and calls
//! [`first_batch_at_or_after`] on the bytes to find the batch holding the
//! offset.
//!
//! # Malformed and out-of-order input
//!
//! - An index whose length is not a whole number of entries is refused,
//!   as Kafka's `sanityCheck` refuses it.
//! - Trailing all-zero entries of the offset and time indexes are
//!   preallocation padding (Kafka zero-fills the index of the active
//!   segment and trims it when the segment rolls) and are dropped.
//! - Entries out of the order Kafka's writers enforce are refused, not
//!   repaired: offset index relative offsets strictly increasing, time index
//!   timestamps strictly increasing and relative offsets non-decreasing,
//!   transaction index last offsets strictly increasing. A parsed slice is
//!   therefore sorted and the lookups over it are exact.
//! - The lookups also accept slices built by hand; on any slice they return
//!   a value and never panic.
//! - In `.log` bytes every problem — truncation, magic 0 or 1, a bad
//!   length or CRC, a bad varint, a failed or oversized decompression, an
//!   offset or timestamp that overflows — is an error naming the byte
//!   position of the batch.

mod batch;
mod compression;
mod control;
pub(crate) mod corruption;
pub(crate) mod cursor;
mod entries;
mod lookup;
mod offset;
mod record;
mod search;
mod time;
mod txn;

#[cfg(test)]
mod test_encode;

pub use {
    crate::error::corrupt_log,
    batch::{RecordBatch, RecordBatches, TimestampType, record_batches},
    compression::{Compression, DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES},
    control::{ControlRecordType, EndTransactionMarker},
    lookup::{end_position_for, position_for_relative_offset, relative_offset_floor_for_timestamp},
    offset::{OffsetIndexEntry, parse_offset_index},
    record::{Record, RecordHeader, RecordHeaderIter, RecordHeaders, RecordIter, Records},
    search::{first_batch_at_or_after, first_record_at_or_after_timestamp},
    time::{TimeIndexEntry, parse_time_index},
    txn::{AbortedTxnIndexEntry, parse_txn_index, txn_overlaps},
};

/// An absolute offset in a partition's log (Kafka's `long` offsets).
pub type LogOffset = i64;

/// Milliseconds since the Unix epoch, as Kafka stores record timestamps.
pub type TimestampMs = i64;

/// An offset relative to a segment's base offset, as the offset and time
/// indexes store it.
pub type RelativeOffset = u32;

/// A byte position inside a segment's `.log` file, as the offset index
/// stores it.
pub type BytePosition = u32;
