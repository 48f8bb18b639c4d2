//! Start-up proof that a bucket is write-once: S3 versioning plus Object
//! Lock with a COMPLIANCE default retention, or a GCS bucket with a locked
//! retention policy (Bucket Lock) and no versioning (Google allows no
//! versioning beside a retention policy), and create-only writes that really
//! refuse a second create; on GCS also an unconditional write over the probe
//! object that the bucket must refuse, since uploads in parts rely on that.
//! Anything else — including a server that answers 501 or 405 or with a body
//! of the wrong shape — is refused with what was found.

mod judge;
pub(crate) mod sigv4;
mod versions;

pub use versions::{
    BucketObjectLock, BucketProtection, BucketVersioning, S3VersionReader, VersionEntry,
    VersionRetention,
};

use {
    self::{
        judge::Answer,
        sigv4::{SigningCredentials, sign_get, uri_encode},
    },
    crate::{GcsConfig, S3Credentials},
    crate::{
        S3Config,
        store::{Result, StoreError},
    },
    bytes::Bytes,
    object_store::{
        ObjectStore, PutMode, PutOptions, PutPayload, aws::AmazonS3Builder,
        gcp::GoogleCloudStorageBuilder, path::Path,
    },
    std::time::{Duration, SystemTime, UNIX_EPOCH},
};

/// The key prefix (under the tier prefix) of the probe objects a start-up
/// writes to prove create-only writes; the verifier ignores it.
pub const CREATE_ONLY_PROBE_DIR: &str = "_krabka-worm-probe";

/// Timeout of each probe request.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

fn refused(bucket: &str, found: &str) -> StoreError {
    StoreError::Refused(format!("bucket `{bucket}` is not WORM-capable: {found}"))
}

fn unreachable(bucket: &str, err: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Retryable {
        message: format!("cannot check the protection of bucket `{bucket}`"),
        source: Some(Box::new(err)),
    }
}

/// Credentials for the probe could not be resolved: the bucket cannot be
/// checked, so it is not accepted.
fn no_credentials(bucket: &str, err: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Backend {
        message: format!("no credentials to check the protection of bucket `{bucket}`"),
        source: Some(Box::new(err)),
    }
}

pub fn client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(PROBE_TIMEOUT)
        .build()
        .map_err(|e| StoreError::Backend {
            message: "cannot build the HTTP client of the WORM bucket probe".to_owned(),
            source: Some(Box::new(e)),
        })
}

pub async fn send(bucket: &str, request: reqwest::RequestBuilder) -> Result<Answer> {
    let response = request.send().await.map_err(|e| unreachable(bucket, e))?;
    let status = response.status().as_u16();
    let body = response.text().await.map_err(|e| unreachable(bucket, e))?;
    Ok(Answer { status, body })
}

/// Proves the bucket behind `backend` write-once; returns what proved it.
pub async fn prove_write_once(
    backend: Option<crate::ObjectStoreConfig>,
    store: std::sync::Arc<dyn ObjectStore>,
    prefix: Option<String>,
) -> Result<String> {
    use crate::ObjectStoreConfig;
    match backend {
        Some(ObjectStoreConfig::S3(s3)) => {
            let proof = prove_s3(&s3).await?;
            prove_create_only(&*store, prefix.as_deref(), &s3.bucket).await?;
            Ok(format!(
                "S3 bucket `{}`: versioning Enabled, Object Lock {proof}, a second create-only write refused",
                s3.bucket
            ))
        }
        Some(ObjectStoreConfig::Gcs(gcs)) => {
            let proof = prove_gcs(&gcs).await?;
            let key = prove_create_only(&*store, prefix.as_deref(), &gcs.bucket).await?;
            prove_replace_refused(&*store, &key, &gcs.bucket).await?;
            Ok(format!(
                "GCS bucket `{}`: {proof}, no versioning, a second create-only write refused, a replacing write refused",
                gcs.bucket
            ))
        }
        Some(ObjectStoreConfig::Azure(azure)) => Err(StoreError::Refused(format!(
            "WORM mode is not supported on Azure Blob Storage (container `{}`): Krabka cannot yet prove an Azure immutability policy, so the archive would run unprotected; use an S3 bucket with Object Lock or a GCS bucket with a locked retention policy",
            azure.container
        ))),
        Some(ObjectStoreConfig::Local { .. }) => Err(StoreError::Refused(
            "WORM mode needs an S3 or GCS bucket that enforces retention; a local directory cannot".to_owned(),
        )),
        Some(_) => Err(StoreError::Refused(
            "WORM mode needs an S3 or GCS bucket that enforces retention; this backend cannot".to_owned(),
        )),
        None => Err(StoreError::Refused(
            "WORM mode needs a tier built from an S3 or GCS configuration, so the bucket's retention can be proven".to_owned(),
        )),
    }
}

/// A short description of what proved the S3 bucket locked.
async fn prove_s3(config: &S3Config) -> Result<String> {
    let bucket = &config.bucket;
    let credentials = s3_credentials(config).await?;
    let (base, host, path) = s3_bucket_url(config)?;
    let client = client()?;
    let get = |query: &'static str| {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let headers = sign_get(
            &credentials,
            &config.region,
            &host,
            &path,
            &format!("{query}="),
            now,
        );
        let mut request = client.get(format!("{base}?{query}"));
        for (name, value) in headers {
            request = request.header(name, value);
        }
        send(bucket, request)
    };
    judge::s3_versioning(&get("versioning").await?).map_err(|found| refused(bucket, &found))?;
    judge::s3_object_lock(&get("object-lock").await?).map_err(|found| refused(bucket, &found))
}

/// A short description of what proved the GCS bucket locked.
async fn prove_gcs(config: &GcsConfig) -> Result<String> {
    let bucket = &config.bucket;
    let base = config
        .endpoint
        .as_deref()
        .unwrap_or("https://storage.googleapis.com")
        .trim_end_matches('/');
    let mut request = client()?.get(format!("{base}/storage/v1/b/{}", uri_encode(bucket, false)));
    if let Some(bearer) = gcs_bearer(config).await? {
        request = request.bearer_auth(bearer);
    }
    judge::gcs_bucket(&send(bucket, request).await?).map_err(|found| refused(bucket, &found))
}

/// Proves that a second create-only write of a key is refused: writes a
/// fresh probe object twice under `<prefix>/_krabka-worm-probe/`. Returns
/// the probe's key.
async fn prove_create_only(
    store: &dyn ObjectStore,
    prefix: Option<&str>,
    bucket: &str,
) -> Result<Path> {
    let name = format!("{CREATE_ONLY_PROBE_DIR}/{}", uuid::Uuid::new_v4());
    let key = Path::from(match prefix {
        Some(prefix) => format!("{prefix}/{name}"),
        None => name,
    });
    let create = || {
        store.put_opts(
            &key,
            PutPayload::from(Bytes::from_static(b"krabka WORM create-only probe\n")),
            PutOptions::from(PutMode::Create),
        )
    };
    match create().await {
        Ok(_) => {}
        Err(object_store::Error::NotImplemented { .. }) => {
            return Err(refused(bucket, "create-only writes are not implemented"));
        }
        Err(err) => {
            return Err(refused(
                bucket,
                &format!("a create-only write of a fresh key failed: {err}"),
            ));
        }
    }
    match create().await {
        Err(object_store::Error::AlreadyExists { .. }) => Ok(key),
        Ok(_) => Err(refused(
            bucket,
            "a second create-only write of the same key succeeded: the server ignores conditional writes",
        )),
        Err(err) => Err(refused(
            bucket,
            &format!(
                "a second create-only write of the same key failed with an unexpected error: {err}"
            ),
        )),
    }
}

/// Proves that the bucket refuses to replace an object under retention:
/// an unconditional write over the probe object at `key` (created just
/// before) must be refused (403). Uploads in parts on GCS rely on this,
/// because a multipart completion carries no precondition.
async fn prove_replace_refused(store: &dyn ObjectStore, key: &Path, bucket: &str) -> Result<()> {
    let replace = store
        .put_opts(
            key,
            PutPayload::from(Bytes::from_static(b"krabka WORM replace probe\n")),
            PutOptions::from(PutMode::Overwrite),
        )
        .await;
    match replace {
        Err(object_store::Error::PermissionDenied { .. }) => Ok(()),
        Ok(_) => Err(refused(
            bucket,
            "an unconditional write replaced the probe object: the bucket does not enforce a retention policy on its objects",
        )),
        Err(err) => Err(refused(
            bucket,
            &format!(
                "an unconditional write over the probe object failed with an unexpected error (a retention refusal, HTTP 403, was expected): {err}"
            ),
        )),
    }
}

/// `(url, host header, canonical path)` of the bucket root.
pub fn s3_bucket_url(config: &S3Config) -> Result<(String, String, String)> {
    let bucket = &config.bucket;
    let endpoint = config.endpoint.clone().unwrap_or_else(|| {
        if config.path_style {
            format!("https://s3.{}.amazonaws.com", config.region)
        } else {
            format!("https://{bucket}.s3.{}.amazonaws.com", config.region)
        }
    });
    let endpoint = endpoint.trim_end_matches('/');
    let endpoint = match endpoint.split_once("://") {
        Some((scheme, host))
            if !config.path_style
                && config.endpoint.is_some()
                && !host.starts_with(&format!("{bucket}.")) =>
        {
            format!("{scheme}://{bucket}.{host}")
        }
        _ => endpoint.to_owned(),
    };
    let url = reqwest::Url::parse(&endpoint)
        .map_err(|e| StoreError::InvalidArgument(format!("S3 endpoint `{endpoint}`: {e}")))?;
    let mut host = url.host_str().unwrap_or_default().to_owned();
    if let Some(port) = url.port() {
        host = format!("{host}:{port}");
    }
    let path = if config.path_style {
        format!("/{}", uri_encode(bucket, false))
    } else {
        "/".to_owned()
    };
    let base = format!("{}://{host}{path}", url.scheme());
    Ok((base, host, path))
}

pub async fn s3_credentials(config: &S3Config) -> Result<SigningCredentials> {
    match &config.credentials {
        S3Credentials::Static {
            access_key_id,
            secret_access_key,
            session_token,
        } => Ok(SigningCredentials {
            access_key_id: access_key_id.clone(),
            secret_access_key: secret_access_key.expose().to_owned(),
            session_token: session_token.as_ref().map(|t| t.expose().to_owned()),
        }),
        _ => {
            let store = AmazonS3Builder::from_env()
                .with_bucket_name(&config.bucket)
                .with_region(&config.region)
                .build()
                .map_err(|e| no_credentials(&config.bucket, e))?;
            let credential =
                object_store::CredentialProvider::get_credential(&**store.credentials())
                    .await
                    .map_err(|e| unreachable(&config.bucket, e))?;
            Ok(SigningCredentials {
                access_key_id: credential.key_id.clone(),
                secret_access_key: credential.secret_key.clone(),
                session_token: credential.token.clone(),
            })
        }
    }
}

async fn gcs_bearer(config: &GcsConfig) -> Result<Option<String>> {
    let mut builder = GoogleCloudStorageBuilder::new().with_bucket_name(&config.bucket);
    if let Some(path) = &config.service_account_path {
        builder = builder.with_service_account_path(path.to_string_lossy());
    }
    if let Some(key) = &config.service_account_key {
        builder = builder.with_service_account_key(key.expose());
    }
    if let Some(path) = &config.application_credentials_path {
        builder = builder.with_application_credentials(path.to_string_lossy());
    }
    let store = builder
        .build()
        .map_err(|e| no_credentials(&config.bucket, e))?;
    let credential = object_store::CredentialProvider::get_credential(&**store.credentials())
        .await
        .map_err(|e| unreachable(&config.bucket, e))?;
    Ok(Some(credential.bearer.clone()).filter(|b| !b.is_empty()))
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{AzureConfig, AzureCredentials, ObjectStoreConfig, Secret},
        object_store::memory::InMemory,
    };

    #[test]
    fn an_azure_container_is_refused_as_a_write_once_archive() {
        let config = AzureConfig::new(
            "account1",
            "archive",
            AzureCredentials::AccessKey(Secret::new("a2V5")),
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let refused = runtime.block_on(prove_write_once(
            Some(ObjectStoreConfig::Azure(config)),
            std::sync::Arc::new(InMemory::new()),
            None,
        ));
        let Err(StoreError::Refused(message)) = refused else {
            panic!("an Azure container was accepted: {refused:?}");
        };
        assert!(message.contains("Azure"), "{message}");
        assert!(message.contains("`archive`"), "{message}");
    }
}
