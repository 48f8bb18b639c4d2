//! The storage manager's configuration, as the Java adapter passes it.
//!
//! The Java side validates `rsm.config.*` with Kafka's `ConfigDef` and passes
//! the keys below as strings (secrets revealed). This module turns them into
//! the typed configs of `krabka-object-store`, whose own validation runs too;
//! every error names the configuration key, never a Rust field name.

use {
    krabka_object_store::{ObjectStoreConfigError, S3Credentials, Secret},
    krabka_remote_storage::{GcsConfig, ObjectStoreConfig, S3Config, WormConfig},
    std::{path::PathBuf, time::Duration},
};

/// `backend`: which remote tier to use.
pub const BACKEND: &str = "backend";
/// `filesystem.root`: directory of the filesystem tier.
pub const FILESYSTEM_ROOT: &str = "filesystem.root";
/// `prefix`: object key prefix of the S3 and GCS tiers.
pub const PREFIX: &str = "prefix";
/// `s3.bucket`.
pub const S3_BUCKET: &str = "s3.bucket";
/// `s3.region`.
pub const S3_REGION: &str = "s3.region";
/// `s3.endpoint`.
pub const S3_ENDPOINT: &str = "s3.endpoint";
/// `s3.path.style`.
pub const S3_PATH_STYLE: &str = "s3.path.style";
/// `s3.allow.http`.
pub const S3_ALLOW_HTTP: &str = "s3.allow.http";
/// `s3.access.key.id`.
pub const S3_ACCESS_KEY_ID: &str = "s3.access.key.id";
/// `s3.secret.access.key`.
pub const S3_SECRET_ACCESS_KEY: &str = "s3.secret.access.key";
/// `s3.session.token`.
pub const S3_SESSION_TOKEN: &str = "s3.session.token";
/// `gcs.bucket`.
pub const GCS_BUCKET: &str = "gcs.bucket";
/// `gcs.endpoint`.
pub const GCS_ENDPOINT: &str = "gcs.endpoint";
/// `gcs.allow.http`.
pub const GCS_ALLOW_HTTP: &str = "gcs.allow.http";
/// `gcs.service.account.path`.
pub const GCS_SERVICE_ACCOUNT_PATH: &str = "gcs.service.account.path";
/// `gcs.service.account.key`.
pub const GCS_SERVICE_ACCOUNT_KEY: &str = "gcs.service.account.key";
/// `gcs.application.credentials.path`.
pub const GCS_APPLICATION_CREDENTIALS_PATH: &str = "gcs.application.credentials.path";
/// `multipart.threshold.bytes`.
pub const MULTIPART_THRESHOLD_BYTES: &str = "multipart.threshold.bytes";
/// `multipart.chunk.size.bytes`.
pub const MULTIPART_CHUNK_SIZE_BYTES: &str = "multipart.chunk.size.bytes";
/// `max.retries`.
pub const MAX_RETRIES: &str = "max.retries";
/// `retry.timeout.ms`.
pub const RETRY_TIMEOUT_MS: &str = "retry.timeout.ms";
/// `request.timeout.ms`.
pub const REQUEST_TIMEOUT_MS: &str = "request.timeout.ms";
/// `connect.timeout.ms`.
pub const CONNECT_TIMEOUT_MS: &str = "connect.timeout.ms";
/// `worm.enabled`: the write-once archive mode of the S3 and GCS tiers.
pub const WORM_ENABLED: &str = "worm.enabled";
/// `worm.signing.key.path`: the archive's PKCS#8 Ed25519 signing key.
pub const WORM_SIGNING_KEY_PATH: &str = "worm.signing.key.path";
/// `worm.key.id`: the key id written into manifests.
pub const WORM_KEY_ID: &str = "worm.key.id";
/// `worm.write.only`: refuse every fetch (a sink-only archive).
pub const WORM_WRITE_ONLY: &str = "worm.write.only";

/// Every key this module reads.
const KNOWN_KEYS: [&str; 27] = [
    BACKEND,
    FILESYSTEM_ROOT,
    PREFIX,
    S3_BUCKET,
    S3_REGION,
    S3_ENDPOINT,
    S3_PATH_STYLE,
    S3_ALLOW_HTTP,
    S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY,
    S3_SESSION_TOKEN,
    GCS_BUCKET,
    GCS_ENDPOINT,
    GCS_ALLOW_HTTP,
    GCS_SERVICE_ACCOUNT_PATH,
    GCS_SERVICE_ACCOUNT_KEY,
    GCS_APPLICATION_CREDENTIALS_PATH,
    MULTIPART_THRESHOLD_BYTES,
    MULTIPART_CHUNK_SIZE_BYTES,
    MAX_RETRIES,
    RETRY_TIMEOUT_MS,
    REQUEST_TIMEOUT_MS,
    CONNECT_TIMEOUT_MS,
    WORM_ENABLED,
    WORM_SIGNING_KEY_PATH,
    WORM_KEY_ID,
    WORM_WRITE_ONLY,
];

/// A refused storage-manager configuration; always names the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A key this plugin does not know.
    #[error("unknown configuration key `{key}`")]
    Unknown {
        /// The key.
        key: String,
    },
    /// A required key is missing or empty.
    #[error("`{key}` is required when `backend` is `{backend}`")]
    Missing {
        /// The key.
        key: &'static str,
        /// The chosen backend.
        backend: &'static str,
    },
    /// A key the write-once archive mode needs is missing or empty.
    #[error("`{key}` is required when `worm.enabled` is true")]
    MissingForWorm {
        /// The key.
        key: &'static str,
    },
    /// A value did not parse or was out of range.
    #[error("`{key}` has invalid value `{value}`: expected {expected}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// The rejected value (`<redacted>` for secrets).
        value: String,
        /// What would be accepted.
        expected: &'static str,
    },
}

/// Which remote tier a storage manager uses, fully configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendConfig {
    /// Files under a directory, byte-compatible with Kafka's
    /// `LocalTieredStorage`.
    Filesystem {
        /// The directory.
        root: PathBuf,
    },
    /// An S3 or GCS bucket.
    ObjectStore {
        /// The bucket and its client settings.
        store: Box<ObjectStoreConfig>,
        /// The write-once archive mode, when `worm.enabled` is true.
        worm: Option<WormConfig>,
    },
}

/// The entries, looked up by key.
struct Entries<'a>(&'a [(String, String)]);

impl Entries<'_> {
    /// The non-blank value of `key`.
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }

    fn required(&self, key: &'static str, backend: &'static str) -> Result<String, ConfigError> {
        self.get(key)
            .map(str::to_owned)
            .ok_or(ConfigError::Missing { key, backend })
    }

    fn bool(&self, key: &'static str) -> Result<bool, ConfigError> {
        match self.get(key) {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(ConfigError::Invalid {
                key,
                value: v.to_owned(),
                expected: "true or false",
            }),
        }
    }

    fn number<T: std::str::FromStr>(
        &self,
        key: &'static str,
        default: T,
    ) -> Result<T, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| ConfigError::Invalid {
                key,
                value: v.to_owned(),
                expected: "a non-negative integer",
            }),
        }
    }

    fn millis(&self, key: &'static str, default: Duration) -> Result<Duration, ConfigError> {
        let default_ms = u64::try_from(default.as_millis()).unwrap_or(u64::MAX);
        Ok(Duration::from_millis(self.number(key, default_ms)?))
    }
}

/// Parses the storage manager's configuration.
///
/// The `worm.*` keys matter only when `worm.enabled` is true: then
/// `worm.signing.key.path` and `worm.key.id` are required and the backend
/// must be `s3` or `gcs`. With `worm.enabled` false (the default) the other
/// `worm.*` keys are accepted and ignored, so an operator can switch the mode
/// off by changing one line; their values must still parse.
///
/// # Errors
/// [`ConfigError`] naming the first bad key.
pub fn parse_backend(entries: &[(String, String)]) -> Result<BackendConfig, ConfigError> {
    if let Some((key, _)) = entries
        .iter()
        .find(|(k, _)| !KNOWN_KEYS.contains(&k.as_str()))
    {
        return Err(ConfigError::Unknown { key: key.clone() });
    }
    let entries = Entries(entries);
    let backend = entries.get(BACKEND).unwrap_or("filesystem");
    if backend == "filesystem" && entries.bool(WORM_ENABLED)? {
        return Err(ConfigError::Invalid {
            key: WORM_ENABLED,
            value: "true".to_owned(),
            expected: "false with backend filesystem (the write-once archive mode needs backend s3 or gcs)",
        });
    }
    let worm = worm_config(&entries)?;
    let store = match backend {
        "filesystem" => {
            return Ok(BackendConfig::Filesystem {
                root: PathBuf::from(entries.required(FILESYSTEM_ROOT, "filesystem")?),
            });
        }
        "s3" => ObjectStoreConfig::S3(s3_config(&entries)?),
        "gcs" => ObjectStoreConfig::Gcs(gcs_config(&entries)?),
        other => {
            return Err(ConfigError::Invalid {
                key: BACKEND,
                value: other.to_owned(),
                expected: "filesystem, s3 or gcs",
            });
        }
    };
    store.validate().map_err(|err| from_store_error(&err))?;
    Ok(BackendConfig::ObjectStore {
        store: Box::new(store),
        worm,
    })
}

/// The archive mode: `None` unless `worm.enabled` is true.
fn worm_config(entries: &Entries<'_>) -> Result<Option<WormConfig>, ConfigError> {
    let enabled = entries.bool(WORM_ENABLED)?;
    let write_only = entries.bool(WORM_WRITE_ONLY)?;
    if !enabled {
        return Ok(None);
    }
    let key_path = entries
        .get(WORM_SIGNING_KEY_PATH)
        .ok_or(ConfigError::MissingForWorm {
            key: WORM_SIGNING_KEY_PATH,
        })?;
    let key_id = entries
        .get(WORM_KEY_ID)
        .ok_or(ConfigError::MissingForWorm { key: WORM_KEY_ID })?;
    Ok(Some(
        WormConfig::new(key_path, key_id).write_only(write_only),
    ))
}

fn s3_config(entries: &Entries<'_>) -> Result<S3Config, ConfigError> {
    let mut config = S3Config::new(
        entries.required(S3_BUCKET, "s3")?,
        entries.required(S3_REGION, "s3")?,
    );
    config.prefix = entries.get(PREFIX).map(str::to_owned);
    config.endpoint = entries.get(S3_ENDPOINT).map(str::to_owned);
    config.path_style = entries.bool(S3_PATH_STYLE)?;
    config.allow_http = entries.bool(S3_ALLOW_HTTP)?;
    config.credentials = match (
        entries.get(S3_ACCESS_KEY_ID),
        entries.get(S3_SECRET_ACCESS_KEY),
    ) {
        (None, None) => S3Credentials::Ambient,
        (Some(access_key_id), Some(secret)) => S3Credentials::Static {
            access_key_id: access_key_id.to_owned(),
            secret_access_key: Secret::new(secret),
            session_token: entries.get(S3_SESSION_TOKEN).map(Secret::new),
        },
        (None, Some(_)) => {
            return Err(ConfigError::Missing {
                key: S3_ACCESS_KEY_ID,
                backend: "s3",
            });
        }
        (Some(_), None) => {
            return Err(ConfigError::Missing {
                key: S3_SECRET_ACCESS_KEY,
                backend: "s3",
            });
        }
    };
    tuning(
        entries,
        &mut config.multipart_threshold,
        &mut config.multipart_chunk_size,
    )?;
    config.max_retries = entries.number(MAX_RETRIES, config.max_retries)?;
    config.retry_timeout = entries.millis(RETRY_TIMEOUT_MS, config.retry_timeout)?;
    config.request_timeout = entries.millis(REQUEST_TIMEOUT_MS, config.request_timeout)?;
    config.connect_timeout = entries.millis(CONNECT_TIMEOUT_MS, config.connect_timeout)?;
    Ok(config)
}

fn gcs_config(entries: &Entries<'_>) -> Result<GcsConfig, ConfigError> {
    let mut config = GcsConfig::new(entries.required(GCS_BUCKET, "gcs")?);
    config.prefix = entries.get(PREFIX).map(str::to_owned);
    config.endpoint = entries.get(GCS_ENDPOINT).map(str::to_owned);
    config.allow_http = entries.bool(GCS_ALLOW_HTTP)?;
    config.service_account_path = entries.get(GCS_SERVICE_ACCOUNT_PATH).map(PathBuf::from);
    config.service_account_key = entries.get(GCS_SERVICE_ACCOUNT_KEY).map(Secret::new);
    config.application_credentials_path = entries
        .get(GCS_APPLICATION_CREDENTIALS_PATH)
        .map(PathBuf::from);
    tuning(
        entries,
        &mut config.multipart_threshold,
        &mut config.multipart_chunk_size,
    )?;
    config.max_retries = entries.number(MAX_RETRIES, config.max_retries)?;
    config.retry_timeout = entries.millis(RETRY_TIMEOUT_MS, config.retry_timeout)?;
    config.request_timeout = entries.millis(REQUEST_TIMEOUT_MS, config.request_timeout)?;
    config.connect_timeout = entries.millis(CONNECT_TIMEOUT_MS, config.connect_timeout)?;
    Ok(config)
}

fn tuning(
    entries: &Entries<'_>,
    threshold: &mut u64,
    chunk_size: &mut usize,
) -> Result<(), ConfigError> {
    *threshold = entries.number(MULTIPART_THRESHOLD_BYTES, *threshold)?;
    *chunk_size = entries.number(MULTIPART_CHUNK_SIZE_BYTES, *chunk_size)?;
    Ok(())
}

/// The configuration key behind a field of `krabka-object-store`'s configs.
fn key_of_field(field: &str) -> &'static str {
    match field {
        "bucket" => "s3.bucket or gcs.bucket",
        "region" => S3_REGION,
        "prefix" => PREFIX,
        "endpoint" => "s3.endpoint or gcs.endpoint",
        "access_key_id" => S3_ACCESS_KEY_ID,
        "secret_access_key" => S3_SECRET_ACCESS_KEY,
        "service_account_key" => GCS_SERVICE_ACCOUNT_KEY,
        "multipart_threshold" => MULTIPART_THRESHOLD_BYTES,
        "multipart_chunk_size" => MULTIPART_CHUNK_SIZE_BYTES,
        "retry_timeout" => RETRY_TIMEOUT_MS,
        "request_timeout" => REQUEST_TIMEOUT_MS,
        "connect_timeout" => CONNECT_TIMEOUT_MS,
        _ => "an object store key",
    }
}

fn from_store_error(err: &ObjectStoreConfigError) -> ConfigError {
    match err {
        ObjectStoreConfigError::Missing { field } => ConfigError::Missing {
            key: key_of_field(field),
            backend: "s3 or gcs",
        },
        ObjectStoreConfigError::Invalid {
            field,
            value,
            expected,
        } => ConfigError::Invalid {
            key: key_of_field(field),
            value: value.clone(),
            expected,
        },
        _ => ConfigError::Invalid {
            key: BACKEND,
            value: String::new(),
            expected: "a valid object store configuration",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn filesystem_is_the_default_backend_and_needs_a_root() {
        let config = parse_backend(&entries(&[(FILESYSTEM_ROOT, "/tmp/tier")])).unwrap();
        assert_eq!(
            config,
            BackendConfig::Filesystem {
                root: PathBuf::from("/tmp/tier")
            }
        );
        assert_eq!(
            parse_backend(&entries(&[])),
            Err(ConfigError::Missing {
                key: FILESYSTEM_ROOT,
                backend: "filesystem"
            })
        );
    }

    #[test]
    fn unknown_keys_and_backends_are_named() {
        assert_eq!(
            parse_backend(&entries(&[(FILESYSTEM_ROOT, "/x"), ("s3.buckett", "b")])),
            Err(ConfigError::Unknown {
                key: "s3.buckett".to_owned()
            })
        );
        assert!(matches!(
            parse_backend(&entries(&[(BACKEND, "azure")])),
            Err(ConfigError::Invalid { key: BACKEND, .. })
        ));
    }

    #[test]
    fn s3_keys_fill_the_s3_config() {
        let config = parse_backend(&entries(&[
            (BACKEND, "s3"),
            (S3_BUCKET, "tiered"),
            (S3_REGION, "us-east-1"),
            (S3_ENDPOINT, "http://127.0.0.1:8333"),
            (S3_ALLOW_HTTP, "true"),
            (S3_PATH_STYLE, "TRUE"),
            (S3_ACCESS_KEY_ID, "id"),
            (S3_SECRET_ACCESS_KEY, "secret"),
            (PREFIX, "kafka/cluster-1"),
            (MULTIPART_THRESHOLD_BYTES, "10485760"),
            (REQUEST_TIMEOUT_MS, "1500"),
        ]))
        .unwrap();
        let BackendConfig::ObjectStore { store, worm: None } = config else {
            panic!("expected an S3 config without WORM, got {config:?}");
        };
        let ObjectStoreConfig::S3(s3) = *store else {
            panic!("expected an S3 config, got {store:?}");
        };
        assert_eq!(s3.bucket, "tiered");
        assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:8333"));
        assert!(s3.allow_http && s3.path_style);
        assert_eq!(s3.prefix.as_deref(), Some("kafka/cluster-1"));
        assert_eq!(s3.multipart_threshold, 10_485_760);
        assert_eq!(s3.request_timeout, Duration::from_millis(1500));
        assert!(matches!(s3.credentials, S3Credentials::Static { .. }));
    }

    #[test]
    fn s3_errors_name_the_configuration_key() {
        assert_eq!(
            parse_backend(&entries(&[(BACKEND, "s3"), (S3_REGION, "r")])),
            Err(ConfigError::Missing {
                key: S3_BUCKET,
                backend: "s3"
            })
        );
        assert_eq!(
            parse_backend(&entries(&[
                (BACKEND, "s3"),
                (S3_BUCKET, "tiered"),
                (S3_REGION, "r"),
                (S3_SECRET_ACCESS_KEY, "s"),
            ])),
            Err(ConfigError::Missing {
                key: S3_ACCESS_KEY_ID,
                backend: "s3"
            })
        );
        assert!(matches!(
            parse_backend(&entries(&[
                (BACKEND, "s3"),
                (S3_BUCKET, "tiered"),
                (S3_REGION, "r"),
                (S3_ENDPOINT, "http://127.0.0.1:1"),
            ])),
            Err(ConfigError::Invalid {
                key: "s3.endpoint or gcs.endpoint",
                ..
            })
        ));
        assert!(matches!(
            parse_backend(&entries(&[
                (BACKEND, "s3"),
                (S3_BUCKET, "tiered"),
                (S3_REGION, "r"),
                (S3_PATH_STYLE, "yes"),
            ])),
            Err(ConfigError::Invalid {
                key: S3_PATH_STYLE,
                ..
            })
        ));
        assert!(matches!(
            parse_backend(&entries(&[
                (BACKEND, "s3"),
                (S3_BUCKET, "tiered"),
                (S3_REGION, "r"),
                (MULTIPART_CHUNK_SIZE_BYTES, "1024"),
            ])),
            Err(ConfigError::Invalid {
                key: MULTIPART_CHUNK_SIZE_BYTES,
                ..
            })
        ));
    }

    #[test]
    fn gcs_keys_fill_the_gcs_config() {
        let config = parse_backend(&entries(&[
            (BACKEND, "gcs"),
            (GCS_BUCKET, "tiered"),
            (GCS_ENDPOINT, "http://127.0.0.1:4443"),
            (GCS_ALLOW_HTTP, "true"),
            (GCS_SERVICE_ACCOUNT_PATH, "/etc/sa.json"),
        ]))
        .unwrap();
        let BackendConfig::ObjectStore { store, worm: None } = config else {
            panic!("expected a GCS config without WORM, got {config:?}");
        };
        let ObjectStoreConfig::Gcs(gcs) = *store else {
            panic!("expected a GCS config, got {store:?}");
        };
        assert_eq!(gcs.bucket, "tiered");
        assert_eq!(
            gcs.service_account_path,
            Some(PathBuf::from("/etc/sa.json"))
        );
        assert!(gcs.allow_http);
    }

    const S3: [(&str, &str); 3] = [(BACKEND, "s3"), (S3_BUCKET, "archive"), (S3_REGION, "r")];

    fn with(base: &[(&str, &str)], more: &[(&str, &str)]) -> Vec<(String, String)> {
        entries(&[base, more].concat())
    }

    #[test]
    fn worm_keys_fill_the_worm_config() {
        let config = parse_backend(&with(
            &S3,
            &[
                (WORM_ENABLED, "true"),
                (WORM_SIGNING_KEY_PATH, "/etc/krabka/worm-key.pem"),
                (WORM_KEY_ID, "archive-2026"),
                (WORM_WRITE_ONLY, "true"),
            ],
        ))
        .unwrap();
        let BackendConfig::ObjectStore {
            worm: Some(worm), ..
        } = config
        else {
            panic!("expected an S3 config with WORM, got {config:?}");
        };
        assert_eq!(
            worm,
            WormConfig::new("/etc/krabka/worm-key.pem", "archive-2026").write_only(true)
        );
        let BackendConfig::ObjectStore {
            worm: Some(worm), ..
        } = parse_backend(&with(
            &[(BACKEND, "gcs"), (GCS_BUCKET, "archive")],
            &[
                (WORM_ENABLED, "TRUE"),
                (WORM_SIGNING_KEY_PATH, "/k.der"),
                (WORM_KEY_ID, "k1"),
            ],
        ))
        .unwrap()
        else {
            panic!("expected a GCS config with WORM");
        };
        assert!(!worm.write_only);
    }

    #[test]
    fn worm_needs_a_key_path_and_a_key_id() {
        assert_eq!(
            parse_backend(&with(&S3, &[(WORM_ENABLED, "true"), (WORM_KEY_ID, "k1")])),
            Err(ConfigError::MissingForWorm {
                key: WORM_SIGNING_KEY_PATH
            })
        );
        assert_eq!(
            parse_backend(&with(
                &S3,
                &[
                    (WORM_ENABLED, "true"),
                    (WORM_SIGNING_KEY_PATH, "/k.pem"),
                    (WORM_KEY_ID, "  "),
                ]
            )),
            Err(ConfigError::MissingForWorm { key: WORM_KEY_ID })
        );
    }

    #[test]
    fn worm_is_refused_with_the_filesystem_backend() {
        for backend in [
            &[(BACKEND, "filesystem"), (FILESYSTEM_ROOT, "/tier")][..],
            &[(FILESYSTEM_ROOT, "/tier")][..],
        ] {
            assert!(matches!(
                parse_backend(&with(backend, &[(WORM_ENABLED, "true")])),
                Err(ConfigError::Invalid {
                    key: WORM_ENABLED,
                    ..
                })
            ));
        }
    }

    #[test]
    fn worm_keys_are_ignored_while_the_mode_is_off() {
        let extra = [
            (WORM_ENABLED, "false"),
            (WORM_SIGNING_KEY_PATH, "/k.pem"),
            (WORM_KEY_ID, "k1"),
            (WORM_WRITE_ONLY, "true"),
        ];
        assert!(matches!(
            parse_backend(&with(&S3, &extra)),
            Ok(BackendConfig::ObjectStore { worm: None, .. })
        ));
        assert!(matches!(
            parse_backend(&with(&[(FILESYSTEM_ROOT, "/tier")], &extra)),
            Ok(BackendConfig::Filesystem { .. })
        ));
        // Their values must still parse.
        assert!(matches!(
            parse_backend(&with(&S3, &[(WORM_WRITE_ONLY, "yes")])),
            Err(ConfigError::Invalid {
                key: WORM_WRITE_ONLY,
                ..
            })
        ));
        assert!(matches!(
            parse_backend(&with(&S3, &[(WORM_ENABLED, "on")])),
            Err(ConfigError::Invalid {
                key: WORM_ENABLED,
                ..
            })
        ));
    }
}
