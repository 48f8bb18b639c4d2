//! Deleting a segment: one bulk request for the log and every index.

use {
    super::{
        errors::{Failure, classify, to_remote_error},
        keys::SegmentKeys,
    },
    crate::Result,
    futures_util::StreamExt,
    object_store::ObjectStore,
    std::sync::Arc,
};

/// Deletes every object a segment can have; missing ones are fine.
pub(crate) async fn delete_segment(store: Arc<dyn ObjectStore>, keys: SegmentKeys) -> Result<()> {
    let paths = keys.all()?;
    let mut results =
        store.delete_stream(futures_util::stream::iter(paths.into_iter().map(Ok)).boxed());
    while let Some(result) = results.next().await {
        match result {
            Ok(_) => {}
            Err(err) if classify(&err) == Failure::NotFound => {}
            Err(err) => return Err(to_remote_error(err, "delete of", "segment objects")),
        }
    }
    Ok(())
}
