//! [`S3RemoteStorage`]: the object-store tier for S3, S3-compatible servers
//! and Google Cloud Storage.
//!
//! One engine over `object_store` for every backend: the key layout of the
//! filesystem tier under an optional prefix, streamed multipart uploads with
//! a fixed memory budget, ranged and prefetched fetches, bulk deletes, and
//! error classes that tell transient from permanent failures. The tier owns
//! a small Tokio runtime, so its synchronous methods work from any thread.

mod cancel;
mod copy;
mod delete;
pub(crate) mod errors;
mod fetch;
pub(crate) mod keys;
mod reader;
pub(crate) mod runtime;
pub(crate) mod tuning;
pub(crate) mod upload;

pub use cancel::CancellationToken;
use {
    self::{keys::SegmentKeys, runtime::TierRuntime, tuning::Tuning},
    crate::{
        CustomMetadata, IndexType, LogSegmentData, ManifestSigner, RemoteLogSegmentMetadata,
        RemoteStorageError, RemoteStorageManager, Result, S3Config, SegmentReader, WormArchiver,
        WormConfig, worm,
    },
    krabka_object_store::{ObjectStoreBuildError, ObjectStoreConfig, build_object_store},
    object_store::{ObjectStore, path::Path},
    std::{fmt, sync::Arc},
};

/// Worker threads of the runtime each tier owns.
const RUNTIME_WORKERS: usize = 2;

/// A [`RemoteStorageManager`] over an object store: Amazon S3 or an
/// S3-compatible server ([`S3RemoteStorage::from_s3_config`]), Google Cloud
/// Storage ([`S3RemoteStorage::from_gcs_config`]), or any `object_store`
/// implementation ([`S3RemoteStorage::with_store`]).
///
/// # Layout
///
/// `<prefix>/<topic>-<partition>-<topicId>/<offset:020>-<segmentId><suffix>`,
/// the same keys as the filesystem tier ([`crate::partition_dir_name`],
/// [`crate::segment_file_name`]).
///
/// # Behaviour
///
/// - **Copy** uploads every index, then the log. Files at or above the
///   multipart threshold are streamed as multipart uploads with
///   `parts_in_flight` parts in flight; memory per copy is bounded by
///   `max(threshold, parts_in_flight × chunk_size)`. A failed or cancelled
///   multipart upload is aborted.
/// - **Fetch** streams the range through ranged GETs: the first chunk is
///   streamed as it arrives, later chunks are prefetched in parallel once
///   the reader is halfway through the first. Every chunk is pinned to the
///   version (or ETag) of the first answer. Dropping the reader cancels
///   outstanding requests.
/// - **Errors**: a missing object is [`RemoteStorageError::NotFound`];
///   throttling, 5xx, timeouts and resets are retried by `object_store`
///   (count, time budget and backoff from the configuration) and then surface
///   as [`RemoteStorageError::Retryable`]; access denied, a missing bucket
///   and other permanent failures surface at once as
///   [`RemoteStorageError::Backend`].
/// - **Threads**: the methods block the calling thread, whichever it is
///   (a plain OS thread, a Tokio worker, a blocking-pool thread); the work
///   runs on the tier's own runtime.
pub struct S3RemoteStorage {
    store: Arc<dyn ObjectStore>,
    prefix: Option<String>,
    tuning: Tuning,
    runtime: Arc<TierRuntime>,
    /// The configuration the tier was built from, when it was.
    backend: Option<ObjectStoreConfig>,
    /// The write-once archive mode, when on.
    worm: Option<Worm>,
}

/// The state of the write-once archive mode.
#[derive(Debug)]
struct Worm {
    archiver: Arc<WormArchiver>,
    write_only: bool,
    /// What proved the bucket write-once at start-up.
    evidence: String,
}

impl fmt::Debug for S3RemoteStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3RemoteStorage")
            .field("store", &self.store.to_string())
            .field("prefix", &self.prefix)
            .field("tuning", &self.tuning)
            .field("worm", &self.worm)
            .finish_non_exhaustive()
    }
}

impl S3RemoteStorage {
    /// A tier over any object store, with default tuning. `prefix` (leading
    /// and trailing `/` trimmed, empty meaning none) is put before every key.
    ///
    /// ```
    /// use {krabka_remote_storage::S3RemoteStorage, object_store::memory::InMemory, std::sync::Arc};
    /// let tier = S3RemoteStorage::with_store(Arc::new(InMemory::new()), Some("tier".to_owned())).unwrap();
    /// assert_eq!(tier.prefix(), Some("tier"));
    /// ```
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] for a prefix that is not a
    /// valid key path, [`RemoteStorageError::Backend`] when the runtime
    /// cannot start.
    pub fn with_store(store: Arc<dyn ObjectStore>, prefix: Option<String>) -> Result<Self> {
        let prefix = match prefix.as_deref().map(|p| p.trim_matches('/')) {
            None | Some("") => None,
            Some(prefix) => {
                Path::parse(prefix).map_err(|source| {
                    RemoteStorageError::InvalidArgument(format!(
                        "prefix `{prefix}` is not a valid key path: {source}"
                    ))
                })?;
                Some(prefix.to_owned())
            }
        };
        Ok(Self {
            store,
            prefix,
            tuning: Tuning::default(),
            runtime: Arc::new(TierRuntime::new(RUNTIME_WORKERS)?),
            backend: None,
            worm: None,
        })
    }

    /// A tier on an S3 bucket, with the configuration's prefix and
    /// multipart tuning.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] naming the bad field.
    pub fn from_s3_config(config: &S3Config) -> Result<Self> {
        Self::from_config(&ObjectStoreConfig::S3(config.clone()))
    }

    /// A tier on any configured backend (S3, GCS, a local directory, memory).
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] naming the bad field.
    pub fn from_config(config: &ObjectStoreConfig) -> Result<Self> {
        let store = build_object_store(config).map_err(invalid_config)?;
        let (prefix, threshold, chunk) = match config {
            ObjectStoreConfig::S3(s3) => (
                s3.prefix.clone(),
                Some(s3.multipart_threshold),
                Some(s3.multipart_chunk_size),
            ),
            ObjectStoreConfig::Gcs(gcs) => (
                gcs.prefix.clone(),
                Some(gcs.multipart_threshold),
                Some(gcs.multipart_chunk_size),
            ),
            _ => (None, None, None),
        };
        let mut tier = Self::with_store(store, prefix)?;
        tier.backend = Some(config.clone());
        Ok(match (threshold, chunk) {
            (Some(threshold), Some(chunk)) => tier.with_multipart_tuning(threshold, chunk),
            _ => tier,
        })
    }

    /// Files of at least `threshold` bytes are uploaded in parts of
    /// `chunk_size` bytes (S3 needs at least 5 MiB for every part but the
    /// last; values below 1 are raised to 1).
    #[must_use]
    pub fn with_multipart_tuning(mut self, threshold: u64, chunk_size: usize) -> Self {
        self.tuning.multipart_threshold = threshold.max(1);
        self.tuning.multipart_chunk_size = chunk_size.max(1);
        self
    }

    /// Parts of one multipart upload in flight at once (at least 1); the
    /// memory budget of a multipart copy is `parts × chunk_size`.
    #[must_use]
    pub fn with_upload_concurrency(mut self, parts: usize) -> Self {
        self.tuning.parts_in_flight = parts.max(1);
        self
    }

    /// Fetches are split into ranged GETs of `chunk_size` bytes, with up to
    /// `parallelism` of them prefetched ahead of the reader (each at least 1).
    #[must_use]
    pub fn with_fetch_tuning(mut self, chunk_size: usize, parallelism: usize) -> Self {
        self.tuning.fetch_chunk_size = chunk_size.max(1);
        self.tuning.fetch_parallelism = parallelism.max(1);
        self
    }

    /// Turns on the write-once archive mode ([`WormConfig`]).
    ///
    /// Start-up refuses unless the bucket proves it is write-once: on S3,
    /// versioning `Enabled` and Object Lock enabled with a COMPLIANCE
    /// default retention of positive length (GOVERNANCE is refused); on GCS,
    /// versioning and a **locked** retention policy of positive length; on
    /// both, a second create-only write of a fresh probe key
    /// (`<prefix>/_krabka-worm-probe/<uuid>`, which stays in the bucket) must
    /// be refused. A server that answers 501, 405 or a body of another shape
    /// is not WORM-capable. A tier built with [`S3RemoteStorage::with_store`]
    /// or on a local directory cannot prove anything and is refused.
    ///
    /// In this mode a copy goes through [`WormArchiver`] and returns its
    /// chain receipt ([`WormChainRecord`](crate::WormChainRecord), at most 128 bytes) as custom
    /// metadata, every delete is refused without a request, and with
    /// [`WormConfig::write_only`] every fetch is refused without a request.
    ///
    /// # Errors
    /// [`RemoteStorageError::Refused`] naming what the bucket lacks;
    /// [`RemoteStorageError::InvalidArgument`] for an unusable signing key;
    /// [`RemoteStorageError::Retryable`] when the bucket cannot be reached.
    pub fn with_worm(self, config: WormConfig) -> Result<Self> {
        let signer = config.signer()?;
        let evidence = self.runtime.block_on(worm::prove_bucket(
            self.backend.clone(),
            Arc::clone(&self.store),
            self.prefix.clone(),
        ))?;
        tracing::info!(%evidence, key_id = signer.key_id(), write_only = config.write_only, "WORM archive mode on");
        Ok(self.with_worm_unchecked(signer, config.write_only, evidence))
    }

    /// The archive mode without the bucket proof: for tests over in-memory
    /// stores, and for callers that proved the protection some other way.
    #[must_use]
    pub fn with_worm_unchecked(
        mut self,
        signer: ManifestSigner,
        write_only: bool,
        evidence: String,
    ) -> Self {
        let archiver = WormArchiver::new(Arc::clone(&self.store), self.prefix.clone(), signer)
            .with_tuning(self.tuning);
        self.worm = Some(Worm {
            archiver: Arc::new(archiver),
            write_only,
            evidence,
        });
        self
    }

    /// Whether the write-once archive mode is on, and what proved the
    /// bucket write-once.
    #[must_use]
    pub fn worm_evidence(&self) -> Option<&str> {
        self.worm.as_ref().map(|worm| worm.evidence.as_str())
    }

    /// The key prefix, if any.
    #[must_use]
    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// The underlying object store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// [`RemoteStorageManager::copy_log_segment_data`] that stops when
    /// `cancel` is cancelled from another thread: in-flight requests are
    /// dropped, the multipart upload is aborted and the result is
    /// [`RemoteStorageError::Cancelled`].
    ///
    /// # Errors
    /// As [`RemoteStorageManager::copy_log_segment_data`], plus `Cancelled`.
    pub fn copy_log_segment_data_cancellable(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        if cancel.is_cancelled() {
            return Err(RemoteStorageError::Cancelled(format!(
                "copy of {}",
                metadata.remote_log_segment_id()
            )));
        }
        if let Some(worm) = &self.worm {
            let archiver = Arc::clone(&worm.archiver);
            let metadata = metadata.clone();
            let segment = segment.clone();
            let cancel = cancel.clone();
            let sealed = self
                .runtime
                .block_on(async move { archiver.archive(&metadata, &segment, &cancel).await })?;
            return Ok(Some(sealed.custom_metadata()));
        }
        let copy = copy::copy_segment(
            Arc::clone(&self.store),
            self.keys(metadata),
            segment.clone(),
            self.tuning,
            cancel.clone(),
        );
        self.runtime.block_on(copy)?;
        Ok(None)
    }

    /// Refuses a fetch in a write-only archive, before any request.
    fn refuse_fetch(&self, metadata: &RemoteLogSegmentMetadata) -> Result<()> {
        match &self.worm {
            Some(worm) if worm.write_only => Err(RemoteStorageError::Refused(format!(
                "segment {} is in a write-only archive: fetches are refused",
                metadata.remote_log_segment_id()
            ))),
            _ => Ok(()),
        }
    }

    fn keys(&self, metadata: &RemoteLogSegmentMetadata) -> SegmentKeys {
        SegmentKeys::new(self.prefix.as_deref(), metadata)
    }
}

impl RemoteStorageManager for S3RemoteStorage {
    fn copy_log_segment_data(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
    ) -> Result<Option<CustomMetadata>> {
        self.copy_log_segment_data_cancellable(metadata, segment, &CancellationToken::new())
    }

    fn fetch_log_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start_position: u64,
        end_position: Option<u64>,
    ) -> Result<SegmentReader> {
        self.refuse_fetch(metadata)?;
        let open = fetch::open_range(
            Arc::clone(&self.runtime),
            Arc::clone(&self.store),
            self.keys(metadata).log()?,
            format!("log of segment {}", metadata.remote_log_segment_id()),
            start_position,
            end_position,
            self.tuning,
        );
        Ok(self.runtime.block_on(open)?.into_segment_reader())
    }

    fn fetch_index(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        index: IndexType,
    ) -> Result<Vec<u8>> {
        self.refuse_fetch(metadata)?;
        let fetch = fetch::fetch_whole(
            Arc::clone(&self.store),
            self.keys(metadata).index(index)?,
            format!(
                "{} index of segment {}",
                index.kafka_name(),
                metadata.remote_log_segment_id()
            ),
        );
        self.runtime.block_on(fetch)
    }

    fn delete_log_segment_data(&self, metadata: &RemoteLogSegmentMetadata) -> Result<()> {
        if self.worm.is_some() {
            return Err(RemoteStorageError::Refused(format!(
                "segment {} is in a write-once archive: deletes are refused (the bucket's retention decides when it may go)",
                metadata.remote_log_segment_id()
            )));
        }
        self.runtime.block_on(delete::delete_segment(
            Arc::clone(&self.store),
            self.keys(metadata),
        ))
    }
}

/// A configuration or client-construction failure, as the SPI's error.
fn invalid_config(err: ObjectStoreBuildError) -> RemoteStorageError {
    RemoteStorageError::InvalidArgument(format!(
        "object store configuration: {err}{}",
        source_text(&err)
    ))
}

fn source_text(err: &dyn std::error::Error) -> String {
    let mut text = String::new();
    let mut current = err.source();
    while let Some(source) = current {
        text.push_str(": ");
        text.push_str(&source.to_string());
        current = source.source();
    }
    text
}

#[cfg(test)]
mod tests;
