//! Copying a closed segment: every index first, then the log.
//!
//! The indexes go up concurrently; the `.log` object goes last, so a
//! readable log implies a complete segment. Each object appears atomically
//! (a single PUT, or a multipart upload that becomes visible only when
//! completed), so a failed copy never leaves a partial object readable.

use {
    super::{CancellationToken, keys::SegmentKeys, tuning::Tuning, upload},
    crate::{IndexType, LogSegmentData, Result},
    futures_util::future::try_join_all,
    object_store::ObjectStore,
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
    let files = [
        (IndexType::Offset, Some(segment.offset_index)),
        (IndexType::Timestamp, Some(segment.time_index)),
        (IndexType::Transaction, segment.transaction_index),
        (IndexType::ProducerSnapshot, segment.producer_snapshot_index),
    ];
    for (index, path) in files {
        if let Some(path) = path {
            indexes.push(Box::pin(upload::upload_file(
                Arc::clone(&store),
                keys.index(index)?,
                path,
                tuning,
                cancel.clone(),
            )));
        }
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
