//! Google Cloud Storage through its native API, on the same engine as S3.

use {
    super::S3RemoteStorage,
    krabka_kafka::Result,
    krabka_object_store::{GcsConfig, ObjectStoreConfig},
};

impl S3RemoteStorage {
    /// A tier on a GCS bucket through the native GCS API (not the S3
    /// interoperability endpoint), with the configuration's prefix and
    /// multipart tuning. Credentials come from `service_account_path`,
    /// `service_account_key` or `application_credentials_path`, else from the
    /// ambient application-default chain (`$GOOGLE_APPLICATION_CREDENTIALS`,
    /// gcloud's well-known file, the metadata server / Workload Identity).
    ///
    /// ```
    /// use krabka_remote_storage::{GcsConfig, S3RemoteStorage};
    /// let mut config = GcsConfig::new("tier");
    /// config.prefix = Some("kafka".to_owned());
    /// config.service_account_key = Some(krabka_object_store::Secret::new(
    ///     r#"{"private_key":"x","private_key_id":"x","client_email":"x@example.com","disable_oauth":true}"#,
    /// ));
    /// let tier = S3RemoteStorage::from_gcs_config(&config).unwrap();
    /// assert_eq!(tier.prefix(), Some("kafka"));
    /// ```
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`](crate::RemoteStorageError::InvalidArgument)
    /// naming the bad field.
    pub fn from_gcs_config(config: &GcsConfig) -> Result<Self> {
        Self::from_config(&ObjectStoreConfig::Gcs(config.clone()))
    }
}
