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

/// The GCS JSON bucket resource must show a **locked** retention policy
/// (Bucket Lock) of positive length, and no Object Versioning: Google does
/// not allow a retention policy and versioning on one bucket
/// (<https://cloud.google.com/storage/docs/bucket-lock>), so a resource
/// that shows both does not come from a server that keeps GCS's rules.
/// Object Retention Lock alone (`objectRetention.mode`) is not enough: the
/// archive's writes cannot set a retention per object. Returns a summary.
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
    let versioned = value
        .pointer("/versioning/enabled")
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    let Some(policy) = value.get("retentionPolicy") else {
        let object_retention = value
            .pointer("/objectRetention/mode")
            .and_then(serde_json::Value::as_str)
            == Some("Enabled");
        return Err(if object_retention {
            "the bucket has Object Retention Lock but no bucket retention policy; the archive needs a locked retention policy (Bucket Lock), since its writes cannot set a retention per object".to_owned()
        } else if versioned {
            "the bucket has Object Versioning and no retention policy; the archive needs a locked retention policy (Bucket Lock) and no versioning, which Google does not allow together with one".to_owned()
        } else {
            "the bucket has no retention policy; the archive needs a locked retention policy (Bucket Lock)".to_owned()
        });
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
    if versioned {
        return Err(format!(
            "the bucket reports Object Versioning together with a retention policy of {period} s, which Google Cloud Storage does not allow: this server does not keep GCS's rules"
        ));
    }
    Ok(format!("locked retention policy of {period} s"))
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
    fn gcs_needs_a_locked_policy_and_no_versioning() {
        let good = r#"{"kind":"storage#bucket","versioning":{"enabled":false},"retentionPolicy":{"retentionPeriod":"86400","isLocked":true}}"#;
        assert_eq!(
            gcs_bucket(&ok(good)).as_deref(),
            Ok("locked retention policy of 86400 s")
        );
        let no_versioning_field = r#"{"kind":"storage#bucket","retentionPolicy":{"retentionPeriod":86400,"isLocked":true}}"#;
        assert!(gcs_bucket(&ok(no_versioning_field)).is_ok());
        for body in [
            good.replace("\"isLocked\":true", "\"isLocked\":false"),
            good.replace("\"isLocked\":true", "\"effectiveTime\":\"x\""),
            good.replace("\"enabled\":false", "\"enabled\":true"),
            good.replace("86400", "0"),
            r#"{"kind":"storage#bucket","versioning":{"enabled":true}}"#.to_owned(),
            r#"{"kind":"storage#bucket","objectRetention":{"mode":"Enabled"}}"#.to_owned(),
            r#"{"kind":"storage#bucket"}"#.to_owned(),
            r#"{"kind":"storage#object","retentionPolicy":{"retentionPeriod":"86400","isLocked":true}}"#.to_owned(),
            "not json".to_owned(),
        ] {
            assert!(gcs_bucket(&ok(&body)).is_err(), "{body}");
        }
        let answer = Answer {
            status: 403,
            body: good.to_owned(),
        };
        assert!(gcs_bucket(&answer).is_err());
    }
}
