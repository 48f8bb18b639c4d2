//! Uploading one local file: a single PUT below the multipart threshold, a
//! streamed multipart upload at or above it.
//!
//! The multipart path reads the file part by part and keeps at most
//! `parts_in_flight` parts in memory: a part buffer is only filled after a
//! slot of the memory budget is free, and the slot is released when that
//! part's request finishes. A failed or cancelled upload is aborted so no
//! parts are left behind (as far as the server can still be reached).

use {
    super::{
        CancellationToken,
        errors::to_remote_error,
        tuning::{MAX_PARTS, Tuning},
    },
    crate::{RemoteStorageError, Result},
    bytes::Bytes,
    object_store::{
        MultipartUpload, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult,
        path::Path,
    },
    sha2::{Digest, Sha256},
    std::{fs::File, future::Future, io::Read, path::PathBuf, sync::Arc},
    tokio::{sync::Semaphore, task::JoinSet},
};

/// Uploads `source` to `key`, choosing single PUT or multipart by size.
pub(crate) async fn upload_file(
    store: Arc<dyn ObjectStore>,
    key: Path,
    source: PathBuf,
    tuning: Tuning,
    cancel: CancellationToken,
) -> Result<()> {
    let (file, len) = blocking(source.clone(), move |path| {
        let file = File::open(&path).map_err(|e| RemoteStorageError::io("open", &path, e))?;
        let len = file
            .metadata()
            .map_err(|e| RemoteStorageError::io("stat", &path, e))?
            .len();
        Ok((file, len))
    })
    .await?;
    if len < tuning.multipart_threshold {
        let bytes = read_chunk(file, source, usize::try_from(len).unwrap_or(usize::MAX))
            .await?
            .1;
        put_bytes(&*store, &key, bytes, &cancel).await
    } else {
        upload_multipart(&*store, &key, file, source, len, tuning, &cancel, None)
            .await
            .map(drop)
    }
}

/// Uploads an in-memory payload with one PUT.
pub(crate) async fn put_bytes(
    store: &dyn ObjectStore,
    key: &Path,
    bytes: Bytes,
    cancel: &CancellationToken,
) -> Result<()> {
    let put = store.put_opts(key, PutPayload::from(bytes), PutOptions::default());
    cancellable(cancel, key, async {
        put.await
            .map(drop)
            .map_err(|e| to_remote_error(e, "upload of", key.as_ref()))
    })
    .await
}

/// Runs `future` unless `cancel` fires first.
pub(crate) async fn cancellable<T>(
    cancel: &CancellationToken,
    key: &Path,
    future: impl Future<Output = Result<T>>,
) -> Result<T> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(cancelled(key)),
        result = future => result,
    }
}

fn cancelled(key: &Path) -> RemoteStorageError {
    RemoteStorageError::Cancelled(format!("upload of {key}"))
}

/// Streams `file` (of `len` bytes) to `key` as a multipart upload, feeding
/// every byte to `hasher` (when given) in file order as it is read.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn upload_multipart(
    store: &dyn ObjectStore,
    key: &Path,
    file: File,
    source: PathBuf,
    len: u64,
    tuning: Tuning,
    cancel: &CancellationToken,
    hasher: Option<&mut Sha256>,
) -> Result<PutResult> {
    let chunk_size = tuning.multipart_chunk_size.max(1);
    let parts = len.div_ceil(chunk_size as u64);
    if parts > MAX_PARTS {
        return Err(RemoteStorageError::InvalidArgument(format!(
            "{} is {len} bytes, which needs {parts} parts of {chunk_size} bytes; at most {MAX_PARTS} are allowed (raise multipart_chunk_size)",
            source.display()
        )));
    }
    let mut upload = cancellable(cancel, key, async {
        store
            .put_multipart_opts(key, PutMultipartOptions::default())
            .await
            .map_err(|e| to_remote_error(e, "start of multipart upload of", key.as_ref()))
    })
    .await?;
    let sent = send_parts(
        &mut *upload,
        key,
        file,
        source,
        chunk_size,
        tuning,
        cancel,
        hasher,
    )
    .await;
    let outcome = match sent {
        Ok(()) => {
            cancellable(cancel, key, async {
                upload.complete().await.map_err(|e| {
                    to_remote_error(e, "completion of multipart upload of", key.as_ref())
                })
            })
            .await
        }
        Err(err) => Err(err),
    };
    if outcome.is_err() {
        if let Err(abort) = upload.abort().await {
            tracing::warn!(%key, error = %abort, "could not abort a failed multipart upload; a bucket lifecycle rule must clean it up");
        }
    }
    outcome
}

/// Reads the file part by part and uploads up to `parts_in_flight` parts
/// concurrently. Returns when every part is stored.
#[allow(clippy::too_many_arguments)]
async fn send_parts(
    upload: &mut dyn MultipartUpload,
    key: &Path,
    file: File,
    source: PathBuf,
    chunk_size: usize,
    tuning: Tuning,
    cancel: &CancellationToken,
    mut hasher: Option<&mut Sha256>,
) -> Result<()> {
    let budget = Arc::new(Semaphore::new(tuning.parts_in_flight.max(1)));
    // Dropping the set (on error or cancellation) aborts the part requests.
    let mut in_flight: JoinSet<std::result::Result<(), object_store::Error>> = JoinSet::new();
    let mut file = Some(file);
    while let Some(reader) = file.take() {
        let slot = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled(key)),
            Some(done) = in_flight.join_next(), if !in_flight.is_empty() => {
                part_result(done, key)?;
                file = Some(reader);
                continue;
            }
            slot = Arc::clone(&budget).acquire_owned() => slot.map_err(|_| cancelled(key))?,
        };
        let (reader, chunk) = read_chunk(reader, source.clone(), chunk_size).await?;
        if chunk.is_empty() {
            break;
        }
        if let Some(hasher) = hasher.as_deref_mut() {
            hasher.update(&chunk);
        }
        let last = chunk.len() < chunk_size;
        let part = upload.put_part(PutPayload::from(chunk));
        in_flight.spawn(async move {
            let stored = part.await;
            drop(slot);
            stored
        });
        if !last {
            file = Some(reader);
        }
    }
    while !in_flight.is_empty() {
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled(key)),
            Some(done) = in_flight.join_next() => part_result(done, key)?,
        }
    }
    Ok(())
}

fn part_result(
    done: std::result::Result<std::result::Result<(), object_store::Error>, tokio::task::JoinError>,
    key: &Path,
) -> Result<()> {
    match done {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => Err(to_remote_error(err, "upload of a part of", key.as_ref())),
        Err(join) => Err(RemoteStorageError::Backend {
            message: format!("the task uploading a part of {key} failed"),
            source: Some(Box::new(join)),
        }),
    }
}

/// Reads up to `max` bytes (fewer only at the end of the file) on a
/// blocking thread.
pub(crate) async fn read_chunk(file: File, path: PathBuf, max: usize) -> Result<(File, Bytes)> {
    blocking(path, move |path| {
        let mut buffer = Vec::with_capacity(max.min(64 * 1024 * 1024));
        let mut file = file;
        (&mut file)
            .take(max as u64)
            .read_to_end(&mut buffer)
            .map_err(|e| RemoteStorageError::io("read", &path, e))?;
        Ok((file, Bytes::from(buffer)))
    })
    .await
}

/// Runs blocking file I/O off the runtime's worker threads.
pub(crate) async fn blocking<T: Send + 'static>(
    path: PathBuf,
    work: impl FnOnce(PathBuf) -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(move || work(path))
        .await
        .map_err(|join| RemoteStorageError::Backend {
            message: "a file-reading task failed".to_owned(),
            source: Some(Box::new(join)),
        })?
}
