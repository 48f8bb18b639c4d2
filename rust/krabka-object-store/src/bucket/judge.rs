//! Reading the answers of the bucket-protection probes, failing closed: any
//! status other than 200, any body of an unexpected shape, and any setting
//! short of a locked positive retention is a refusal that says what was
//! found.

/// What a probe request got back.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    fn found(&self) -> String {
        let mut body: String = self.body.chars().take(300).collect();
        if self.body.len() > body.len() {
            body.push('…');
        }
        format!("HTTP {} with body `{}`", self.status, body.trim())
    }

    fn ok_body(&self, what: &str) -> Result<&str, String> {
        match self.status {
            200 => Ok(&self.body),
            501 | 405 => Err(format!(
                "the server does not implement {what}: {}",
                self.found()
            )),
            _ => Err(format!("{what} answered {}", self.found())),
        }
    }
}

/// The text of the first `<tag>…</tag>` element of `xml`.
pub fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = xml.find(&open)? + open.len();
    let len = xml.get(start..)?.find(&close)?;
    xml.get(start..start + len).map(str::trim)
}

/// Whether the document's root element is `root`.
fn has_root(xml: &str, root: &str) -> bool {
    let mut rest = xml.trim_start();
    if rest.starts_with("<?xml") {
        rest = rest
            .find("?>")
            .and_then(|end| rest.get(end + 2..))
            .unwrap_or_default()
            .trim_start();
    }
    rest.strip_prefix('<')
        .and_then(|tail| tail.strip_prefix(root))
        .is_some_and(|tail| tail.starts_with('>') || tail.starts_with(' ') || tail.starts_with('/'))
}

/// `GET /bucket?versioning` must say `<Status>Enabled</Status>`.
pub fn s3_versioning(answer: &Answer) -> Result<(), String> {
    let body = answer.ok_body("GetBucketVersioning")?;
    if !has_root(body, "VersioningConfiguration") {
        return Err(format!(
            "GetBucketVersioning returned no VersioningConfiguration: {}",
            answer.found()
        ));
    }
    match element(body, "Status") {
        Some("Enabled") => Ok(()),
        Some(other) => Err(format!("bucket versioning is `{other}`, not `Enabled`")),
        None => Err("bucket versioning was never enabled".to_owned()),
    }
}

/// `GET /bucket?object-lock` must show Object Lock enabled with a
/// COMPLIANCE default retention of positive length. Returns a summary such
/// as `COMPLIANCE 1 Days`.
pub fn s3_object_lock(answer: &Answer) -> Result<String, String> {
    if answer.status == 404 && answer.body.contains("ObjectLockConfigurationNotFound") {
        return Err("Object Lock is not enabled on the bucket".to_owned());
    }
    let body = answer.ok_body("GetObjectLockConfiguration")?;
    if !has_root(body, "ObjectLockConfiguration") {
        return Err(format!(
            "GetObjectLockConfiguration returned no ObjectLockConfiguration: {}",
            answer.found()
        ));
    }
    match element(body, "ObjectLockEnabled") {
        Some("Enabled") => {}
        other => {
            return Err(format!(
                "ObjectLockEnabled is `{}`, not `Enabled`",
                other.unwrap_or("absent")
            ));
        }
    }
    let Some(retention) = element(body, "DefaultRetention") else {
        return Err("Object Lock has no default retention rule".to_owned());
    };
    match element(retention, "Mode") {
        Some("COMPLIANCE") => {}
        Some("GOVERNANCE") => {
            return Err(
                "the default retention is GOVERNANCE, which privileged users can bypass; COMPLIANCE is required"
                    .to_owned(),
            );
        }
        other => {
            return Err(format!(
                "the default retention mode is `{}`, not COMPLIANCE",
                other.unwrap_or("absent")
            ));
        }
    }
    for unit in ["Days", "Years"] {
        if let Some(value) = element(retention, unit) {
            return match value.parse::<u64>() {
                Ok(n) if n > 0 => Ok(format!("COMPLIANCE {n} {unit}")),
                _ => Err(format!(
                    "the default retention is `{value}` {unit}, not a positive length"
                )),
            };
        }
    }
    Err("the default retention has no Days or Years".to_owned())
}

/// The GCS JSON bucket resource must show versioning and a locked retention
/// policy of positive length. Returns a summary.
pub fn gcs_bucket(answer: &Answer) -> Result<String, String> {
    let body = answer.ok_body("the GCS bucket resource")?;
    let value: serde_json::Value = serde_json::from_str(body)
        .map_err(|_| format!("the bucket resource is not JSON: {}", answer.found()))?;
    if value.get("kind").and_then(|k| k.as_str()) != Some("storage#bucket") {
        return Err(format!(
            "the answer is not a bucket resource: {}",
            answer.found()
        ));
    }
    if value
        .pointer("/versioning/enabled")
        .and_then(serde_json::Value::as_bool)
        != Some(true)
    {
        return Err("object versioning is not enabled on the bucket".to_owned());
    }
    let Some(policy) = value.get("retentionPolicy") else {
        return Err("the bucket has no retention policy".to_owned());
    };
    let period = policy
        .get("retentionPeriod")
        .and_then(|p| {
            p.as_str()
                .and_then(|s| s.parse::<u64>().ok())
                .or_else(|| p.as_u64())
        })
        .unwrap_or(0);
    if period == 0 {
        return Err("the retention policy has no positive retention period".to_owned());
    }
    if policy.get("isLocked").and_then(serde_json::Value::as_bool) != Some(true) {
        return Err(format!(
            "the retention policy of {period} s is not locked (Bucket Lock), so it can still be removed"
        ));
    }
    Ok(format!("locked retention of {period} s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(body: &str) -> Answer {
        Answer {
            status: 200,
            body: body.to_owned(),
        }
    }

    const LOCK: &str = r#"<?xml version="1.0" encoding="UTF-8"?><ObjectLockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Days>1</Days></DefaultRetention></Rule></ObjectLockConfiguration>"#;

    #[test]
    fn compliance_retention_is_accepted() {
        assert_eq!(
            s3_object_lock(&ok(LOCK)).as_deref(),
            Ok("COMPLIANCE 1 Days")
        );
    }

    #[test]
    fn governance_zero_days_and_missing_rules_are_refused() {
        for body in [
            LOCK.replace("COMPLIANCE", "GOVERNANCE"),
            LOCK.replace("<Days>1</Days>", "<Days>0</Days>"),
            LOCK.replace("<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Days>1</Days></DefaultRetention></Rule>", ""),
            LOCK.replace("<ObjectLockEnabled>Enabled</ObjectLockEnabled>", ""),
            "<ListBucketResult><Name>test</Name></ListBucketResult>".to_owned(),
        ] {
            assert!(s3_object_lock(&ok(&body)).is_err(), "{body}");
        }
    }

    #[test]
    fn unimplemented_and_missing_lock_are_refused() {
        for (status, body) in [
            (501, "NotImplemented"),
            (405, ""),
            (404, "<Code>ObjectLockConfigurationNotFoundError</Code>"),
            (403, "AccessDenied"),
        ] {
            let answer = Answer {
                status,
                body: body.to_owned(),
            };
            assert!(s3_object_lock(&answer).is_err());
            assert!(s3_versioning(&answer).is_err());
        }
    }

    #[test]
    fn versioning_must_be_enabled() {
        let enabled = r#"<VersioningConfiguration xmlns="x"><Status>Enabled</Status></VersioningConfiguration>"#;
        assert_eq!(s3_versioning(&ok(enabled)), Ok(()));
        assert!(s3_versioning(&ok(&enabled.replace("Enabled", "Suspended"))).is_err());
        assert!(s3_versioning(&ok("<VersioningConfiguration/>")).is_err());
        assert!(s3_versioning(&ok("<ListBucketResult></ListBucketResult>")).is_err());
    }

    #[test]
    fn gcs_needs_versioning_and_a_locked_policy() {
        let good = r#"{"kind":"storage#bucket","versioning":{"enabled":true},"retentionPolicy":{"retentionPeriod":"86400","isLocked":true}}"#;
        assert_eq!(
            gcs_bucket(&ok(good)).as_deref(),
            Ok("locked retention of 86400 s")
        );
        for body in [
            good.replace("\"isLocked\":true", "\"isLocked\":false"),
            good.replace("\"enabled\":true", "\"enabled\":false"),
            good.replace("86400", "0"),
            r#"{"kind":"storage#bucket","versioning":{"enabled":true}}"#.to_owned(),
            "not json".to_owned(),
        ] {
            assert!(gcs_bucket(&ok(&body)).is_err(), "{body}");
        }
    }
}
