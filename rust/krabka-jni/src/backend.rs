//! Builds the Rust managers the adapters drive.

use {
    crate::{
        config::{BackendConfig, FormatConfig, MetadataConfig},
        copy::Copier,
        error::BridgeError,
        metrics,
    },
    krabka_remote_storage::{
        CancellationToken, CustomMetadata, DeleteOutcome, InmemoryRemoteLogMetadataManager,
        LocalTieredStorage, LogSegmentData, MeteredStorage, RemoteLogMetadataManager,
        RemoteLogSegmentMetadata, RemoteStorageError, RemoteStorageManager, Result,
        S3RemoteStorage, StoreRemoteLogMetadataManager, TierMetrics, WormRemoteStorage,
    },
    std::sync::Arc,
};

/// The tier behind one `KrabkaRemoteStorageManager`: any of the Rust tiers.
/// Which one decides every storage rule (what a delete means on an archive,
/// how a copy is cancelled); this crate only carries their answers. Every
/// operation is counted into the storage's [`TierMetrics`].
pub struct Storage {
    tier: Box<dyn RemoteStorageManager>,
    metrics: Arc<TierMetrics>,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Storage").finish_non_exhaustive()
    }
}

impl Storage {
    /// A storage over `tier`, with fresh metrics.
    #[must_use]
    pub fn new(tier: impl RemoteStorageManager + 'static) -> Self {
        let metered = MeteredStorage::new(tier);
        let metrics = Arc::clone(metered.metrics());
        Self {
            tier: Box::new(metered),
            metrics,
        }
    }

    /// The tier as Kafka's storage manager SPI (counted).
    #[must_use]
    pub fn manager(&self) -> &dyn RemoteStorageManager {
        self.tier.as_ref()
    }

    /// What the tier did since it was opened.
    #[must_use]
    pub fn metrics(&self) -> &TierMetrics {
        &self.metrics
    }

    /// Deletes a segment for Kafka, as the code `NativeBridge.delete`
    /// returns.
    ///
    /// # Errors
    /// The tier's error.
    pub fn delete_segment(&self, metadata: &RemoteLogSegmentMetadata) -> Result<i32> {
        self.manager()
            .delete_log_segment_data(metadata)
            .map(|outcome| delete_code(&outcome))
    }
}

/// The code of a delete's outcome that crosses JNI: 0 deleted, 1 retained by
/// a write-once archive (`KrabkaRemoteStorageManager.DELETE_*`).
#[must_use]
pub fn delete_code(outcome: &DeleteOutcome) -> i32 {
    match outcome {
        DeleteOutcome::RetainedByArchive { .. } => 1,
        // `Deleted`, and any outcome a later tier adds: the segment is gone
        // as far as Kafka is concerned.
        _ => 0,
    }
}

impl Copier for Storage {
    fn copy(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        self.manager()
            .copy_log_segment_data_cancellable(metadata, segment, cancel)
    }
}

/// The storage manager for `config`. With the write-once archive mode on,
/// this is where the bucket must prove it is locked
/// ([`S3RemoteStorage::with_worm`]).
///
/// # Errors
/// The backend's error when it cannot be set up (for example an S3 client
/// that cannot be built); [`BridgeError::WormStartup`] when the archive mode
/// cannot start (an unusable signing key, a bucket that is not locked or
/// cannot be reached); [`BridgeError::PlainOnArchive`] when the plain tier
/// would start on a bucket that holds an archive.
pub fn open_storage(config: BackendConfig) -> Result<Arc<Storage>, BridgeError> {
    open_storage_with(config, &FormatConfig::default())
}

/// As [`open_storage`], writing and reading segments as `format` says
/// (compressed and/or encrypted in the chunked format, or plain; the
/// write-once archive too); every key pair's files are read here, once.
///
/// # Errors
/// As [`open_storage`]; a [`RemoteStorageError::Config`] for a key pair
/// that cannot be used.
pub fn open_storage_with(
    config: BackendConfig,
    format: &FormatConfig,
) -> Result<Arc<Storage>, BridgeError> {
    let codec = format.codec().map_err(|err| RemoteStorageError::Config {
        what: "segment encryption keys",
        source: Box::new(err),
    })?;
    Ok(Arc::new(match config {
        BackendConfig::Filesystem { root } => {
            Storage::new(LocalTieredStorage::new(root).with_codec(codec)?)
        }
        BackendConfig::ObjectStore {
            store,
            worm,
            allow_plain_on_archive,
            read_cache,
        } => {
            let handle = S3RemoteStorage::from_config(&store)?
                .into_store()
                .with_read_cache(read_cache)
                .map_err(|err| RemoteStorageError::InvalidArgument(err.to_string()))?;
            let tier = S3RemoteStorage::on(handle).with_codec(codec)?;
            let read_cache = tier.store_handle().read_cache().cloned();
            let requests = Arc::clone(tier.store_handle().request_metrics());
            let storage = match worm {
                Some(worm) => {
                    let archive = tier.with_worm(*worm).map_err(BridgeError::WormStartup)?;
                    let commits = Arc::clone(archive.archiver().metrics());
                    let storage = Storage::new(archive);
                    storage.metrics().attach_archive(commits);
                    storage
                }
                None if !allow_plain_on_archive && holds_archive(&tier) => {
                    return Err(BridgeError::PlainOnArchive);
                }
                None => Storage::new(tier),
            };
            if let Some(cache) = read_cache {
                storage.metrics().attach_read_cache(cache);
            }
            storage.metrics().attach_store_requests(requests);
            storage
        }
    }))
}

/// Whether the plain `tier`'s bucket holds a write-once archive. A bucket
/// that cannot be listed now is not refused (the check guards against a
/// mistaken switch, and an outage must not keep the broker down): the
/// failure is logged.
fn holds_archive(tier: &S3RemoteStorage) -> bool {
    WormRemoteStorage::holds_archive(tier.store_handle()).unwrap_or_else(|err| {
        tracing::warn!(
            error = &err as &dyn std::error::Error,
            "cannot check whether the bucket holds a write-once archive; starting the plain tier"
        );
        false
    })
}

/// The metadata manager `config` describes: the durable one over its
/// store, counting into the process-wide [`metrics::METADATA`], or the
/// in-memory one (warning loudly about partitions it knows nothing of, as
/// after a restart).
///
/// # Errors
/// The store's error when no store can be built from the configuration.
pub fn open_metadata_manager(
    config: MetadataConfig,
) -> Result<Arc<dyn RemoteLogMetadataManager>, BridgeError> {
    Ok(match config {
        MetadataConfig::Store { store, settings } => Arc::new(
            StoreRemoteLogMetadataManager::from_config(&store, settings)?
                .with_metrics(Arc::clone(&metrics::METADATA)),
        ),
        MetadataConfig::InMemory => {
            Arc::new(InmemoryRemoteLogMetadataManager::new().warning_on_unknown_partitions())
        }
    })
}

#[cfg(test)]
mod tests;
