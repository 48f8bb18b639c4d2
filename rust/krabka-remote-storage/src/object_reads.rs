//! Reads shared by both object-store tiers: a byte range of a segment's log
//! as a stream (through the handle's read cache when it has one), and one
//! whole index. The tier decides which object (and
//! which version of it) is read.

use {
    crate::{
        chunked::{envelope_error, exclusive_end},
        store_bridge::spi_error,
    },
    futures_util::FutureExt,
    krabka_envelope::{ChunkId, DecodedChunks, ObjectKind, OpenedSegment},
    krabka_kafka::{
        IndexType, RemoteLogSegmentMetadata, RemoteStorageError, Result, SegmentReader,
    },
    krabka_object_store::store::{
        StoreError, StoreHandle, cache,
        fetch::{self, ObjectAt},
    },
    std::{io::Read, sync::Arc},
};

/// Streams `[start, end]` (inclusive `end`, clamped) of the segment's log
/// `object`, or to its end; `next` names what a reader to the end reads
/// after it (the next segment's objects), for the read cache to warm.
pub(crate) fn log_range(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    start: u64,
    end: Option<u64>,
    next: Option<cache::NextObjects>,
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
            next,
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

/// Streams original bytes `[start, end]` (inclusive `end`, clamped) of a
/// chunked segment's log `object`: each chunk that covers them from the
/// tier's `decoded` chunks when held, otherwise its stored bytes through
/// [`log_range`] (and so the read cache), decoded and kept in `decoded`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chunked_log_range(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    opened: &Arc<OpenedSegment>,
    decoded: &Arc<DecodedChunks>,
    start: u64,
    end: Option<u64>,
    next: Option<cache::NextObjects>,
) -> Result<SegmentReader> {
    if let Some(end) = end.filter(|end| *end < start) {
        return Err(RemoteStorageError::InvalidArgument(format!(
            "end_position {end} < start_position {start}"
        )));
    }
    let size = opened
        .original_size(ObjectKind::Log)
        .map_err(envelope_error)?;
    if start > size {
        return Err(RemoteStorageError::InvalidArgument(format!(
            "start_position {start} exceeds segment length {size}"
        )));
    }
    let end = exclusive_end(end);
    let span = opened
        .span(ObjectKind::Log, start, end)
        .map_err(envelope_error)?;
    if span.stored.is_empty() {
        return Ok(Box::new(std::io::empty()));
    }
    let first_chunk = ChunkId {
        segment: opened.segment(),
        kind: ObjectKind::Log,
        chunk: span.chunks.start,
    };
    let stored_last = span.stored.end - 1;
    // The first stored read is opened here, so its errors (a missing
    // object above all) reach the broker as they are.
    let first = match decoded.get(&first_chunk) {
        Some(_) => None,
        None => Some(log_range(
            store,
            object.clone(),
            metadata,
            span.stored.start,
            Some(stored_last),
            next.clone(),
        )?),
    };
    let (store, metadata) = (store.clone(), metadata.clone());
    let open = move |at: u64| {
        log_range(
            &store,
            object.clone(),
            &metadata,
            at,
            Some(stored_last),
            next.clone(),
        )
        .map_err(std::io::Error::other)
    };
    let reader = opened
        .cached_range_reader(
            ObjectKind::Log,
            (start, end),
            Arc::clone(decoded),
            first,
            open,
        )
        .map_err(envelope_error)?;
    Ok(Box::new(reader))
}

/// Reads one whole index `object` of a chunked segment and decodes it.
pub(crate) fn chunked_index(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    opened: &Arc<OpenedSegment>,
    index: IndexType,
) -> Result<Vec<u8>> {
    let stored = self::index(store, object, metadata, index)?;
    opened
        .decode_object(ObjectKind::of_index(index), &stored)
        .map_err(envelope_error)
}

/// Reads one whole index `object` of the segment, through the handle's read
/// cache when it has one: an index asked again (Kafka's own index cache
/// evicted it, a follower rebuilding from the tier) is served from memory,
/// and brokers asking at once share one GET.
pub(crate) fn index(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    index: IndexType,
) -> Result<Vec<u8>> {
    let what = format!("{} index", index.kafka_name());
    whole(store, object, metadata, &what)
}

/// Reads one whole small `object` of the segment (`what` names it in
/// errors), through the handle's read cache when it has one.
pub(crate) fn whole(
    store: &StoreHandle,
    object: ObjectAt,
    metadata: &RemoteLogSegmentMetadata,
    what: &str,
) -> Result<Vec<u8>> {
    let resource = format!("{what} of segment {}", metadata.remote_log_segment_id());
    let Some(cache) = store.read_cache() else {
        let fetch = fetch::fetch_whole(Arc::clone(store.store()), object, resource);
        return store.runtime().block_on(fetch).map_err(spi_error);
    };
    let open = cache::open_cached(
        Arc::clone(cache),
        Arc::clone(store.runtime()),
        Arc::clone(store.store()),
        object,
        resource.clone(),
        0,
        None,
        store.tuning(),
        None,
    );
    let mut reader = store
        .runtime()
        .block_on(open)
        .map_err(spi_error)?
        .into_reader();
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|err| read_error(err, &resource))?;
    Ok(bytes)
}

/// The typed error a cached reader's I/O error carries, or an I/O error of
/// reading `resource`.
fn read_error(err: std::io::Error, resource: &str) -> RemoteStorageError {
    let kind = err.kind();
    match err.into_inner() {
        Some(inner) => match inner.downcast::<StoreError>() {
            Ok(store_error) => spi_error(*store_error),
            Err(other) => {
                RemoteStorageError::io("read", resource, std::io::Error::new(kind, other))
            }
        },
        None => RemoteStorageError::io("read", resource, std::io::Error::from(kind)),
    }
}
