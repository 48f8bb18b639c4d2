//! Shared diskless-WAL object, WAL index and disaster-recovery capture
//! codecs, byte-compatible with Krabka's diskless topics.
//!
//! For diskless topics the broker writes produced batches of many
//! partitions into combined **WAL objects** ([`WalObjectBuilder`],
//! [`parse_wal_object`]), publishes an offset → object byte-range index to
//! the compacted topic `__diskless_wal_index` ([`WalIndexKey`],
//! [`WalDeleteFloorKey`], [`WalFlushRecord`], [`WalDeleteFloorRecord`]),
//! and for backup and restore freezes that index into a portable
//! **capture** ([`DisklessWalCapture`], built by [`WalCaptureProjection`])
//! that a restore trusts only once it is authenticated
//! ([`DisklessWalCapture::seal`] / [`DisklessWalCapture::authenticate`],
//! with the same signed manifests as the write-once archive).
//!
//! Every decoder takes untrusted bytes and returns a [`DisklessError`],
//! never panics, and never allocates from a length it has not checked
//! against the input. Golden vectors are in `tests/fixtures/diskless/`.

#![forbid(unsafe_code)]

mod capture;
mod error;
mod index_key;
mod index_value;
mod projection;
mod seal;
mod wal_object;
mod wincode;

pub use {
    capture::{CapturedWalRange, DisklessPartitionCapture, DisklessWalCapture, MAX_CAPTURE_BYTES},
    error::{CaptureViolation, DisklessError},
    index_key::{
        REPLAY_FENCE_KEY, WalDeleteFloorKey, WalIndexKey, WalIndexRecordKey, wal_index_key_version,
    },
    index_value::{WalDeleteFloorRecord, WalFlushRecord, WalIndexEntry, keyed_entry},
    projection::{CaptureTopic, WalCaptureProjection},
    seal::AuthenticatedCapture,
    wal_object::{
        WAL_FOOTER_ENTRY_LEN, WAL_HEADER_LEN, WAL_OBJECT_MAGIC, WAL_OBJECT_VERSION,
        WAL_TRAILER_LEN, WalObject, WalObjectBuilder, WalObjectEntry, parse_wal_object, run_bytes,
    },
    wincode::WincodeError,
};

/// The synthetic name of a capture's seal: its manifest's topic, and the
/// name its head is pinned under (`--worm-expect-head diskless-capture=HEX`).
pub const CAPTURE_HEAD_NAME: &str = "diskless-capture";

/// The object key of a seal's state claim; no WAL object may use it.
pub(crate) const CAPTURE_STATE_KEY: &str = "__krabka_diskless_capture_state";
