//! [`S3RemoteStorage`]: the object-store tier for S3, S3-compatible servers,
//! Google Cloud Storage and Azure Blob Storage.
//!
//! One engine over `object_store` for every backend: the key layout of the
//! filesystem tier under an optional prefix, streamed multipart uploads with
//! a fixed memory budget, ranged and prefetched fetches, bulk deletes, and
//! error classes that tell transient from permanent failures. The tier owns
//! a small Tokio runtime, so its synchronous methods work from any thread.

mod azure;
mod copy;
mod gcs;

use {
    crate::segment_keys::SegmentKeys,
    crate::{
        chunked::{ChunkedFormat, SegmentFormat, envelope_error},
        next_segment, object_reads,
        store_bridge::{spi_error, store_token},
    },
    krabka_envelope::{SegmentCodec, SegmentSealer},
    krabka_kafka::{
        CancellationToken, CustomMetadata, DeleteOutcome, IndexType, LogSegmentData,
        RemoteLogSegmentMetadata, RemoteStorageManager, Result, SegmentReader,
    },
    krabka_object_store::{
        ObjectStoreConfig, S3Config,
        store::{StoreHandle, delete::delete_keys},
    },
    object_store::ObjectStore,
    std::sync::Arc,
};

/// A [`RemoteStorageManager`] over an object store: Amazon S3 or an
/// S3-compatible server ([`S3RemoteStorage::from_s3_config`]), Google Cloud
/// Storage ([`S3RemoteStorage::from_gcs_config`]), Azure Blob Storage
/// ([`S3RemoteStorage::from_azure_config`]), or any `object_store`
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
/// - **Errors**: a missing object is [`RemoteStorageError::NotFound`](crate::RemoteStorageError::NotFound);
///   throttling, 5xx, timeouts and resets are retried by `object_store`
///   (count, time budget and backoff from the configuration) and then surface
///   as [`RemoteStorageError::Retryable`](crate::RemoteStorageError::Retryable); access denied, a missing bucket
///   and other permanent failures surface at once as
///   [`RemoteStorageError::Backend`](crate::RemoteStorageError::Backend).
/// - **Threads**: the methods block the calling thread, whichever it is
///   (a plain OS thread, a Tokio worker, a blocking-pool thread); the work
///   runs on the tier's own runtime.
#[derive(Debug)]
pub struct S3RemoteStorage {
    store: StoreHandle,
    format: Arc<ChunkedFormat>,
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
    /// [`RemoteStorageError::InvalidArgument`](crate::RemoteStorageError::InvalidArgument)
    /// for a prefix that is not a valid key path,
    /// [`RemoteStorageError::Backend`](crate::RemoteStorageError::Backend) when the runtime
    /// cannot start.
    pub fn with_store(store: Arc<dyn ObjectStore>, prefix: Option<String>) -> Result<Self> {
        Ok(Self::on(
            StoreHandle::new(store, prefix).map_err(spi_error)?,
        ))
    }

    /// A tier on a store handle of the store layer.
    #[must_use]
    pub fn on(store: StoreHandle) -> Self {
        Self {
            store,
            format: Arc::default(),
        }
    }

    /// This tier writing new segments with `codec`: Kafka's plain bytes
    /// (the default), or the chunked format, compressed and/or encrypted
    /// (see [`krabka_envelope`]). Whatever it writes, the tier reads both
    /// formats, each segment by whether it has an envelope object;
    /// encrypted segments need the codec's keys.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`](crate::RemoteStorageError::Config)
    /// for invalid codec settings.
    pub fn with_codec(self, codec: SegmentCodec) -> Result<Self> {
        Ok(Self {
            store: self.store,
            format: Arc::new(ChunkedFormat::new(codec)?),
        })
    }

    /// The codec new segments are written with.
    #[must_use]
    pub fn codec(&self) -> &SegmentCodec {
        self.format.codec()
    }

    /// The same tier on `store` (new tuning), keeping its codec.
    fn retuned(self, store: StoreHandle) -> Self {
        Self {
            store,
            format: self.format,
        }
    }

    /// The store handle this tier writes through.
    #[must_use]
    pub fn store_handle(&self) -> &StoreHandle {
        &self.store
    }

    /// The store handle this tier writes through (to build another tier,
    /// such as the write-once archive, on the same bucket).
    #[must_use]
    pub fn into_store(self) -> StoreHandle {
        self.store
    }

    /// A tier on an S3 bucket, with the configuration's prefix and
    /// multipart tuning.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`](crate::RemoteStorageError::Config), whose
    /// cause names the bad field.
    pub fn from_s3_config(config: &S3Config) -> Result<Self> {
        Self::from_config(&ObjectStoreConfig::S3(config.clone()))
    }

    /// A tier on any configured backend (S3, GCS, Azure, a local directory,
    /// memory).
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`](crate::RemoteStorageError::Config), whose
    /// cause names the bad field.
    pub fn from_config(config: &ObjectStoreConfig) -> Result<Self> {
        Ok(Self::on(
            StoreHandle::from_config(config).map_err(spi_error)?,
        ))
    }

    /// Files of at least `threshold` bytes are uploaded in parts of
    /// `chunk_size` bytes (S3 needs at least 5 MiB for every part but the
    /// last; values below 1 are raised to 1).
    #[must_use]
    pub fn with_multipart_tuning(self, threshold: u64, chunk_size: usize) -> Self {
        let tuning = self.store.tuning().with_multipart(threshold, chunk_size);
        let store = self.store.clone().with_tuning(tuning);
        self.retuned(store)
    }

    /// Parts of one multipart upload in flight at once (at least 1); the
    /// memory budget of a multipart copy is `parts × chunk_size`.
    #[must_use]
    pub fn with_upload_concurrency(self, parts: usize) -> Self {
        let tuning = self.store.tuning().with_parts_in_flight(parts);
        let store = self.store.clone().with_tuning(tuning);
        self.retuned(store)
    }

    /// Fetches are split into ranged GETs of `chunk_size` bytes, with up to
    /// `parallelism` of them prefetched ahead of the reader (each at least 1).
    #[must_use]
    pub fn with_fetch_tuning(self, chunk_size: usize, parallelism: usize) -> Self {
        let tuning = self.store.tuning().with_fetch(chunk_size, parallelism);
        let store = self.store.clone().with_tuning(tuning);
        self.retuned(store)
    }

    /// The key prefix, if any.
    #[must_use]
    pub fn prefix(&self) -> Option<&str> {
        self.store.prefix()
    }

    /// The underlying object store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        self.store.store()
    }

    fn keys(&self, metadata: &RemoteLogSegmentMetadata) -> SegmentKeys {
        SegmentKeys::new(self.store.prefix(), metadata)
    }

    /// The format of the segment: chunked when it has an envelope object
    /// (read through the read cache), else plain.
    fn format_of(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        keys: &SegmentKeys,
    ) -> Result<SegmentFormat> {
        self.format.format_of(metadata, || {
            let envelope = keys.envelope().map_err(spi_error)?;
            match object_reads::whole(&self.store, envelope.into(), metadata, "envelope") {
                Ok(bytes) => Ok(Some(bytes)),
                Err(err) if err.is_not_found() => Ok(None),
                Err(err) => Err(err),
            }
        })
    }

    /// Best effort, after a failed copy: deletes every object the segment
    /// can have (the log and all five indexes) in one bulk delete; a
    /// failure is logged, the copy's own error is what the caller reports.
    /// Drops what the read cache holds of `keys`, before they are written
    /// or deleted.
    fn forget_cached(&self, keys: &[krabka_object_store::store::Path]) {
        if let Some(cache) = self.store.read_cache() {
            cache.forget_keys(keys);
        }
    }

    fn remove_segment_objects(&self, metadata: &RemoteLogSegmentMetadata) {
        let removed = self.keys(metadata).all().and_then(|keys| {
            self.forget_cached(&keys);
            let delete = delete_keys(Arc::clone(self.store.store()), keys, "a failed copy");
            self.store.runtime().block_on(delete)
        });
        if let Err(err) = removed {
            tracing::warn!(segment = %metadata.remote_log_segment_id(), error = %err,
                "could not remove the objects of a failed copy");
        }
    }
}

impl RemoteStorageManager for S3RemoteStorage {
    fn copy_log_segment_data_cancellable(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        cancel.check(|| format!("copy of {}", metadata.remote_log_segment_id()))?;
        // A copy (re)writes this segment's objects.
        self.forget_cached(&self.keys(metadata).all().map_err(spi_error)?);
        self.format.forget(metadata);
        let codec = self.format.codec();
        let sealer = match codec.writes_plain() {
            true => None,
            false => Some(
                SegmentSealer::new(codec, metadata.remote_log_segment_id().id)
                    .map_err(envelope_error)?,
            ),
        };
        let copy = copy::copy_segment(
            Arc::clone(self.store.store()),
            self.keys(metadata),
            segment.clone(),
            self.store.tuning(),
            store_token(cancel),
            sealer,
        );
        let copied = self.store.runtime().block_on(copy).map_err(spi_error);
        // A cancel that lands as the last upload completes still cancels.
        let copied = copied.and_then(|()| {
            cancel.check(|| format!("copy of {}", metadata.remote_log_segment_id()))
        });
        if let Err(err) = copied {
            // Like the filesystem tier, leave no object of a failed or
            // cancelled copy: a readable log would read as a complete segment.
            self.remove_segment_objects(metadata);
            return Err(err);
        }
        Ok(self.format.copy_metadata())
    }

    fn fetch_log_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start_position: u64,
        end_position: Option<u64>,
    ) -> Result<SegmentReader> {
        let keys = self.keys(metadata);
        let log = keys.log().map_err(spi_error)?;
        let format = self.format_of(metadata, &keys)?;
        let next = match self.store.read_cache() {
            Some(_) => Some(next_segment::after(
                Arc::clone(self.store.store()),
                keys.partition_path().map_err(spi_error)?,
                log.clone(),
            )),
            None => None,
        };
        match format {
            SegmentFormat::Plain => object_reads::log_range(
                &self.store,
                log.into(),
                metadata,
                start_position,
                end_position,
                next,
            ),
            SegmentFormat::Chunked(opened) => object_reads::chunked_log_range(
                &self.store,
                log.into(),
                metadata,
                &opened,
                self.format.decoded(),
                start_position,
                end_position,
                next,
            ),
        }
    }

    fn fetch_index(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        index: IndexType,
    ) -> Result<Vec<u8>> {
        let keys = self.keys(metadata);
        let object = keys.index(index).map_err(spi_error)?;
        match self.format_of(metadata, &keys)? {
            SegmentFormat::Plain => {
                object_reads::index(&self.store, object.into(), metadata, index)
            }
            SegmentFormat::Chunked(opened) => {
                object_reads::chunked_index(&self.store, object.into(), metadata, &opened, index)
            }
        }
    }

    fn delete_log_segment_data(
        &self,
        metadata: &RemoteLogSegmentMetadata,
    ) -> Result<DeleteOutcome> {
        let keys = self.keys(metadata).all().map_err(spi_error)?;
        self.forget_cached(&keys);
        self.format.forget(metadata);
        let delete = delete_keys(Arc::clone(self.store.store()), keys, "segment objects");
        self.store.runtime().block_on(delete).map_err(spi_error)?;
        Ok(DeleteOutcome::Deleted)
    }
}

#[cfg(test)]
mod tests;
