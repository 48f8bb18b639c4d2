//! The registries of live native objects, one per handle type.

use {
    crate::{backend::Storage, copy::CopyOperation, handles::Registry, stream::SegmentStream},
    krabka_remote_storage::RemoteLogMetadataManager,
};

/// Open storage managers (`KrabkaRemoteStorageManager`).
pub static STORAGE_MANAGERS: Registry<Storage> = Registry::new("remote storage manager");

/// Open metadata managers (`KrabkaRemoteLogMetadataManager`).
pub static METADATA_MANAGERS: Registry<dyn RemoteLogMetadataManager> =
    Registry::new("remote log metadata manager");

/// Open segment streams returned by `fetchLogSegment`.
pub static STREAMS: Registry<SegmentStream> = Registry::new("segment stream");

/// Copies in flight.
pub static COPIES: Registry<CopyOperation> = Registry::new("segment copy");

/// Open tier replay sources (`TierReplay`).
pub static REPLAY_SOURCES: Registry<krabka_tier::ReplaySource> =
    Registry::new("tier replay source");

/// Record feeds of tier replay sources.
pub static RECORD_FEEDS: Registry<krabka_tier::RecordFeed> = Registry::new("tier record feed");

/// Live handles of the registry numbered `kind` (0 storage managers, 1
/// metadata managers, 2 streams, 3 copies), for leak checks in tests.
#[must_use]
pub fn live(kind: i32) -> Option<usize> {
    match kind {
        0 => Some(STORAGE_MANAGERS.len()),
        1 => Some(METADATA_MANAGERS.len()),
        2 => Some(STREAMS.len()),
        3 => Some(COPIES.len()),
        _ => None,
    }
}
