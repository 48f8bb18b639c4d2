//! [`Source`]: where a tier is, as command-line options (shared by
//! `krabka-tier` and the replay tool).

use {
    crate::{DecodingStore, TierError},
    clap::Args,
    krabka_envelope::{KeyPairFiles, KeyRing, RsaKeyPairs},
    krabka_object_store::{
        AzureConfig, AzureCredentials, GcsConfig, ObjectStoreConfig, S3Config, Secret,
        build_object_store,
    },
    std::{path::PathBuf, sync::Arc},
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
    /// A PEM file of root certificates trusted besides the system's for TLS
    /// to the S3 endpoint (a private CA, a TLS-inspecting proxy); the
    /// plugin's `rsm.config.s3.tls.ca.certificates.path`.
    #[arg(long, requires = "s3_bucket")]
    pub s3_ca_certificates: Option<PathBuf>,
    /// GCS bucket (credentials from GOOGLE_APPLICATION_CREDENTIALS).
    #[arg(long, group = "tier")]
    pub gcs_bucket: Option<String>,
    /// GCS endpoint (emulators).
    #[arg(long, requires = "gcs_bucket")]
    pub gcs_endpoint: Option<String>,
    /// Send no GCS credentials (emulators).
    #[arg(long, requires = "gcs_bucket")]
    pub gcs_no_auth: bool,
    /// Azure Blob Storage container (with --azure-account; the account key
    /// from AZURE_STORAGE_ACCESS_KEY or a SAS token from
    /// AZURE_STORAGE_SAS_TOKEN).
    #[arg(long, group = "tier", requires = "azure_account")]
    pub azure_container: Option<String>,
    /// Azure storage account.
    #[arg(long, requires = "azure_container")]
    pub azure_account: Option<String>,
    /// Azure blob endpoint of the account (emulators, private endpoints).
    #[arg(long, requires = "azure_container")]
    pub azure_endpoint: Option<String>,
    /// Key prefix of the tier (`rsm.config.prefix`).
    #[arg(long)]
    pub prefix: Option<String>,
    /// An RSA key pair of encrypted segments (docs/chunked-format.md),
    /// `ID=PUBLIC.pem,PRIVATE.pem`; repeat for every pair that wrapped a
    /// segment to read.
    #[arg(long = "key-pair")]
    pub key_pairs: Vec<String>,
}

/// A tier to read: where it is, and the key pairs of its encrypted
/// segments.
#[derive(Debug, Clone)]
pub struct TierAccess {
    /// The store.
    pub config: ObjectStoreConfig,
    /// The key pairs, if any were given.
    pub keys: Option<Arc<dyn KeyRing>>,
}

impl TierAccess {
    /// The tier's store, in which segments in the chunked format read as
    /// Kafka's plain bytes ([`DecodingStore`]).
    ///
    /// # Errors
    /// [`TierError::Config`] when the store cannot be built.
    pub fn store(&self) -> Result<Arc<DecodingStore>, TierError> {
        let inner = build_object_store(&self.config).map_err(TierError::Config)?;
        Ok(Arc::new(DecodingStore::new(inner, self.keys.clone())))
    }
}

/// Environment variable holding the Azure storage account's shared key.
pub const AZURE_ACCESS_KEY_ENV: &str = "AZURE_STORAGE_ACCESS_KEY";

/// Environment variable holding an Azure SAS token.
pub const AZURE_SAS_TOKEN_ENV: &str = "AZURE_STORAGE_SAS_TOKEN";

impl Source {
    /// The key pairs of `--key-pair`.
    ///
    /// # Errors
    /// A usage message for a value that is not `ID=PUBLIC.pem,PRIVATE.pem`.
    pub fn key_pair_files(&self) -> Result<Vec<KeyPairFiles>, String> {
        self.key_pairs
            .iter()
            .map(|pair| {
                KeyPairFiles::parse(pair)
                    .ok_or_else(|| format!("--key-pair {pair}: expected ID=PUBLIC.pem,PRIVATE.pem"))
            })
            .collect()
    }

    /// Where the tier is and the key pairs to read it with (each read once,
    /// here).
    ///
    /// # Errors
    /// A usage message, as [`Source::config`] and [`Source::key_pair_files`]
    /// say, or for a key pair that cannot be used.
    pub fn access(&self) -> Result<TierAccess, String> {
        let config = self.config()?;
        let pairs = self.key_pair_files()?;
        let keys = match pairs.first() {
            None => None,
            Some(first) => Some(Arc::new(
                RsaKeyPairs::load(&first.id, &pairs).map_err(|err| err.to_string())?,
            ) as Arc<dyn KeyRing>),
        };
        Ok(TierAccess { config, keys })
    }

    /// The store configuration.
    ///
    /// # Errors
    /// A usage message when no tier is named, or an Azure container has no
    /// credentials in the environment.
    pub fn config(&self) -> Result<ObjectStoreConfig, String> {
        // clap's `requires` does not hold for these flattened options: an
        // option of another tier is refused here rather than ignored.
        let stray = [
            (
                self.s3_bucket.is_none(),
                self.s3_endpoint.is_some() || self.s3_ca_certificates.is_some(),
                "--s3-endpoint and --s3-ca-certificates need --s3-bucket",
            ),
            (
                self.gcs_bucket.is_none(),
                self.gcs_endpoint.is_some() || self.gcs_no_auth,
                "--gcs-endpoint and --gcs-no-auth need --gcs-bucket",
            ),
            (
                self.azure_container.is_none(),
                self.azure_account.is_some() || self.azure_endpoint.is_some(),
                "--azure-account and --azure-endpoint need --azure-container",
            ),
        ];
        if let Some((_, _, message)) = stray.iter().find(|(absent, given, _)| *absent && *given) {
            return Err((*message).to_owned());
        }
        if let Some(root) = &self.local {
            return Ok(ObjectStoreConfig::Local { root: root.clone() });
        }
        if let Some(bucket) = &self.s3_bucket {
            let mut s3 = S3Config::new(bucket.clone(), self.s3_region.clone());
            s3.endpoint.clone_from(&self.s3_endpoint);
            s3.path_style = self.path_style;
            s3.tls_ca_certificates.clone_from(&self.s3_ca_certificates);
            s3.allow_http = self
                .s3_endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://"));
            return Ok(ObjectStoreConfig::S3(s3));
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
            return Ok(ObjectStoreConfig::Gcs(gcs));
        }
        if let (Some(container), Some(account)) = (&self.azure_container, &self.azure_account) {
            let env = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
            let credentials = match (env(AZURE_ACCESS_KEY_ENV), env(AZURE_SAS_TOKEN_ENV)) {
                (Some(key), _) => AzureCredentials::AccessKey(Secret::new(key)),
                (None, Some(token)) => AzureCredentials::SasToken(Secret::new(token)),
                (None, None) => {
                    return Err(format!(
                        "--azure-container needs {AZURE_ACCESS_KEY_ENV} or {AZURE_SAS_TOKEN_ENV} in the environment"
                    ));
                }
            };
            let mut azure = AzureConfig::new(account.clone(), container.clone(), credentials);
            azure.endpoint.clone_from(&self.azure_endpoint);
            azure.allow_http = self
                .azure_endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://"));
            return Ok(ObjectStoreConfig::Azure(azure));
        }
        Err("name the tier: --local, --s3-bucket, --gcs-bucket or --azure-container".to_owned())
    }
}
