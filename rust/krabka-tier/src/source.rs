//! [`Source`]: where a tier is, as command-line options (shared by
//! `krabka-tier` and the replay tool).

use {
    clap::Args,
    krabka_object_store::{GcsConfig, ObjectStoreConfig, S3Config},
    std::path::PathBuf,
};

/// Where the tier is.
#[derive(Debug, Clone, Args)]
pub struct Source {
    /// A filesystem tier, or a local copy of a bucket.
    #[arg(long, group = "tier")]
    pub local: Option<PathBuf>,
    /// S3 bucket (credentials from the AWS environment).
    #[arg(long, group = "tier")]
    pub s3_bucket: Option<String>,
    /// S3 endpoint (S3-compatible servers).
    #[arg(long, requires = "s3_bucket")]
    pub s3_endpoint: Option<String>,
    /// S3 region.
    #[arg(long, default_value = "us-east-1")]
    pub s3_region: String,
    /// Path-style S3 requests.
    #[arg(long)]
    pub path_style: bool,
    /// GCS bucket (credentials from GOOGLE_APPLICATION_CREDENTIALS).
    #[arg(long, group = "tier")]
    pub gcs_bucket: Option<String>,
    /// GCS endpoint (emulators).
    #[arg(long, requires = "gcs_bucket")]
    pub gcs_endpoint: Option<String>,
    /// Send no GCS credentials (emulators).
    #[arg(long, requires = "gcs_bucket")]
    pub gcs_no_auth: bool,
    /// Key prefix of the tier (`rsm.config.prefix`).
    #[arg(long)]
    pub prefix: Option<String>,
}

impl Source {
    /// The store configuration, `None` when no tier is named.
    #[must_use]
    pub fn config(&self) -> Option<ObjectStoreConfig> {
        if let Some(root) = &self.local {
            return Some(ObjectStoreConfig::Local { root: root.clone() });
        }
        if let Some(bucket) = &self.s3_bucket {
            let mut s3 = S3Config::new(bucket.clone(), self.s3_region.clone());
            s3.endpoint.clone_from(&self.s3_endpoint);
            s3.path_style = self.path_style;
            s3.allow_http = self
                .s3_endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://"));
            return Some(ObjectStoreConfig::S3(s3));
        }
        if let Some(bucket) = &self.gcs_bucket {
            let mut gcs = GcsConfig::new(bucket.clone());
            gcs.endpoint.clone_from(&self.gcs_endpoint);
            gcs.allow_http = self
                .gcs_endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://"));
            if self.gcs_no_auth {
                gcs = gcs.without_auth();
            }
            return Some(ObjectStoreConfig::Gcs(gcs));
        }
        None
    }
}
