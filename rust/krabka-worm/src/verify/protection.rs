//! Object Lock protection of an archive on S3: versions that hide archived
//! ones, and the retention of every archived version.

use {
    super::{
        Result,
        report::{ArchiveVerifyReport, ObjectProtectionReport, VerifyBreak, VerifyRequest},
    },
    krabka_object_store::VersionEntry,
    std::collections::HashMap,
};

/// On S3: lists every object version under the prefix once; flags delete
/// markers and newer versions shadowing an archived key, and reads the
/// Object Lock mode and retain-until date of every archived version.
pub(super) async fn s3_protection(
    config: &krabka_object_store::S3Config,
    request: &VerifyRequest,
    report: &mut ArchiveVerifyReport,
) -> Result<()> {
    let reader = krabka_object_store::S3VersionReader::new(config).await?;
    let prefix = request
        .prefix
        .as_deref()
        .map(|p| format!("{}/", p.trim_matches('/')))
        .filter(|p| p != "/")
        .unwrap_or_default();
    let versions = reader.list_versions(&prefix).await?;
    // Per key, newest first (the order S3 lists them in).
    let mut by_key: HashMap<&str, Vec<&VersionEntry>> = HashMap::new();
    for entry in &versions {
        by_key.entry(entry.key.as_str()).or_default().push(entry);
    }
    for partition in &mut report.partitions {
        for (key, pinned) in &partition.archived {
            let Some(entries) = by_key.get(key.as_str()) else {
                continue;
            };
            if let Some(by) = shadowed_by(entries, pinned.as_deref()) {
                partition.findings.push(VerifyBreak::Shadowed {
                    key: key.clone(),
                    by,
                });
            }
            let checked = match pinned {
                Some(pinned) => Some(pinned.clone()),
                None => oldest_version(entries),
            };
            let Some(version_id) = checked else {
                continue;
            };
            let retention = reader.retention(key, &version_id).await?;
            if retention.mode.as_deref() != Some("COMPLIANCE") {
                partition.findings.push(VerifyBreak::RetentionWeak {
                    key: key.clone(),
                    version_id: version_id.clone(),
                    mode: retention.mode.clone(),
                });
            }
            partition.protection.push(ObjectProtectionReport {
                key: key.clone(),
                version_id,
                mode: retention.mode,
                retain_until: retention.retain_until,
            });
        }
    }
    Ok(())
}

/// What hides the archived version (`pinned`, else the only one) of a key
/// whose versions are `entries`, newest first: a delete marker or a newer
/// version on top; `None` when nothing does.
fn shadowed_by(entries: &[&VersionEntry], pinned: Option<&str>) -> Option<String> {
    let latest = entries.iter().find(|e| e.is_latest)?;
    if latest.delete_marker {
        return Some("delete marker".to_owned());
    }
    match pinned {
        Some(pinned) if latest.version_id != pinned => {
            Some(format!("newer version {}", latest.version_id))
        }
        None if entries.iter().filter(|e| !e.delete_marker).count() > 1 => {
            Some(format!("newer version {}", latest.version_id))
        }
        _ => None,
    }
}

/// The oldest version of `entries` (newest first) that is not a delete
/// marker.
fn oldest_version(entries: &[&VersionEntry]) -> Option<String> {
    entries
        .iter()
        .rev()
        .find(|e| !e.delete_marker)
        .map(|e| e.version_id.clone())
}
