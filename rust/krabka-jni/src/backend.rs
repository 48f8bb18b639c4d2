//! Builds the Rust managers the adapters drive.

use {
    crate::{config::BackendConfig, copy::Copier, error::BridgeError},
    krabka_remote_storage::{
        CancellationToken, CustomMetadata, InmemoryRemoteLogMetadataManager, LocalTieredStorage,
        LogSegmentData, RemoteLogMetadataManager, RemoteLogSegmentMetadata, RemoteStorageManager,
        Result, S3RemoteStorage,
    },
    std::sync::Arc,
};

/// The tier behind one `KrabkaRemoteStorageManager`.
#[derive(Debug)]
pub enum Storage {
    /// Files under a directory (`LocalTieredStorage`).
    Filesystem(LocalTieredStorage),
    /// An S3 or GCS bucket (`S3RemoteStorage`), boxed: it is much larger
    /// than the filesystem tier.
    ObjectStore(Box<S3RemoteStorage>),
}

impl Storage {
    /// The tier as Kafka's storage manager SPI.
    #[must_use]
    pub fn manager(&self) -> &dyn RemoteStorageManager {
        match self {
            Self::Filesystem(tier) => tier,
            Self::ObjectStore(tier) => tier.as_ref(),
        }
    }
}

impl Copier for Storage {
    fn copy(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        match self {
            // Local file copies are short; the worker checks the flag when the copy returns.
            Self::Filesystem(tier) => tier.copy_log_segment_data(metadata, segment),
            // Stops at the next part and aborts its multipart upload.
            Self::ObjectStore(tier) => {
                tier.copy_log_segment_data_cancellable(metadata, segment, cancel)
            }
        }
    }

    fn delete(&self, metadata: &RemoteLogSegmentMetadata) -> Result<()> {
        self.manager().delete_log_segment_data(metadata)
    }
}

/// The storage manager for `config`.
///
/// # Errors
/// The backend's error when it cannot be set up (for example an S3 client
/// that cannot be built).
pub fn open_storage(config: BackendConfig) -> Result<Arc<Storage>, BridgeError> {
    Ok(Arc::new(match config {
        BackendConfig::Filesystem { root } => Storage::Filesystem(LocalTieredStorage::new(root)),
        BackendConfig::ObjectStore(store) => {
            Storage::ObjectStore(Box::new(S3RemoteStorage::from_config(&store)?))
        }
    }))
}

/// A new, empty in-memory metadata manager.
#[must_use]
pub fn open_metadata_manager() -> Arc<dyn RemoteLogMetadataManager> {
    Arc::new(InmemoryRemoteLogMetadataManager::new())
}
