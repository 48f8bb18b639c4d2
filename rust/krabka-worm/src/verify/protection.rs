//! Object Lock protection of an archive on S3, from one version listing of
//! the prefix: the bucket's own configuration ([`bucket`](super::bucket)),
//! delete markers ([`markers`](super::markers)), newer versions that shadow
//! archived ones, archived versions that are gone, and the retention of
//! every archived version.

use {
    super::{
        Result, bucket,
        listing::archive_prefix,
        markers::{self, Versions},
        report::{
            ArchiveVerifyReport, ObjectProtectionReport, PartitionVerifyReport, VerifyBreak,
            VerifyRequest,
        },
    },
    krabka_object_store::{S3VersionReader, VersionEntry},
};

/// On S3: reads the bucket's versioning and Object Lock configuration,
/// lists every object version under the prefix once, reports delete
/// markers and hidden partitions, and checks every archived version:
/// present, not shadowed, and under COMPLIANCE retention the bucket
/// enforces.
///
/// # Errors
/// [`VerifyError::Store`](super::VerifyError::Store) when the bucket's
/// configuration or the versions cannot be read (a truncated listing page
/// without a continuation is such an error, never a shorter list).
pub(super) async fn s3_protection(
    config: &krabka_object_store::S3Config,
    request: &VerifyRequest,
    report: &mut ArchiveVerifyReport,
) -> Result<()> {
    let reader = S3VersionReader::new(config).await?;
    let protection = reader.bucket_protection().await?;
    let (bucket_report, finding) = bucket::grade_bucket(&protection);
    report.bucket = Some(bucket_report);
    report.findings.extend(finding);
    let prefix = archive_prefix(request)
        .map(|p| format!("{p}/"))
        .unwrap_or_default();
    let listed = reader.list_versions(&prefix).await?;
    // Per key, newest first (the order S3 lists them in).
    let mut versions = Versions::new();
    for entry in &listed {
        versions.entry(entry.key.as_str()).or_default().push(entry);
    }
    markers::report_markers(&versions, request, report);
    let enforced = bucket::enforces_lock(&protection);
    for partition in &mut report.partitions {
        check_archived(&reader, &versions, enforced, partition).await?;
    }
    Ok(())
}

/// Checks every archived version of `partition`: a newer version on top
/// is [`VerifyBreak::Shadowed`], a pinned version that is gone is
/// [`VerifyBreak::PinnedVersionMissing`], and the retention of the version
/// (the pinned one, else the oldest) is read: not COMPLIANCE is
/// [`VerifyBreak::RetentionWeak`], lock headers in a bucket without Object
/// Lock (`enforced` false) [`VerifyBreak::RetentionWithoutBucketLock`].
async fn check_archived(
    reader: &S3VersionReader,
    versions: &Versions<'_>,
    enforced: bool,
    partition: &mut PartitionVerifyReport,
) -> Result<()> {
    for (key, pinned) in &partition.archived {
        let entries = versions.get(key.as_str()).map_or(&[][..], Vec::as_slice);
        if let Some(pinned) = pinned {
            if !entries
                .iter()
                .any(|e| !e.delete_marker && e.version_id == *pinned)
            {
                partition.findings.push(VerifyBreak::PinnedVersionMissing {
                    key: key.clone(),
                    version_id: pinned.clone(),
                });
                continue;
            }
        }
        if let Some(version) = newer_than_archived(entries, pinned.as_deref()) {
            partition.findings.push(VerifyBreak::Shadowed {
                key: key.clone(),
                by: format!("newer version {version}"),
            });
        }
        let checked = match pinned {
            Some(pinned) => pinned.clone(),
            None => match oldest_version(entries) {
                Some(oldest) => oldest,
                None => continue,
            },
        };
        let Some(retention) = reader.retention(key, &checked).await? else {
            // Listed a moment ago, gone now.
            partition.findings.push(VerifyBreak::PinnedVersionMissing {
                key: key.clone(),
                version_id: checked,
            });
            continue;
        };
        partition.findings.extend(grade_retention(
            key,
            &checked,
            retention.mode.as_deref(),
            enforced,
        ));
        partition.protection.push(ObjectProtectionReport {
            key: key.clone(),
            version_id: checked,
            mode: retention.mode,
            retain_until: retention.retain_until,
        });
    }
    Ok(())
}

/// The finding for the version `version_id` of `key` under the lock
/// `mode` it carries, in a bucket that `enforced` Object Lock or not: lock
/// headers the bucket cannot enforce are a copied archive (tampering), any
/// mode but COMPLIANCE weak retention (incomplete).
fn grade_retention(
    key: &str,
    version_id: &str,
    mode: Option<&str>,
    enforced: bool,
) -> Option<VerifyBreak> {
    match mode {
        Some(mode) if !enforced => Some(VerifyBreak::RetentionWithoutBucketLock {
            key: key.to_owned(),
            version_id: version_id.to_owned(),
            mode: mode.to_owned(),
        }),
        Some("COMPLIANCE") => None,
        _ => Some(VerifyBreak::RetentionWeak {
            key: key.to_owned(),
            version_id: version_id.to_owned(),
            mode: mode.map(str::to_owned),
        }),
    }
}

/// The version that sits on top of the archived one (`pinned`, else the
/// only one) of a key whose versions are `entries`, newest first; `None`
/// when nothing does or a delete marker does (that is
/// [`markers`](super::markers)' finding).
fn newer_than_archived<'e>(entries: &[&'e VersionEntry], pinned: Option<&str>) -> Option<&'e str> {
    let latest = entries.iter().find(|e| e.is_latest)?;
    if latest.delete_marker {
        return None;
    }
    let newer = match pinned {
        Some(pinned) => latest.version_id != pinned,
        None => entries.iter().filter(|e| !e.delete_marker).count() > 1,
    };
    newer.then_some(latest.version_id.as_str())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(version: &str, latest: bool, marker: bool) -> VersionEntry {
        VersionEntry {
            key: "k".to_owned(),
            version_id: version.to_owned(),
            is_latest: latest,
            delete_marker: marker,
        }
    }

    #[test]
    fn retention_is_graded_against_the_bucket_s_lock() {
        assert_eq!(grade_retention("k", "v", Some("COMPLIANCE"), true), None);
        assert!(matches!(
            grade_retention("k", "v", Some("GOVERNANCE"), true),
            Some(VerifyBreak::RetentionWeak { mode: Some(m), .. }) if m == "GOVERNANCE"
        ));
        assert!(matches!(
            grade_retention("k", "v", None, false),
            Some(VerifyBreak::RetentionWeak { mode: None, .. })
        ));
        let copied = grade_retention("k", "v", Some("COMPLIANCE"), false).unwrap();
        assert!(matches!(
            &copied,
            VerifyBreak::RetentionWithoutBucketLock { mode, .. } if mode == "COMPLIANCE"
        ));
        assert_eq!(
            copied.severity(),
            crate::verify::report::Severity::Tampering
        );
    }

    #[test]
    fn only_a_newer_version_shadows_the_archived_one() {
        let (v1, v2, marker) = (
            entry("v1", false, false),
            entry("v2", true, false),
            entry("m", true, true),
        );
        assert_eq!(newer_than_archived(&[&v2, &v1], Some("v1")), Some("v2"));
        assert_eq!(newer_than_archived(&[&v2, &v1], Some("v2")), None);
        assert_eq!(newer_than_archived(&[&v2, &v1], None), Some("v2"));
        assert_eq!(newer_than_archived(&[&v2], None), None);
        assert_eq!(newer_than_archived(&[&marker, &v1], Some("v1")), None);
        assert_eq!(oldest_version(&[&marker, &v2, &v1]).as_deref(), Some("v1"));
        assert_eq!(oldest_version(&[&marker]), None);
    }
}
