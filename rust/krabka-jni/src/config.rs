//! The plugins' configuration: the one table of keys, the storage
//! manager's parser and the metadata manager's ([`parse_metadata`]).
//!
//! [`keys`] defines every `rsm.config.*` and `rlmm.config.*` key once: name,
//! type, default, valid values, importance, who reads it, documentation.
//! [`render`] writes the Java side (`ConfigKeys.java`: constants, the
//! `ConfigDef`s, the keys passed to the native library) and the tables of
//! `docs/configuration.md` from it; tests fail when the committed files
//! differ, and the Java tests compare the adapters' `ConfigDef`s with the
//! table through `NativeBridge.configTable()`.
//!
//! The Java adapter checks each value with its generated `ConfigDef` and
//! passes the storage manager's native keys as strings (defaults included,
//! secrets revealed). [`parse_backend`] checks them again by the same table,
//! then applies the rules that span keys (what each backend requires, the
//! write-once archive mode) and builds the typed configs of
//! `krabka-object-store`, whose own validation runs too. Every error names
//! the configuration key, never a Rust field name.

mod error;
mod format;
pub mod keys;
mod metadata;
pub mod render;
mod settings;

pub use {
    error::ConfigError,
    format::{FormatConfig, parse_format},
    metadata::{MetadataConfig, parse_metadata},
};
use {
    keys::{ConfigKey, Plugin},
    krabka_object_store::S3ServerSideEncryption,
    krabka_object_store::{
        AzureCredentials, ObjectStoreConfigError, S3Credentials, Secret,
        store::cache::{CacheConfig, DiskCacheConfig},
    },
    krabka_remote_storage::{
        ArchiveLogConfig, AzureConfig, GcsConfig, ObjectStoreConfig, S3Config, WitnessConfig,
        WormConfig,
    },
    settings::Settings,
    std::{path::PathBuf, time::Duration},
};

/// Which remote tier a storage manager uses, fully configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendConfig {
    /// Files under a directory, byte-compatible with Kafka's
    /// `LocalTieredStorage`.
    Filesystem {
        /// The directory.
        root: PathBuf,
    },
    /// An S3 or GCS bucket, or an Azure container.
    ObjectStore {
        /// The bucket and its client settings.
        store: Box<ObjectStoreConfig>,
        /// The write-once archive mode, when `worm.enabled` is true.
        worm: Option<Box<WormConfig>>,
        /// `worm.allow.plain.on.archive`: the plain tier may start on a
        /// bucket that holds an archive.
        allow_plain_on_archive: bool,
        /// The read cache's sizes and disk tier (`fetch.cache.*`,
        /// `fetch.prefetch.chunks`); `None` when `fetch.cache.size.bytes` is 0.
        read_cache: Option<CacheConfig>,
    },
}

/// Parses the storage manager's configuration.
///
/// Every entry is checked against the key table first (unknown keys and
/// invalid values are refused whatever the backend). The `worm.*` keys
/// matter only when `worm.enabled` is true: then `worm.signing.key.path` and
/// `worm.key.id` are required and the backend must be `s3` or `gcs`. With
/// `worm.enabled` false (the default) the other `worm.*` keys are accepted
/// and ignored, so an operator can switch the mode off by changing one line;
/// their values must still be valid.
///
/// # Errors
/// [`ConfigError`] naming the first bad key.
pub fn parse_backend(entries: &[(String, String)]) -> Result<BackendConfig, ConfigError> {
    let settings = Settings::check(Plugin::StorageManager, entries)?;
    let backend = settings.text(ConfigKey::Backend);
    if backend == Some("filesystem") && settings.flag(ConfigKey::WormEnabled) {
        return Err(ConfigError::refused(
            ConfigKey::WormEnabled,
            "true",
            "false with backend filesystem (the write-once archive mode needs backend s3 or gcs)",
        ));
    }
    if backend == Some("azure") && settings.flag(ConfigKey::WormEnabled) {
        return Err(ConfigError::refused(
            ConfigKey::WormEnabled,
            "true",
            "false with backend azure (the write-once archive cannot prove an Azure immutability policy yet, so it would run unprotected; see docs/worm.md)",
        ));
    }
    let worm = worm_config(&settings)?;
    let store = match backend {
        Some("filesystem") => {
            return Ok(BackendConfig::Filesystem {
                root: PathBuf::from(settings.required(ConfigKey::FilesystemRoot, "filesystem")?),
            });
        }
        Some("s3") => ObjectStoreConfig::S3(s3_config(&settings)?),
        Some("gcs") => ObjectStoreConfig::Gcs(gcs_config(&settings)?),
        Some("azure") => ObjectStoreConfig::Azure(azure_config(&settings)?),
        other => {
            return Err(ConfigError::invalid(
                ConfigKey::Backend,
                other.unwrap_or_default(),
            ));
        }
    };
    store
        .validate()
        .map_err(|err| from_store_error(&store, err))?;
    Ok(BackendConfig::ObjectStore {
        store: Box::new(store),
        worm: worm.map(Box::new),
        allow_plain_on_archive: settings.flag(ConfigKey::WormAllowPlainOnArchive),
        read_cache: read_cache(&settings)?,
    })
}

/// The read cache of an object-store backend: `None` when
/// `fetch.cache.size.bytes` is 0; its disk tier when
/// `fetch.cache.disk.path` is set and `fetch.cache.disk.size.bytes` is not
/// 0. Sizes that do not fit together are refused, naming the size at fault.
fn read_cache(settings: &Settings<'_>) -> Result<Option<CacheConfig>, ConfigError> {
    let capacity_bytes: u64 = settings.integer(ConfigKey::FetchCacheSizeBytes)?;
    if capacity_bytes == 0 {
        return Ok(None);
    }
    let config = CacheConfig {
        capacity_bytes,
        chunk_bytes: settings.integer(ConfigKey::FetchCacheChunkSizeBytes)?,
        prefetch_chunks: settings.integer(ConfigKey::FetchPrefetchChunks)?,
        ..CacheConfig::default()
    };
    config.clone().validated().map_err(|_| {
        ConfigError::refused(
            ConfigKey::FetchCacheSizeBytes,
            &capacity_bytes.to_string(),
            "0, or room for fetch.prefetch.chunks + 2 chunks of fetch.cache.chunk.size.bytes",
        )
    })?;
    let disk_bytes: u64 = settings.integer(ConfigKey::FetchCacheDiskSizeBytes)?;
    let disk = match settings.text(ConfigKey::FetchCacheDiskPath) {
        Some(directory) if !directory.is_empty() && disk_bytes > 0 => Some(DiskCacheConfig {
            directory: directory.into(),
            size_bytes: disk_bytes,
        }),
        _ => None,
    };
    let config = CacheConfig { disk, ..config };
    config.validated().map(Some).map_err(|_| {
        ConfigError::refused(
            ConfigKey::FetchCacheDiskSizeBytes,
            &disk_bytes.to_string(),
            "0, or room for 2 chunks of fetch.cache.chunk.size.bytes",
        )
    })
}

/// The archive mode: `None` unless `worm.enabled` is true.
fn worm_config(settings: &Settings<'_>) -> Result<Option<WormConfig>, ConfigError> {
    if !settings.flag(ConfigKey::WormEnabled) {
        return Ok(None);
    }
    let required = |key| {
        settings
            .text(key)
            .ok_or(ConfigError::MissingForWorm { key })
    };
    let key_path = required(ConfigKey::WormSigningKeyPath)?;
    let key_id = required(ConfigKey::WormKeyId)?;
    let mut config =
        WormConfig::new(key_path, key_id).write_only(settings.flag(ConfigKey::WormWriteOnly));
    if let Some(pairs) = settings.text(ConfigKey::WormTrustedKeys) {
        for (key_id, public_key) in trusted_keys(pairs)? {
            config = config.with_trusted_key(key_id, public_key);
        }
    }
    if let Some(log) = archive_log(settings)? {
        config = config.with_log(log);
    }
    Ok(Some(config))
}

/// `worm.log.*`: the archive log, when `worm.log.origin` is set.
fn archive_log(settings: &Settings<'_>) -> Result<Option<ArchiveLogConfig>, ConfigError> {
    let witnesses = settings.text(ConfigKey::WormLogWitnesses);
    let Some(origin) = settings.text(ConfigKey::WormLogOrigin) else {
        if let Some(witnesses) = witnesses {
            return Err(ConfigError::refused(
                ConfigKey::WormLogWitnesses,
                witnesses,
                "no witnesses without worm.log.origin (there is no log to witness)",
            ));
        }
        return Ok(None);
    };
    if !krabka_remote_storage::tlog::note::is_valid_key_name(origin) {
        return Err(ConfigError::refused(
            ConfigKey::WormLogOrigin,
            origin,
            "a schema-less URL without spaces or '+' (e.g. archive.example.com/orders)",
        ));
    }
    let interval_ms: u64 = settings.integer(ConfigKey::WormLogCheckpointIntervalMs)?;
    let mut log = ArchiveLogConfig::new(origin).with_interval(Duration::from_millis(interval_ms));
    for entry in witnesses
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
    {
        const EXPECTED: &str = "comma-separated witnesses, each its URL and its C2SP cosignature verifier key separated by a space";
        let refused = || ConfigError::refused(ConfigKey::WormLogWitnesses, entry, EXPECTED);
        let (url, vkey) = entry.split_once(char::is_whitespace).ok_or_else(refused)?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(refused());
        }
        let witness = WitnessConfig::new(url, vkey.trim()).map_err(|_| refused())?;
        log = log.with_witness(witness);
    }
    Ok(Some(log))
}

/// The pairs of `worm.trusted.keys`: `key-id=64 hex characters`, comma
/// separated (blanks around each pair ignored).
fn trusted_keys(pairs: &str) -> Result<Vec<(&str, [u8; 32])>, ConfigError> {
    const EXPECTED: &str =
        "comma-separated key-id=public-key pairs, each public key 64 hex characters";
    let refused = || ConfigError::refused(ConfigKey::WormTrustedKeys, pairs, EXPECTED);
    pairs
        .split(',')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key_id, hex) = pair.split_once('=').ok_or_else(refused)?;
            let key_id = key_id.trim();
            let hex = hex.trim();
            if key_id.is_empty() || hex.len() != 64 || !hex.is_ascii() {
                return Err(refused());
            }
            let mut public_key = [0u8; 32];
            for (byte, digits) in public_key.iter_mut().zip(hex.as_bytes().chunks(2)) {
                let digits = std::str::from_utf8(digits).map_err(|_| refused())?;
                *byte = u8::from_str_radix(digits, 16).map_err(|_| refused())?;
            }
            Ok((key_id, public_key))
        })
        .collect()
}

/// `s3.server.side.encryption` and `s3.sse.kms.key.id`; a key id without
/// `aws:kms` is refused rather than ignored.
fn server_side_encryption(settings: &Settings<'_>) -> Result<S3ServerSideEncryption, ConfigError> {
    let key_id = settings.text(ConfigKey::S3SseKmsKeyId).map(str::to_owned);
    match settings.text(ConfigKey::S3ServerSideEncryption) {
        Some("aws:kms") => Ok(S3ServerSideEncryption::Kms { key_id }),
        mode => match key_id {
            Some(key) => Err(ConfigError::refused(
                ConfigKey::S3SseKmsKeyId,
                &key,
                "unset unless s3.server.side.encryption is aws:kms",
            )),
            None if mode == Some("AES256") => Ok(S3ServerSideEncryption::S3Managed),
            None => Ok(S3ServerSideEncryption::BucketDefault),
        },
    }
}

fn s3_config(settings: &Settings<'_>) -> Result<S3Config, ConfigError> {
    let mut config = S3Config::new(
        settings.required(ConfigKey::S3Bucket, "s3")?,
        settings.required(ConfigKey::S3Region, "s3")?,
    );
    config.prefix = settings.text(ConfigKey::Prefix).map(str::to_owned);
    config.endpoint = settings.text(ConfigKey::S3Endpoint).map(str::to_owned);
    config.path_style = settings.flag(ConfigKey::S3PathStyle);
    config.allow_http = settings.flag(ConfigKey::S3AllowHttp);
    config.storage_class = settings.text(ConfigKey::S3StorageClass).map(str::to_owned);
    config.tls_ca_certificates = settings
        .text(ConfigKey::S3TlsCaCertificatesPath)
        .map(PathBuf::from);
    config.server_side_encryption = server_side_encryption(settings)?;
    config.credentials = match (
        settings.text(ConfigKey::S3AccessKeyId),
        settings.text(ConfigKey::S3SecretAccessKey),
    ) {
        (None, None) => S3Credentials::Ambient,
        (Some(access_key_id), Some(secret)) => S3Credentials::Static {
            access_key_id: access_key_id.to_owned(),
            secret_access_key: Secret::new(secret),
            session_token: settings.text(ConfigKey::S3SessionToken).map(Secret::new),
        },
        (None, Some(_)) => {
            return Err(ConfigError::Missing {
                key: ConfigKey::S3AccessKeyId,
                backend: "s3",
            });
        }
        (Some(_), None) => {
            return Err(ConfigError::Missing {
                key: ConfigKey::S3SecretAccessKey,
                backend: "s3",
            });
        }
    };
    let tuning = Tuning::read(settings)?;
    config.multipart_threshold = tuning.multipart_threshold;
    config.multipart_chunk_size = tuning.multipart_chunk_size;
    config.parts_in_flight = tuning.parts_in_flight;
    config.max_retries = tuning.max_retries;
    config.retry_timeout = tuning.retry_timeout;
    config.request_timeout = tuning.request_timeout;
    config.connect_timeout = tuning.connect_timeout;
    Ok(config)
}

fn gcs_config(settings: &Settings<'_>) -> Result<GcsConfig, ConfigError> {
    let mut config = GcsConfig::new(settings.required(ConfigKey::GcsBucket, "gcs")?);
    config.prefix = settings.text(ConfigKey::Prefix).map(str::to_owned);
    config.endpoint = settings.text(ConfigKey::GcsEndpoint).map(str::to_owned);
    config.allow_http = settings.flag(ConfigKey::GcsAllowHttp);
    config.service_account_path = settings
        .text(ConfigKey::GcsServiceAccountPath)
        .map(PathBuf::from);
    config.service_account_key = settings
        .text(ConfigKey::GcsServiceAccountKey)
        .map(Secret::new);
    config.application_credentials_path = settings
        .text(ConfigKey::GcsApplicationCredentialsPath)
        .map(PathBuf::from);
    let tuning = Tuning::read(settings)?;
    config.multipart_threshold = tuning.multipart_threshold;
    config.multipart_chunk_size = tuning.multipart_chunk_size;
    config.parts_in_flight = tuning.parts_in_flight;
    config.max_retries = tuning.max_retries;
    config.retry_timeout = tuning.retry_timeout;
    config.request_timeout = tuning.request_timeout;
    config.connect_timeout = tuning.connect_timeout;
    Ok(config)
}

/// `azure.access.key` or `azure.sas.token`: exactly one of them.
fn azure_credentials(settings: &Settings<'_>) -> Result<AzureCredentials, ConfigError> {
    match (
        settings.text(ConfigKey::AzureAccessKey),
        settings.text(ConfigKey::AzureSasToken),
    ) {
        (Some(key), None) => Ok(AzureCredentials::AccessKey(Secret::new(key))),
        (None, Some(sas)) => Ok(AzureCredentials::SasToken(Secret::new(sas))),
        (None, None) => Err(ConfigError::Missing {
            key: ConfigKey::AzureAccessKey,
            backend: "azure",
        }),
        (Some(_), Some(sas)) => Err(ConfigError::refused(
            ConfigKey::AzureSasToken,
            sas,
            "unset when azure.access.key is set (one credential, not both)",
        )),
    }
}

fn azure_config(settings: &Settings<'_>) -> Result<AzureConfig, ConfigError> {
    let mut config = AzureConfig::new(
        settings.required(ConfigKey::AzureAccount, "azure")?,
        settings.required(ConfigKey::AzureContainer, "azure")?,
        azure_credentials(settings)?,
    );
    config.prefix = settings.text(ConfigKey::Prefix).map(str::to_owned);
    config.endpoint = settings.text(ConfigKey::AzureEndpoint).map(str::to_owned);
    config.allow_http = settings.flag(ConfigKey::AzureAllowHttp);
    let tuning = Tuning::read(settings)?;
    config.multipart_threshold = tuning.multipart_threshold;
    config.multipart_chunk_size = tuning.multipart_chunk_size;
    config.parts_in_flight = tuning.parts_in_flight;
    config.max_retries = tuning.max_retries;
    config.retry_timeout = tuning.retry_timeout;
    config.request_timeout = tuning.request_timeout;
    config.connect_timeout = tuning.connect_timeout;
    Ok(config)
}

/// The client tuning the object stores share; unset keys take the table's
/// defaults, which are `krabka-object-store`'s.
struct Tuning {
    multipart_threshold: u64,
    multipart_chunk_size: usize,
    parts_in_flight: usize,
    max_retries: usize,
    retry_timeout: Duration,
    request_timeout: Duration,
    connect_timeout: Duration,
}

impl Tuning {
    fn read(settings: &Settings<'_>) -> Result<Self, ConfigError> {
        let millis = |key| settings.integer(key).map(Duration::from_millis);
        Ok(Self {
            multipart_threshold: settings.integer(ConfigKey::MultipartThresholdBytes)?,
            multipart_chunk_size: settings.integer(ConfigKey::MultipartChunkSizeBytes)?,
            parts_in_flight: settings.integer(ConfigKey::MultipartPartsInFlight)?,
            max_retries: settings.integer(ConfigKey::MaxRetries)?,
            retry_timeout: millis(ConfigKey::RetryTimeoutMs)?,
            request_timeout: millis(ConfigKey::RequestTimeoutMs)?,
            connect_timeout: millis(ConfigKey::ConnectTimeoutMs)?,
        })
    }
}

/// The configuration key behind a field of `store`, as
/// `krabka-object-store`'s errors name it.
fn key_of_field(store: &ObjectStoreConfig, field: &str) -> Option<ConfigKey> {
    let s3 = matches!(store, ObjectStoreConfig::S3(_));
    let azure = matches!(store, ObjectStoreConfig::Azure(_));
    Some(match field {
        "bucket" if s3 => ConfigKey::S3Bucket,
        "bucket" => ConfigKey::GcsBucket,
        "endpoint" if s3 => ConfigKey::S3Endpoint,
        "endpoint" if azure => ConfigKey::AzureEndpoint,
        "endpoint" => ConfigKey::GcsEndpoint,
        "account" => ConfigKey::AzureAccount,
        "container" => ConfigKey::AzureContainer,
        "access_key" => ConfigKey::AzureAccessKey,
        "sas_token" => ConfigKey::AzureSasToken,
        "region" => ConfigKey::S3Region,
        "prefix" => ConfigKey::Prefix,
        "access_key_id" => ConfigKey::S3AccessKeyId,
        "secret_access_key" => ConfigKey::S3SecretAccessKey,
        "service_account_key" => ConfigKey::GcsServiceAccountKey,
        "multipart_threshold" => ConfigKey::MultipartThresholdBytes,
        "multipart_chunk_size" => ConfigKey::MultipartChunkSizeBytes,
        "parts_in_flight" => ConfigKey::MultipartPartsInFlight,
        "retry_timeout" => ConfigKey::RetryTimeoutMs,
        "request_timeout" => ConfigKey::RequestTimeoutMs,
        "connect_timeout" => ConfigKey::ConnectTimeoutMs,
        _ => return None,
    })
}

fn from_store_error(store: &ObjectStoreConfig, err: ObjectStoreConfigError) -> ConfigError {
    let backend = match store {
        ObjectStoreConfig::S3(_) => "s3",
        ObjectStoreConfig::Azure(_) => "azure",
        _ => "gcs",
    };
    match &err {
        ObjectStoreConfigError::Missing { field } => match key_of_field(store, field) {
            Some(key) => ConfigError::Missing { key, backend },
            None => ConfigError::ObjectStore(err),
        },
        ObjectStoreConfigError::Invalid {
            field,
            value,
            expected,
        } => match key_of_field(store, field) {
            Some(key) => ConfigError::refused(key, value, expected),
            None => ConfigError::ObjectStore(err),
        },
        _ => ConfigError::ObjectStore(err),
    }
}

#[cfg(test)]
mod tests;
