//! [`KmsClient`]: the two calls of AWS KMS that envelope encryption needs,
//! `GenerateDataKey` and `Decrypt`, signed with SigV4 by `object_store`'s
//! authorizer and credentials, so KMS uses the same credential chain as the
//! S3 tier (static keys, or the ambient chain: environment, web identity,
//! container and instance metadata).

use {
    crate::{S3Config, S3Credentials, build::s3_credentials_and_client},
    base64::Engine as _,
    object_store::{
        aws::{AwsAuthorizer, AwsCredentialProvider},
        client::{HttpClient, HttpRequest, HttpRequestBody},
    },
    serde_json::{Value, json},
    std::time::Duration,
    zeroize::Zeroizing,
};

/// Where a KMS key is and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmsConfig {
    /// The key id, ARN or alias (`alias/...`) new data keys are made under.
    pub key_id: String,
    /// The region of the key.
    pub region: String,
    /// The KMS endpoint; `None` means `https://kms.<region>.amazonaws.com`.
    pub endpoint: Option<String>,
    /// The credentials: the same forms as the S3 tier's.
    pub credentials: S3Credentials,
    /// Timeout of one request.
    pub request_timeout: Duration,
    /// Timeout of connecting.
    pub connect_timeout: Duration,
}

impl KmsConfig {
    /// A key in `region`, the ambient credentials, default timeouts.
    #[must_use]
    pub fn new(key_id: impl Into<String>, region: impl Into<String>) -> Self {
        Self {
            key_id: key_id.into(),
            region: region.into(),
            endpoint: None,
            credentials: S3Credentials::Ambient,
            request_timeout: crate::DEFAULT_REQUEST_TIMEOUT,
            connect_timeout: crate::DEFAULT_CONNECT_TIMEOUT,
        }
    }
}

/// A failed KMS call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KmsError {
    /// The client cannot be built from the configuration.
    #[error("the KMS client cannot be built: {0}")]
    Config(String),
    /// The request could not be sent or answered.
    #[error("KMS {operation} failed: {detail}")]
    Request {
        /// `GenerateDataKey`, `Encrypt` or `Decrypt`.
        operation: &'static str,
        /// What failed.
        detail: String,
    },
    /// KMS refused the request (its error type and message).
    #[error("KMS {operation} refused: {kind}: {message}")]
    Refused {
        /// `GenerateDataKey` or `Decrypt`.
        operation: &'static str,
        /// KMS's error type (`AccessDeniedException`, `NotFoundException`,
        /// `InvalidCiphertextException`, …).
        kind: String,
        /// Its message.
        message: String,
    },
}

/// A data key made by KMS: its plaintext and the ciphertext blob that
/// `Decrypt` turns back into it.
#[derive(Debug)]
pub struct GeneratedKey {
    /// The plaintext key (wiped when dropped).
    pub plaintext: Zeroizing<Vec<u8>>,
    /// The encrypted key, as KMS returned it.
    pub ciphertext_blob: Vec<u8>,
    /// The ARN of the key that encrypted it.
    pub key_arn: String,
}

/// A client of one KMS key.
#[derive(Debug)]
pub struct KmsClient {
    key_id: String,
    region: String,
    endpoint: String,
    credentials: AwsCredentialProvider,
    http: HttpClient,
}

impl KmsClient {
    /// A client of `config`'s key.
    ///
    /// # Errors
    /// [`KmsError::Config`] when the credentials or the HTTP client cannot
    /// be built.
    pub fn new(config: &KmsConfig) -> Result<Self, KmsError> {
        let endpoint = config
            .endpoint
            .clone()
            .unwrap_or_else(|| format!("https://kms.{}.amazonaws.com", config.region));
        let mut s3 = S3Config::new("kms-credentials", &config.region);
        s3.credentials = config.credentials.clone();
        s3.allow_http = endpoint.starts_with("http://");
        s3.request_timeout = config.request_timeout;
        s3.connect_timeout = config.connect_timeout;
        let (credentials, http) =
            s3_credentials_and_client(&s3).map_err(|err| KmsError::Config(err.to_string()))?;
        Ok(Self {
            key_id: config.key_id.clone(),
            region: config.region.clone(),
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            credentials,
            http,
        })
    }

    /// The configured key id.
    #[must_use]
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// `GenerateDataKey` of a 256-bit key under the configured key.
    ///
    /// # Errors
    /// [`KmsError`].
    pub async fn generate_data_key(&self) -> Result<GeneratedKey, KmsError> {
        const OPERATION: &str = "GenerateDataKey";
        let answer = self
            .call(
                OPERATION,
                json!({ "KeyId": self.key_id, "KeySpec": "AES_256" }),
            )
            .await?;
        Ok(GeneratedKey {
            plaintext: Zeroizing::new(base64_field(&answer, "Plaintext", OPERATION)?),
            ciphertext_blob: base64_field(&answer, "CiphertextBlob", OPERATION)?,
            key_arn: answer["KeyId"].as_str().unwrap_or(&self.key_id).to_owned(),
        })
    }

    /// `Decrypt` of a ciphertext blob made under `key_id`.
    ///
    /// # Errors
    /// [`KmsError`].
    pub async fn decrypt(&self, key_id: &str, blob: &[u8]) -> Result<Zeroizing<Vec<u8>>, KmsError> {
        const OPERATION: &str = "Decrypt";
        let blob = base64::engine::general_purpose::STANDARD.encode(blob);
        let answer = self
            .call(
                OPERATION,
                json!({ "KeyId": key_id, "CiphertextBlob": blob }),
            )
            .await?;
        base64_field(&answer, "Plaintext", OPERATION).map(Zeroizing::new)
    }

    /// `Encrypt` of `plaintext` (a data key) under the configured key; the
    /// ciphertext blob.
    ///
    /// # Errors
    /// [`KmsError`].
    pub async fn encrypt(&self, plaintext: &[u8]) -> Result<Vec<u8>, KmsError> {
        const OPERATION: &str = "Encrypt";
        let text = Zeroizing::new(base64::engine::general_purpose::STANDARD.encode(plaintext));
        let answer = self
            .call(
                OPERATION,
                json!({ "KeyId": self.key_id, "Plaintext": *text }),
            )
            .await?;
        base64_field(&answer, "CiphertextBlob", OPERATION)
    }

    async fn call(&self, operation: &'static str, body: Value) -> Result<Value, KmsError> {
        let failed = |detail: String| KmsError::Request { operation, detail };
        let credential = self
            .credentials
            .get_credential()
            .await
            .map_err(|err| failed(format!("no credentials: {err}")))?;
        let mut request: HttpRequest = http::Request::builder()
            .method("POST")
            .uri(format!("{}/", self.endpoint))
            .header("content-type", "application/x-amz-json-1.1")
            .header("x-amz-target", format!("TrentService.{operation}"))
            .body(HttpRequestBody::from(body.to_string()))
            .map_err(|err| failed(err.to_string()))?;
        AwsAuthorizer::new(&credential, "kms", &self.region)
            .try_authorize(&mut request, None)
            .map_err(|err| failed(err.to_string()))?;
        let response = self
            .http
            .execute(request)
            .await
            .map_err(|err| failed(err.to_string()))?;
        let status = response.status();
        let bytes = response
            .into_body()
            .bytes()
            .await
            .map_err(|err| failed(err.to_string()))?;
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if !status.is_success() {
            let kind = answer["__type"]
                .as_str()
                .unwrap_or("")
                .rsplit('#')
                .next()
                .unwrap_or("");
            return Err(KmsError::Refused {
                operation,
                kind: if kind.is_empty() {
                    status.to_string()
                } else {
                    kind.to_owned()
                },
                message: answer["message"]
                    .as_str()
                    .or_else(|| answer["Message"].as_str())
                    .unwrap_or("")
                    .to_owned(),
            });
        }
        Ok(answer)
    }
}

fn base64_field(answer: &Value, field: &str, operation: &'static str) -> Result<Vec<u8>, KmsError> {
    let text = answer[field].as_str().ok_or_else(|| KmsError::Request {
        operation,
        detail: format!("the answer has no {field}"),
    })?;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|err| KmsError::Request {
            operation,
            detail: format!("{field} is not base64: {err}"),
        })
}
