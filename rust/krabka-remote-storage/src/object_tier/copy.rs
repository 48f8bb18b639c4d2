//! Copying a closed segment: the indexes and the log at once, the log
//! visible last.
//!
//! The indexes go up concurrently, and the `.log` object's parts beside
//! them; the log's upload completes only after every index is stored, so a
//! readable log implies a complete segment. Each object appears atomically
//! (a single PUT, or a multipart upload that becomes visible only when
//! completed), so a failed copy never leaves a partial object readable.
//! Optional indexes the segment does not have are deleted, so a re-copy
//! never leaves an earlier copy's index behind.
//!
//! In the chunked format every object is streamed through its encoder
//! (compressed and sealed on the upload's blocking reader threads, one
//! chunk at a time), and the envelope that lists the chunks goes up after
//! the log: a chunked segment is complete when its envelope exists.

use {
    crate::segment_keys::SegmentKeys,
    futures_util::future::join_all,
    krabka_envelope::{ChunkReport, ObjectKind, SegmentSealer},
    krabka_kafka::{IndexType, LogSegmentData},
    krabka_object_store::store::{
        Path, Result, StoreError, Tuning,
        delete::delete_keys,
        upload::{Gate, UploadSource, WriteMode, upload, upload_after},
    },
    object_store::ObjectStore,
    std::{fs::File, future::Future, io::Read, pin::Pin, sync::Arc},
    tokio_util::sync::CancellationToken,
};

type Upload = Pin<Box<dyn Future<Output = Result<()>> + Send>>;

/// Uploads `segment` under `keys`: Kafka's plain bytes, or, with a
/// `sealer`, the chunked format.
pub(crate) async fn copy_segment(
    store: Arc<dyn ObjectStore>,
    keys: SegmentKeys,
    segment: LogSegmentData,
    tuning: Tuning,
    cancel: CancellationToken,
    sealer: Option<SegmentSealer>,
) -> Result<()> {
    match sealer {
        None => copy_plain(store, keys, segment, tuning, cancel).await,
        Some(sealer) => copy_chunked(store, keys, segment, tuning, cancel, sealer).await,
    }
}

async fn copy_plain(
    store: Arc<dyn ObjectStore>,
    keys: SegmentKeys,
    segment: LogSegmentData,
    tuning: Tuning,
    cancel: CancellationToken,
) -> Result<()> {
    let mut indexes: Vec<Upload> = Vec::new();
    // The indexes' bytes are in memory while they go up (each is one PUT).
    let mut index_bytes = segment.leader_epoch_index.len() as u64;
    let mut absent = vec![keys.envelope()?];
    let files = [
        (IndexType::Offset, Some(segment.offset_index)),
        (IndexType::Timestamp, Some(segment.time_index)),
        (IndexType::Transaction, segment.transaction_index),
        (IndexType::ProducerSnapshot, segment.producer_snapshot_index),
    ];
    for (index, path) in files {
        match path {
            Some(path) => {
                index_bytes += file_len(&path);
                indexes.push(put(
                    Arc::clone(&store),
                    keys.index(index)?,
                    UploadSource::File(path),
                    tuning,
                    cancel.clone(),
                ));
            }
            None => absent.push(keys.index(index)?),
        }
    }
    indexes.push(Box::pin(delete_absent(Arc::clone(&store), absent)));
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
    // error, if any, wins. The log goes up beside them and becomes visible
    // only after them.
    let indexes = Gate::new(
        async move {
            join_all(indexes)
                .await
                .into_iter()
                .collect::<Result<Vec<()>>>()
                .map(drop)
        },
        index_bytes,
    );
    let log = UploadSource::File(segment.log_segment);
    upload_after(&*store, &keys.log()?, log, tuning, &cancel, indexes)
        .await
        .map(drop)
}

async fn copy_chunked(
    store: Arc<dyn ObjectStore>,
    keys: SegmentKeys,
    segment: LogSegmentData,
    tuning: Tuning,
    cancel: CancellationToken,
    sealer: SegmentSealer,
) -> Result<()> {
    let mut uploads: Vec<Upload> = Vec::new();
    let mut reports = Vec::new();
    let mut absent = Vec::new();
    let files = [
        (IndexType::Offset, Some(segment.offset_index)),
        (IndexType::Timestamp, Some(segment.time_index)),
        (IndexType::Transaction, segment.transaction_index),
        (IndexType::ProducerSnapshot, segment.producer_snapshot_index),
    ];
    for (index, path) in files {
        let Some(path) = path else {
            absent.push(keys.index(index)?);
            continue;
        };
        let file = open(&path)?;
        let (source, report) = encoded(&sealer, ObjectKind::of_index(index), &path, file);
        reports.push((ObjectKind::of_index(index), report));
        uploads.push(put(
            Arc::clone(&store),
            keys.index(index)?,
            source,
            tuning,
            cancel.clone(),
        ));
    }
    if !absent.is_empty() {
        uploads.push(Box::pin(delete_absent(Arc::clone(&store), absent)));
    }
    let epochs = std::io::Cursor::new(segment.leader_epoch_index);
    let (source, report) = encoded(
        &sealer,
        ObjectKind::LeaderEpoch,
        "leader-epoch checkpoint",
        epochs,
    );
    reports.push((ObjectKind::LeaderEpoch, report));
    uploads.push(put(
        Arc::clone(&store),
        keys.index(IndexType::LeaderEpoch)?,
        source,
        tuning,
        cancel.clone(),
    ));
    join_all(uploads)
        .await
        .into_iter()
        .collect::<Result<Vec<()>>>()?;

    let file = open(&segment.log_segment)?;
    let (source, report) = encoded(&sealer, ObjectKind::Log, &segment.log_segment, file);
    put(
        Arc::clone(&store),
        keys.log()?,
        source,
        tuning,
        cancel.clone(),
    )
    .await?;
    reports.insert(0, (ObjectKind::Log, report));

    let mut objects = Vec::with_capacity(reports.len());
    for (kind, report) in reports {
        objects.push(
            report
                .take(kind, sealer.segment())
                .map_err(|err| StoreError::Backend {
                    message: err.to_string(),
                    source: Some(Box::new(err)),
                })?,
        );
    }
    let envelope = sealer.envelope(objects).encode();
    put(
        store,
        keys.envelope()?,
        UploadSource::Bytes(envelope.into()),
        tuning,
        cancel,
    )
    .await
}

/// The upload source of `reader` encoded by `sealer` as `kind`, and the
/// report that lists its chunks once uploaded.
fn encoded(
    sealer: &SegmentSealer,
    kind: ObjectKind,
    name: impl AsRef<std::path::Path>,
    reader: impl Read + Send + 'static,
) -> (UploadSource, ChunkReport) {
    let name = format!("{} (encoded)", name.as_ref().display());
    let (stream, report) = crate::chunked::encoded_stream(sealer, kind, name, reader);
    (UploadSource::Stream(stream), report)
}

/// The length of the file at `path`; 0 when it cannot be read (its upload
/// then reports why).
fn file_len(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map_or(0, |meta| meta.len())
}

fn open(path: &std::path::Path) -> Result<File> {
    File::open(path).map_err(|err| StoreError::io("open", path, err))
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
