//! Turning a validated [`ObjectStoreConfig`] into an `object_store` handle.
//!
//! Every backend gets the same client policy: the operator's retry count and
//! retry time budget on top of `object_store`'s exponential backoff with
//! jitter, a per-request timeout and a connect timeout. Credentials are the
//! explicit ones when the configuration has them, otherwise the ambient chain
//! of `object_store` (see [`S3Credentials::Ambient`] and [`GcsConfig`]).
//!
//! S3 uploads carry a checksum: every PutObject and UploadPart sends a signed
//! `x-amz-checksum-sha256` of its body, CreateMultipartUpload asks for
//! `x-amz-checksum-algorithm: SHA256`, and CompleteMultipartUpload lists the
//! checksum the server returned for each part. Amazon S3 refuses uploads into
//! a bucket with Object Lock that carry neither `Content-MD5` nor an
//! `x-amz-checksum-*` header, so without it the write-once archive could not
//! write on AWS; in plain mode it is integrity on upload for free (the
//! SHA-256 of the body is computed for the signature anyway).

use {
    crate::{
        AzureConfig, AzureCredentials, GcsConfig, ObjectStoreConfig, ObjectStoreConfigError,
        S3Config, S3Credentials, S3ServerSideEncryption, storage_class::WithStorageClass,
    },
    object_store::{
        BackoffConfig, Certificate, ClientOptions, ObjectStore, RetryConfig,
        aws::{AmazonS3Builder, Checksum},
        azure::{AzureConfigKey, MicrosoftAzureBuilder},
        gcp::GoogleCloudStorageBuilder,
        local::LocalFileSystem,
        memory::InMemory,
    },
    std::{
        path::{Path, PathBuf},
        sync::Arc,
        time::Duration,
    },
};

/// Why [`build_object_store`] could not produce a store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectStoreBuildError {
    /// The configuration itself was refused; the error names the field.
    #[error(transparent)]
    Config(#[from] ObjectStoreConfigError),
    /// A file the configuration points at could not be used.
    #[error("`{field}` points at `{}`, which cannot be used", path.display())]
    File {
        /// The configuration field holding the path.
        field: &'static str,
        /// The path.
        path: PathBuf,
        /// Why it cannot be used.
        #[source]
        source: std::io::Error,
    },
    /// The `object_store` client refused the configuration (for example a
    /// service-account key that is not valid JSON).
    #[error("the {backend} client refused the configuration")]
    Client {
        /// `S3`, `GCS`, `Azure` or `local`.
        backend: &'static str,
        /// The client's own error.
        #[source]
        source: object_store::Error,
    },
}

/// Credential-related environment variables of the AWS chain that the ambient
/// S3 provider honours. Endpoint, region and addressing always come from the
/// configuration, never from the environment.
const AMBIENT_AWS_ENV: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "AWS_ROLE_SESSION_NAME",
    "AWS_ENDPOINT_URL_STS",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_METADATA_ENDPOINT",
    "AWS_IMDSV1_FALLBACK",
];

/// The environment variable of Google's application-default credentials.
const GOOGLE_APPLICATION_CREDENTIALS: &str = "GOOGLE_APPLICATION_CREDENTIALS";

/// Builds the object store a configuration describes, after validating it.
///
/// - **S3**: path-style or virtual-hosted addressing, optional custom
///   endpoint (for virtual-hosted addressing the bucket is prepended to the
///   endpoint's host), explicit keys or else the ambient AWS chain
///   (environment keys, web identity, container and instance metadata);
///   every PutObject and UploadPart carries `x-amz-checksum-sha256` (see the
///   module documentation).
/// - **GCS**: the native GCS API; credentials from `service_account_path`,
///   `service_account_key`, `application_credentials_path` (else
///   `$GOOGLE_APPLICATION_CREDENTIALS`, else gcloud's well-known file), else
///   the metadata server (Workload Identity).
/// - **Azure**: Blob Storage with the account's shared key or a SAS token,
///   at `https://<account>.blob.core.windows.net` or the configured
///   endpoint (containers directly under it); never the emulator mode of
///   `object_store`, so nothing is read from the environment.
/// - **Local**: a directory, created when missing, with fsync on write.
/// - **InMemory**: process memory.
///
/// ```
/// use krabka_object_store::{build_object_store, ObjectStoreConfig, S3Config};
/// let mut s3 = S3Config::new("tier", "us-east-1");
/// s3.endpoint = Some("http://127.0.0.1:8333".to_owned());
/// s3.allow_http = true;
/// s3.path_style = true;
/// let store = build_object_store(&ObjectStoreConfig::S3(s3)).unwrap();
/// assert!(store.to_string().contains("tier"));
/// ```
///
/// # Errors
/// [`ObjectStoreBuildError::Config`] naming the bad field,
/// [`ObjectStoreBuildError::File`] for an unusable credentials file or local
/// root, [`ObjectStoreBuildError::Client`] when `object_store` refuses it.
pub fn build_object_store(
    config: &ObjectStoreConfig,
) -> Result<Arc<dyn ObjectStore>, ObjectStoreBuildError> {
    config.validate()?;
    match config {
        ObjectStoreConfig::S3(s3) => build_s3(s3),
        ObjectStoreConfig::Gcs(gcs) => build_gcs(gcs),
        ObjectStoreConfig::Azure(azure) => build_azure(azure),
        ObjectStoreConfig::Local { root } => build_local(root),
        ObjectStoreConfig::InMemory => Ok(Arc::new(InMemory::new())),
    }
}

/// The retry policy shared by every remote backend.
fn retry_config(max_retries: usize, retry_timeout: Duration) -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig::default(),
        max_retries,
        retry_timeout,
    }
}

/// The HTTP client options shared by every remote backend.
fn client_options(allow_http: bool, request: Duration, connect: Duration) -> ClientOptions {
    ClientOptions::new()
        .with_allow_http(allow_http)
        .with_timeout(request)
        .with_connect_timeout(connect)
}

/// The credential provider and an HTTP client of an S3 configuration (for
/// other AWS services on the same credential chain, such as KMS).
pub(crate) fn s3_credentials_and_client(
    config: &S3Config,
) -> Result<
    (
        object_store::aws::AwsCredentialProvider,
        object_store::client::HttpClient,
    ),
    ObjectStoreBuildError,
> {
    let store = s3_builder(config)?
        .build()
        .map_err(|source| ObjectStoreBuildError::Client {
            backend: "S3",
            source,
        })?;
    let options = client_options(
        config.allow_http,
        config.request_timeout,
        config.connect_timeout,
    );
    let http = object_store::client::HttpConnector::connect(
        &object_store::client::ReqwestConnector::default(),
        &options,
    )
    .map_err(|source| ObjectStoreBuildError::Client {
        backend: "S3",
        source,
    })?;
    Ok((std::sync::Arc::clone(store.credentials()), http))
}

fn build_s3(config: &S3Config) -> Result<Arc<dyn ObjectStore>, ObjectStoreBuildError> {
    let store: Arc<dyn ObjectStore> =
        Arc::new(
            s3_builder(config)?
                .build()
                .map_err(|source| ObjectStoreBuildError::Client {
                    backend: "S3",
                    source,
                })?,
        );
    Ok(match &config.storage_class {
        Some(class) => Arc::new(WithStorageClass::new(store, class)),
        None => store,
    })
}

/// The PEM certificates of the file at `path` (the configuration's `field`),
/// to trust as roots besides the system's.
fn ca_certificates(
    field: &'static str,
    path: &std::path::Path,
) -> Result<Vec<Certificate>, ObjectStoreBuildError> {
    let unusable = |source| ObjectStoreBuildError::File {
        field,
        path: path.to_owned(),
        source,
    };
    let pem = std::fs::read(path).map_err(unusable)?;
    match Certificate::from_pem_bundle(&pem) {
        Ok(certificates) if !certificates.is_empty() => Ok(certificates),
        Ok(_) => Err(unusable(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "it holds no PEM certificate",
        ))),
        Err(err) => Err(unusable(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            err,
        ))),
    }
}

/// The server-side encryption settings of `config`, as `object_store`
/// configuration keys (its typed keys are not public).
fn encryption(config: &S3Config) -> Vec<(&'static str, String)> {
    match &config.server_side_encryption {
        S3ServerSideEncryption::S3Managed => {
            vec![("aws_server_side_encryption", "AES256".to_owned())]
        }
        S3ServerSideEncryption::Kms { key_id } => {
            let mut settings = vec![("aws_server_side_encryption", "aws:kms".to_owned())];
            if let Some(key_id) = key_id {
                settings.push(("aws_sse_kms_key_id", key_id.clone()));
            }
            settings
        }
        _ => Vec::new(),
    }
}

/// The S3 client builder a configuration describes: credentials, bucket,
/// addressing, client policy, and the SHA-256 upload checksum.
fn s3_builder(config: &S3Config) -> Result<AmazonS3Builder, ObjectStoreBuildError> {
    // SHA256 rather than CRC64NVME: S3-compatible servers (SeaweedFS,
    // s3s-fs, MiniStack, moto) verify it, and the digest is already computed
    // for the SigV4 payload hash, so it costs nothing extra.
    let mut builder = AmazonS3Builder::new().with_checksum_algorithm(Checksum::SHA256);
    match &config.credentials {
        S3Credentials::Static {
            access_key_id,
            secret_access_key,
            session_token,
        } => {
            builder = builder
                .with_access_key_id(access_key_id)
                .with_secret_access_key(secret_access_key.expose());
            if let Some(token) = session_token {
                builder = builder.with_token(token.expose());
            }
        }
        S3Credentials::Ambient => {
            for name in AMBIENT_AWS_ENV {
                if let Ok(value) = std::env::var(name) {
                    let key = name.to_ascii_lowercase().parse().map_err(|source| {
                        ObjectStoreBuildError::Client {
                            backend: "S3",
                            source,
                        }
                    })?;
                    builder = builder.with_config(key, value);
                }
            }
        }
    }
    for (name, value) in encryption(config) {
        let key = name
            .parse()
            .map_err(|source| ObjectStoreBuildError::Client {
                backend: "S3",
                source,
            })?;
        builder = builder.with_config(key, value);
    }
    let mut options = client_options(
        config.allow_http,
        config.request_timeout,
        config.connect_timeout,
    );
    if let Some(path) = &config.tls_ca_certificates {
        for certificate in ca_certificates("tls_ca_certificates", path)? {
            options = options.with_root_certificate(certificate);
        }
    }
    builder = builder
        .with_bucket_name(&config.bucket)
        .with_region(&config.region)
        .with_virtual_hosted_style_request(!config.path_style)
        .with_retry(retry_config(config.max_retries, config.retry_timeout))
        .with_client_options(options);
    if let Some(endpoint) = &config.endpoint {
        let endpoint = if config.path_style {
            endpoint.trim_end_matches('/').to_owned()
        } else {
            virtual_hosted_endpoint(endpoint, &config.bucket)
        };
        builder = builder.with_endpoint(endpoint);
    }
    Ok(builder)
}

/// `https://host:port` → `https://bucket.host:port`, unless the host already
/// starts with the bucket (`object_store` expects virtual-hosted endpoints
/// to name the bucket).
fn virtual_hosted_endpoint(endpoint: &str, bucket: &str) -> String {
    let endpoint = endpoint.trim_end_matches('/');
    match endpoint.split_once("://") {
        Some((scheme, host)) if !host.starts_with(&format!("{bucket}.")) => {
            format!("{scheme}://{bucket}.{host}")
        }
        _ => endpoint.to_owned(),
    }
}

fn build_gcs(config: &GcsConfig) -> Result<Arc<dyn ObjectStore>, ObjectStoreBuildError> {
    let mut builder = GoogleCloudStorageBuilder::new()
        .with_bucket_name(&config.bucket)
        .with_retry(retry_config(config.max_retries, config.retry_timeout))
        .with_client_options(client_options(
            config.allow_http,
            config.request_timeout,
            config.connect_timeout,
        ));
    if let Some(path) = &config.service_account_path {
        builder = builder.with_service_account_path(readable_path("service_account_path", path)?);
    }
    if let Some(key) = &config.service_account_key {
        builder = builder.with_service_account_key(key.expose());
    }
    let application_credentials = match &config.application_credentials_path {
        Some(path) => Some(("application_credentials_path", path.clone())),
        None if config.service_account_path.is_none() && config.service_account_key.is_none() => {
            std::env::var_os(GOOGLE_APPLICATION_CREDENTIALS)
                .filter(|value| !value.is_empty())
                .map(|value| (GOOGLE_APPLICATION_CREDENTIALS, PathBuf::from(value)))
        }
        None => None,
    };
    if let Some((field, path)) = application_credentials {
        builder = builder.with_application_credentials(readable_path(field, &path)?);
    }
    if let Some(endpoint) = &config.endpoint {
        builder = builder.with_base_url(endpoint.trim_end_matches('/'));
    }
    let store = builder
        .build()
        .map_err(|source| ObjectStoreBuildError::Client {
            backend: "GCS",
            source,
        })?;
    Ok(Arc::new(store))
}

/// The Azure client a configuration describes: account, container,
/// credentials, endpoint and the shared client policy.
fn azure_builder(config: &AzureConfig) -> MicrosoftAzureBuilder {
    let mut builder = MicrosoftAzureBuilder::new()
        .with_account(&config.account)
        .with_container_name(&config.container)
        .with_retry(retry_config(config.max_retries, config.retry_timeout))
        .with_client_options(client_options(
            config.allow_http,
            config.request_timeout,
            config.connect_timeout,
        ));
    builder = match &config.credentials {
        AzureCredentials::AccessKey(key) => builder.with_access_key(key.expose().trim()),
        AzureCredentials::SasToken(sas) => {
            builder.with_config(AzureConfigKey::SasKey, sas.expose().trim())
        }
    };
    if let Some(endpoint) = &config.endpoint {
        builder = builder.with_endpoint(endpoint.trim_end_matches('/').to_owned());
    }
    builder
}

fn build_azure(config: &AzureConfig) -> Result<Arc<dyn ObjectStore>, ObjectStoreBuildError> {
    let store = azure_builder(config)
        .build()
        .map_err(|source| ObjectStoreBuildError::Client {
            backend: "Azure",
            source,
        })?;
    Ok(Arc::new(store))
}

/// The path as UTF-8 text after checking the file can be opened, so a typo
/// is reported against the field that holds it.
fn readable_path(field: &'static str, path: &Path) -> Result<String, ObjectStoreBuildError> {
    std::fs::File::open(path).map_err(|source| ObjectStoreBuildError::File {
        field,
        path: path.to_owned(),
        source,
    })?;
    path.to_str().map(str::to_owned).ok_or_else(|| {
        ObjectStoreBuildError::Config(ObjectStoreConfigError::Invalid {
            field,
            value: path.display().to_string(),
            expected: "a UTF-8 path",
        })
    })
}

fn build_local(root: &Path) -> Result<Arc<dyn ObjectStore>, ObjectStoreBuildError> {
    std::fs::create_dir_all(root).map_err(|source| ObjectStoreBuildError::File {
        field: "root",
        path: root.to_owned(),
        source,
    })?;
    let store = LocalFileSystem::new_with_prefix(root)
        .map_err(|source| ObjectStoreBuildError::Client {
            backend: "local",
            source,
        })?
        .with_fsync(true);
    Ok(Arc::new(store))
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::Secret,
        object_store::{ObjectStoreExt, path::Path as ObjectPath},
    };

    fn local_s3() -> S3Config {
        let mut config = S3Config::new("tier", "us-east-1");
        config.endpoint = Some("http://127.0.0.1:8333".to_owned());
        config.allow_http = true;
        config.path_style = true;
        config
    }

    #[test]
    fn an_invalid_config_is_refused_before_building() {
        let mut config = local_s3();
        config.region = String::new();
        let err = build_object_store(&ObjectStoreConfig::S3(config)).unwrap_err();
        assert!(matches!(
            err,
            ObjectStoreBuildError::Config(ObjectStoreConfigError::Missing { field: "region" })
        ));
    }

    #[test]
    fn path_style_s3_names_the_endpoint_and_bucket() {
        let store = build_object_store(&ObjectStoreConfig::S3(local_s3())).unwrap();
        let text = store.to_string();
        assert!(text.contains("tier"), "{text}");
    }

    #[test]
    fn an_unusable_ca_certificates_file_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("not-a-certificate.pem");
        std::fs::write(&garbage, "this is no PEM certificate").unwrap();
        for path in [dir.path().join("missing.pem"), garbage] {
            let mut config = local_s3();
            config.tls_ca_certificates = Some(path.clone());
            let Err(err) = s3_builder(&config) else {
                panic!("{} was accepted", path.display());
            };
            assert!(
                matches!(&err, ObjectStoreBuildError::File { field: "tls_ca_certificates", path: p, .. } if *p == path),
                "{err:?}"
            );
        }
    }

    #[test]
    fn s3_uploads_carry_a_sha256_checksum() {
        use object_store::aws::AmazonS3ConfigKey;
        let builder = s3_builder(&local_s3()).unwrap();
        assert_eq!(
            builder.get_config_value(&AmazonS3ConfigKey::Checksum),
            Some("sha256".to_owned())
        );
    }

    #[test]
    fn static_credentials_build() {
        let mut config = local_s3();
        config.credentials = S3Credentials::Static {
            access_key_id: "test".to_owned(),
            secret_access_key: Secret::new("testtesttest"),
            session_token: Some(Secret::new("token")),
        };
        build_object_store(&ObjectStoreConfig::S3(config)).unwrap();
    }

    #[test]
    fn virtual_hosted_endpoints_gain_the_bucket_once() {
        assert_eq!(
            virtual_hosted_endpoint("https://s3.example.com/", "tier"),
            "https://tier.s3.example.com"
        );
        assert_eq!(
            virtual_hosted_endpoint("https://tier.s3.example.com", "tier"),
            "https://tier.s3.example.com"
        );
    }

    /// The request line and `Host` of the first request the S3 client built
    /// from `config` sends for a PUT of `key`, captured by a loopback HTTP
    /// proxy (so any host name works without DNS). For an `https://`
    /// endpoint that is the proxy's `CONNECT` line.
    fn first_request(config: &S3Config) -> (String, String) {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = format!("http://{}", listener.local_addr().unwrap());
        let seen = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut writer = stream.try_clone().unwrap();
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let (mut host, mut length) = (String::new(), 0);
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                let (name, value) = header.split_once(':').unwrap_or((header, ""));
                match name.to_ascii_lowercase().as_str() {
                    "host" => value.trim().clone_into(&mut host),
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            std::io::Read::read_exact(&mut reader, &mut body).unwrap();
            let answer = if line.starts_with("CONNECT") {
                "HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            } else {
                "HTTP/1.1 200 OK\r\netag: \"e\"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            };
            writer.write_all(answer.as_bytes()).unwrap();
            (line.trim_end().to_owned(), host)
        });
        let store = s3_builder(config)
            .unwrap()
            .with_proxy_url(proxy)
            .build()
            .unwrap();
        let _ =
            tokio_runtime().block_on(store.put(&ObjectPath::from("k/v.log"), b"x".to_vec().into()));
        seen.join().unwrap()
    }

    fn addressed(path_style: bool, endpoint: Option<&str>) -> S3Config {
        let mut config = S3Config::new("tier", "eu-west-1");
        config.endpoint = endpoint.map(str::to_owned);
        config.allow_http = true;
        config.path_style = path_style;
        config.max_retries = 0;
        config.credentials = S3Credentials::Static {
            access_key_id: "test".to_owned(),
            secret_access_key: Secret::new("testtesttest"),
            session_token: None,
        };
        config
    }

    #[test]
    fn path_style_puts_the_bucket_in_the_path() {
        let (line, host) = first_request(&addressed(true, Some("http://s3.example.com:9000/")));
        assert_eq!(line, "PUT http://s3.example.com:9000/tier/k/v.log HTTP/1.1");
        assert_eq!(host, "s3.example.com:9000");
    }

    #[test]
    fn virtual_hosted_style_puts_the_bucket_in_the_host() {
        let (line, host) = first_request(&addressed(false, Some("http://s3.example.com:9000")));
        assert_eq!(line, "PUT http://tier.s3.example.com:9000/k/v.log HTTP/1.1");
        assert_eq!(host, "tier.s3.example.com:9000");
        // No endpoint: AWS's regional virtual host, over TLS.
        let (line, _) = first_request(&addressed(false, None));
        assert_eq!(line, "CONNECT tier.s3.eu-west-1.amazonaws.com:443 HTTP/1.1");
    }

    #[test]
    fn a_missing_service_account_file_names_its_field() {
        let mut config = GcsConfig::new("tier");
        config.service_account_path = Some(PathBuf::from("/nonexistent/krabka/key.json"));
        let err = build_object_store(&ObjectStoreConfig::Gcs(config)).unwrap_err();
        assert!(matches!(
            err,
            ObjectStoreBuildError::File {
                field: "service_account_path",
                ..
            }
        ));
    }

    #[test]
    fn a_malformed_service_account_key_is_a_client_error() {
        let mut config = GcsConfig::new("tier");
        config.service_account_key = Some(Secret::new("not json"));
        let err = build_object_store(&ObjectStoreConfig::Gcs(config)).unwrap_err();
        assert!(matches!(
            err,
            ObjectStoreBuildError::Client { backend: "GCS", .. }
        ));
    }

    #[test]
    fn an_emulator_key_builds_a_gcs_store() {
        let mut config = GcsConfig::new("tier");
        config.service_account_key = Some(Secret::new(
            r#"{"private_key":"x","private_key_id":"x","client_email":"x@example.com","disable_oauth":true}"#,
        ));
        config.endpoint = Some("http://127.0.0.1:4443".to_owned());
        config.allow_http = true;
        build_object_store(&ObjectStoreConfig::Gcs(config)).unwrap();
    }

    fn azurite() -> AzureConfig {
        let mut config = AzureConfig::new(
            "devstoreaccount1",
            "tier",
            AzureCredentials::AccessKey(Secret::new("a2V5")),
        );
        config.endpoint = Some("http://127.0.0.1:10000/devstoreaccount1/".to_owned());
        config.allow_http = true;
        config
    }

    #[test]
    fn azure_builds_on_the_configured_endpoint_never_the_emulator_mode() {
        let builder = azure_builder(&azurite());
        assert_eq!(
            builder.get_config_value(&AzureConfigKey::Endpoint),
            Some("http://127.0.0.1:10000/devstoreaccount1".to_owned())
        );
        assert_eq!(
            builder.get_config_value(&AzureConfigKey::UseEmulator),
            Some("false".to_owned())
        );
        assert_eq!(
            builder.get_config_value(&AzureConfigKey::ContainerName),
            Some("tier".to_owned())
        );
        let store = build_object_store(&ObjectStoreConfig::Azure(azurite())).unwrap();
        assert!(store.to_string().contains("tier"), "{store}");
    }

    #[test]
    fn azure_sas_tokens_build_and_malformed_keys_are_client_errors() {
        let mut sas = azurite();
        sas.credentials = AzureCredentials::SasToken(Secret::new("?sv=2024-11-04&sp=rwdl&sig=abc"));
        assert_eq!(
            azure_builder(&sas).get_config_value(&AzureConfigKey::SasKey),
            Some("?sv=2024-11-04&sp=rwdl&sig=abc".to_owned())
        );
        build_object_store(&ObjectStoreConfig::Azure(sas)).unwrap();
        let mut bad = azurite();
        bad.credentials = AzureCredentials::AccessKey(Secret::new("not base64!"));
        let err = build_object_store(&ObjectStoreConfig::Azure(bad)).unwrap_err();
        assert!(
            matches!(
                err,
                ObjectStoreBuildError::Client {
                    backend: "Azure",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(!format!("{err:?}").contains("not base64"), "{err:?}");
    }

    #[test]
    fn local_and_in_memory_stores_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("created");
        let runtime = tokio_runtime();
        for config in [
            ObjectStoreConfig::Local { root },
            ObjectStoreConfig::InMemory,
        ] {
            let store = build_object_store(&config).unwrap();
            let path = ObjectPath::from("a/b");
            runtime.block_on(async {
                store.put(&path, b"hello".to_vec().into()).await.unwrap();
                let bytes = store.get(&path).await.unwrap().bytes().await.unwrap();
                assert_eq!(&bytes[..], b"hello");
            });
        }
    }

    fn tokio_runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }
}
