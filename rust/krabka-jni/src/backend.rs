//! Builds the Rust managers the adapters drive.

use {
    crate::{config::BackendConfig, error::BridgeError},
    krabka_remote_storage::{
        InmemoryRemoteLogMetadataManager, LocalTieredStorage, RemoteLogMetadataManager,
        RemoteStorageError, RemoteStorageManager,
    },
    std::sync::Arc,
};

/// The storage manager for `config`.
///
/// # Errors
/// The backend's error when it cannot be set up (for example an S3 client
/// that cannot be built).
pub fn open_storage(config: BackendConfig) -> Result<Arc<dyn RemoteStorageManager>, BridgeError> {
    Ok(match config {
        BackendConfig::Filesystem { root } => Arc::new(LocalTieredStorage::new(root)),
        BackendConfig::ObjectStore(_) => {
            // TODO(objstore): S3RemoteStorage is on the objstore branch.
            return Err(RemoteStorageError::Refused(
                "the s3 and gcs backends are not in this build".to_owned(),
            )
            .into());
        }
    })
}

/// A new, empty in-memory metadata manager.
#[must_use]
pub fn open_metadata_manager() -> Arc<dyn RemoteLogMetadataManager> {
    Arc::new(InmemoryRemoteLogMetadataManager::new())
}
