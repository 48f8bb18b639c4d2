//! Builds the Rust managers the adapters drive.

use {
    crate::{config::BackendConfig, copy::Copier, error::BridgeError},
    krabka_remote_storage::{
        CancellationToken, CustomMetadata, InmemoryRemoteLogMetadataManager, LocalTieredStorage,
        LogSegmentData, RemoteLogMetadataManager, RemoteLogSegmentMetadata, RemoteStorageError,
        RemoteStorageManager, Result, S3RemoteStorage,
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

/// What a delete did with a segment's objects, as `NativeBridge.delete`
/// returns it to the adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// The objects are gone (or were never there).
    Deleted,
    /// The tier is a write-once archive, which refuses deletes: the objects
    /// stay until the bucket's retention lets them go. Kafka may forget the
    /// segment all the same.
    RetainedByArchive,
}

impl DeleteOutcome {
    /// The code that crosses JNI: 0 deleted, 1 retained by the archive
    /// (`KrabkaRemoteStorageManager.DELETE_*`).
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            Self::Deleted => 0,
            Self::RetainedByArchive => 1,
        }
    }

    /// The outcome of a delete on a tier that is (`worm`) or is not a
    /// write-once archive: a [`RemoteStorageError::Refused`] from an archive
    /// is the archive keeping the segment, not a failure. Every other error,
    /// and a refusal from any other tier, stays an error.
    ///
    /// # Errors
    /// `result`'s error, unless it is an archive's refusal.
    pub fn of(worm: bool, result: Result<()>) -> Result<Self> {
        match result {
            Ok(()) => Ok(Self::Deleted),
            Err(RemoteStorageError::Refused(_)) if worm => Ok(Self::RetainedByArchive),
            Err(err) => Err(err),
        }
    }
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

    /// Whether the tier is a write-once archive (`worm.enabled`).
    #[must_use]
    pub fn is_worm(&self) -> bool {
        match self {
            Self::Filesystem(_) => false,
            Self::ObjectStore(tier) => tier.worm_evidence().is_some(),
        }
    }

    /// Deletes a segment for Kafka ([`DeleteOutcome::of`]): an archive's
    /// refusal comes back as [`DeleteOutcome::RetainedByArchive`].
    ///
    /// # Errors
    /// The tier's error, unless it is an archive's refusal.
    pub fn delete_segment(&self, metadata: &RemoteLogSegmentMetadata) -> Result<DeleteOutcome> {
        DeleteOutcome::of(
            self.is_worm(),
            self.manager().delete_log_segment_data(metadata),
        )
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

/// The storage manager for `config`. With the write-once archive mode on,
/// this is where the bucket must prove it is locked
/// ([`S3RemoteStorage::with_worm`]).
///
/// # Errors
/// The backend's error when it cannot be set up (for example an S3 client
/// that cannot be built); [`BridgeError::WormStartup`] when the archive mode
/// cannot start (an unusable signing key, a bucket that is not locked or
/// cannot be reached).
pub fn open_storage(config: BackendConfig) -> Result<Arc<Storage>, BridgeError> {
    Ok(Arc::new(match config {
        BackendConfig::Filesystem { root } => Storage::Filesystem(LocalTieredStorage::new(root)),
        BackendConfig::ObjectStore { store, worm } => {
            let tier = S3RemoteStorage::from_config(&store)?;
            let tier = match worm {
                Some(worm) => tier.with_worm(worm).map_err(BridgeError::WormStartup)?,
                None => tier,
            };
            Storage::ObjectStore(Box::new(tier))
        }
    }))
}

/// A new, empty in-memory metadata manager.
#[must_use]
pub fn open_metadata_manager() -> Arc<dyn RemoteLogMetadataManager> {
    Arc::new(InmemoryRemoteLogMetadataManager::new())
}

#[cfg(test)]
mod tests;
