//! The bucket's own protection on S3: its versioning state and Object Lock
//! configuration, reported as found and graded. An archive whose bucket
//! does not keep versions under a COMPLIANCE default cannot have its
//! protection attested ([`VerifyBreak::BucketUnprotected`], incomplete).

use {
    super::report::{BucketProtectionReport, VerifyBreak},
    krabka_object_store::{BucketProtection, BucketVersioning},
};

/// What the bucket says, for the report, and the finding when it cannot
/// attest the archive's protection.
pub(super) fn grade_bucket(
    bucket: &BucketProtection,
) -> (BucketProtectionReport, Option<VerifyBreak>) {
    let lock = bucket.object_lock.as_ref();
    let report = BucketProtectionReport {
        versioning: bucket.versioning.as_str().to_owned(),
        object_lock: lock.is_some_and(|l| l.enabled),
        default_mode: lock.and_then(|l| l.default_mode.clone()),
        default_period: lock.and_then(|l| l.default_period.clone()),
    };
    let mut problems = Vec::new();
    if bucket.versioning != BucketVersioning::Enabled {
        problems.push(format!(
            "versioning is {}, not Enabled",
            bucket.versioning.as_str()
        ));
    }
    match lock {
        None => problems.push("the bucket has no Object Lock configuration".to_owned()),
        Some(lock) if !lock.enabled => problems.push("Object Lock is not enabled".to_owned()),
        Some(lock) => match lock.default_mode.as_deref() {
            Some("COMPLIANCE") => {}
            Some(mode) => problems.push(format!("the default retention is {mode}, not COMPLIANCE")),
            None => problems.push("Object Lock has no default retention".to_owned()),
        },
    }
    let finding = (!problems.is_empty()).then(|| VerifyBreak::BucketUnprotected {
        detail: problems.join("; "),
    });
    (report, finding)
}

/// Whether versions of this bucket can be under an enforced Object Lock:
/// one carrying lock headers where this is false was not locked here.
pub(super) fn enforces_lock(bucket: &BucketProtection) -> bool {
    bucket.object_lock.as_ref().is_some_and(|l| l.enabled)
}

#[cfg(test)]
mod tests {
    use {super::*, krabka_object_store::BucketObjectLock};

    fn bucket(versioning: BucketVersioning, mode: Option<&str>) -> BucketProtection {
        BucketProtection {
            versioning,
            object_lock: Some(BucketObjectLock {
                enabled: true,
                default_mode: mode.map(str::to_owned),
                default_period: Some("1 Days".to_owned()),
            }),
        }
    }

    #[test]
    fn a_compliance_bucket_attests() {
        let (report, finding) =
            grade_bucket(&bucket(BucketVersioning::Enabled, Some("COMPLIANCE")));
        assert_eq!(finding, None);
        assert!(report.object_lock);
        assert_eq!(report.versioning, "Enabled");
        assert_eq!(report.default_period.as_deref(), Some("1 Days"));
    }

    #[test]
    fn anything_less_is_unprotected() {
        let unlocked = BucketProtection {
            versioning: BucketVersioning::Off,
            object_lock: None,
        };
        let disabled = BucketProtection {
            object_lock: Some(BucketObjectLock {
                enabled: false,
                default_mode: None,
                default_period: None,
            }),
            ..bucket(BucketVersioning::Enabled, None)
        };
        for (case, expected) in [
            (
                unlocked.clone(),
                "versioning is Off, not Enabled; the bucket has no Object Lock configuration",
            ),
            (disabled, "Object Lock is not enabled"),
            (
                bucket(BucketVersioning::Suspended, Some("COMPLIANCE")),
                "versioning is Suspended, not Enabled",
            ),
            (
                bucket(BucketVersioning::Enabled, Some("GOVERNANCE")),
                "the default retention is GOVERNANCE, not COMPLIANCE",
            ),
            (
                bucket(BucketVersioning::Enabled, None),
                "Object Lock has no default retention",
            ),
        ] {
            let (_, finding) = grade_bucket(&case);
            assert_eq!(
                finding,
                Some(VerifyBreak::BucketUnprotected {
                    detail: expected.to_owned()
                })
            );
        }
        assert!(!enforces_lock(&unlocked));
        assert!(enforces_lock(&bucket(BucketVersioning::Enabled, None)));
    }
}
