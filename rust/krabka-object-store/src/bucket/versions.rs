//! S3 object versions of an archive: `ListObjectVersions` (newer versions
//! and delete markers shadowing an archived key) and the Object Lock
//! retention of each archived version (`HEAD ?versionId=`).

use {
    super::{
        client,
        judge::{Answer, element},
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

/// The versioning state of a bucket (`GetBucketVersioning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BucketVersioning {
    /// Versioning is on.
    Enabled,
    /// Versioning was on and is suspended: new writes replace the `null`
    /// version.
    Suspended,
    /// Versioning was never enabled.
    Off,
}

impl BucketVersioning {
    /// The state as S3 names it (`Enabled`, `Suspended`), `Off` when never
    /// enabled.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enabled => "Enabled",
            Self::Suspended => "Suspended",
            Self::Off => "Off",
        }
    }
}

/// A bucket's Object Lock configuration (`GetObjectLockConfiguration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketObjectLock {
    /// `ObjectLockEnabled` is `Enabled`.
    pub enabled: bool,
    /// The default retention mode (`COMPLIANCE`, `GOVERNANCE`), if a
    /// default rule is set.
    pub default_mode: Option<String>,
    /// The default retention period, such as `1 Days` or `7 Years`.
    pub default_period: Option<String>,
}

/// What a bucket itself says about its protection, as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketProtection {
    /// The versioning state.
    pub versioning: BucketVersioning,
    /// The Object Lock configuration; `None` when the bucket has none (the
    /// server answers `ObjectLockConfigurationNotFoundError`, or does not
    /// implement Object Lock at all).
    pub object_lock: Option<BucketObjectLock>,
}

/// One page of `ListObjectVersions`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct VersionsPage {
    /// Its versions and delete markers, in the order listed.
    entries: Vec<VersionEntry>,
    /// Where the next page starts (`NextKeyMarker`, `NextVersionIdMarker`);
    /// `None` on the last page.
    next: Option<(String, String)>,
}

/// Parses one `ListObjectVersions` page. A truncated page must name where
/// the next one starts.
fn parse_versions_page(body: &str) -> std::result::Result<VersionsPage, String> {
    if !body.contains("<ListVersionsResult") {
        return Err("the answer is not a ListVersionsResult".to_owned());
    }
    let mut entries = Vec::new();
    for (tag, delete_marker) in [("Version", false), ("DeleteMarker", true)] {
        for block in blocks(body, tag) {
            let (Some(key), Some(version_id)) =
                (element(block, "Key"), element(block, "VersionId"))
            else {
                return Err(format!("a <{tag}> without Key or VersionId"));
            };
            entries.push(VersionEntry {
                key: unescape(key),
                version_id: unescape(version_id),
                is_latest: element(block, "IsLatest") == Some("true"),
                delete_marker,
            });
        }
    }
    let next = match element(body, "IsTruncated") {
        Some("true") => match (
            element(body, "NextKeyMarker").filter(|m| !m.is_empty()),
            element(body, "NextVersionIdMarker").filter(|m| !m.is_empty()),
        ) {
            (Some(key), Some(version)) => Some((unescape(key), unescape(version))),
            _ => {
                return Err(
                    "a truncated page (IsTruncated true) without NextKeyMarker and NextVersionIdMarker: the listing cannot continue, and a shorter list would hide versions"
                        .to_owned(),
                );
            }
        },
        Some("false") | None => None,
        Some(other) => return Err(format!("IsTruncated is `{other}`, not true or false")),
    };
    Ok(VersionsPage { entries, next })
}

/// Reads a `GetBucketVersioning` answer.
fn parse_versioning(answer: &Answer) -> std::result::Result<BucketVersioning, String> {
    if answer.status != 200 || !answer.body.contains("<VersioningConfiguration") {
        return Err(format!(
            "HTTP {} without a VersioningConfiguration",
            answer.status
        ));
    }
    match element(&answer.body, "Status") {
        Some("Enabled") => Ok(BucketVersioning::Enabled),
        Some("Suspended") => Ok(BucketVersioning::Suspended),
        None => Ok(BucketVersioning::Off),
        Some(other) => Err(format!(
            "versioning status `{other}`, not Enabled or Suspended"
        )),
    }
}

/// Reads a `GetObjectLockConfiguration` answer; `None` when the bucket has
/// no Object Lock (404 `ObjectLockConfigurationNotFoundError`, or a server
/// that does not implement it: 501, 405).
fn parse_object_lock(answer: &Answer) -> std::result::Result<Option<BucketObjectLock>, String> {
    match answer.status {
        200 => {}
        404 if answer.body.contains("ObjectLockConfigurationNotFound") => return Ok(None),
        501 | 405 => return Ok(None),
        status => return Err(format!("HTTP {status}")),
    }
    if !answer.body.contains("<ObjectLockConfiguration") {
        return Err("HTTP 200 without an ObjectLockConfiguration".to_owned());
    }
    let retention = element(&answer.body, "DefaultRetention");
    let default_period = retention.and_then(|rule| {
        ["Days", "Years"]
            .into_iter()
            .find_map(|unit| element(rule, unit).map(|n| format!("{n} {unit}")))
    });
    Ok(Some(BucketObjectLock {
        enabled: element(&answer.body, "ObjectLockEnabled") == Some("Enabled"),
        default_mode: retention
            .and_then(|rule| element(rule, "Mode"))
            .map(str::to_owned),
        default_period,
    }))
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

    async fn request(&self, method: &str, path: &str, url: &str, query: &str) -> Result<Answer> {
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

    /// Every version and delete marker under `prefix`, page by page.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when a page is not a `ListVersionsResult`, or
    /// when a page says it is truncated but names no continuation (or the
    /// one it names does not move on): a shorter list would hide versions,
    /// so the listing fails rather than end early.
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
            if answer.status != 200 {
                return Err(StoreError::Backend {
                    message: format!(
                        "ListObjectVersions of bucket `{}` answered HTTP {}",
                        self.config.bucket, answer.status
                    ),
                    source: None,
                });
            }
            let page =
                parse_versions_page(&answer.body).map_err(|problem| StoreError::Backend {
                    message: format!(
                        "ListObjectVersions of bucket `{}` under `{prefix}`: {problem}",
                        self.config.bucket
                    ),
                    source: None,
                })?;
            out.extend(page.entries);
            match page.next {
                None => return Ok(out),
                Some(next) if markers.as_ref() == Some(&next) => {
                    return Err(StoreError::Backend {
                        message: format!(
                            "ListObjectVersions of bucket `{}` under `{prefix}` repeated its continuation (key `{}`, version `{}`): the listing cannot move on",
                            self.config.bucket, next.0, next.1
                        ),
                        source: None,
                    });
                }
                Some(next) => markers = Some(next),
            }
        }
    }

    /// The bucket's own protection: `GET ?versioning` and
    /// `GET ?object-lock`, as found (no judgement).
    ///
    /// # Errors
    /// [`StoreError::Backend`] when either answer is neither the expected
    /// document nor (for Object Lock) the "not configured" error; a
    /// transport failure as [`StoreError::Retryable`].
    pub async fn bucket_protection(&self) -> Result<BucketProtection> {
        let versioning = self
            .request("GET", &self.path, &self.base, "versioning=")
            .await?;
        let lock = self
            .request("GET", &self.path, &self.base, "object-lock=")
            .await?;
        let bucket = &self.config.bucket;
        let versioning = parse_versioning(&versioning).map_err(|problem| StoreError::Backend {
            message: format!("GetBucketVersioning of bucket `{bucket}`: {problem}"),
            source: None,
        })?;
        let object_lock = parse_object_lock(&lock).map_err(|problem| StoreError::Backend {
            message: format!("GetObjectLockConfiguration of bucket `{bucket}`: {problem}"),
            source: None,
        })?;
        Ok(BucketProtection {
            versioning,
            object_lock,
        })
    }

    /// The Object Lock mode and retain-until date of one version; `None`
    /// when the server answers 404 (no such version, or no such key).
    ///
    /// # Errors
    /// [`StoreError::Backend`] for any other status than 200 or 404;
    /// [`StoreError::Retryable`] when the request fails.
    pub async fn retention(&self, key: &str, version_id: &str) -> Result<Option<VersionRetention>> {
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
        if status == 404 {
            return Ok(None);
        }
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
        Ok(Some(VersionRetention {
            mode: header("x-amz-object-lock-mode"),
            retain_until: header("x-amz-object-lock-retain-until-date"),
        }))
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

    const PAGE: &str = "<ListVersionsResult><IsTruncated>false</IsTruncated><Version><Key>p/a</Key><VersionId>v2</VersionId><IsLatest>false</IsLatest></Version><DeleteMarker><Key>p/a</Key><VersionId>v3</VersionId><IsLatest>true</IsLatest></DeleteMarker></ListVersionsResult>";

    #[test]
    fn a_page_yields_versions_and_delete_markers() {
        let page = parse_versions_page(PAGE).unwrap();
        assert_eq!(page.next, None);
        assert_eq!(page.entries.len(), 2);
        assert!(!page.entries[0].delete_marker && !page.entries[0].is_latest);
        assert!(page.entries[1].delete_marker && page.entries[1].is_latest);
        assert_eq!(page.entries[1].version_id, "v3");
    }

    #[test]
    fn a_truncated_page_names_its_continuation_or_fails() {
        let truncated = PAGE.replace(
            "<IsTruncated>false</IsTruncated>",
            "<IsTruncated>true</IsTruncated><NextKeyMarker>p/a</NextKeyMarker><NextVersionIdMarker>v2</NextVersionIdMarker>",
        );
        assert_eq!(
            parse_versions_page(&truncated).unwrap().next,
            Some(("p/a".to_owned(), "v2".to_owned()))
        );
        for bad in [
            PAGE.replace("<IsTruncated>false</IsTruncated>", "<IsTruncated>true</IsTruncated>"),
            PAGE.replace(
                "<IsTruncated>false</IsTruncated>",
                "<IsTruncated>true</IsTruncated><NextKeyMarker>p/a</NextKeyMarker>",
            ),
            PAGE.replace(
                "<IsTruncated>false</IsTruncated>",
                "<IsTruncated>true</IsTruncated><NextKeyMarker></NextKeyMarker><NextVersionIdMarker>v</NextVersionIdMarker>",
            ),
            PAGE.replace("false</IsTruncated>", "maybe</IsTruncated>"),
            PAGE.replace("<Key>p/a</Key><VersionId>v3</VersionId>", "<Key>p/a</Key>"),
            "<ListBucketResult></ListBucketResult>".to_owned(),
        ] {
            assert!(parse_versions_page(&bad).is_err(), "{bad}");
        }
    }

    fn answer(status: u16, body: &str) -> Answer {
        Answer {
            status,
            body: body.to_owned(),
        }
    }

    #[test]
    fn versioning_states_are_read_as_found() {
        let doc = |status: &str| {
            answer(
                200,
                &format!("<VersioningConfiguration>{status}</VersioningConfiguration>"),
            )
        };
        assert_eq!(
            parse_versioning(&doc("<Status>Enabled</Status>")),
            Ok(BucketVersioning::Enabled)
        );
        assert_eq!(
            parse_versioning(&doc("<Status>Suspended</Status>")),
            Ok(BucketVersioning::Suspended)
        );
        assert_eq!(parse_versioning(&doc("")), Ok(BucketVersioning::Off));
        assert!(parse_versioning(&doc("<Status>Sometimes</Status>")).is_err());
        assert!(parse_versioning(&answer(403, "AccessDenied")).is_err());
    }

    #[test]
    fn object_lock_is_read_as_found() {
        let locked = answer(
            200,
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Years>7</Years></DefaultRetention></Rule></ObjectLockConfiguration>",
        );
        assert_eq!(
            parse_object_lock(&locked),
            Ok(Some(BucketObjectLock {
                enabled: true,
                default_mode: Some("GOVERNANCE".to_owned()),
                default_period: Some("7 Years".to_owned()),
            }))
        );
        let no_rule = answer(
            200,
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>",
        );
        assert_eq!(
            parse_object_lock(&no_rule),
            Ok(Some(BucketObjectLock {
                enabled: true,
                default_mode: None,
                default_period: None,
            }))
        );
        let missing = answer(
            404,
            "<Error><Code>ObjectLockConfigurationNotFoundError</Code></Error>",
        );
        assert_eq!(parse_object_lock(&missing), Ok(None));
        assert_eq!(parse_object_lock(&answer(501, "")), Ok(None));
        assert!(parse_object_lock(&answer(404, "NoSuchBucket")).is_err());
        assert!(parse_object_lock(&answer(403, "AccessDenied")).is_err());
        assert!(parse_object_lock(&answer(200, "<ListBucketResult/>")).is_err());
    }
}
