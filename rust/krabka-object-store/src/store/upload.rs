//! Uploading one local file: a single PUT below the multipart threshold, a
//! streamed multipart upload at or above it.
//!
//! The multipart path reads the file part by part, hashing each part on
//! the thread that read it, and keeps at most the plan's parts in flight
//! ([`Tuning::part_plan`]) in memory: a part buffer is only filled after a
//! slot of the memory budget is free, and the slot is released when that
//! part's request finishes. A failed or cancelled upload is aborted so no
//! parts are left behind (as far as the server can still be reached).

use {
    super::error::{Result, StoreError},
    super::{
        errors::to_store_error,
        pieces::{Ahead, PartCutter, Pieces, ReadPieces, joined, part_len},
        tuning::{CreateOnlyParts, MAX_PARTS, PartPlan, Tuning},
    },
    bytes::Bytes,
    object_store::{
        MultipartUpload, ObjectStore, ObjectStoreExt, PutMode, PutMultipartOptions, PutOptions,
        PutPayload, PutResult, path::Path,
    },
    sha2::{Digest, Sha256},
    std::{fs::File, future::Future, io::Read, path::PathBuf, sync::Arc},
    tokio::{sync::Semaphore, task::JoinSet},
    tokio_util::sync::CancellationToken,
};

/// What to upload: a local file (streamed), bytes already in memory, or a
/// stream of unknown length.
#[derive(Debug, Clone)]
pub enum UploadSource {
    /// A local file, read part by part.
    File(PathBuf),
    /// A small payload, sent with one PUT.
    Bytes(Bytes),
    /// A stream (an encoder's output), read part by part on a blocking
    /// thread: one PUT when it ends below the multipart threshold, a
    /// multipart upload otherwise.
    Stream(StreamSource),
}

/// A stream to upload, with the name its errors carry. Clones share the
/// one stream, which the first upload takes.
#[derive(Clone)]
pub struct StreamSource {
    name: PathBuf,
    pieces: Arc<std::sync::Mutex<Option<Box<dyn Pieces>>>>,
}

/// Pieces a reader is cut into when it is uploaded.
const READ_PIECE: usize = 1 << 20;

/// Pieces an encoder may seal ahead of the upload.
const PIECES_AHEAD: usize = 2;

impl StreamSource {
    /// A source reading `reader`; `name` says what it is in errors.
    pub fn new(name: impl Into<PathBuf>, reader: impl Read + Send + 'static) -> Self {
        Self::of_pieces(name, ReadPieces::new(reader, READ_PIECE))
    }

    /// A source of `pieces` (an encoder's sealed chunks), produced on a
    /// thread of their own a few pieces ahead of the upload and sent
    /// without being copied; `name` says what it is in errors.
    pub fn pieces(name: impl Into<PathBuf>, pieces: impl Pieces + 'static) -> Self {
        let boxed: Box<dyn Pieces> = Box::new(pieces);
        match Ahead::spawn(boxed, PIECES_AHEAD) {
            Ok(ahead) => Self::of_pieces(name, ahead),
            Err(err) => Self::of_pieces(name, Unstarted(Some(err))),
        }
    }

    fn of_pieces(name: impl Into<PathBuf>, pieces: impl Pieces + 'static) -> Self {
        Self {
            name: name.into(),
            pieces: Arc::new(std::sync::Mutex::new(Some(Box::new(pieces)))),
        }
    }

    fn take(&self) -> Result<(PathBuf, Box<dyn Pieces>)> {
        let pieces = self
            .pieces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        pieces
            .map(|pieces| (self.name.clone(), pieces))
            .ok_or_else(|| {
                StoreError::InvalidArgument(format!("{} was already uploaded", self.name.display()))
            })
    }
}

/// A source whose producing thread could not start: the upload fails with
/// that error.
struct Unstarted(Option<std::io::Error>);

impl Pieces for Unstarted {
    fn next_piece(&mut self) -> std::io::Result<Option<Bytes>> {
        Err(self
            .0
            .take()
            .unwrap_or_else(|| std::io::Error::other("the upload's reading thread did not start")))
    }
}

impl std::fmt::Debug for StreamSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamSource")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Whether an upload may replace an existing object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// A plain PUT: the last writer wins.
    Overwrite,
    /// Create-only: a single PUT carries the store's create-only
    /// precondition (`If-None-Match: *` on S3, `x-goog-if-generation-match:
    /// 0` on GCS). A multipart completion cannot carry one on either store,
    /// so an object in parts is kept create-only as
    /// [`Tuning::create_only_parts`] says: on S3 the key is first reserved
    /// with an empty create-only PUT and the upload completes as a new
    /// version of it; on GCS the key must be absent and the bucket's locked
    /// retention policy refuses a completion that would replace an object.
    /// Either way the version id (S3) or generation (GCS) must come back so
    /// a reader can pin it.
    CreateOnly,
}

/// What an upload stored.
#[derive(Debug, Clone)]
pub struct Uploaded {
    /// Bytes stored.
    pub size: u64,
    /// SHA-256 of the bytes, computed in the same pass, when asked for.
    pub sha256: Option<[u8; 32]>,
    /// The store's answer (ETag, version id).
    pub result: PutResult,
    /// Whether one PUT wrote the object (so a create-only write was a single
    /// conditional request, not a reservation followed by a multipart upload).
    pub single_put: bool,
}

/// Uploads `source` to `key`: one PUT below the multipart threshold, a
/// streamed multipart upload at or above it. With `hash`, every byte is fed
/// to SHA-256 in file order as it is read.
///
/// # Errors
/// [`StoreError::AlreadyExists`] when a create-only write finds the key (on
/// GCS also when the key appears while the parts go up and the bucket
/// refuses the completion); [`StoreError::Refused`] when a create-only
/// multipart upload comes back without a version id or generation (nothing
/// to pin); [`StoreError::Io`] for an unreadable file;
/// [`StoreError::Cancelled`]; the store's errors.
pub async fn upload(
    store: &dyn ObjectStore,
    key: &Path,
    source: UploadSource,
    tuning: Tuning,
    mode: WriteMode,
    hash: bool,
    cancel: &CancellationToken,
) -> Result<Uploaded> {
    let how = How { mode, hash, cancel };
    upload_gated(store, key, source, tuning, how, None).await
}

/// What an upload waits for before its object becomes visible: it runs
/// beside the upload's parts, and the upload completes only once it
/// succeeded (its error aborts the upload).
///
/// The bytes the gate holds in memory while it runs (its own uploads'
/// buffers) count against the upload's part budget: the parts in flight
/// stay that many part sizes fewer until the gate has ended, so an upload
/// and its gate together keep no more than the plan's budget in memory.
pub struct Gate {
    work: std::pin::Pin<Box<dyn Future<Output = Result<()>> + Send>>,
    holds: u64,
}

impl Gate {
    /// A gate that runs `work`, holding `holds` bytes in memory meanwhile.
    pub fn new(work: impl Future<Output = Result<()>> + Send + 'static, holds: u64) -> Self {
        Self {
            work: Box::pin(work),
            holds,
        }
    }

    /// The part slots of `plan` the gate's memory takes: its bytes in
    /// parts, rounded up, leaving at least one slot to the upload.
    fn slots(&self, plan: PartPlan) -> usize {
        let part = plan.part_size.max(1) as u64;
        usize::try_from(self.holds.div_ceil(part))
            .unwrap_or(usize::MAX)
            .min(plan.in_flight.saturating_sub(1))
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("holds", &self.holds)
            .finish_non_exhaustive()
    }
}

/// Uploads `source` to `key`, overwriting, as [`upload`] does, but makes
/// the object visible only after `gate` succeeded: a multipart upload sends
/// its parts while `gate` runs and completes after it; a small object is
/// put after it. Both run to their end whatever the other does. A copy
/// uploads a segment's log this way, gated on its indexes, so a readable
/// log still implies a complete segment while the log does not wait for
/// the indexes to start.
///
/// # Errors
/// As [`upload`], and `gate`'s error (the multipart upload is then aborted,
/// nothing becomes visible).
pub async fn upload_after(
    store: &dyn ObjectStore,
    key: &Path,
    source: UploadSource,
    tuning: Tuning,
    cancel: &CancellationToken,
    gate: Gate,
) -> Result<Uploaded> {
    let how = How {
        mode: WriteMode::Overwrite,
        hash: false,
        cancel,
    };
    upload_gated(store, key, source, tuning, how, Some(gate)).await
}

/// How an upload writes: its mode, whether it hashes, its cancellation.
#[derive(Clone, Copy)]
struct How<'a> {
    mode: WriteMode,
    hash: bool,
    cancel: &'a CancellationToken,
}

/// `gate`'s outcome (success without one).
async fn passed(gate: Option<Gate>) -> Result<()> {
    match gate {
        Some(gate) => gate.work.await,
        None => Ok(()),
    }
}

async fn upload_gated(
    store: &dyn ObjectStore,
    key: &Path,
    source: UploadSource,
    tuning: Tuning,
    how: How<'_>,
    gate: Option<Gate>,
) -> Result<Uploaded> {
    let How { mode, hash, cancel } = how;
    let (path, cutter, len) = match source {
        UploadSource::Bytes(bytes) => {
            passed(gate).await?;
            return put_whole(store, key, bytes, mode, hash, cancel).await;
        }
        UploadSource::File(path) => {
            let (file, len) = open_file(path.clone()).await?;
            if len < tuning.multipart_threshold {
                let max = usize::try_from(len).unwrap_or(usize::MAX);
                let (read, gated) =
                    futures_util::join!(read_chunk(Box::new(file), path, max), passed(gate));
                let bytes = read?.1;
                gated?;
                return put_whole(store, key, bytes, mode, hash, cancel).await;
            }
            // One piece per part, each read into its own buffer.
            let part = tuning.part_plan(Some(len)).part_size;
            let cutter = PartCutter::new(Box::new(ReadPieces::new(file, part)));
            (path, cutter, Some(len))
        }
        UploadSource::Stream(stream) => {
            let (path, pieces) = stream.take()?;
            // As for a file: below the threshold one PUT. Reading one byte
            // past it tells whether the stream ends there.
            let threshold = usize::try_from(tuning.multipart_threshold).unwrap_or(usize::MAX);
            let (mut cutter, first) = next_part(
                PartCutter::new(pieces),
                path.clone(),
                threshold.saturating_add(1),
            )
            .await?;
            if part_len(&first) < threshold.max(1) {
                passed(gate).await?;
                return put_whole(store, key, joined(first), mode, hash, cancel).await;
            }
            cutter.unread(first);
            (path, cutter, None)
        }
    };
    let guard = (mode == WriteMode::CreateOnly).then_some(tuning.create_only_parts);
    match guard {
        // Reserve the key: only one writer can ever create it.
        Some(CreateOnlyParts::ReserveKey) => {
            create_only_put(store, key, Bytes::new(), cancel).await?;
        }
        Some(CreateOnlyParts::RetentionGuarded) => refuse_existing(store, key, cancel).await?,
        None => {}
    }
    let mut hasher = hash.then(Sha256::new);
    let source = PartSource { cutter, path, len };
    let uploaded =
        upload_multipart(store, key, source, tuning, cancel, hasher.as_mut(), gate).await;
    let result = match (guard, uploaded) {
        (Some(CreateOnlyParts::RetentionGuarded), Err(err)) => {
            return Err(existing_or(store, key, err).await);
        }
        (_, uploaded) => uploaded?,
    };
    let (result, len) = result;
    if guard.is_some() && result.version.is_none() {
        return Err(StoreError::Refused(format!(
            "the multipart upload of {key} came back without a version id or generation, so a reader cannot pin it (is the bucket versioned on S3?)"
        )));
    }
    Ok(Uploaded {
        size: len,
        sha256: hasher.map(|hasher| hasher.finalize().into()),
        result,
        single_put: false,
    })
}

async fn open_file(path: PathBuf) -> Result<(File, u64)> {
    blocking(path, move |path| {
        let file = File::open(&path).map_err(|e| StoreError::io("open", &path, e))?;
        let len = file
            .metadata()
            .map_err(|e| StoreError::io("stat", &path, e))?
            .len();
        Ok((file, len))
    })
    .await
}

async fn put_whole(
    store: &dyn ObjectStore,
    key: &Path,
    bytes: Bytes,
    mode: WriteMode,
    hash: bool,
    cancel: &CancellationToken,
) -> Result<Uploaded> {
    let sha256 = hash.then(|| Sha256::digest(&bytes).into());
    let size = bytes.len() as u64;
    let result = match mode {
        WriteMode::CreateOnly => create_only_put(store, key, bytes, cancel).await?,
        WriteMode::Overwrite => {
            refuse_if_cancelled(cancel, key)?;
            store
                .put_opts(key, PutPayload::from(bytes), PutOptions::default())
                .await
                .map_err(|e| to_store_error(e, "upload of", key.as_ref()))?
        }
    };
    Ok(Uploaded {
        size,
        sha256,
        result,
        single_put: true,
    })
}

/// One create-only PUT of `bytes`.
///
/// A write the store refuses (403) while the key exists is also
/// [`StoreError::AlreadyExists`]: a GCS bucket under a retention policy may
/// answer a create-only write onto a retained object with its retention
/// refusal rather than the failed precondition.
///
/// # Errors
/// [`StoreError::AlreadyExists`] when the key exists; the store's errors.
pub async fn create_only_put(
    store: &dyn ObjectStore,
    key: &Path,
    bytes: Bytes,
    cancel: &CancellationToken,
) -> Result<PutResult> {
    refuse_if_cancelled(cancel, key)?;
    let put = store
        .put_opts(
            key,
            PutPayload::from(bytes),
            PutOptions::from(PutMode::Create),
        )
        .await;
    match put {
        Ok(result) => Ok(result),
        Err(err @ object_store::Error::AlreadyExists { .. }) => Err(already_exists(key, err)),
        Err(err @ object_store::Error::PermissionDenied { .. }) => {
            let refused = to_store_error(err, "create-only write of", key.as_ref());
            Err(existing_or(store, key, refused).await)
        }
        Err(other) => Err(to_store_error(other, "create-only write of", key.as_ref())),
    }
}

fn already_exists(
    key: &Path,
    source: impl std::error::Error + Send + Sync + 'static,
) -> StoreError {
    StoreError::AlreadyExists {
        resource: key.to_string(),
        source: Some(Box::new(source)),
    }
}

/// [`StoreError::AlreadyExists`] when `key` exists (one HEAD), so a
/// create-only upload in parts does not send a whole object the bucket
/// will refuse.
async fn refuse_existing(
    store: &dyn ObjectStore,
    key: &Path,
    cancel: &CancellationToken,
) -> Result<()> {
    let head = cancellable(cancel, key, async { Ok(store.head(key).await) }).await?;
    match head {
        Ok(_) => Err(StoreError::AlreadyExists {
            resource: key.to_string(),
            source: None,
        }),
        Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(err) => Err(to_store_error(err, "existence check of", key.as_ref())),
    }
}

/// `failed` as the outcome of a create-only write, unless `key` now exists:
/// then the write lost to another writer's object, which the bucket kept
/// ([`StoreError::AlreadyExists`], `failed` as the cause). A cancelled
/// write stays cancelled, and a failed HEAD leaves `failed` as it was.
async fn existing_or(store: &dyn ObjectStore, key: &Path, failed: StoreError) -> StoreError {
    if matches!(
        failed,
        StoreError::Cancelled(_) | StoreError::AlreadyExists { .. }
    ) {
        return failed;
    }
    match store.head(key).await {
        Ok(_) => already_exists(key, failed),
        Err(_) => failed,
    }
}

/// [`StoreError::Cancelled`] once `cancel` fired.
///
/// A request that makes an object visible (a PUT, a multipart completion)
/// is checked with this before it is sent and then awaited: dropping it in
/// flight would let the server finish it after the caller cleaned up.
fn refuse_if_cancelled(cancel: &CancellationToken, key: &Path) -> Result<()> {
    if cancel.is_cancelled() {
        return Err(cancelled(key));
    }
    Ok(())
}

/// Runs `future` unless `cancel` fires first; for requests whose loss is
/// harmless (parts of a multipart upload that is then aborted).
pub async fn cancellable<T>(
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

fn cancelled(key: &Path) -> StoreError {
    StoreError::Cancelled(format!("upload of {key}"))
}

/// The bytes of a multipart upload, cut into parts.
pub struct PartSource {
    /// The bytes, as parts.
    pub cutter: PartCutter,
    /// What the bytes are, for errors.
    pub path: PathBuf,
    /// The total length, when known up front (a file).
    pub len: Option<u64>,
}

impl std::fmt::Debug for PartSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartSource")
            .field("path", &self.path)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// Streams `source` to `key` as a multipart upload, feeding every byte to
/// `hasher` (when given) in order as it is read, and completes it once
/// every part is stored and `gate` (when given, run beside the parts)
/// succeeded. Returns the store's answer and the bytes uploaded.
pub async fn upload_multipart(
    store: &dyn ObjectStore,
    key: &Path,
    source: PartSource,
    tuning: Tuning,
    cancel: &CancellationToken,
    hasher: Option<&mut Sha256>,
    gate: Option<Gate>,
) -> Result<(PutResult, u64)> {
    let plan = tuning.part_plan(source.len);
    let mut upload = cancellable(cancel, key, async {
        store
            .put_multipart_opts(key, PutMultipartOptions::default())
            .await
            .map_err(|e| to_store_error(e, "start of multipart upload of", key.as_ref()))
    })
    .await?;
    // The gate's memory holds some of the part slots until it has ended.
    let held = gate.as_ref().map_or(0, |gate| gate.slots(plan));
    let budget = Arc::new(Semaphore::new(plan.in_flight - held));
    let gated = {
        let budget = Arc::clone(&budget);
        async move {
            let gated = passed(gate).await;
            budget.add_permits(held);
            gated
        }
    };
    let (sent, gated) = futures_util::join!(
        send_parts(&mut *upload, key, source, plan, &budget, cancel, hasher),
        gated
    );
    let outcome = match sent.and_then(|len| gated.map(|()| len)) {
        Ok(len) => {
            // The completion makes the object visible: once sent it is
            // awaited, never dropped, or the server could finish it after
            // the caller cleaned up.
            match refuse_if_cancelled(cancel, key) {
                Ok(()) => upload
                    .complete()
                    .await
                    .map(|result| (result, len))
                    .map_err(|e| {
                        to_store_error(e, "completion of multipart upload of", key.as_ref())
                    }),
                // Aborted below.
                Err(err) => Err(err),
            }
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

/// Reads the source part by part and uploads as many parts concurrently as
/// `budget` has slots (each part takes one until its request ends). Parts
/// are numbered in the order they are read, whatever order their requests
/// finish in. Returns the bytes sent, when every part is stored.
async fn send_parts(
    upload: &mut dyn MultipartUpload,
    key: &Path,
    source: PartSource,
    plan: PartPlan,
    budget: &Arc<Semaphore>,
    cancel: &CancellationToken,
    mut hasher: Option<&mut Sha256>,
) -> Result<u64> {
    let chunk_size = plan.part_size;
    // Dropping the set (on error or cancellation) aborts the part requests.
    let mut in_flight: JoinSet<std::result::Result<(), object_store::Error>> = JoinSet::new();
    let PartSource {
        cutter,
        path: source,
        ..
    } = source;
    let mut sent = 0u64;
    let mut parts = 0u64;
    let mut next = Some(cutter);
    while let Some(cutter) = next.take() {
        let slot = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled(key)),
            Some(done) = in_flight.join_next(), if !in_flight.is_empty() => {
                part_result(done, key)?;
                next = Some(cutter);
                continue;
            }
            slot = Arc::clone(budget).acquire_owned() => slot.map_err(|_| cancelled(key))?,
        };
        // The part is hashed on the thread that read it, not on the runtime.
        let owned = hasher.as_deref_mut().map(std::mem::take);
        let (cutter, part, owned) =
            next_hashed_part(cutter, source.clone(), chunk_size, owned).await?;
        if let (Some(hasher), Some(owned)) = (hasher.as_deref_mut(), owned) {
            *hasher = owned;
        }
        let len = part_len(&part);
        if len == 0 {
            break;
        }
        parts += 1;
        if parts > MAX_PARTS {
            return Err(StoreError::InvalidArgument(format!(
                "{} needs more than {MAX_PARTS} parts of {chunk_size} bytes (raise multipart_chunk_size)",
                source.display()
            )));
        }
        sent += len as u64;
        let last = len < chunk_size;
        let part = upload.put_part(part.into_iter().collect::<PutPayload>());
        in_flight.spawn(async move {
            let stored = part.await;
            drop(slot);
            stored
        });
        if !last {
            next = Some(cutter);
        }
    }
    while !in_flight.is_empty() {
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled(key)),
            Some(done) = in_flight.join_next() => part_result(done, key)?,
        }
    }
    Ok(sent)
}

fn part_result(
    done: std::result::Result<std::result::Result<(), object_store::Error>, tokio::task::JoinError>,
    key: &Path,
) -> Result<()> {
    match done {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => Err(to_store_error(err, "upload of a part of", key.as_ref())),
        Err(join) => Err(StoreError::Backend {
            message: format!("the task uploading a part of {key} failed"),
            source: Some(Box::new(join)),
        }),
    }
}

/// Reads up to `max` bytes (fewer only at the end of the source) on a
/// blocking thread.
pub async fn read_chunk<R: Read + Send + 'static>(
    file: R,
    path: PathBuf,
    max: usize,
) -> Result<(R, Bytes)> {
    blocking(path, move |path| {
        let mut buffer = Vec::with_capacity(max.min(64 * 1024 * 1024));
        let mut file = file;
        (&mut file)
            .take(max as u64)
            .read_to_end(&mut buffer)
            .map_err(|e| StoreError::io("read", &path, e))?;
        Ok((file, Bytes::from(buffer)))
    })
    .await
}

/// The next part of `cutter` (`size` bytes, fewer only at the end), cut on
/// a blocking thread.
async fn next_part(
    cutter: PartCutter,
    path: PathBuf,
    size: usize,
) -> Result<(PartCutter, Vec<Bytes>)> {
    let (cutter, part, _) = next_hashed_part(cutter, path, size, None).await?;
    Ok((cutter, part))
}

/// [`next_part`], with the part fed to `hasher` (when given) on the same
/// blocking thread.
async fn next_hashed_part(
    cutter: PartCutter,
    path: PathBuf,
    size: usize,
    hasher: Option<Sha256>,
) -> Result<(PartCutter, Vec<Bytes>, Option<Sha256>)> {
    blocking(path, move |path| {
        let mut cutter = cutter;
        let part = cutter
            .next_part(size)
            .map_err(|e| StoreError::io("read", &path, e))?;
        let hasher = hasher.map(|mut hasher| {
            for piece in &part {
                hasher.update(piece);
            }
            hasher
        });
        Ok((cutter, part, hasher))
    })
    .await
}

/// Runs blocking file I/O off the runtime's worker threads.
pub async fn blocking<T: Send + 'static>(
    path: PathBuf,
    work: impl FnOnce(PathBuf) -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(move || work(path))
        .await
        .map_err(|join| StoreError::Backend {
            message: "a file-reading task failed".to_owned(),
            source: Some(Box::new(join)),
        })?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(holds: u64) -> Gate {
        Gate::new(async { Ok(()) }, holds)
    }

    #[test]
    fn a_gate_takes_its_bytes_in_part_slots_rounded_up_and_leaves_one() {
        let plan = PartPlan {
            part_size: 8,
            in_flight: 4,
        };
        assert_eq!(gate(0).slots(plan), 0);
        assert_eq!(gate(1).slots(plan), 1);
        assert_eq!(gate(8).slots(plan), 1);
        assert_eq!(gate(9).slots(plan), 2);
        assert_eq!(gate(24).slots(plan), 3);
        assert_eq!(gate(1_000).slots(plan), 3);
        let single = PartPlan {
            part_size: 8,
            in_flight: 1,
        };
        assert_eq!(gate(1_000).slots(single), 0);
    }
}
