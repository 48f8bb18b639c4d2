//! Deleting objects: one bulk request for a set of keys.

use {
    super::{
        error::Result,
        errors::{Failure, classify, to_store_error},
    },
    futures_util::StreamExt,
    object_store::{ObjectStore, path::Path},
    std::sync::Arc,
};

/// Deletes every key in `keys` with the store's bulk delete; keys that are
/// already gone are fine. `what` names the objects in an error.
///
/// # Errors
/// The first failure other than "not found".
pub async fn delete_keys(store: Arc<dyn ObjectStore>, keys: Vec<Path>, what: &str) -> Result<()> {
    let mut results =
        store.delete_stream(futures_util::stream::iter(keys.into_iter().map(Ok)).boxed());
    while let Some(result) = results.next().await {
        match result {
            Ok(_) => {}
            Err(err) if classify(&err) == Failure::NotFound => {}
            Err(err) => return Err(to_store_error(err, "delete of", what)),
        }
    }
    Ok(())
}
