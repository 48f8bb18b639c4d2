//! Opening a ranged read through the cache.

use {
    super::{ChunkCache, ChunkSource, NextObjects, ObjectInfo, Pattern, reader::CachedReader},
    crate::store::{
        StoreRuntime,
        error::{Result, StoreError},
        errors::to_store_error,
        fetch::{ObjectAt, Opened, open_range},
        reader::first_get_options,
        tuning::Tuning,
    },
    object_store::ObjectStore,
    std::sync::Arc,
};

/// Opens a reader over `[start, end]` (inclusive `end`, clamped to the
/// object) of `object`, or to its end without `end`, through `cache`. The
/// first read of an object is one GET of the chunk holding `start`, which
/// also tells the object's version and size; an object whose store names no
/// version or ETag, and every failed first read, go the uncached way
/// ([`open_range`]), which tells a missing object, an empty range and a
/// position past the end apart. `next` names what a reader of the object
/// to its end reads next, when the tier knows (see [`NextObjects`]).
///
/// # Errors
/// Those of [`open_range`].
#[allow(clippy::too_many_arguments)]
pub async fn open_cached(
    cache: Arc<ChunkCache>,
    runtime: Arc<StoreRuntime>,
    store: Arc<dyn ObjectStore>,
    object: ObjectAt,
    resource: String,
    start: u64,
    end: Option<u64>,
    tuning: Tuning,
    next: Option<NextObjects>,
) -> Result<Opened> {
    if let Some(end) = end {
        if end < start {
            return Err(StoreError::InvalidArgument(format!(
                "end_position {end} < start_position {start}"
            )));
        }
    }
    let info = match cache.info(&object) {
        Some(info) => info,
        None => match learn(&cache, &*store, &object, &resource, start).await? {
            Some(info) => info,
            None => {
                return open_range(runtime, store, object, resource, start, end, tuning).await;
            }
        },
    };
    if start == info.size {
        return Ok(Opened::Empty);
    }
    if start > info.size {
        return Err(StoreError::InvalidArgument(format!(
            "start_position {start} is past the end of {resource} ({} bytes)",
            info.size
        )));
    }
    let end = end.map_or(info.size, |end| end.saturating_add(1).min(info.size));
    let chunk = cache.config().chunk_bytes;
    // A fetch continuing the previous one of the object continues its
    // read-ahead. So does a fetch of a whole segment from its start: a
    // consumer catching up moves on from one segment to the next at
    // position 0, and would otherwise wait a round trip for each of the
    // segment's first chunks before read-ahead begins.
    let reads_to_the_end = end == info.size;
    let continued = cache
        .last_pattern(&info.id)
        .filter(|last| last.position.abs_diff(start) <= chunk)
        .or_else(|| {
            (start == 0 && reads_to_the_end).then(|| Pattern {
                position: 0,
                depth: cache.config().prefetch_chunks as u64,
                warmed_next: false,
                ahead_next: 0,
                ahead_to: None,
            })
        });
    let source = ChunkSource {
        runtime,
        store,
        key: object.key,
        info,
        next,
    };
    Ok(Opened::Reader(Box::new(CachedReader::new(
        cache, source, start, end, continued,
    ))))
}

/// Reads the chunk of `object` holding `start` to learn its version and
/// size, and holds that chunk. `None` when the store names no version, or
/// the first read fails other than transiently (a missing object, a range
/// past the end): the caller reads uncached, which tells those apart. A
/// transient failure (after the client's own retries) is returned as it is:
/// reading again uncached would only repeat every retry.
async fn learn(
    cache: &ChunkCache,
    store: &dyn ObjectStore,
    object: &ObjectAt,
    resource: &str,
    start: u64,
) -> Result<Option<ObjectInfo>> {
    let chunk = cache.config().chunk_bytes;
    let index = start / chunk;
    let mut options = first_get_options(index * chunk..(index + 1) * chunk);
    options.version.clone_from(&object.version);
    let first = match store.get_opts(&object.key, options).await {
        Ok(first) => first,
        Err(err) => {
            return match to_store_error(err, "read of", resource) {
                transient @ StoreError::Retryable { .. } => Err(transient),
                _ => Ok(None),
            };
        }
    };
    let Some(info) = ObjectInfo::of_answer(&object.key, &first) else {
        return Ok(None);
    };
    let range = first.range.clone();
    let bytes = first
        .bytes()
        .await
        .map_err(|e| to_store_error(e, "read of", object.key.as_ref()))?;
    if bytes.len() as u64 != range.end - range.start || range.start != index * chunk {
        return Err(StoreError::Retryable {
            message: format!(
                "the first read of {} returned {} bytes at {} for the chunk at {}",
                object.key,
                bytes.len(),
                range.start,
                index * chunk
            ),
            source: None,
        });
    }
    cache.hold(&info.id, index, bytes);
    cache.learn(object.clone(), info.clone());
    Ok(Some(info))
}
