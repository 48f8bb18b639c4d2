//! The tamper matrix on a real bucket: what only a versioned S3 bucket can
//! express. Run by `scripts/test.d/55-worm.sh` against SeaweedFS behind the
//! aws-rules front, every case at both depths, verified as the command line
//! does (`verify_archive_config` on the S3 configuration: the listing, then
//! the bucket's own lock, the version listing and every archived version).
//!
//! - **Delete markers** (a plain DeleteObject, which COMPLIANCE allows) over
//!   the newest seal, manifest or objects, and over every key of a
//!   partition: written through the real tier into the Object Lock bucket
//!   (`KRABKA_S3_WORM_BUCKET`).
//! - **Missing pinned versions** of a single-PUT and of a multipart object:
//!   COMPLIANCE refuses to delete a version, so these archives are written
//!   by the tier's own archiver (the tier refuses to start on a bucket
//!   without Object Lock) into a versioned bucket without Object Lock
//!   (`KRABKA_S3_VERSIONED_BUCKET`), whose versions can be deleted.
//! - **An archive copied into an unlocked bucket**: written into the lock
//!   bucket, copied object by object into SeaweedFS's plain bucket.
//! - **No false alarm**: a clean archive in the lock bucket verifies.

#![allow(missing_docs)]

mod servers;
mod support;

use {
    futures_util::TryStreamExt,
    krabka_object_store::ObjectStoreConfig,
    krabka_remote_storage::{
        ArchiveVerifyReport, ChainHead, MANIFEST_SUFFIX, ManifestSigner, RemoteStorageManager,
        S3RemoteStorage, SegmentManifest, Severity, TopicIdPartition, VerifyBreak, VerifyDepth,
        VerifyOutcome, VerifyRequest, WormArchiver, WormChainRecord, WormConfig,
        partition_dir_name, seal_key, segment_file_name, verify_archive_config,
    },
    object_store::{ObjectStore, ObjectStoreExt, path::Path},
    servers::{S3Server, segment, skip_or_fail, unique_prefix},
    std::sync::Arc,
    support::{
        segment_metadata,
        worm_key::{KEY, trusted},
    },
    uuid::Uuid,
};

/// Multipart threshold and part size of the archives written here.
const PART: usize = 5 * 1024 * 1024;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// SeaweedFS with the bucket named by `variable`.
fn bucket(test: &str, variable: &str) -> Option<S3Server> {
    let mut server = servers::seaweedfs(test)?;
    match std::env::var(variable) {
        Ok(bucket) if !bucket.is_empty() => server.bucket = bucket,
        _ => {
            skip_or_fail(test, variable);
            return None;
        }
    }
    Some(server)
}

/// One committed copy, as written.
#[derive(Debug, Clone)]
struct Copy {
    manifest: SegmentManifest,
    head: ChainHead,
    manifest_key: String,
    seal_key: String,
}

impl Copy {
    fn object(&self, suffix: &str) -> &krabka_remote_storage::ObjectEntry {
        self.manifest
            .body
            .objects
            .iter()
            .find(|o| o.suffix == suffix)
            .unwrap()
    }

    /// The keys of the copy: objects, manifest and seal.
    fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .manifest
            .body
            .objects
            .iter()
            .map(|o| o.key.clone())
            .collect();
        keys.push(self.manifest_key.clone());
        keys.push(self.seal_key.clone());
        keys
    }
}

/// An archive in a real bucket, and how to tamper with it.
struct Archive {
    server: S3Server,
    prefix: String,
    store: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
}

impl Archive {
    fn new(server: S3Server, prefix: String) -> Self {
        let store =
            krabka_object_store::build_object_store(&ObjectStoreConfig::S3(server.config()))
                .unwrap();
        Self {
            server,
            prefix,
            store,
            runtime: runtime(),
        }
    }

    /// `starts.len()` copies of partition `tp`, through the real tier in WORM
    /// mode (the bucket must prove its Object Lock).
    fn copy_through_tier(&self, tp: &TopicIdPartition, starts: &[i64]) -> Vec<Copy> {
        let mut config = self.server.config();
        config.prefix = Some(self.prefix.clone());
        let tier = S3RemoteStorage::from_s3_config(&config)
            .unwrap()
            .with_worm(WormConfig::new(KEY, "test-key-1"))
            .unwrap();
        let files = tempfile::tempdir().unwrap();
        let data = segment(files.path(), 3000, false);
        starts
            .iter()
            .map(|start| {
                let metadata = segment_metadata(tp, *start, 3000);
                let receipt = tier
                    .copy_log_segment_data(&metadata, &data)
                    .unwrap()
                    .unwrap();
                let Some(WormChainRecord::Receipt {
                    epoch_id,
                    seq,
                    head,
                    ..
                }) = WormChainRecord::from_custom_metadata(receipt.as_bytes()).unwrap()
                else {
                    panic!("no receipt");
                };
                let dir = format!("{}/{}", self.prefix, partition_dir_name(&metadata));
                let manifest_key =
                    format!("{dir}/{}", segment_file_name(&metadata, MANIFEST_SUFFIX));
                let manifest = SegmentManifest::from_bytes(&self.get(&manifest_key)).unwrap();
                Copy {
                    manifest,
                    head,
                    manifest_key,
                    seal_key: seal_key(&dir, epoch_id, seq),
                }
            })
            .collect()
    }

    /// One copy of partition `tp` with a `.log` of `log_len` bytes (from
    /// [`PART`] bytes up by multipart), through the tier's archiver on a
    /// bucket of any protection.
    fn copy_through_archiver(&self, tp: &TopicIdPartition, log_len: usize) -> Copy {
        let signer =
            ManifestSigner::from_pkcs8_file(std::path::Path::new(KEY), "test-key-1").unwrap();
        let archiver =
            WormArchiver::new(Arc::clone(&self.store), Some(self.prefix.clone()), signer)
                .with_multipart_tuning(PART as u64, PART);
        let files = tempfile::tempdir().unwrap();
        let data = segment(files.path(), log_len, false);
        let metadata = segment_metadata(tp, 0, log_len);
        let sealed = self
            .runtime
            .block_on(archiver.archive(
                &metadata,
                &data,
                &krabka_remote_storage::CancellationToken::new(),
            ))
            .unwrap();
        Copy {
            manifest: sealed.manifest,
            head: sealed.head,
            manifest_key: sealed.manifest_key,
            seal_key: sealed.seal_key,
        }
    }

    fn get(&self, key: &str) -> Vec<u8> {
        self.runtime
            .block_on(async { self.store.get(&Path::from(key)).await?.bytes().await })
            .unwrap()
            .to_vec()
    }

    /// A plain DeleteObject (no version id): a delete marker on top.
    fn delete(&self, key: &str) {
        self.runtime
            .block_on(self.store.delete(&Path::from(key)))
            .unwrap();
    }

    /// Every key under `dir` (prefix included), as listed.
    fn list(&self, dir: &str) -> Vec<String> {
        self.runtime
            .block_on(
                self.store
                    .list(Some(&Path::from(dir)))
                    .map_ok(|meta| meta.location.to_string())
                    .try_collect(),
            )
            .unwrap()
    }

    /// `DELETE ?versionId=`: removes one version for good (refused under
    /// COMPLIANCE, allowed in a bucket without Object Lock).
    fn delete_version(&self, key: &str, version: &str) {
        let status = self
            .runtime
            .block_on(signed_delete(&self.server, key, version));
        assert!(
            (200..300).contains(&status),
            "version delete answered {status}"
        );
    }

    /// Verifies as the command line does (S3 configuration).
    fn verify(&self, depth: VerifyDepth) -> ArchiveVerifyReport {
        let mut config = self.server.config();
        config.prefix = Some(self.prefix.clone());
        let mut request = VerifyRequest::new(Some(self.prefix.clone()), trusted());
        request.depth = depth;
        verify_archive_config(&ObjectStoreConfig::S3(config), &request).unwrap()
    }
}

/// A SigV4-signed `DELETE /bucket/key?versionId=…`; returns the status.
async fn signed_delete(server: &S3Server, key: &str, version: &str) -> u16 {
    use object_store::{
        ClientOptions,
        aws::{AwsAuthorizer, AwsCredential},
        client::{HttpConnector, HttpRequestBody, ReqwestConnector},
    };
    let version: String = version
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect();
    let url = format!(
        "{}/{}/{key}?versionId={version}",
        server.endpoint, server.bucket
    );
    let credential = AwsCredential {
        key_id: server.access_key.clone(),
        secret_key: server.secret_key.clone(),
        token: None,
    };
    let mut request = http::Request::builder()
        .method("DELETE")
        .uri(url)
        .body(HttpRequestBody::from(Vec::new()))
        .unwrap();
    AwsAuthorizer::new(&credential, "s3", &server.region)
        .try_authorize(&mut request, None)
        .unwrap();
    let client = ReqwestConnector::default()
        .connect(&ClientOptions::new().with_allow_http(true))
        .unwrap();
    client.execute(request).await.unwrap().status().as_u16()
}

fn has(report: &ArchiveVerifyReport, pred: impl Fn(&VerifyBreak) -> bool) -> bool {
    report.all_findings().any(pred)
}

fn has_marker(report: &ArchiveVerifyReport, key: &str) -> bool {
    has(
        report,
        |f| matches!(f, VerifyBreak::DeleteMarker { key: k, .. } if k == key),
    )
}

/// A fresh archive of three copies of one partition in the lock bucket.
fn three_copies(test: &str) -> Option<(Archive, Vec<Copy>)> {
    let server = bucket(test, "KRABKA_S3_WORM_BUCKET")?;
    let archive = Archive::new(server, unique_prefix(test));
    let tp = TopicIdPartition::new(Uuid::new_v4(), "orders", 0);
    let copies = archive.copy_through_tier(&tp, &[0, 100, 200]);
    Some((archive, copies))
}

/// One test per depth for each case.
macro_rules! both_depths {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[test]
            fn shallow() {
                ($body)(stringify!($name), VerifyDepth::Shallow);
            }
            #[test]
            fn deep() {
                ($body)(stringify!($name), VerifyDepth::Deep);
            }
        }
    };
}

both_depths!(clean_lock_bucket, |test, depth| {
    let Some((archive, copies)) = three_copies(test) else {
        return;
    };
    let report = archive.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Verified, "{report:#?}");
    assert_eq!(report.all_findings().count(), 0, "{report:#?}");
    assert_eq!(report.partitions[0].tip, Some(copies[2].head));
    let bucket = report.bucket.as_ref().unwrap();
    assert_eq!(
        (
            bucket.versioning.as_str(),
            bucket.object_lock,
            bucket.default_mode.as_deref()
        ),
        ("Enabled", true, Some("COMPLIANCE"))
    );
    assert!(
        report.partitions[0]
            .protection
            .iter()
            .all(|p| p.mode.as_deref() == Some("COMPLIANCE"))
    );
});

both_depths!(delete_marker_over_the_newest_seal, |test, depth| {
    let Some((archive, copies)) = three_copies(test) else {
        return;
    };
    archive.delete(&copies[2].seal_key);
    let report = archive.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has_marker(&report, &copies[2].seal_key), "{report:#?}");
    // The manifest beside the segment is left, committed by no seal.
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::NotInChain { key } if *key == copies[2].manifest_key)
    ));
});

both_depths!(delete_marker_over_the_newest_manifest, |test, depth| {
    let Some((archive, copies)) = three_copies(test) else {
        return;
    };
    archive.delete(&copies[2].manifest_key);
    let report = archive.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has_marker(&report, &copies[2].manifest_key), "{report:#?}");
    // The manifest existed: removed, never an unfinished commit.
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::ManifestMissing { manifest, .. } if *manifest == copies[2].manifest_key)
    ));
    assert!(!has(&report, |f| matches!(
        f,
        VerifyBreak::CommitUnfinished { .. }
    )));
});

both_depths!(delete_markers_over_the_newest_objects, |test, depth| {
    let Some((archive, copies)) = three_copies(test) else {
        return;
    };
    for object in &copies[2].manifest.body.objects {
        archive.delete(&object.key);
    }
    let report = archive.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    for object in &copies[2].manifest.body.objects {
        assert!(has_marker(&report, &object.key), "{report:#?}");
    }
});

both_depths!(delete_markers_over_the_newest_copy, |test, depth| {
    let Some((archive, copies)) = three_copies(test) else {
        return;
    };
    for key in copies[2].keys() {
        archive.delete(&key);
    }
    let report = archive.verify(depth);
    // The listing alone shows a shorter chain that verifies; the markers
    // give it away.
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert_eq!(report.partitions[0].tip, Some(copies[1].head));
    for key in copies[2].keys() {
        assert!(has_marker(&report, &key), "{key}: {report:#?}");
    }
    for finding in report.all_findings() {
        assert!(
            matches!(finding, VerifyBreak::DeleteMarker { .. }),
            "{finding:?}"
        );
    }
});

both_depths!(delete_markers_over_a_whole_partition, |test, depth| {
    let Some(server) = bucket(test, "KRABKA_S3_WORM_BUCKET") else {
        return;
    };
    let archive = Archive::new(server, unique_prefix(test));
    let topic_id = Uuid::new_v4();
    let hidden =
        archive.copy_through_tier(&TopicIdPartition::new(topic_id, "orders", 0), &[0, 100]);
    let kept = archive.copy_through_tier(&TopicIdPartition::new(topic_id, "orders", 1), &[0]);
    let (dir, _) = hidden[0].manifest_key.rsplit_once('/').unwrap();
    let keys = archive.list(dir);
    for key in hidden.iter().flat_map(Copy::keys) {
        assert!(keys.contains(&key), "{key} not in {keys:#?}");
    }
    for key in &keys {
        archive.delete(key);
    }
    let report = archive.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    let partition = report.partitions.iter().find(|p| p.dir == dir).unwrap();
    assert_eq!(partition.partition, 0);
    assert_eq!(
        partition.findings[0],
        VerifyBreak::PartitionHidden {
            dir: dir.to_owned(),
            keys: keys.len()
        }
    );
    for key in &keys {
        assert!(has_marker(&report, key), "{key}");
    }
    // The other partition is reported as before.
    let other = report.partitions.iter().find(|p| p.partition == 1).unwrap();
    assert_eq!((other.tip, other.findings.len()), (Some(kept[0].head), 0));
});

/// A fresh archive of one copy in the versioned bucket without Object Lock.
fn versioned_copy(test: &str, log_len: usize) -> Option<(Archive, Copy)> {
    let server = bucket(test, "KRABKA_S3_VERSIONED_BUCKET")?;
    let archive = Archive::new(server, unique_prefix(test));
    let tp = TopicIdPartition::new(Uuid::new_v4(), "orders", 0);
    let copy = archive.copy_through_archiver(&tp, log_len);
    Some((archive, copy))
}

/// Nothing but the bucket's lack of protection: no tampering.
fn only_unprotected(report: &ArchiveVerifyReport) {
    assert_eq!(report.outcome(), VerifyOutcome::Incomplete, "{report:#?}");
    assert!(has(report, |f| matches!(
        f,
        VerifyBreak::BucketUnprotected { .. }
    )));
    assert!(
        report
            .all_findings()
            .all(|f| f.severity() < Severity::Tampering),
        "{report:#?}"
    );
}

both_depths!(
    versioned_bucket_without_lock_is_incomplete,
    |test, depth| {
        let Some((archive, copy)) = versioned_copy(test, 3000) else {
            return;
        };
        let report = archive.verify(depth);
        only_unprotected(&report);
        assert_eq!(report.partitions[0].tip, Some(copy.head));
        let bucket = report.bucket.as_ref().unwrap();
        assert_eq!(
            (bucket.versioning.as_str(), bucket.object_lock),
            ("Enabled", false)
        );
    }
);

both_depths!(missing_pinned_version_of_a_single_put, |test, depth| {
    let Some((archive, copy)) = versioned_copy(test, 3000) else {
        return;
    };
    let index = copy.object(".index").clone();
    assert!(index.create_precondition, "the index went up in one PUT");
    let version = index.version_id.clone().expect("a pinned version");
    only_unprotected(&archive.verify(depth));
    archive.delete_version(&index.key, &version);
    // Reported with the rest; the run does not abort.
    let report = archive.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::PinnedVersionMissing { key, version_id } if *key == index.key && *version_id == version)
    ));
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::ObjectMissing { key } if *key == index.key)
    ));
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::BucketUnprotected { .. }
    )));
});

both_depths!(
    missing_pinned_version_of_a_multipart_object,
    |test, depth| {
        let Some((archive, copy)) = versioned_copy(test, PART + 4321) else {
            return;
        };
        let log = copy.object(".log").clone();
        assert!(!log.create_precondition, "the log went up by multipart");
        let version = log.version_id.clone().expect("a pinned version");
        only_unprotected(&archive.verify(depth));
        archive.delete_version(&log.key, &version);
        let report = archive.verify(depth);
        assert_eq!(report.outcome(), VerifyOutcome::Tampered);
        assert!(has(
            &report,
            |f| matches!(f, VerifyBreak::PinnedVersionMissing { key, version_id } if *key == log.key && *version_id == version)
        ));
        // What is left under the key is the copy's empty reservation.
        assert!(has(
            &report,
            |f| matches!(f, VerifyBreak::SizeMismatch { key, found: 0, .. } if *key == log.key)
        ));
    }
);

both_depths!(archive_copied_into_an_unlocked_bucket, |test, depth| {
    let Some((archive, copies)) = three_copies(test) else {
        return;
    };
    // Object by object into SeaweedFS's plain bucket, under the same keys.
    let Some(plain) = servers::seaweedfs(test) else {
        return;
    };
    assert_ne!(plain.bucket, archive.server.bucket);
    let copy = Archive::new(plain, archive.prefix.clone());
    for key in archive.list(&archive.prefix) {
        let bytes = archive.get(&key);
        copy.runtime
            .block_on(copy.store.put(&Path::from(key.as_str()), bytes.into()))
            .unwrap();
    }
    let report = copy.verify(depth);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered, "{report:#?}");
    let bucket = report.bucket.as_ref().unwrap();
    assert!(!bucket.object_lock, "{bucket:?}");
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::BucketUnprotected { .. }
    )));
    // Every version the manifests pin stayed behind in the locked bucket.
    for object in copies.iter().flat_map(|c| &c.manifest.body.objects) {
        assert!(
            has(
                &report,
                |f| matches!(f, VerifyBreak::PinnedVersionMissing { key, .. } if *key == object.key)
            ),
            "{}: {report:#?}",
            object.key
        );
    }
    // The chain itself reads intact from the copy.
    assert_eq!(report.partitions[0].tip, Some(copies[2].head));
});
