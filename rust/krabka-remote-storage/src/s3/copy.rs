//! Copying a closed segment: every index first, then the log.
//!
//! The indexes go up concurrently; the `.log` object goes last, so a
//! readable log implies a complete segment. Each object appears atomically
//! (a single PUT, or a multipart upload that becomes visible only when
//! completed), so a failed copy never leaves a partial object readable.
//! Optional indexes the segment does not have are deleted, so a re-copy
//! never leaves an earlier copy's index behind.

use {
    super::{
        CancellationToken,
        errors::{Failure, classify, to_remote_error},
        keys::SegmentKeys,
        tuning::Tuning,
        upload,
    },
    crate::{IndexType, LogSegmentData, Result},
    futures_util::{StreamExt, future::try_join_all},
    object_store::{ObjectStore, path::Path},
    std::{future::Future, pin::Pin, sync::Arc},
};

type Upload = Pin<Box<dyn Future<Output = Result<()>> + Send>>;

/// Uploads `segment` under `keys`.
pub(crate) async fn copy_segment(
    store: Arc<dyn ObjectStore>,
    keys: SegmentKeys,
    segment: LogSegmentData,
    tuning: Tuning,
    cancel: CancellationToken,
) -> Result<()> {
    let mut indexes: Vec<Upload> = Vec::new();
    let mut absent = Vec::new();
    let files = [
        (IndexType::Offset, Some(segment.offset_index)),
        (IndexType::Timestamp, Some(segment.time_index)),
        (IndexType::Transaction, segment.transaction_index),
        (IndexType::ProducerSnapshot, segment.producer_snapshot_index),
    ];
    for (index, path) in files {
        match path {
            Some(path) => indexes.push(Box::pin(upload::upload_file(
                Arc::clone(&store),
                keys.index(index)?,
                path,
                tuning,
                cancel.clone(),
            ))),
            None => absent.push(keys.index(index)?),
        }
    }
    if !absent.is_empty() {
        indexes.push(Box::pin(delete_absent(Arc::clone(&store), absent)));
    }
    let epoch_key = keys.index(IndexType::LeaderEpoch)?;
    let epoch_store = Arc::clone(&store);
    let epoch_cancel = cancel.clone();
    let epochs = segment.leader_epoch_index;
    indexes.push(Box::pin(async move {
        upload::put_bytes(&*epoch_store, &epoch_key, epochs, &epoch_cancel).await
    }));
    try_join_all(indexes).await?;
    upload::upload_file(store, keys.log()?, segment.log_segment, tuning, cancel).await
}

/// Deletes the keys of optional indexes this copy does not have.
async fn delete_absent(store: Arc<dyn ObjectStore>, keys: Vec<Path>) -> Result<()> {
    let mut results =
        store.delete_stream(futures_util::stream::iter(keys.into_iter().map(Ok)).boxed());
    while let Some(result) = results.next().await {
        match result {
            Ok(_) => {}
            Err(err) if classify(&err) == Failure::NotFound => {}
            Err(err) => return Err(to_remote_error(err, "delete of", "a stale optional index")),
        }
    }
    Ok(())
}
