//! Typed configurations of the object stores the remote tier can use.

use {
    crate::{ObjectStoreConfigError, Secret, store::DEFAULT_PARTS_IN_FLIGHT},
    serde::{Deserialize, Serialize},
    std::{fmt, path::PathBuf, time::Duration},
};

/// Objects at or above this size are uploaded as multipart uploads (16 MiB).
///
/// A single PUT carries its whole body in memory, so the threshold is kept
/// below the multipart budget (parts in flight × part size, 80 MiB by
/// default): a copy's memory stays within that budget whatever the segment
/// size. Below it, one request beats four parts and two more requests.
pub const DEFAULT_MULTIPART_THRESHOLD: u64 = 16 * 1024 * 1024;

/// Size of each part of a multipart upload (5 MiB, the smallest S3 and GCS
/// accept for every part but the last; at most 10 000 parts, so larger
/// objects get larger parts).
///
/// Small parts let more of them go up at once within the same memory: a
/// store serves each connection at a bounded rate, so a copy's speed grows
/// with its parts in flight. Measured through a proxy that limits each
/// connection to 8 MB/s and adds 25 ms (docs/object-store.md), a 256 MiB
/// copy took 8.8 s with 4 parts of 16 MiB, 4.6 s with 10 of 8 MiB and 3.4 s
/// with 16 of 5 MiB. The price is requests: 205 PUTs per GiB, where 16 MiB
/// parts need 64.
pub const DEFAULT_MULTIPART_CHUNK_SIZE: usize = 5 * 1024 * 1024;

/// How many times a transient failure is retried before it is surfaced.
pub const DEFAULT_MAX_RETRIES: usize = 10;

/// Upper bound on the total time spent retrying one request.
pub const DEFAULT_RETRY_TIMEOUT: Duration = Duration::from_secs(180);

/// Upper bound on one HTTP request, body included.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Upper bound on establishing one TCP/TLS connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The smallest part size S3 accepts for every part but the last.
const MIN_MULTIPART_CHUNK_SIZE: usize = 5 * 1024 * 1024;

/// The largest object S3 accepts in one PUT, and the largest part (5 GiB).
const MAX_SINGLE_PUT: u64 = 5 * 1024 * 1024 * 1024;

/// Where S3 credentials come from.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum S3Credentials {
    /// The ambient provider chain of `object_store`: environment variables,
    /// web identity, container and instance metadata.
    #[default]
    Ambient,
    /// An explicit access key pair.
    Static {
        /// The access key id (not secret, but kept out of logs anyway).
        access_key_id: String,
        /// The secret access key.
        secret_access_key: Secret,
        /// An optional session token for temporary credentials.
        session_token: Option<Secret>,
    },
}

impl fmt::Debug for S3Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ambient => f.write_str("Ambient"),
            Self::Static { session_token, .. } => f
                .debug_struct("Static")
                .field("access_key_id", &"<redacted>")
                .field("secret_access_key", &"<redacted>")
                .field(
                    "session_token",
                    &session_token.as_ref().map(|_| "<redacted>"),
                )
                .finish(),
        }
    }
}

/// Server-side encryption of the objects the S3 client writes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum S3ServerSideEncryption {
    /// No header: the bucket's default encryption applies (SSE-S3 on Amazon
    /// S3 since 2023).
    #[default]
    BucketDefault,
    /// SSE-S3: `x-amz-server-side-encryption: AES256`.
    S3Managed,
    /// SSE-KMS: `x-amz-server-side-encryption: aws:kms`, with the key
    /// (`x-amz-server-side-encryption-aws-kms-key-id`) or the account's AWS
    /// managed key without one.
    Kms {
        /// The KMS key id or ARN.
        key_id: Option<String>,
    },
}

/// Configuration of an S3 or S3-compatible bucket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct S3Config {
    /// Bucket name.
    pub bucket: String,
    /// Optional key prefix, without leading or trailing `/`.
    pub prefix: Option<String>,
    /// AWS region (any non-empty placeholder for S3-compatible servers).
    pub region: String,
    /// Endpoint URL for S3-compatible servers; `None` means AWS.
    pub endpoint: Option<String>,
    /// Path-style addressing (`endpoint/bucket/key`) instead of virtual hosts.
    pub path_style: bool,
    /// Allow plain `http://` endpoints.
    pub allow_http: bool,
    /// Where credentials come from.
    pub credentials: S3Credentials,
    /// Objects at or above this many bytes are uploaded in parts.
    pub multipart_threshold: u64,
    /// Bytes per multipart part.
    pub multipart_chunk_size: usize,
    /// Parts of one multipart upload in flight at once (1–1024); a copy
    /// holds up to this many parts in memory.
    #[serde(default = "default_parts_in_flight")]
    pub parts_in_flight: usize,
    /// Retries of a transient failure.
    pub max_retries: usize,
    /// Total time budget for retries of one request.
    pub retry_timeout: Duration,
    /// Time budget of one request.
    pub request_timeout: Duration,
    /// Time budget of one connection attempt.
    pub connect_timeout: Duration,
    /// The storage class of every object written (`x-amz-storage-class`,
    /// e.g. `STANDARD_IA`); `None` leaves the bucket's default.
    pub storage_class: Option<String>,
    /// Server-side encryption requested on every object written.
    pub server_side_encryption: S3ServerSideEncryption,
    /// A PEM file of root certificates trusted besides the system's: the
    /// private CA of an on-premises S3 server, of a TLS-inspecting proxy, or
    /// of an STS endpoint (`AWS_ENDPOINT_URL_STS`) for web identity.
    pub tls_ca_certificates: Option<PathBuf>,
}

impl S3Config {
    /// A configuration for `bucket` in `region` with every other field at its
    /// default.
    pub fn new(bucket: impl Into<String>, region: impl Into<String>) -> Self {
        Self {
            bucket: bucket.into(),
            prefix: None,
            region: region.into(),
            endpoint: None,
            path_style: false,
            allow_http: false,
            credentials: S3Credentials::Ambient,
            multipart_threshold: DEFAULT_MULTIPART_THRESHOLD,
            multipart_chunk_size: DEFAULT_MULTIPART_CHUNK_SIZE,
            parts_in_flight: DEFAULT_PARTS_IN_FLIGHT,
            max_retries: DEFAULT_MAX_RETRIES,
            retry_timeout: DEFAULT_RETRY_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            storage_class: None,
            server_side_encryption: S3ServerSideEncryption::BucketDefault,
            tls_ca_certificates: None,
        }
    }

    /// Checks every field; the error names the first bad one.
    ///
    /// # Errors
    /// [`ObjectStoreConfigError`] naming the field.
    pub fn validate(&self) -> Result<(), ObjectStoreConfigError> {
        require_non_empty("bucket", &self.bucket)?;
        validate_bucket_name("bucket", &self.bucket)?;
        require_non_empty("region", &self.region)?;
        if let Some(class) = &self.storage_class {
            if class.is_empty() || !class.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                return Err(ObjectStoreConfigError::Invalid {
                    field: "storage_class",
                    value: class.clone(),
                    expected: "an S3 storage class such as STANDARD, STANDARD_IA, INTELLIGENT_TIERING or GLACIER_IR",
                });
            }
        }
        if let S3ServerSideEncryption::Kms { key_id: Some(key) } = &self.server_side_encryption {
            require_non_empty("sse_kms_key_id", key)?;
        }
        validate_prefix(self.prefix.as_deref())?;
        if let Some(endpoint) = &self.endpoint {
            validate_endpoint(endpoint, self.allow_http)?;
        }
        if let S3Credentials::Static {
            access_key_id,
            secret_access_key,
            ..
        } = &self.credentials
        {
            require_non_empty("access_key_id", access_key_id)?;
            if secret_access_key.expose().is_empty() {
                return Err(ObjectStoreConfigError::Missing {
                    field: "secret_access_key",
                });
            }
        }
        validate_multipart(self.multipart_threshold, self.multipart_chunk_size)?;
        validate_parts_in_flight(self.parts_in_flight)?;
        validate_timeouts(
            self.retry_timeout,
            self.request_timeout,
            self.connect_timeout,
        )
    }
}

/// Configuration of a Google Cloud Storage bucket, through the native GCS API.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcsConfig {
    /// Bucket name.
    pub bucket: String,
    /// Optional key prefix, without leading or trailing `/`.
    pub prefix: Option<String>,
    /// Path to a service-account JSON key file.
    pub service_account_path: Option<PathBuf>,
    /// A service-account JSON key given inline.
    pub service_account_key: Option<Secret>,
    /// Path to application-default credentials.
    pub application_credentials_path: Option<PathBuf>,
    /// Base URL of a GCS-compatible endpoint (an emulator); `None` means Google.
    pub endpoint: Option<String>,
    /// Allow plain `http://` endpoints.
    pub allow_http: bool,
    /// Objects at or above this many bytes are uploaded in parts.
    pub multipart_threshold: u64,
    /// Bytes per multipart part.
    pub multipart_chunk_size: usize,
    /// Parts of one multipart upload in flight at once (1–1024); a copy
    /// holds up to this many parts in memory.
    #[serde(default = "default_parts_in_flight")]
    pub parts_in_flight: usize,
    /// Retries of a transient failure.
    pub max_retries: usize,
    /// Total time budget for retries of one request.
    pub retry_timeout: Duration,
    /// Time budget of one request.
    pub request_timeout: Duration,
    /// Time budget of one connection attempt.
    pub connect_timeout: Duration,
}

impl fmt::Debug for GcsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GcsConfig")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("service_account_path", &self.service_account_path)
            .field("service_account_key", &self.service_account_key)
            .field(
                "application_credentials_path",
                &self.application_credentials_path,
            )
            .field("endpoint", &self.endpoint)
            .field("allow_http", &self.allow_http)
            .field("multipart_threshold", &self.multipart_threshold)
            .field("multipart_chunk_size", &self.multipart_chunk_size)
            .field("parts_in_flight", &self.parts_in_flight)
            .field("max_retries", &self.max_retries)
            .field("retry_timeout", &self.retry_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

impl GcsConfig {
    /// The same configuration sending no credentials, for emulators that
    /// check none: a placeholder service-account key with OAuth turned off
    /// (`object_store` then signs nothing).
    #[must_use]
    pub fn without_auth(mut self) -> Self {
        self.service_account_key = Some(Secret::new(
            r#"{"private_key":"unused","private_key_id":"unused","client_email":"reader@example.com","disable_oauth":true}"#,
        ));
        self
    }

    /// A configuration for `bucket` with every other field at its default.
    pub fn new(bucket: impl Into<String>) -> Self {
        Self {
            bucket: bucket.into(),
            prefix: None,
            service_account_path: None,
            service_account_key: None,
            application_credentials_path: None,
            endpoint: None,
            allow_http: false,
            multipart_threshold: DEFAULT_MULTIPART_THRESHOLD,
            multipart_chunk_size: DEFAULT_MULTIPART_CHUNK_SIZE,
            parts_in_flight: DEFAULT_PARTS_IN_FLIGHT,
            max_retries: DEFAULT_MAX_RETRIES,
            retry_timeout: DEFAULT_RETRY_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Checks every field; the error names the first bad one.
    ///
    /// # Errors
    /// [`ObjectStoreConfigError`] naming the field.
    pub fn validate(&self) -> Result<(), ObjectStoreConfigError> {
        require_non_empty("bucket", &self.bucket)?;
        validate_bucket_name("bucket", &self.bucket)?;
        validate_prefix(self.prefix.as_deref())?;
        if self.service_account_path.is_some() && self.service_account_key.is_some() {
            return Err(ObjectStoreConfigError::Invalid {
                field: "service_account_key",
                value: "<redacted>".to_owned(),
                expected: "set either service_account_path or service_account_key, not both",
            });
        }
        if let Some(endpoint) = &self.endpoint {
            validate_endpoint(endpoint, self.allow_http)?;
        }
        validate_multipart(self.multipart_threshold, self.multipart_chunk_size)?;
        validate_parts_in_flight(self.parts_in_flight)?;
        validate_timeouts(
            self.retry_timeout,
            self.request_timeout,
            self.connect_timeout,
        )
    }
}

/// The largest block of an Azure block blob (4000 MiB, service version
/// 2019-12-12 and later).
pub const AZURE_MAX_BLOCK_SIZE: u64 = 4000 * 1024 * 1024;

/// The largest block blob Azure accepts in one Put Blob (5000 MiB).
pub const AZURE_MAX_SINGLE_PUT: u64 = 5000 * 1024 * 1024;

/// The most committed blocks one Azure block blob can have.
pub const AZURE_MAX_BLOCKS: u64 = 50_000;

/// How requests to Azure Blob Storage are authorised.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum AzureCredentials {
    /// The storage account's shared key (`Authorization: SharedKey`), the
    /// base64 text the portal shows.
    AccessKey(Secret),
    /// A shared access signature: the query string the portal or `az`
    /// hands out (`sv=…&sig=…`, a leading `?` allowed), appended to every
    /// request.
    SasToken(Secret),
}

impl fmt::Debug for AzureCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AccessKey(_) => f.write_str("AccessKey(<redacted>)"),
            Self::SasToken(_) => f.write_str("SasToken(<redacted>)"),
        }
    }
}

/// Configuration of an Azure Blob Storage container.
///
/// Objects are block blobs: one Put Blob below the multipart threshold, else
/// staged blocks (Put Block) published atomically by one Put Block List.
/// Azure has no abort: the blocks of a failed upload stay uncommitted,
/// invisible to readers, and the service garbage-collects them after 7
/// days (or when the next Put Block List of the same blob commits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AzureConfig {
    /// Storage account name (3 to 24 lowercase letters and digits).
    pub account: String,
    /// Container name.
    pub container: String,
    /// Optional key prefix, without leading or trailing `/`.
    pub prefix: Option<String>,
    /// The account's blob endpoint for emulators and private endpoints,
    /// containers under it (`http://127.0.0.1:10000/devstoreaccount1` for
    /// Azurite); `None` means `https://<account>.blob.core.windows.net`.
    pub endpoint: Option<String>,
    /// Allow plain `http://` endpoints.
    pub allow_http: bool,
    /// How requests are authorised.
    pub credentials: AzureCredentials,
    /// Objects at or above this many bytes are uploaded in blocks.
    pub multipart_threshold: u64,
    /// Bytes per block.
    pub multipart_chunk_size: usize,
    /// Blocks of one upload in flight at once (1–1024); a copy holds up to
    /// this many blocks in memory.
    #[serde(default = "default_parts_in_flight")]
    pub parts_in_flight: usize,
    /// Retries of a transient failure.
    pub max_retries: usize,
    /// Total time budget for retries of one request.
    pub retry_timeout: Duration,
    /// Time budget of one request.
    pub request_timeout: Duration,
    /// Time budget of one connection attempt.
    pub connect_timeout: Duration,
}

impl AzureConfig {
    /// A configuration for `container` of `account`, authorised by
    /// `credentials`, with every other field at its default.
    pub fn new(
        account: impl Into<String>,
        container: impl Into<String>,
        credentials: AzureCredentials,
    ) -> Self {
        Self {
            account: account.into(),
            container: container.into(),
            prefix: None,
            endpoint: None,
            allow_http: false,
            credentials,
            multipart_threshold: DEFAULT_MULTIPART_THRESHOLD,
            multipart_chunk_size: DEFAULT_MULTIPART_CHUNK_SIZE,
            parts_in_flight: DEFAULT_PARTS_IN_FLIGHT,
            max_retries: DEFAULT_MAX_RETRIES,
            retry_timeout: DEFAULT_RETRY_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Checks every field; the error names the first bad one. Blocks are
    /// held to the stricter of the two rule sets: at least 5 MiB (as on S3,
    /// so the shared keys mean one thing) and at most Azure's 4000 MiB; a
    /// single Put Blob at most 5000 MiB.
    ///
    /// # Errors
    /// [`ObjectStoreConfigError`] naming the field.
    pub fn validate(&self) -> Result<(), ObjectStoreConfigError> {
        require_non_empty("account", &self.account)?;
        let account_ok = (3..=24).contains(&self.account.len())
            && self
                .account
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        if !account_ok {
            return Err(ObjectStoreConfigError::Invalid {
                field: "account",
                value: self.account.clone(),
                expected: "3 to 24 lowercase letters and digits",
            });
        }
        require_non_empty("container", &self.container)?;
        validate_container_name(&self.container)?;
        validate_prefix(self.prefix.as_deref())?;
        if let Some(endpoint) = &self.endpoint {
            validate_endpoint(endpoint, self.allow_http)?;
        }
        match &self.credentials {
            AzureCredentials::AccessKey(key) if key.expose().trim().is_empty() => {
                return Err(ObjectStoreConfigError::Missing {
                    field: "access_key",
                });
            }
            AzureCredentials::SasToken(sas) => {
                let query = sas.expose().trim().trim_start_matches('?');
                if query.is_empty() {
                    return Err(ObjectStoreConfigError::Missing { field: "sas_token" });
                }
                if query.split('&').any(|pair| !pair.contains('=')) || !query.contains("sig=") {
                    return Err(ObjectStoreConfigError::Invalid {
                        field: "sas_token",
                        value: "<redacted>".to_owned(),
                        expected: "a shared access signature query string such as sv=...&sig=...",
                    });
                }
            }
            AzureCredentials::AccessKey(_) => {}
        }
        validate_multipart(self.multipart_threshold, self.multipart_chunk_size)?;
        validate_parts_in_flight(self.parts_in_flight)?;
        if u64::try_from(self.multipart_chunk_size).map_or(true, |size| size > AZURE_MAX_BLOCK_SIZE)
        {
            return Err(ObjectStoreConfigError::Invalid {
                field: "multipart_chunk_size",
                value: self.multipart_chunk_size.to_string(),
                expected: "at most 4000 MiB (4194304000 bytes), the largest block Azure accepts",
            });
        }
        if self.multipart_threshold > AZURE_MAX_SINGLE_PUT {
            return Err(ObjectStoreConfigError::Invalid {
                field: "multipart_threshold",
                value: self.multipart_threshold.to_string(),
                expected: "1 byte to 5000 MiB (5242880000 bytes), the largest single Put Blob Azure accepts",
            });
        }
        validate_timeouts(
            self.retry_timeout,
            self.request_timeout,
            self.connect_timeout,
        )
    }
}

/// Azure's container rule: 3 to 63 lowercase letters, digits and single
/// dashes, starting and ending with a letter or digit.
fn validate_container_name(container: &str) -> Result<(), ObjectStoreConfigError> {
    let bytes = container.as_bytes();
    let ok = (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first().is_some_and(|b| *b != b'-')
        && bytes.last().is_some_and(|b| *b != b'-')
        && !container.contains("--");
    if ok {
        Ok(())
    } else {
        Err(ObjectStoreConfigError::Invalid {
            field: "container",
            value: container.to_owned(),
            expected: "3 to 63 lowercase letters, digits and single '-', starting and ending with a letter or digit",
        })
    }
}

/// Any backend the remote tier can use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ObjectStoreConfig {
    /// Amazon S3 or an S3-compatible server.
    S3(S3Config),
    /// Google Cloud Storage.
    Gcs(GcsConfig),
    /// Azure Blob Storage.
    Azure(AzureConfig),
    /// A directory on the local filesystem (tests and single-node setups).
    Local {
        /// The directory objects are stored under.
        root: PathBuf,
    },
    /// Process memory (unit tests only).
    InMemory,
}

impl ObjectStoreConfig {
    /// Checks the configuration; the error names the first bad field.
    ///
    /// # Errors
    /// [`ObjectStoreConfigError`] naming the field.
    pub fn validate(&self) -> Result<(), ObjectStoreConfigError> {
        match self {
            Self::S3(config) => config.validate(),
            Self::Gcs(config) => config.validate(),
            Self::Azure(config) => config.validate(),
            Self::Local { root } => {
                if root.as_os_str().is_empty() {
                    Err(ObjectStoreConfigError::Missing { field: "root" })
                } else {
                    Ok(())
                }
            }
            Self::InMemory => Ok(()),
        }
    }
}

fn require_non_empty(field: &'static str, value: &str) -> Result<(), ObjectStoreConfigError> {
    if value.trim().is_empty() {
        Err(ObjectStoreConfigError::Missing { field })
    } else {
        Ok(())
    }
}

fn validate_bucket_name(field: &'static str, bucket: &str) -> Result<(), ObjectStoreConfigError> {
    let valid_chars = bucket
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'_'));
    if (3..=222).contains(&bucket.len()) && valid_chars {
        Ok(())
    } else {
        Err(ObjectStoreConfigError::Invalid {
            field,
            value: bucket.to_owned(),
            expected: "3 to 222 characters of lowercase letters, digits, '-', '.' or '_'",
        })
    }
}

fn validate_prefix(prefix: Option<&str>) -> Result<(), ObjectStoreConfigError> {
    let Some(prefix) = prefix else {
        return Ok(());
    };
    let bad = prefix.is_empty()
        || prefix.starts_with('/')
        || prefix.ends_with('/')
        || prefix
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..");
    if bad {
        Err(ObjectStoreConfigError::Invalid {
            field: "prefix",
            value: prefix.to_owned(),
            expected: "non-empty '/'-separated path segments without leading or trailing '/', '.' or '..'",
        })
    } else {
        Ok(())
    }
}

fn validate_endpoint(endpoint: &str, allow_http: bool) -> Result<(), ObjectStoreConfigError> {
    let expected_scheme = if endpoint.starts_with("https://") {
        true
    } else {
        endpoint.starts_with("http://") && allow_http
    };
    if expected_scheme
        && endpoint
            .split("://")
            .nth(1)
            .is_some_and(|rest| !rest.is_empty())
    {
        Ok(())
    } else {
        Err(ObjectStoreConfigError::Invalid {
            field: "endpoint",
            value: endpoint.to_owned(),
            expected: "an https:// URL (http:// only with allow_http = true)",
        })
    }
}

fn validate_multipart(threshold: u64, chunk_size: usize) -> Result<(), ObjectStoreConfigError> {
    if chunk_size < MIN_MULTIPART_CHUNK_SIZE {
        return Err(ObjectStoreConfigError::Invalid {
            field: "multipart_chunk_size",
            value: chunk_size.to_string(),
            expected: "at least 5 MiB (5242880 bytes), the smallest part S3 accepts",
        });
    }
    if u64::try_from(chunk_size).map_or(true, |size| size > MAX_SINGLE_PUT) {
        return Err(ObjectStoreConfigError::Invalid {
            field: "multipart_chunk_size",
            value: chunk_size.to_string(),
            expected: "at most 5 GiB (5368709120 bytes), the largest part S3 accepts",
        });
    }
    if threshold == 0 || threshold > MAX_SINGLE_PUT {
        return Err(ObjectStoreConfigError::Invalid {
            field: "multipart_threshold",
            value: threshold.to_string(),
            expected: "1 byte to 5 GiB (5368709120 bytes), the largest single PUT S3 accepts",
        });
    }
    Ok(())
}

/// The most parts of one upload the configuration lets go up at once.
pub const MAX_PARTS_IN_FLIGHT: usize = 1024;

fn default_parts_in_flight() -> usize {
    DEFAULT_PARTS_IN_FLIGHT
}

fn validate_parts_in_flight(parts: usize) -> Result<(), ObjectStoreConfigError> {
    if (1..=MAX_PARTS_IN_FLIGHT).contains(&parts) {
        return Ok(());
    }
    Err(ObjectStoreConfigError::Invalid {
        field: "parts_in_flight",
        value: parts.to_string(),
        expected: "1 to 1024 parts",
    })
}

fn validate_timeouts(
    retry: Duration,
    request: Duration,
    connect: Duration,
) -> Result<(), ObjectStoreConfigError> {
    for (field, value) in [
        ("retry_timeout", retry),
        ("request_timeout", request),
        ("connect_timeout", connect),
    ] {
        if value.is_zero() {
            return Err(ObjectStoreConfigError::Invalid {
                field,
                value: format!("{value:?}"),
                expected: "a positive duration",
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minio() -> S3Config {
        let mut config = S3Config::new("tier", "us-east-1");
        config.endpoint = Some("http://127.0.0.1:8333".to_owned());
        config.allow_http = true;
        config.path_style = true;
        config
    }

    #[test]
    fn a_complete_s3_config_is_valid() {
        assert_eq!(minio().validate(), Ok(()));
    }

    #[test]
    fn an_empty_bucket_is_named_in_the_error() {
        let mut config = minio();
        config.bucket = String::new();
        assert_eq!(
            config.validate(),
            Err(ObjectStoreConfigError::Missing { field: "bucket" })
        );
    }

    #[test]
    fn an_http_endpoint_needs_allow_http() {
        let mut config = minio();
        config.allow_http = false;
        let err = config.validate().unwrap_err();
        assert!(matches!(
            err,
            ObjectStoreConfigError::Invalid {
                field: "endpoint",
                ..
            }
        ));
    }

    #[test]
    fn a_prefix_with_slashes_at_the_ends_is_refused() {
        for prefix in ["/a", "a/", "", "a//b", "a/../b"] {
            let mut config = minio();
            config.prefix = Some(prefix.to_owned());
            let err = config.validate().unwrap_err();
            assert!(
                matches!(
                    err,
                    ObjectStoreConfigError::Invalid {
                        field: "prefix",
                        ..
                    }
                ),
                "{prefix:?} gave {err:?}"
            );
        }
    }

    #[test]
    fn parts_in_flight_are_one_to_a_thousand_and_twenty_four() {
        for (parts, valid) in [(0, false), (1, true), (1024, true), (1025, false)] {
            let mut config = minio();
            config.parts_in_flight = parts;
            let outcome = config.validate();
            assert_eq!(outcome.is_ok(), valid, "{parts}: {outcome:?}");
            if !valid {
                assert!(matches!(
                    outcome,
                    Err(ObjectStoreConfigError::Invalid {
                        field: "parts_in_flight",
                        ..
                    })
                ));
            }
        }
    }

    #[test]
    fn a_configuration_without_parts_in_flight_reads_the_default() {
        let mut json = serde_json::to_value(minio()).unwrap();
        json.as_object_mut().unwrap().remove("parts_in_flight");
        let config: S3Config = serde_json::from_value(json).unwrap();
        assert_eq!(config.parts_in_flight, DEFAULT_PARTS_IN_FLIGHT);
    }

    #[test]
    fn a_part_below_five_mebibytes_is_refused() {
        let mut config = minio();
        config.multipart_chunk_size = 1024;
        assert!(matches!(
            config.validate(),
            Err(ObjectStoreConfigError::Invalid {
                field: "multipart_chunk_size",
                ..
            })
        ));
    }

    #[test]
    fn debug_output_never_shows_secrets() {
        let mut config = minio();
        config.credentials = S3Credentials::Static {
            access_key_id: "AKIDEXAMPLE".to_owned(),
            secret_access_key: Secret::new("wJalrXUtnFEMI"),
            session_token: Some(Secret::new("token-value")),
        };
        let debug = format!("{config:?}");
        assert!(!debug.contains("wJalrXUtnFEMI"), "{debug}");
        assert!(!debug.contains("AKIDEXAMPLE"), "{debug}");
        assert!(!debug.contains("token-value"), "{debug}");

        let mut gcs = GcsConfig::new("tier");
        gcs.service_account_key = Some(Secret::new("{\"private_key\":\"pk\"}"));
        let debug = format!("{gcs:?}");
        assert!(!debug.contains("private_key"), "{debug}");
    }

    #[test]
    fn gcs_refuses_two_credential_sources() {
        let mut gcs = GcsConfig::new("tier");
        gcs.service_account_key = Some(Secret::new("{}"));
        gcs.service_account_path = Some(PathBuf::from("/etc/key.json"));
        assert!(matches!(
            gcs.validate(),
            Err(ObjectStoreConfigError::Invalid {
                field: "service_account_key",
                ..
            })
        ));
    }

    fn azurite() -> AzureConfig {
        let mut config = AzureConfig::new(
            "devstoreaccount1",
            "tier",
            AzureCredentials::AccessKey(Secret::new("a2V5")),
        );
        config.endpoint = Some("http://127.0.0.1:10000/devstoreaccount1".to_owned());
        config.allow_http = true;
        config
    }

    #[test]
    fn a_complete_azure_config_is_valid() {
        assert_eq!(azurite().validate(), Ok(()));
        let mut sas = azurite();
        sas.credentials = AzureCredentials::SasToken(Secret::new("?sv=2024-11-04&sig=abc%3D"));
        assert_eq!(sas.validate(), Ok(()));
    }

    #[test]
    fn azure_names_the_bad_field() {
        let field = |config: AzureConfig| match config.validate() {
            Err(ObjectStoreConfigError::Invalid { field, .. })
            | Err(ObjectStoreConfigError::Missing { field }) => field,
            other => panic!("{other:?}"),
        };
        for account in ["", "ab", "Upper", "has-dash", "a234567890123456789012345"] {
            let mut config = azurite();
            config.account = account.to_owned();
            assert_eq!(field(config), "account", "{account:?}");
        }
        for container in ["", "ab", "-tier", "tier-", "ti--er", "Tier", "tier_1"] {
            let mut config = azurite();
            config.container = container.to_owned();
            assert_eq!(field(config), "container", "{container:?}");
        }
        let mut config = azurite();
        config.credentials = AzureCredentials::AccessKey(Secret::new(" "));
        assert_eq!(field(config), "access_key");
        for sas in ["", "?", "sv=2024-11-04", "sv=1&sig"] {
            let mut config = azurite();
            config.credentials = AzureCredentials::SasToken(Secret::new(sas));
            assert_eq!(field(config), "sas_token", "{sas:?}");
        }
        let mut config = azurite();
        config.allow_http = false;
        assert_eq!(field(config), "endpoint");
    }

    #[test]
    fn azure_blocks_keep_to_the_services_limits() {
        let mut config = azurite();
        config.multipart_chunk_size = usize::try_from(AZURE_MAX_BLOCK_SIZE).unwrap();
        assert_eq!(config.validate(), Ok(()));
        config.multipart_chunk_size += 1;
        assert!(matches!(
            config.validate(),
            Err(ObjectStoreConfigError::Invalid {
                field: "multipart_chunk_size",
                ..
            })
        ));
        let mut config = azurite();
        config.multipart_threshold = AZURE_MAX_SINGLE_PUT;
        assert_eq!(config.validate(), Ok(()));
        config.multipart_threshold += 1;
        assert!(matches!(
            config.validate(),
            Err(ObjectStoreConfigError::Invalid {
                field: "multipart_threshold",
                ..
            })
        ));
    }

    #[test]
    fn azure_debug_output_never_shows_secrets() {
        for credentials in [
            AzureCredentials::AccessKey(Secret::new("c2VjcmV0LWtleQ==")),
            AzureCredentials::SasToken(Secret::new("sv=1&sig=c2VjcmV0LXNhcw")),
        ] {
            let mut config = azurite();
            config.credentials = credentials;
            let debug = format!("{config:?}");
            assert!(!debug.contains("c2VjcmV0"), "{debug}");
        }
    }

    #[test]
    fn local_root_must_not_be_empty() {
        let config = ObjectStoreConfig::Local {
            root: PathBuf::new(),
        };
        assert_eq!(
            config.validate(),
            Err(ObjectStoreConfigError::Missing { field: "root" })
        );
    }
}
