//! The blocking reader of a ranged fetch.
//!
//! The first chunk of the range is one ranged GET whose body is streamed
//! frame by frame, so the first bytes arrive as soon as the server sends
//! them. Once the reader has consumed half of that chunk it starts
//! prefetching the following chunks with parallel ranged GETs, at most
//! `parallelism` ahead of the reader, delivered in order. A reader that stops
//! early never starts the rest, and dropping it aborts every outstanding
//! request.
//!
//! The reader runs on the tier's runtime but is read from any thread: it
//! waits on standard-library channels, never on futures.

use {
    super::error::{Result, StoreError, StoreErrorClass},
    super::{StoreRuntime, errors::to_store_error},
    bytes::Bytes,
    futures_util::StreamExt,
    object_store::{GetOptions, GetRange, GetResult, ObjectStore, path::Path},
    std::{
        collections::VecDeque,
        io::{self, Read},
        ops::Range,
        sync::{Arc, mpsc},
    },
    tokio::{sync::Semaphore, task::AbortHandle},
};

/// Network frames of the streamed first chunk buffered ahead of the reader.
const FRAME_CREDITS: usize = 32;

/// Which version of the object every chunk must come from.
#[derive(Debug, Clone, Default)]
pub struct Pin {
    /// The object version (S3 version id, GCS generation), when the store
    /// reports one.
    pub version: Option<String>,
    /// The object's ETag otherwise.
    pub e_tag: Option<String>,
}

impl Pin {
    /// Makes `options` read this version.
    pub(crate) fn apply(&self, options: &mut GetOptions) {
        if self.version.is_some() {
            options.version.clone_from(&self.version);
        } else {
            options.if_match.clone_from(&self.e_tag);
        }
    }
}

/// Where a reader fetches from and how it splits the range.
#[derive(Debug, Clone)]
pub struct Source {
    /// The runtime the chunk requests run on.
    pub runtime: Arc<StoreRuntime>,
    /// The store.
    pub store: Arc<dyn ObjectStore>,
    /// The object.
    pub key: Path,
    /// The version every chunk must come from.
    pub pin: Pin,
    /// Bytes per ranged GET.
    pub chunk_size: u64,
    /// Ranged GETs prefetched ahead of the reader.
    pub parallelism: usize,
}

/// A [`Read`] over `[start, end)` of one object.
pub struct RangeReader {
    source: Source,
    first: Option<FirstChunk>,
    first_len: u64,
    pending: VecDeque<PendingChunk>,
    next_start: u64,
    end: u64,
    current: Bytes,
    delivered: u64,
    expected: u64,
    failed: Option<StoreErrorClass>,
}

struct FirstChunk {
    frames: mpsc::Receiver<Result<Bytes>>,
    credits: Arc<Semaphore>,
    task: AbortHandle,
}

struct PendingChunk {
    len: u64,
    result: mpsc::Receiver<Result<Bytes>>,
    task: AbortHandle,
}

impl std::fmt::Debug for RangeReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeReader")
            .field("key", &self.source.key)
            .field("delivered", &self.delivered)
            .field("expected", &self.expected)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl RangeReader {
    /// Starts streaming `first` (the answer to the first ranged GET, which
    /// covers `first_range`) and prepares the rest of `[first_range.start,
    /// end)`.
    pub fn start(source: Source, first: GetResult, first_range: Range<u64>, end: u64) -> Self {
        let (sender, frames) = mpsc::channel();
        let credits = Arc::new(Semaphore::new(FRAME_CREDITS));
        let task_credits = Arc::clone(&credits);
        let key = source.key.clone();
        let task = source.runtime.handle().spawn(async move {
            let mut stream = first.into_stream();
            while let Some(item) = stream.next().await {
                let Ok(credit) = task_credits.acquire().await else {
                    return;
                };
                credit.forget();
                let item = item.map_err(|e| to_store_error(e, "read of", key.as_ref()));
                let stop = item.is_err();
                if sender.send(item).is_err() || stop {
                    return;
                }
            }
        });
        Self {
            first: Some(FirstChunk {
                frames,
                credits,
                task: task.abort_handle(),
            }),
            first_len: first_range.end - first_range.start,
            pending: VecDeque::new(),
            next_start: first_range.end,
            end,
            current: Bytes::new(),
            delivered: 0,
            expected: end.saturating_sub(first_range.start),
            failed: None,
            source,
        }
    }

    /// Starts ranged GETs ahead of the reader once it has consumed half of
    /// the first chunk; `force` starts one even before (the reader needs it).
    fn schedule(&mut self, force: bool) {
        let reading_on = self.delivered >= self.first_len / 2;
        while self.next_start < self.end
            && ((reading_on && self.pending.len() < self.source.parallelism.max(1))
                || (force && self.pending.is_empty()))
        {
            let range = self.next_start
                ..self
                    .end
                    .min(self.next_start.saturating_add(self.source.chunk_size));
            self.next_start = range.end;
            self.pending.push_back(spawn_chunk(&self.source, range));
        }
    }

    /// The next piece of data in order, `None` at the end of the range.
    fn next_piece(&mut self) -> Result<Option<Bytes>> {
        if let Some(first) = &self.first {
            match first.frames.recv() {
                Ok(Ok(bytes)) => {
                    first.credits.add_permits(1);
                    return Ok(Some(bytes));
                }
                Ok(Err(err)) => return Err(err),
                Err(mpsc::RecvError) => {
                    self.first = None;
                    if self.delivered != self.first_len {
                        return Err(truncated(&self.source.key, self.delivered, self.first_len));
                    }
                }
            }
        }
        self.schedule(true);
        let Some(chunk) = self.pending.pop_front() else {
            return Ok(None);
        };
        match chunk.result.recv() {
            Ok(Ok(bytes)) if bytes.len() as u64 == chunk.len => Ok(Some(bytes)),
            Ok(Ok(bytes)) => Err(truncated(&self.source.key, bytes.len() as u64, chunk.len)),
            Ok(Err(err)) => Err(err),
            Err(mpsc::RecvError) => Err(StoreError::Backend {
                message: format!(
                    "the task fetching a chunk of {} ended without a result",
                    self.source.key
                ),
                source: None,
            }),
        }
    }
}

impl Read for RangeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(class) = self.failed {
            return Err(io_error(
                class,
                StoreError::InvalidArgument(format!(
                    "read of {} after an earlier failure",
                    self.source.key
                )),
            ));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        while self.current.is_empty() {
            match self.next_piece() {
                Ok(Some(bytes)) => self.current = bytes,
                Ok(None) if self.delivered == self.expected => return Ok(0),
                Ok(None) => {
                    let err = truncated(&self.source.key, self.delivered, self.expected);
                    return Err(self.fail(err));
                }
                Err(err) => return Err(self.fail(err)),
            }
        }
        let n = buf.len().min(self.current.len());
        let head = self.current.split_to(n);
        buf.get_mut(..n)
            .ok_or_else(|| io::Error::other("read buffer shorter than its length"))?
            .copy_from_slice(&head);
        self.delivered += n as u64;
        self.schedule(false);
        Ok(n)
    }
}

impl RangeReader {
    fn fail(&mut self, err: StoreError) -> io::Error {
        let class = err.class();
        self.failed = Some(class);
        self.cancel_all();
        io_error(class, err)
    }

    fn cancel_all(&mut self) {
        if let Some(first) = self.first.take() {
            first.credits.close();
            first.task.abort();
        }
        for chunk in self.pending.drain(..) {
            chunk.task.abort();
        }
    }
}

impl Drop for RangeReader {
    fn drop(&mut self) {
        self.cancel_all();
    }
}

/// An I/O error carrying the typed error, so callers can downcast it.
pub(crate) fn io_error(class: StoreErrorClass, err: StoreError) -> io::Error {
    let kind = match class {
        StoreErrorClass::NotFound => io::ErrorKind::NotFound,
        StoreErrorClass::Retryable => io::ErrorKind::TimedOut,
        StoreErrorClass::InvalidInput => io::ErrorKind::InvalidInput,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, err)
}

fn truncated(key: &Path, got: u64, wanted: u64) -> StoreError {
    StoreError::Retryable {
        message: format!("the stream of {key} ended after {got} of {wanted} bytes"),
        source: None,
    }
}

fn spawn_chunk(source: &Source, range: Range<u64>) -> PendingChunk {
    let (sender, result) = mpsc::sync_channel(1);
    let len = range.end - range.start;
    let store = Arc::clone(&source.store);
    let key = source.key.clone();
    let pin = source.pin.clone();
    let task = source.runtime.handle().spawn(async move {
        let mut options = GetOptions {
            range: Some(GetRange::Bounded(range)),
            ..GetOptions::default()
        };
        pin.apply(&mut options);
        let fetched = async { store.get_opts(&key, options).await?.bytes().await }
            .await
            .map_err(|e| to_store_error(e, "ranged read of", key.as_ref()));
        let _ = sender.send(fetched);
    });
    PendingChunk {
        len,
        result,
        task: task.abort_handle(),
    }
}

/// Options of the first ranged GET.
pub fn first_get_options(range: Range<u64>) -> GetOptions {
    GetOptions {
        range: Some(GetRange::Bounded(range)),
        ..GetOptions::default()
    }
}

/// The pin of an object from its metadata.
pub fn pin_of(result: &GetResult) -> Pin {
    Pin {
        version: result.meta.version.clone(),
        e_tag: result.meta.e_tag.clone(),
    }
}
