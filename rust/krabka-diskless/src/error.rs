//! `DisklessError`: every refusal of the diskless codecs.

use {
    super::WincodeError,
    krabka_worm::{ChainHead, WormError},
    uuid::Uuid,
};

/// A refusal of the diskless WAL object, WAL index or capture codecs.
///
/// Refusals of untrusted input name what was wrong and, for old data, what
/// to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DisklessError {
    // ---- CKWL WAL objects ----
    /// Shorter than a header and a trailer (14 bytes).
    #[error("wal object too short: {len} bytes, at least 14 are needed")]
    WalObjectTooShort {
        /// Length of the object.
        len: usize,
    },
    /// The header or trailer magic is not `CKWL`.
    #[error("wal object has a bad {at} magic, expected `CKWL`")]
    WalBadMagic {
        /// `header` or `trailer`.
        at: &'static str,
    },
    /// A WAL object layout version this build does not read.
    #[error("unsupported wal object version {found}: this build reads version 1")]
    WalUnsupportedVersion {
        /// The version found.
        found: u16,
    },
    /// The footer length is not a whole number of 48-byte entries.
    #[error("wal object footer is {footer_len} bytes, not a whole number of 48-byte entries")]
    WalFooterMisaligned {
        /// The declared footer length.
        footer_len: u32,
    },
    /// The footer does not fit between the header and the trailer.
    #[error("wal object footer of {footer_len} bytes does not fit in a {object_len}-byte object")]
    WalFooterOutOfBounds {
        /// The declared footer length.
        footer_len: u32,
        /// Length of the object.
        object_len: usize,
    },
    /// A footer entry points outside the object's body.
    #[error(
        "wal object run {index} at bytes {byte_start}+{byte_len} lies outside the body [6, {body_end})"
    )]
    WalRunOutOfBounds {
        /// Index of the entry in the footer.
        index: usize,
        /// Its declared start.
        byte_start: u64,
        /// Its declared length.
        byte_len: u32,
        /// Where the body ends (the footer starts).
        body_end: u64,
    },
    /// An entry given to [`run_bytes`](super::run_bytes) does not lie within
    /// the object's body.
    #[error(
        "wal object entry at bytes {byte_start}+{byte_len} lies outside the body [6, {body_end})"
    )]
    WalEntryOutsideObject {
        /// The entry's start.
        byte_start: u64,
        /// The entry's length.
        byte_len: u32,
        /// Where the body ends.
        body_end: u64,
    },
    /// A run given to the builder is empty.
    #[error("a wal object run must not be empty")]
    WalEmptyRun,
    /// A run given to the builder is longer than a footer entry can record.
    #[error("a wal object run of {len} bytes exceeds 4 GiB")]
    WalRunTooLarge {
        /// Its length.
        len: usize,
    },
    /// A run given to the builder has a negative first offset or ends before it starts.
    #[error(
        "a wal object run must have 0 <= first_offset <= last_offset, got {first_offset}..={last_offset}"
    )]
    WalInvalidRunOffsets {
        /// First offset.
        first_offset: i64,
        /// Last offset.
        last_offset: i64,
    },
    /// The builder's footer would not fit its 32-bit length field.
    #[error("a wal object holds at most {max} runs")]
    WalTooManyRuns {
        /// The most runs one object can hold.
        max: usize,
    },

    // ---- WAL index keys ----
    /// A key shorter than its 2-byte version.
    #[error("diskless WAL index key of {len} byte(s) holds no version")]
    IndexKeyTooShort {
        /// Length of the key.
        len: usize,
    },
    /// A key whose version names no key kind.
    #[error("unknown diskless WAL index key version {version}")]
    UnknownIndexKeyVersion {
        /// The version found.
        version: i16,
    },
    /// A key of one kind decoded as another.
    #[error("diskless WAL index key has version {found}, a {kind} key has version {expected}")]
    IndexKeyKindMismatch {
        /// `range` or `delete-floor`.
        kind: &'static str,
        /// The version of that kind.
        expected: i16,
        /// The version found.
        found: i16,
    },
    /// A key of the right version but the wrong length.
    #[error("diskless WAL {kind} key is {len} bytes, expected {expected}")]
    IndexKeyLength {
        /// `range` or `delete-floor`.
        kind: &'static str,
        /// Its length.
        len: usize,
        /// The required length.
        expected: usize,
    },

    // ---- WAL index values ----
    /// A value shorter than its 2-byte version.
    #[error("truncated diskless WAL {record}: {len} bytes hold no version")]
    RecordTooShort {
        /// `index record` or `delete-floor record`.
        record: &'static str,
        /// Length of the value.
        len: usize,
    },
    /// A flush record of another version.
    #[error(
        "unsupported diskless WAL index format version {found}: this build reads version 2. A record written before krabka 1.0 has no version prefix and is not readable; reformat the cluster"
    )]
    UnsupportedFlushRecordVersion {
        /// The version found.
        found: i16,
    },
    /// A delete-floor record of another version.
    #[error(
        "unsupported diskless WAL delete-floor record version {found}: this build reads version 0. A record written before krabka 1.0 has no version prefix and is not readable; reformat the cluster"
    )]
    UnsupportedFloorRecordVersion {
        /// The version found.
        found: i16,
    },
    /// A value's body does not decode.
    #[error("malformed diskless WAL {record}")]
    MalformedRecord {
        /// `index record` or `delete-floor record`.
        record: &'static str,
        /// What was wrong.
        #[source]
        source: WincodeError,
    },

    // ---- capture documents ----
    /// The capture is larger than the reader's cap.
    #[error("diskless capture is {size} bytes, above the {max} byte cap")]
    CaptureTooLarge {
        /// Its size.
        size: usize,
        /// The cap.
        max: usize,
    },
    /// The capture has no `format_version`.
    #[error(
        "diskless capture has no format_version: it predates krabka 1.0 and is not readable; take a new capture"
    )]
    CaptureMissingFormatVersion,
    /// A capture format version this build does not read.
    #[error(
        "unsupported diskless capture format version {found}: this build reads version 1; take a new capture with this build"
    )]
    UnsupportedCaptureVersion {
        /// The version found.
        found: u64,
    },
    /// The capture is not JSON of the capture shape.
    #[error("diskless capture does not decode")]
    CaptureDecode {
        /// The decoder's complaint.
        #[source]
        source: serde_json::Error,
    },
    /// The capture breaks a validation rule.
    #[error("invalid diskless capture: {0}")]
    InvalidCapture(#[from] CaptureViolation),

    // ---- sealing and authentication ----
    /// The objects given to seal are not exactly the capture's WAL objects.
    #[error("sealing objects do not match the capture's WAL objects: {reason} `{key}`")]
    SealObjectsMismatch {
        /// `duplicate`, `missing` or `unexpected`.
        reason: &'static str,
        /// The object key.
        key: String,
    },
    /// A number of the capture does not fit the manifest it is sealed into.
    #[error("diskless capture cannot be sealed: {0}")]
    SealOutOfRange(&'static str),
    /// The capture carries no authentication.
    #[error("diskless capture is not sealed: it carries no authentication")]
    CaptureNotSealed,
    /// The capture's manifest does not verify.
    #[error("diskless capture authentication does not verify")]
    CaptureSignature(#[source] WormError),
    /// The authenticated head is not the externally pinned one.
    #[error(
        "diskless capture head {found} is not the pinned head {expected} (pin it with --worm-expect-head diskless-capture=HEX)"
    )]
    CaptureHeadMismatch {
        /// The head pinned outside the capture.
        expected: ChainHead,
        /// The head the capture's manifest has.
        found: ChainHead,
    },
    /// The capture's manifest is not a capture boundary.
    #[error("diskless capture authentication is not a capture boundary manifest")]
    CaptureBoundaryMismatch,
    /// The signed state claim is missing or repeated.
    #[error("diskless capture authentication holds {count} state claim(s), expected exactly 1")]
    CaptureStateClaimCount {
        /// How many claims name the state key.
        count: usize,
    },
    /// The capture was changed after it was signed.
    #[error("diskless capture state changed after signing")]
    CaptureStateChanged,
    /// The signed WAL object claims do not exactly cover the capture's ranges.
    #[error("diskless capture claims do not match its ranges: {reason} `{key}`")]
    CaptureClaimsMismatch {
        /// `duplicate`, `missing` or `unexpected`.
        reason: &'static str,
        /// The object key.
        key: String,
    },
    /// The capture could not be encoded.
    #[error("diskless capture does not encode")]
    CaptureEncode(#[source] serde_json::Error),

    // ---- projection ----
    /// An index record without a key.
    #[error("diskless WAL index record has no key")]
    UnkeyedIndexRecord,
    /// A delete-floor value under another partition's key.
    #[error(
        "delete-floor record for {record_topic_id}-{record_partition} is stored under the key of {key_topic_id}-{key_partition}"
    )]
    FloorKeyMismatch {
        /// Topic id of the key.
        key_topic_id: Uuid,
        /// Partition of the key.
        key_partition: i32,
        /// Topic id of the record.
        record_topic_id: Uuid,
        /// Partition of the record.
        record_partition: i32,
    },
    /// A delete floor below zero.
    #[error("delete floor {floor} is negative")]
    NegativeFloor {
        /// The floor.
        floor: i64,
    },
    /// A flush record holds no entry for the range key it is stored under.
    #[error(
        "flush record under the key of {topic_id}-{partition} at offset {first_offset} holds no matching entry"
    )]
    RangeKeyMismatch {
        /// Topic id of the key.
        topic_id: Uuid,
        /// Partition of the key.
        partition: i32,
        /// First offset of the key.
        first_offset: i64,
    },
    /// An index entry with impossible offsets or bytes.
    #[error("invalid diskless WAL index entry for {topic_id}-{partition}: {reason}")]
    InvalidIndexEntry {
        /// Topic id.
        topic_id: Uuid,
        /// Partition.
        partition: i32,
        /// What is wrong.
        reason: &'static str,
    },
    /// Two committed ranges of a partition overlap.
    #[error("overlapping diskless WAL ranges for {topic}-{partition}")]
    OverlappingRanges {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
    },
    /// An authorised topic with a negative partition count.
    #[error("topic `{topic}` has a negative partition count {count}")]
    InvalidPartitionCount {
        /// Topic name.
        topic: String,
        /// The count.
        count: i32,
    },
    /// Index state for a partition beyond its topic's partition count.
    #[error(
        "diskless WAL index holds partition {partition} of `{topic}`, which has {count} partitions"
    )]
    PartitionOutsideTopic {
        /// Topic name.
        topic: String,
        /// The partition.
        partition: i32,
        /// The topic's partition count.
        count: i32,
    },
}

/// A validation rule a capture document breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureViolation {
    /// `format_version` is not 1.
    #[error("format version {found} is not 1")]
    FormatVersion {
        /// The version found.
        found: u16,
    },
    /// A source cutoff below zero.
    #[error("source cutoff {value} at index {index} is negative")]
    NegativeSourceCutoff {
        /// Position in `source_cutoffs`.
        index: usize,
        /// The value.
        value: i64,
    },
    /// A topic name that could escape a path or is not a Kafka topic name.
    #[error("topic name `{topic}` is invalid: {reason}")]
    InvalidTopicName {
        /// The name (at most 80 characters of it).
        topic: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A negative partition number.
    #[error("{topic} has a negative partition {partition}")]
    NegativePartition {
        /// Topic name.
        topic: String,
        /// The partition.
        partition: i32,
    },
    /// A negative delete floor.
    #[error("{topic}-{partition} has a negative delete floor {floor}")]
    NegativeDeleteFloor {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// The floor.
        floor: i64,
    },
    /// The same `(topic_id, partition)` twice.
    #[error("partition {topic_id}-{partition} is captured twice")]
    DuplicatePartition {
        /// Topic id.
        topic_id: Uuid,
        /// Partition.
        partition: i32,
    },
    /// A range with an empty object key, or the reserved state key.
    #[error("{topic}-{partition} has a range with an invalid object key `{key}`")]
    InvalidObjectKey {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// The key.
        key: String,
    },
    /// A range whose entry names another partition.
    #[error("{topic}-{partition} holds a range of {entry_topic_id}-{entry_partition}")]
    ForeignRange {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// The entry's topic id.
        entry_topic_id: Uuid,
        /// The entry's partition.
        entry_partition: i32,
    },
    /// A range with a negative first offset, an end before its start, or no bytes.
    #[error(
        "{topic}-{partition} has an invalid range {first_offset}..={last_offset} of {byte_len} bytes"
    )]
    InvalidRange {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// First offset.
        first_offset: i64,
        /// Last offset.
        last_offset: i64,
        /// Byte length.
        byte_len: u32,
    },
    /// Ranges out of order or overlapping.
    #[error(
        "{topic}-{partition} ranges are not strictly increasing: {first_offset} follows {previous_last}"
    )]
    RangesNotIncreasing {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// Last offset of the previous range.
        previous_last: i64,
        /// First offset of this range.
        first_offset: i64,
    },
    /// Ranges above the delete floor are not contiguous from it.
    #[error("{topic}-{partition} ranges above the delete floor have a gap at {at}")]
    Gap {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// The first missing offset.
        at: i64,
    },
    /// The recovery cutoff is not `max(delete_floor, last offset + 1)`.
    #[error("{topic}-{partition} ranges end at {expected}, capture declares {declared}")]
    RecoveryCutoffMismatch {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
        /// The cutoff the ranges imply.
        expected: i64,
        /// The cutoff the capture declares.
        declared: i64,
    },
    /// A last offset of `i64::MAX` leaves no recovery cutoff.
    #[error("{topic}-{partition} has a range ending at the largest offset")]
    OffsetOverflow {
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
    },
}
