//! Reads shared by both object-store tiers: a byte range of a segment's log
//! as a stream, and one whole index. The tier decides which object (and
//! which version of it) is read.

use {
    crate::store_bridge::spi_error,
    krabka_kafka::{IndexType, RemoteLogSegmentMetadata, Result, SegmentReader},
    krabka_object_store::store::{
        StoreHandle,
        fetch::{self, ObjectAt},
    },
    std::sync::Arc,
};

/// Streams `[start, end]` (inclusive `end`, clamped) of the segment's log
/// `object`, or to its end.
pub(crate) fn log_range(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    start: u64,
    end: Option<u64>,
) -> Result<SegmentReader> {
    let open = fetch::open_range(
        Arc::clone(store.runtime()),
        Arc::clone(store.store()),
        object,
        format!("log of segment {}", metadata.remote_log_segment_id()),
        start,
        end,
        store.tuning(),
    );
    let opened = store.runtime().block_on(open).map_err(spi_error)?;
    Ok(opened.into_reader())
}

/// Reads one whole index `object` of the segment.
pub(crate) fn index(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    index: IndexType,
) -> Result<Vec<u8>> {
    let fetch = fetch::fetch_whole(
        Arc::clone(store.store()),
        object,
        format!(
            "{} index of segment {}",
            index.kafka_name(),
            metadata.remote_log_segment_id()
        ),
    );
    store.runtime().block_on(fetch).map_err(spi_error)
}
