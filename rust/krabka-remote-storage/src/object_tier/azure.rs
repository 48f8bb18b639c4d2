//! Azure Blob Storage, on the same engine as S3 and GCS.

use {
    super::S3RemoteStorage,
    krabka_kafka::Result,
    krabka_object_store::{AzureConfig, ObjectStoreConfig},
};

impl S3RemoteStorage {
    /// A tier on an Azure Blob Storage container, with the configuration's
    /// prefix and block tuning. Objects are block blobs: one Put Blob below
    /// the multipart threshold, else blocks staged with Put Block and
    /// published atomically by one Put Block List (a failed upload leaves
    /// only uncommitted blocks, which readers never see and Azure discards).
    ///
    /// ```
    /// use krabka_object_store::{AzureCredentials, Secret};
    /// use krabka_remote_storage::{AzureConfig, S3RemoteStorage};
    /// let mut config = AzureConfig::new(
    ///     "account",
    ///     "tier",
    ///     AzureCredentials::AccessKey(Secret::new("a2V5")),
    /// );
    /// config.prefix = Some("kafka".to_owned());
    /// let tier = S3RemoteStorage::from_azure_config(&config).unwrap();
    /// assert_eq!(tier.prefix(), Some("kafka"));
    /// ```
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`](crate::RemoteStorageError::Config), whose
    /// cause names the bad field.
    pub fn from_azure_config(config: &AzureConfig) -> Result<Self> {
        Self::from_config(&ObjectStoreConfig::Azure(config.clone()))
    }
}
