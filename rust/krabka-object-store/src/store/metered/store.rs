//! [`MeteredObjectStore`]: an object store that counts its requests.

use {
    super::stats::{Operation, Outcome, RequestMetrics},
    async_trait::async_trait,
    futures_util::{FutureExt, Stream, StreamExt, stream::BoxStream},
    object_store::{
        CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
        PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result, UploadPart,
        path::Path,
    },
    std::{
        fmt,
        ops::Range,
        pin::Pin,
        sync::Arc,
        task::{Context, Poll},
        time::Instant,
    },
};

/// Any object store, with every request counted into its
/// [`RequestMetrics`] (see the [module](super) for what one count is).
/// Answers and errors are the inner store's, unchanged.
#[derive(Debug)]
pub struct MeteredObjectStore {
    inner: Arc<dyn ObjectStore>,
    metrics: Arc<RequestMetrics>,
}

impl MeteredObjectStore {
    /// `inner` counted into `metrics`.
    #[must_use]
    pub fn new(inner: Arc<dyn ObjectStore>, metrics: Arc<RequestMetrics>) -> Self {
        Self { inner, metrics }
    }

    /// The metrics this store counts into.
    #[must_use]
    pub fn metrics(&self) -> &Arc<RequestMetrics> {
        &self.metrics
    }

    /// Runs `request` and counts it as `operation`.
    async fn counted<T>(
        &self,
        operation: Operation,
        request: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        count(&self.metrics, operation, request).await
    }
}

/// Runs `request` and counts it into `metrics` as `operation`.
async fn count<T>(
    metrics: &RequestMetrics,
    operation: Operation,
    request: impl Future<Output = Result<T>>,
) -> Result<T> {
    let started = Instant::now();
    let result = request.await;
    metrics.record(operation, Outcome::of(&result), started.elapsed());
    result
}

impl fmt::Display for MeteredObjectStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The inner store's name: messages and tests read it.
        fmt::Display::fmt(&self.inner, f)
    }
}

#[async_trait]
impl ObjectStore for MeteredObjectStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        let _uploading = self.metrics.uploading(payload.content_length() as u64);
        self.counted(Operation::Put, self.inner.put_opts(location, payload, opts))
            .await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        let upload = self
            .counted(
                Operation::MultipartCreate,
                self.inner.put_multipart_opts(location, opts),
            )
            .await?;
        Ok(Box::new(MeteredUpload {
            inner: upload,
            metrics: Arc::clone(&self.metrics),
        }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let operation = if options.head {
            Operation::Head
        } else {
            Operation::Get
        };
        self.counted(operation, self.inner.get_opts(location, options))
            .await
    }

    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> Result<Vec<bytes::Bytes>> {
        self.counted(Operation::Get, self.inner.get_ranges(location, ranges))
            .await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        let metrics = Arc::clone(&self.metrics);
        let mut last = Instant::now();
        self.inner
            .delete_stream(locations)
            .map(move |result| {
                let now = Instant::now();
                metrics.record(
                    Operation::Delete,
                    Outcome::of(&result),
                    now.saturating_duration_since(last),
                );
                last = now;
                result
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        MeteredList::new(self.inner.list(prefix), Arc::clone(&self.metrics)).boxed()
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        MeteredList::new(
            self.inner.list_with_offset(prefix, offset),
            Arc::clone(&self.metrics),
        )
        .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.counted(Operation::List, self.inner.list_with_delimiter(prefix))
            .await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.counted(Operation::Copy, self.inner.copy_opts(from, to, options))
            .await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        // The inner store's own rename (atomic on a filesystem), counted as
        // a copy.
        self.counted(Operation::Copy, self.inner.rename_opts(from, to, options))
            .await
    }
}

/// A multipart upload counting its parts, its completion and its abort.
#[derive(Debug)]
struct MeteredUpload {
    inner: Box<dyn MultipartUpload>,
    metrics: Arc<RequestMetrics>,
}

#[async_trait]
impl MultipartUpload for MeteredUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let bytes = data.content_length() as u64;
        let uploading = self.metrics.uploading(bytes);
        let part = self.inner.put_part(data);
        let metrics = Arc::clone(&self.metrics);
        async move {
            let _uploading = uploading;
            let result = count(&metrics, Operation::PartUpload, part).await;
            if result.is_ok() {
                metrics.add_part_bytes(bytes);
            }
            result
        }
        .boxed()
    }

    async fn complete(&mut self) -> Result<PutResult> {
        let started = Instant::now();
        let result = self.inner.complete().await;
        self.metrics.record(
            Operation::MultipartComplete,
            Outcome::of(&result),
            started.elapsed(),
        );
        result
    }

    async fn abort(&mut self) -> Result<()> {
        let started = Instant::now();
        let result = self.inner.abort().await;
        self.metrics.record(
            Operation::MultipartAbort,
            Outcome::of(&result),
            started.elapsed(),
        );
        result
    }
}

/// A listing, counted once: when it ends, at its first error, or when it is
/// dropped after being polled.
struct MeteredList {
    inner: BoxStream<'static, Result<ObjectMeta>>,
    metrics: Arc<RequestMetrics>,
    /// When it was first polled (the request starts then); `None` before.
    started: Option<Instant>,
    counted: bool,
}

impl MeteredList {
    fn new(inner: BoxStream<'static, Result<ObjectMeta>>, metrics: Arc<RequestMetrics>) -> Self {
        Self {
            inner,
            metrics,
            started: None,
            counted: false,
        }
    }

    fn finish(&mut self, outcome: Outcome) {
        if self.counted {
            return;
        }
        self.counted = true;
        let elapsed = self.started.map(|s| s.elapsed()).unwrap_or_default();
        self.metrics.record(Operation::List, outcome, elapsed);
    }
}

impl Stream for MeteredList {
    type Item = Result<ObjectMeta>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        this.started.get_or_insert_with(Instant::now);
        let polled = this.inner.poll_next_unpin(cx);
        match &polled {
            Poll::Ready(None) => this.finish(Outcome::Ok),
            Poll::Ready(Some(Err(err))) => this.finish(Outcome::of_error(err)),
            _ => {}
        }
        polled
    }
}

impl Drop for MeteredList {
    fn drop(&mut self) {
        if self.started.is_some() {
            self.finish(Outcome::Ok);
        }
    }
}
