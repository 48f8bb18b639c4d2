//! What can be wrong with Kafka bytes, as a closed set of kinds.
//!
//! The decoders work with [`Corruption`] internally so that tests can match
//! on the exact failure; the public functions turn it into
//! [`RemoteStorageError::Corrupt`] with the kind's text as the detail.

use {super::Compression, crate::RemoteStorageError};

/// Names of the formats, used as [`RemoteStorageError::Corrupt::format`].
pub(crate) const OFFSET_INDEX: &str = "offset index";
/// See [`OFFSET_INDEX`].
pub(crate) const TIME_INDEX: &str = "time index";
/// See [`OFFSET_INDEX`].
pub(crate) const TXN_INDEX: &str = "transaction index";
/// See [`OFFSET_INDEX`]; the same name [`crate::corrupt_log`] uses.
pub(crate) const LOG: &str = "log";

/// One way Kafka bytes can fail to decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Corruption {
    /// An index file whose length is not a whole number of entries.
    #[error("length {len} is not a multiple of the {entry_size}-byte entry size")]
    PartialEntry { len: usize, entry_size: usize },
    /// An index entry that breaks the order Kafka writes entries in.
    #[error(
        "entry {index}: {field} {value} does not follow {previous} (Kafka writes {order} values)"
    )]
    OutOfOrder {
        index: usize,
        field: &'static str,
        value: i64,
        previous: i64,
        order: &'static str,
    },
    /// An index value outside the range Kafka can write.
    #[error("entry {index}: {field} {value} is out of range (valid: 0..={max})")]
    OutOfRange {
        index: usize,
        field: &'static str,
        value: i64,
        max: i64,
    },
    /// An aborted transaction whose first offset is after its last.
    #[error("entry {index}: first offset {first} is after last offset {last}")]
    FirstAfterLast { index: usize, first: i64, last: i64 },
    /// A transaction-index entry of a version this decoder does not know.
    #[error("entry {index}: unknown aborted-transaction version {version} (valid: 0)")]
    UnknownTxnVersion { index: usize, version: i16 },
    /// Fewer bytes than the structure being read needs.
    #[error("truncated {what}: needs {needed} bytes, {available} available")]
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    /// A record batch of magic v0 or v1 (message sets before Kafka 0.11), or
    /// an unknown future magic.
    #[error("unsupported magic {magic} (valid: 2; magic 0 and 1 predate Kafka 0.11)")]
    UnsupportedMagic { magic: i8 },
    /// A batch length below the fixed v2 header size.
    #[error("batch length {length} is below the minimum {min}")]
    BatchLengthTooSmall { length: i32, min: i32 },
    /// The stored CRC32C does not match the bytes.
    #[error("crc32c mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    CrcMismatch { stored: u32, computed: u32 },
    /// Compression bits that name no codec.
    #[error("unknown compression codec id {id} (valid: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)")]
    UnknownCompression { id: u8 },
    /// A negative record count in a batch header.
    #[error("negative record count {count}")]
    NegativeRecordCount { count: i32 },
    /// A negative last-offset delta in a batch header.
    #[error("negative last offset delta {delta}")]
    NegativeLastOffsetDelta { delta: i32 },
    /// An offset that does not fit in an `i64`.
    #[error("{what} offset overflow: {base} + {delta}")]
    OffsetOverflow {
        what: &'static str,
        base: i64,
        delta: i64,
    },
    /// A record timestamp that does not fit in an `i64`.
    #[error("record timestamp overflow: {base} + {delta}")]
    TimestampOverflow { base: i64, delta: i64 },
    /// A varint longer than its type allows.
    #[error("varint longer than {max_bytes} bytes")]
    VarintTooLong { max_bytes: usize },
    /// A varint whose last byte carries bits beyond its type's width.
    #[error("varint overflows {bits} bits")]
    VarintOverflow { bits: u32 },
    /// A record with a negative length.
    #[error("record {index}: negative length {length}")]
    NegativeRecordLength { index: u32, length: i32 },
    /// A record whose fields do not fill its declared length exactly.
    #[error("record {index}: fields use {used} of the declared {declared} bytes")]
    RecordSizeMismatch {
        index: u32,
        declared: usize,
        used: usize,
    },
    /// A negative header count.
    #[error("record {index}: negative header count {count}")]
    NegativeHeaderCount { index: u32, count: i32 },
    /// A header with a negative key length.
    #[error("record {index}: negative header key length {length}")]
    NegativeHeaderKeyLength { index: u32, length: i32 },
    /// Bytes left over after the declared number of records.
    #[error("{left} bytes remain after the declared {count} records")]
    TrailingRecordBytes { count: u32, left: usize },
    /// A codec failed on the compressed records.
    #[error("{codec} decompression failed: {reason}")]
    Decompression { codec: Compression, reason: String },
    /// The records decompress to more bytes than the caller allows.
    #[error("{codec} records decompress to more than the {limit}-byte limit")]
    DecompressedTooLarge { codec: Compression, limit: usize },
    /// A control record key too short to carry a version and a type.
    #[error("control record key of {len} bytes (needs 4)")]
    ControlKeyTooShort { len: usize },
    /// An end-transaction marker value too short or of an unknown version.
    #[error("end transaction marker value: {detail}")]
    EndTxnMarker { detail: &'static str },
}

impl Corruption {
    /// The public error for this corruption of `format`.
    pub(crate) fn into_error(self, format: &'static str) -> RemoteStorageError {
        RemoteStorageError::Corrupt {
            format,
            detail: self.to_string(),
        }
    }

    /// The public error for this corruption found in the batch at byte
    /// `position` of `.log` bytes.
    pub(crate) fn in_batch_at(self, position: usize) -> RemoteStorageError {
        crate::corrupt_log(format!("batch at byte {position}: {self}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_error_names_the_format_and_the_kind() {
        let err = Corruption::PartialEntry {
            len: 9,
            entry_size: 8,
        }
        .into_error(OFFSET_INDEX);
        match err {
            RemoteStorageError::Corrupt { format, detail } => {
                assert_eq!(format, "offset index");
                assert!(detail.contains('9'), "{detail}");
            }
            other => panic!("unexpected {other:?}"),
        }
        let err = Corruption::UnsupportedMagic { magic: 1 }.in_batch_at(12);
        assert!(matches!(
            err,
            RemoteStorageError::Corrupt { format: "log", .. }
        ));
    }
}
