//! Delete markers on S3: a plain `DeleteObject` (no version id, allowed
//! under COMPLIANCE) hides a key from the listing the chain is read from,
//! moving a partition's tip back silently or hiding a whole partition. The
//! version listing shows the markers: every key of a partition directory
//! whose current version is a delete marker is a finding, a partition that
//! exists only beneath markers is reported, and a seal whose manifest ever
//! had a version is not an unfinished commit.

use {
    super::{
        listing::{archive_prefix, full_dir, split_key, wanted},
        report::{ArchiveVerifyReport, PartitionVerifyReport, VerifyBreak, VerifyRequest},
    },
    krabka_kafka::parse_partition_dir_name,
    krabka_object_store::VersionEntry,
    std::collections::BTreeMap,
};

/// Every listed version and delete marker of each key, newest first.
pub(super) type Versions<'v> = BTreeMap<&'v str, Vec<&'v VersionEntry>>;

/// Reports into `report` every key in scope of `request` whose current
/// version in `versions` is a delete marker ([`VerifyBreak::DeleteMarker`],
/// in its partition's report), adds a report with
/// [`VerifyBreak::PartitionHidden`] for each partition that exists only
/// beneath delete markers, and turns a [`VerifyBreak::CommitUnfinished`]
/// whose manifest key has any version into a
/// [`VerifyBreak::ManifestMissing`].
pub(super) fn report_markers(
    versions: &Versions<'_>,
    request: &VerifyRequest,
    report: &mut ArchiveVerifyReport,
) {
    let prefix = archive_prefix(request);
    let mut hidden: BTreeMap<String, PartitionVerifyReport> = BTreeMap::new();
    for (key, entries) in versions {
        let Some(marker) = entries.iter().find(|e| e.is_latest && e.delete_marker) else {
            continue;
        };
        let Some((dir, _)) = split_key(key, prefix) else {
            continue;
        };
        let Some(parsed) = parse_partition_dir_name(dir).filter(|p| wanted(request, p)) else {
            continue;
        };
        let dir = full_dir(prefix, dir);
        let finding = VerifyBreak::DeleteMarker {
            key: (*key).to_owned(),
            version_id: marker.version_id.clone(),
        };
        match report.partitions.iter_mut().find(|p| p.dir == dir) {
            Some(partition) => partition.findings.push(finding),
            None => hidden
                .entry(dir.clone())
                .or_insert_with(|| {
                    PartitionVerifyReport::empty(dir, parsed.topic, parsed.partition)
                })
                .findings
                .push(finding),
        }
    }
    for (dir, mut partition) in hidden {
        let keys = partition.findings.len();
        partition
            .findings
            .insert(0, VerifyBreak::PartitionHidden { dir, keys });
        report.partitions.push(partition);
    }
    report.partitions.sort_by(|a, b| a.dir.cmp(&b.dir));
    for partition in &mut report.partitions {
        for finding in &mut partition.findings {
            if let VerifyBreak::CommitUnfinished { seal, manifest } = finding {
                if versions.contains_key(manifest.as_str()) {
                    *finding = VerifyBreak::ManifestMissing {
                        seal: std::mem::take(seal),
                        manifest: std::mem::take(manifest),
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{keys::TrustedManifestKeys, verify::report::VerifyDepth},
    };

    fn entry(key: &str, version: &str, latest: bool, marker: bool) -> VersionEntry {
        VersionEntry {
            key: key.to_owned(),
            version_id: version.to_owned(),
            is_latest: latest,
            delete_marker: marker,
        }
    }

    const SEEN: &str = "arch/orders-3-AAAAAAAAAAAAAAAAAAAABw";
    const GONE: &str = "arch/orders-4-AAAAAAAAAAAAAAAAAAAABw";

    fn report_with(findings: Vec<VerifyBreak>) -> ArchiveVerifyReport {
        let mut seen = PartitionVerifyReport::empty(SEEN.to_owned(), "orders".to_owned(), 3);
        seen.findings = findings;
        ArchiveVerifyReport {
            depth: VerifyDepth::Shallow,
            objects_listed: 0,
            partitions: vec![seen],
            findings: Vec::new(),
            bucket: None,
            log: None,
        }
    }

    #[test]
    fn markers_are_reported_and_a_partition_beneath_them_too() {
        let all = [
            entry(&format!("{SEEN}/_chain/x/1.seal"), "m1", true, true),
            entry(&format!("{SEEN}/_chain/x/1.seal"), "v1", false, false),
            entry(&format!("{SEEN}/0.log"), "v2", true, false),
            entry(&format!("{GONE}/0.log"), "m3", true, true),
            entry(&format!("{GONE}/0.manifest"), "m4", true, true),
            entry("arch/_krabka-worm-probe/p", "m5", true, true),
            entry("arch/top-level", "m6", true, true),
        ];
        let mut versions = Versions::new();
        for e in &all {
            versions.entry(e.key.as_str()).or_default().push(e);
        }
        let request = VerifyRequest::new(Some("arch".to_owned()), TrustedManifestKeys::new());
        let mut report = report_with(Vec::new());
        report_markers(&versions, &request, &mut report);
        assert_eq!(report.partitions.len(), 2);
        assert_eq!(
            report.partitions[0].findings,
            vec![VerifyBreak::DeleteMarker {
                key: format!("{SEEN}/_chain/x/1.seal"),
                version_id: "m1".to_owned()
            }]
        );
        let gone = &report.partitions[1];
        assert_eq!((gone.dir.as_str(), gone.partition), (GONE, 4));
        assert_eq!(
            gone.findings[0],
            VerifyBreak::PartitionHidden {
                dir: GONE.to_owned(),
                keys: 2
            }
        );
        assert_eq!(gone.findings.len(), 3);
        // Out of scope: no report for partition 4.
        let mut request = request;
        request.partition = Some(3);
        let mut report = report_with(Vec::new());
        report_markers(&versions, &request, &mut report);
        assert_eq!(report.partitions.len(), 1);
    }

    #[test]
    fn an_unfinished_commit_whose_manifest_ever_existed_is_a_missing_manifest() {
        let manifest = format!("{SEEN}/0.manifest");
        let unfinished = |m: &str| VerifyBreak::CommitUnfinished {
            seal: "s".to_owned(),
            manifest: m.to_owned(),
        };
        let old = entry(&manifest, "v1", false, false);
        let marker = entry(&manifest, "m1", true, true);
        let mut versions = Versions::new();
        versions
            .entry(manifest.as_str())
            .or_default()
            .extend([&marker, &old]);
        let request = VerifyRequest::new(Some("arch".to_owned()), TrustedManifestKeys::new());
        let mut report = report_with(vec![unfinished(&manifest), unfinished("other")]);
        report_markers(&versions, &request, &mut report);
        assert_eq!(
            report.partitions[0].findings,
            vec![
                VerifyBreak::ManifestMissing {
                    seal: "s".to_owned(),
                    manifest: manifest.clone()
                },
                unfinished("other"),
                VerifyBreak::DeleteMarker {
                    key: manifest,
                    version_id: "m1".to_owned()
                },
            ]
        );
    }
}
