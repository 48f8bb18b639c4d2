//! S3 object versions of an archive: `ListObjectVersions` (newer versions
//! and delete markers shadowing an archived key) and the Object Lock
//! retention of each archived version (`HEAD ?versionId=`).

use {
    super::{
        client,
        judge::element,
        s3_bucket_url, s3_credentials, send,
        sigv4::{SigningCredentials, sign, uri_encode},
    },
    crate::{
        S3Config,
        store::{Result, StoreError},
    },
    std::time::{SystemTime, UNIX_EPOCH},
};

/// One entry of `ListObjectVersions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionEntry {
    /// The object key.
    pub key: String,
    /// The version id (`null` for an object written before versioning).
    pub version_id: String,
    /// Whether this is the key's current version.
    pub is_latest: bool,
    /// Whether this version is a delete marker.
    pub delete_marker: bool,
}

/// The retention of one object version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRetention {
    /// `COMPLIANCE` or `GOVERNANCE`, when the version is retained.
    pub mode: Option<String>,
    /// The retain-until date as the server wrote it (ISO 8601).
    pub retain_until: Option<String>,
}

/// Signs and sends the S3 bucket-level requests `object_store` has no API
/// for: `ListObjectVersions` and the retention of one object version.
pub struct S3VersionReader {
    config: S3Config,
    credentials: SigningCredentials,
    base: String,
    host: String,
    path: String,
    client: reqwest::Client,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Every `<tag>…</tag>` block of `xml`, in order.
fn blocks<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = start + open.len();
        let Some(len) = rest.get(after..).and_then(|tail| tail.find(&close)) else {
            break;
        };
        if let Some(block) = rest.get(after..after + len) {
            out.push(block);
        }
        rest = rest.get(after + len + close.len()..).unwrap_or_default();
    }
    out
}

impl std::fmt::Debug for S3VersionReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3VersionReader")
            .field("bucket", &self.config.bucket)
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl S3VersionReader {
    /// A reader for the bucket of `config`, with its credentials resolved.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] for an unusable endpoint, or a
    /// failure to resolve credentials.
    pub async fn new(config: &S3Config) -> Result<Self> {
        let (base, host, path) = s3_bucket_url(config)?;
        Ok(Self {
            credentials: s3_credentials(config).await?,
            config: config.clone(),
            base,
            host,
            path,
            client: client()?,
        })
    }

    async fn request(
        &self,
        method: &str,
        path: &str,
        url: &str,
        query: &str,
    ) -> Result<super::judge::Answer> {
        let headers = sign(
            method,
            &self.credentials,
            &self.config.region,
            &self.host,
            path,
            query,
            now(),
        );
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|e| StoreError::InvalidArgument(format!("HTTP method: {e}")))?;
        let mut request = self.client.request(method, format!("{url}?{query}"));
        for (name, value) in headers {
            request = request.header(name, value);
        }
        send(&self.config.bucket, request).await
    }

    async fn request_headers(
        &self,
        path: &str,
        url: &str,
        query: &str,
    ) -> Result<(u16, reqwest::header::HeaderMap)> {
        let headers = sign(
            "HEAD",
            &self.credentials,
            &self.config.region,
            &self.host,
            path,
            query,
            now(),
        );
        let mut request = self.client.head(format!("{url}?{query}"));
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().await.map_err(|e| StoreError::Retryable {
            message: "HEAD of an archived version failed".to_owned(),
            source: Some(Box::new(e)),
        })?;
        Ok((response.status().as_u16(), response.headers().clone()))
    }

    /// Every version and delete marker under `prefix`.
    pub async fn list_versions(&self, prefix: &str) -> Result<Vec<VersionEntry>> {
        let mut out = Vec::new();
        let mut markers: Option<(String, String)> = None;
        loop {
            let mut params = vec![
                ("prefix".to_owned(), prefix.to_owned()),
                ("versions".to_owned(), String::new()),
            ];
            if let Some((key, version)) = &markers {
                params.push(("key-marker".to_owned(), key.clone()));
                params.push(("version-id-marker".to_owned(), version.clone()));
            }
            params.sort();
            let query = params
                .iter()
                .map(|(k, v)| format!("{}={}", uri_encode(k, false), uri_encode(v, false)))
                .collect::<Vec<_>>()
                .join("&");
            let answer = self.request("GET", &self.path, &self.base, &query).await?;
            if answer.status != 200 || !answer.body.contains("ListVersionsResult") {
                return Err(StoreError::Backend {
                    message: format!(
                        "ListObjectVersions of bucket `{}` answered HTTP {}",
                        self.config.bucket, answer.status
                    ),
                    source: None,
                });
            }
            for (tag, delete_marker) in [("Version", false), ("DeleteMarker", true)] {
                for block in blocks(&answer.body, tag) {
                    let (Some(key), Some(version_id)) =
                        (element(block, "Key"), element(block, "VersionId"))
                    else {
                        continue;
                    };
                    out.push(VersionEntry {
                        key: unescape(key),
                        version_id: unescape(version_id),
                        is_latest: element(block, "IsLatest") == Some("true"),
                        delete_marker,
                    });
                }
            }
            if element(&answer.body, "IsTruncated") != Some("true") {
                return Ok(out);
            }
            let next = (
                element(&answer.body, "NextKeyMarker").map(unescape),
                element(&answer.body, "NextVersionIdMarker").map(unescape),
            );
            match next {
                (Some(key), Some(version))
                    if markers.as_ref() != Some(&(key.clone(), version.clone())) =>
                {
                    markers = Some((key, version));
                }
                _ => return Ok(out),
            }
        }
    }

    /// The Object Lock mode and retain-until date of one version.
    pub async fn retention(&self, key: &str, version_id: &str) -> Result<VersionRetention> {
        let encoded = uri_encode(key, true);
        let path = if self.path.ends_with('/') {
            format!("{}{encoded}", self.path)
        } else {
            format!("{}/{encoded}", self.path)
        };
        let url = format!(
            "{}{}",
            self.base.strip_suffix(&self.path).unwrap_or(&self.base),
            path
        );
        let query = format!("versionId={}", uri_encode(version_id, false));
        let (status, headers) = self.request_headers(&path, &url, &query).await?;
        if status != 200 {
            return Err(StoreError::Backend {
                message: format!("HEAD of {key} version {version_id} answered HTTP {status}"),
                source: None,
            });
        }
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        Ok(VersionRetention {
            mode: header("x-amz-object-lock-mode"),
            retain_until: header("x-amz-object-lock-retain-until-date"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_found_in_order() {
        let xml = "<R><Version><Key>a</Key></Version><DeleteMarker><Key>b</Key></DeleteMarker><Version><Key>c&amp;d</Key></Version></R>";
        let keys: Vec<_> = blocks(xml, "Version")
            .into_iter()
            .filter_map(|b| element(b, "Key"))
            .map(unescape)
            .collect();
        assert_eq!(keys, vec!["a", "c&d"]);
        assert_eq!(blocks(xml, "DeleteMarker").len(), 1);
        assert!(blocks("<Version><Key>x</Key>", "Version").is_empty());
    }
}
