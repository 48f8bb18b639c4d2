//! Copying a closed segment: every index first, then the log.
//!
//! The indexes go up concurrently; the `.log` object goes last, so a
//! readable log implies a complete segment. Each object appears atomically
//! (a single PUT, or a multipart upload that becomes visible only when
//! completed), so a failed copy never leaves a partial object readable.
//! Optional indexes the segment does not have are deleted, so a re-copy
//! never leaves an earlier copy's index behind.

use {
    crate::segment_keys::SegmentKeys,
    futures_util::future::join_all,
    krabka_kafka::{IndexType, LogSegmentData},
    krabka_object_store::store::{
        Path, Result, Tuning,
        delete::delete_keys,
        upload::{UploadSource, WriteMode, upload},
    },
    object_store::ObjectStore,
    std::{future::Future, pin::Pin, sync::Arc},
    tokio_util::sync::CancellationToken,
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
            Some(path) => indexes.push(put(
                Arc::clone(&store),
                keys.index(index)?,
                UploadSource::File(path),
                tuning,
                cancel.clone(),
            )),
            None => absent.push(keys.index(index)?),
        }
    }
    if !absent.is_empty() {
        indexes.push(Box::pin(delete_absent(Arc::clone(&store), absent)));
    }
    indexes.push(put(
        Arc::clone(&store),
        keys.index(IndexType::LeaderEpoch)?,
        UploadSource::Bytes(segment.leader_epoch_index),
        tuning,
        cancel.clone(),
    ));
    // Every upload runs to its end (a failed sibling must not drop one
    // mid-request: a dropped multipart upload would never be aborted, a
    // dropped PUT could still land after the clean-up); then the first
    // error, if any, wins.
    join_all(indexes)
        .await
        .into_iter()
        .collect::<Result<Vec<()>>>()?;
    let log = UploadSource::File(segment.log_segment);
    put(store, keys.log()?, log, tuning, cancel).await
}

/// One plain (overwriting) upload, as a boxed future.
fn put(
    store: Arc<dyn ObjectStore>,
    key: Path,
    source: UploadSource,
    tuning: Tuning,
    cancel: CancellationToken,
) -> Upload {
    Box::pin(async move {
        upload(
            &*store,
            &key,
            source,
            tuning,
            WriteMode::Overwrite,
            false,
            &cancel,
        )
        .await
        .map(drop)
    })
}

/// Deletes the keys of optional indexes this copy does not have.
async fn delete_absent(store: Arc<dyn ObjectStore>, keys: Vec<Path>) -> Result<()> {
    delete_keys(store, keys, "a stale optional index").await
}
