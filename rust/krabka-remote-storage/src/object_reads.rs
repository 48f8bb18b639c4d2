//! Reads shared by both object-store tiers: a byte range of a segment's log
//! as a stream (through the handle's read cache when it has one), and one
//! whole index. The tier decides which object (and
//! which version of it) is read.

use {
    crate::store_bridge::spi_error,
    futures_util::FutureExt,
    krabka_kafka::{IndexType, RemoteLogSegmentMetadata, Result, SegmentReader},
    krabka_object_store::store::{
        StoreHandle, cache,
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
    let resource = format!("log of segment {}", metadata.remote_log_segment_id());
    let runtime = Arc::clone(store.runtime());
    let objects = Arc::clone(store.store());
    let open = match store.read_cache() {
        Some(cache) => cache::open_cached(
            Arc::clone(cache),
            runtime,
            objects,
            object,
            resource,
            start,
            end,
            store.tuning(),
        )
        .boxed(),
        None => fetch::open_range(
            runtime,
            objects,
            object,
            resource,
            start,
            end,
            store.tuning(),
        )
        .boxed(),
    };
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
