//! Magic v2 record batches (Kafka's `DefaultRecordBatch`), read in place
//! from `.log` bytes.
//!
//! ```text
//! offset  size  field
//!      0     8  base offset
//!      8     4  batch length (bytes after this field)
//!     12     4  partition leader epoch
//!     16     1  magic (2)
//!     17     4  crc32c of bytes 21..end
//!     21     2  attributes: codec (bits 0-2), log-append time (3),
//!               transactional (4), control (5), delete horizon (6)
//!     23     4  last offset delta
//!     27     8  base timestamp
//!     35     8  max timestamp
//!     43     8  producer id
//!     51     2  producer epoch
//!     53     4  base sequence
//!     57     4  record count
//!     61        records (compressed as one stream when a codec is set)
//! ```

use {
    super::{
        LogOffset, TimestampMs,
        compression::{Compression, DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES, decompress},
        corruption::Corruption,
        record::{RecordContext, Records},
    },
    crate::Result,
    std::borrow::Cow,
    zerocopy::{BigEndian, FromBytes, I16, I32, I64, Immutable, KnownLayout, U32, Unaligned},
};

/// The fixed 61-byte header of a magic v2 batch.
#[repr(C)]
#[derive(Debug, FromBytes, KnownLayout, Immutable, Unaligned)]
struct BatchHeader {
    base_offset: I64<BigEndian>,
    batch_length: I32<BigEndian>,
    partition_leader_epoch: I32<BigEndian>,
    magic: i8,
    crc: U32<BigEndian>,
    attributes: I16<BigEndian>,
    last_offset_delta: I32<BigEndian>,
    base_timestamp: I64<BigEndian>,
    max_timestamp: I64<BigEndian>,
    producer_id: I64<BigEndian>,
    producer_epoch: I16<BigEndian>,
    base_sequence: I32<BigEndian>,
    records_count: I32<BigEndian>,
}

/// Bytes before the batch length counts from (base offset and the length).
const LOG_OVERHEAD: usize = 12;
/// Position of the magic byte, the same in every message format.
const MAGIC_OFFSET: usize = 16;
/// First byte the CRC covers (the attributes).
const CRC_START: usize = 21;
/// Size of the v2 header.
const HEADER_SIZE: usize = 61;
/// The smallest valid batch length: the header after the length field.
const MIN_BATCH_LENGTH: i32 = 49;
/// The only magic this decoder reads.
const MAGIC_V2: i8 = 2;

const TIMESTAMP_TYPE_BIT: i16 = 1 << 3;
const TRANSACTIONAL_BIT: i16 = 1 << 4;
const CONTROL_BIT: i16 = 1 << 5;
const DELETE_HORIZON_BIT: i16 = 1 << 6;

/// How the timestamps of a batch were assigned (attribute bit 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// The producer's timestamps (`CreateTime`).
    CreateTime,
    /// The broker's append time (`LogAppendTime`): every record reads the
    /// batch's max timestamp.
    LogAppendTime,
}

/// One magic v2 record batch, borrowed from `.log` bytes.
///
/// A value of this type has passed every header check: at least the 61
/// header bytes, magic 2, a batch length within the data, a matching
/// CRC32C, a known codec, a non-negative record count and last-offset
/// delta, and a last offset that fits in an `i64`. The records are decoded
/// only when asked for with [`RecordBatch::records`].
#[derive(Debug, Clone, Copy)]
pub struct RecordBatch<'a> {
    header: &'a BatchHeader,
    bytes: &'a [u8],
    position: usize,
    compression: Compression,
}

impl<'a> RecordBatch<'a> {
    /// Decodes the batch at the start of `data`, which is at byte
    /// `position` of the scanned range (kept for
    /// [`RecordBatch::position`] and error messages). Bytes after the
    /// batch are ignored.
    ///
    /// # Errors
    ///
    /// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
    /// with format `log` when the batch is truncated, has magic 0 or 1 (or
    /// an unknown magic), a bad length, a CRC mismatch or an invalid header
    /// field.
    pub fn parse(data: &'a [u8], position: usize) -> Result<Self> {
        Self::decode(data, position).map_err(|c| c.in_batch_at(position))
    }

    /// [`RecordBatch::parse`] with the internal error kind.
    pub(crate) fn decode(data: &'a [u8], position: usize) -> Result<Self, Corruption> {
        let magic_end = MAGIC_OFFSET + 1;
        let Some(&[magic]) = data.get(MAGIC_OFFSET..magic_end) else {
            return Err(Corruption::Truncated {
                what: "batch header",
                needed: magic_end,
                available: data.len(),
            });
        };
        let magic = i8::from_ne_bytes([magic]);
        if magic != MAGIC_V2 {
            return Err(Corruption::UnsupportedMagic { magic });
        }
        let Ok((header, _)) = BatchHeader::ref_from_prefix(data) else {
            return Err(Corruption::Truncated {
                what: "batch header",
                needed: HEADER_SIZE,
                available: data.len(),
            });
        };
        let length = header.batch_length.get();
        if length < MIN_BATCH_LENGTH {
            return Err(Corruption::BatchLengthTooSmall {
                length,
                min: MIN_BATCH_LENGTH,
            });
        }
        let size = usize::try_from(length)
            .ok()
            .and_then(|l| l.checked_add(LOG_OVERHEAD))
            .unwrap_or(usize::MAX);
        let Some(bytes) = data.get(..size) else {
            return Err(Corruption::Truncated {
                what: "batch",
                needed: size,
                available: data.len(),
            });
        };
        let stored = header.crc.get();
        let computed = crc32c::crc32c(bytes.get(CRC_START..).unwrap_or_default());
        if stored != computed {
            return Err(Corruption::CrcMismatch { stored, computed });
        }
        let attributes = header.attributes.get();
        let codec_id = u8::try_from(attributes & 0b111).unwrap_or(u8::MAX);
        let compression = Compression::from_id(codec_id)?;
        let count = header.records_count.get();
        if count < 0 {
            return Err(Corruption::NegativeRecordCount { count });
        }
        let delta = header.last_offset_delta.get();
        if delta < 0 {
            return Err(Corruption::NegativeLastOffsetDelta { delta });
        }
        let base = header.base_offset.get();
        if base.checked_add(delta.into()).is_none() {
            return Err(Corruption::OffsetOverflow {
                what: "batch last",
                base,
                delta: delta.into(),
            });
        }
        Ok(Self {
            header,
            bytes,
            position,
            compression,
        })
    }

    /// Byte position of the batch in the scanned data.
    #[must_use]
    pub fn position(&self) -> usize {
        self.position
    }

    /// The whole batch, header included.
    #[must_use]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Size of the whole batch in bytes (batch length + 12).
    #[must_use]
    pub fn size_in_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Offset of the first record.
    #[must_use]
    pub fn base_offset(&self) -> LogOffset {
        self.header.base_offset.get()
    }

    /// Offset of the last record: base offset plus last offset delta. It
    /// survives compaction, so it can be past the last remaining record.
    #[must_use]
    pub fn last_offset(&self) -> LogOffset {
        // Checked when the batch was decoded.
        self.base_offset()
            .saturating_add(self.header.last_offset_delta.get().into())
    }

    /// The offset after the last one: [`RecordBatch::last_offset`] + 1
    /// (saturating).
    #[must_use]
    pub fn next_offset(&self) -> LogOffset {
        self.last_offset().saturating_add(1)
    }

    /// The last offset delta field.
    #[must_use]
    pub fn last_offset_delta(&self) -> i32 {
        self.header.last_offset_delta.get()
    }

    /// The partition leader epoch the batch was appended in.
    #[must_use]
    pub fn partition_leader_epoch(&self) -> i32 {
        self.header.partition_leader_epoch.get()
    }

    /// The magic byte (always 2).
    #[must_use]
    pub fn magic(&self) -> i8 {
        self.header.magic
    }

    /// The stored CRC32C (verified when the batch was decoded).
    #[must_use]
    pub fn crc(&self) -> u32 {
        self.header.crc.get()
    }

    /// The raw attributes field.
    #[must_use]
    pub fn attributes(&self) -> i16 {
        self.header.attributes.get()
    }

    /// The codec of the records section.
    #[must_use]
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// How the timestamps were assigned.
    #[must_use]
    pub fn timestamp_type(&self) -> TimestampType {
        if self.attributes() & TIMESTAMP_TYPE_BIT == 0 {
            TimestampType::CreateTime
        } else {
            TimestampType::LogAppendTime
        }
    }

    /// Whether the batch belongs to a transaction.
    #[must_use]
    pub fn is_transactional(&self) -> bool {
        self.attributes() & TRANSACTIONAL_BIT != 0
    }

    /// Whether the batch holds control records (transaction markers).
    #[must_use]
    pub fn is_control(&self) -> bool {
        self.attributes() & CONTROL_BIT != 0
    }

    /// Whether the base timestamp holds the compaction delete horizon
    /// (record timestamps stay base timestamp + delta either way).
    #[must_use]
    pub fn has_delete_horizon(&self) -> bool {
        self.attributes() & DELETE_HORIZON_BIT != 0
    }

    /// The base timestamp field.
    #[must_use]
    pub fn base_timestamp(&self) -> TimestampMs {
        self.header.base_timestamp.get()
    }

    /// The largest record timestamp, or the append time under log-append
    /// time.
    #[must_use]
    pub fn max_timestamp(&self) -> TimestampMs {
        self.header.max_timestamp.get()
    }

    /// The producer id, -1 when none.
    #[must_use]
    pub fn producer_id(&self) -> i64 {
        self.header.producer_id.get()
    }

    /// The producer epoch, -1 when none.
    #[must_use]
    pub fn producer_epoch(&self) -> i16 {
        self.header.producer_epoch.get()
    }

    /// The sequence number of the first record, -1 when none.
    #[must_use]
    pub fn base_sequence(&self) -> i32 {
        self.header.base_sequence.get()
    }

    /// The declared number of records.
    #[must_use]
    pub fn records_count(&self) -> u32 {
        // Checked non-negative when the batch was decoded.
        self.header.records_count.get().unsigned_abs()
    }

    /// The records section as stored (compressed when a codec is set).
    #[must_use]
    pub fn records_bytes(&self) -> &'a [u8] {
        self.bytes.get(HEADER_SIZE..).unwrap_or_default()
    }

    /// The records, decompressed with at most
    /// [`DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES`].
    ///
    /// # Errors
    ///
    /// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
    /// when decompression fails or exceeds the limit.
    pub fn records(&self) -> Result<Records<'a>> {
        self.records_with_limit(DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES)
    }

    /// The records, refusing a records section that decompresses to more
    /// than `max_decompressed_bytes`. An uncompressed batch is borrowed, not
    /// copied.
    ///
    /// # Errors
    ///
    /// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
    /// when decompression fails or exceeds the limit.
    pub fn records_with_limit(&self, max_decompressed_bytes: usize) -> Result<Records<'a>> {
        self.decode_records(max_decompressed_bytes)
            .map_err(|c| c.in_batch_at(self.position))
    }

    /// [`RecordBatch::records_with_limit`] with the internal error kind.
    pub(crate) fn decode_records(&self, limit: usize) -> Result<Records<'a>, Corruption> {
        let raw = self.records_bytes();
        let bytes = match self.compression {
            Compression::None => Cow::Borrowed(raw),
            codec => Cow::Owned(decompress(codec, raw, limit)?),
        };
        let log_append_time =
            (self.timestamp_type() == TimestampType::LogAppendTime).then(|| self.max_timestamp());
        Ok(Records::new(
            bytes,
            RecordContext {
                batch_position: self.position,
                base_offset: self.base_offset(),
                base_timestamp: self.base_timestamp(),
                log_append_time,
                count: self.records_count(),
            },
        ))
    }
}

/// Iterates the batches of `.log` bytes from the first byte to the last.
///
/// Each item is a batch or the error that ended the iteration: a batch
/// that fails to decode, including a truncated one at the end (Kafka's own
/// reader stops silently before a truncated tail; here it is reported, so a
/// caller that reads a capped range should expect it). After an error the
/// iterator is done.
///
/// ```
/// use krabka_kafka::index::record_batches;
/// assert_eq!(record_batches(&[]).count(), 0);
/// assert!(record_batches(&[0; 10]).next().unwrap().is_err());
/// ```
#[must_use]
pub fn record_batches(data: &[u8]) -> RecordBatches<'_> {
    RecordBatches {
        data,
        position: 0,
        done: false,
    }
}

/// Iterator over the batches of `.log` bytes; see [`record_batches`].
#[derive(Debug, Clone)]
pub struct RecordBatches<'a> {
    data: &'a [u8],
    position: usize,
    done: bool,
}

impl<'a> RecordBatches<'a> {
    /// The next batch with the internal error kind and its position.
    pub(crate) fn next_batch(&mut self) -> Option<Result<RecordBatch<'a>, (usize, Corruption)>> {
        if self.done {
            return None;
        }
        let rest = self.data.get(self.position..).unwrap_or_default();
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        match RecordBatch::decode(rest, self.position) {
            Ok(batch) => {
                self.position = self.position.saturating_add(batch.size_in_bytes());
                Some(Ok(batch))
            }
            Err(c) => {
                self.done = true;
                Some(Err((self.position, c)))
            }
        }
    }
}

impl<'a> Iterator for RecordBatches<'a> {
    type Item = Result<RecordBatch<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map(|r| r.map_err(|(position, c)| c.in_batch_at(position)))
    }
}

#[cfg(test)]
mod tests;
