//! The tamper matrix of the write-once archive: each case archived with
//! [`WormArchiver`] into an in-memory store, changed the way an attacker (or
//! a faulty writer holding the key) would, and verified at both depths.

#![allow(missing_docs)]

mod support;

use {
    bytes::Bytes,
    krabka_remote_storage::{
        CancellationToken, ChainHead, ChainStamp, DeepProgress, EpochId, LogSegmentData,
        MAX_MANIFEST_BYTES, ManifestSeq, ManifestSigner, RemoteLogSegmentMetadata, SealedManifest,
        SegmentManifest, Severity, TopicIdPartition, TrustedManifestKeys, VerifyBreak, VerifyDepth,
        VerifyError, VerifyObserver, VerifyOutcome, VerifyRequest, WormArchiver,
        authenticate_archive, detour_epoch, manifest_head, seal_key, verify_archive,
        verify_archive_observed,
    },
    object_store::{ObjectStoreExt, PutPayload, memory::InMemory, path::Path},
    std::sync::Arc,
    support::SegmentMetadataBuilder,
    uuid::Uuid,
};

const PREFIX: &str = "arch";

fn signer(secret: u8, key_id: &str) -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[secret; 32], key_id).unwrap()
}

fn trusted() -> TrustedManifestKeys {
    TrustedManifestKeys::single("k1", &signer(1, "k1").public_key()).unwrap()
}

struct Archive {
    store: Arc<InMemory>,
    sealed: Vec<SealedManifest>,
    _dir: tempfile::TempDir,
}

fn meta(tp: &TopicIdPartition, start: i64) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::new(tp, start)
        .segment_id(Uuid::from_u128(1000 + start as u128))
        .size(1000)
        .build()
}

/// Three segments of `orders-3`, offsets 0–299, seq 0–2.
async fn archive() -> Archive {
    archive_at(&[0, 100, 200]).await
}

/// Segments of `orders-3` of 100 offsets each, starting at `starts`, sealed
/// at seq 0, 1, … of the genesis epoch.
async fn archive_at(starts: &[i64]) -> Archive {
    let store = Arc::new(InMemory::new());
    let archiver = WormArchiver::new(store.clone(), Some(PREFIX.to_owned()), signer(1, "k1"));
    let dir = tempfile::tempdir().unwrap();
    let tp = TopicIdPartition::new(Uuid::from_u128(7), "orders", 3);
    let mut sealed = Vec::new();
    for (i, start) in (0u8..).zip(starts) {
        let write = |name: &str, len: usize| {
            let path = dir.path().join(format!("{i}{name}"));
            std::fs::write(&path, vec![i.wrapping_mul(31).wrapping_add(len as u8); len]).unwrap();
            path
        };
        let data = LogSegmentData {
            log_segment: write(".log", 1000),
            offset_index: write(".index", 40),
            time_index: write(".timeindex", 60),
            transaction_index: None,
            producer_snapshot_index: None,
            leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
        };
        let metadata = meta(&tp, *start);
        sealed.push(
            archiver
                .archive(&metadata, &data, &CancellationToken::new())
                .await
                .unwrap(),
        );
    }
    Archive {
        store,
        sealed,
        _dir: dir,
    }
}

impl Archive {
    async fn verify(
        &self,
        depth: VerifyDepth,
        expect_head: Option<ChainHead>,
    ) -> krabka_remote_storage::ArchiveVerifyReport {
        let mut request = VerifyRequest::new(Some(PREFIX.to_owned()), trusted());
        request.depth = depth;
        request.expect_head = expect_head;
        verify_archive(&*self.store, &request).await.unwrap()
    }

    fn object_key(&self, seq: usize, suffix: &str) -> String {
        self.sealed[seq]
            .manifest
            .body
            .objects
            .iter()
            .find(|o| o.suffix == suffix)
            .unwrap()
            .key
            .clone()
    }

    async fn put(&self, key: &str, bytes: Vec<u8>) {
        self.store
            .put(&Path::from(key), PutPayload::from(bytes))
            .await
            .unwrap();
    }

    async fn get(&self, key: &str) -> Vec<u8> {
        self.store
            .get(&Path::from(key))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
            .to_vec()
    }

    async fn delete(&self, key: &str) {
        self.store.delete(&Path::from(key)).await.unwrap();
    }

    /// Writes `manifest` as both the manifest and the seal of `seq`.
    async fn replace_manifest(&self, seq: usize, bytes: Vec<u8>) {
        self.put(&self.sealed[seq].manifest_key, bytes.clone())
            .await;
        self.put(&self.sealed[seq].seal_key, bytes).await;
    }

    async fn reseal(&self, seq: usize, edit: impl FnOnce(&mut SegmentManifest)) {
        let mut manifest = self.sealed[seq].manifest.clone();
        edit(&mut manifest);
        self.replace_manifest(seq, manifest.to_bytes()).await;
    }
}

fn has(
    report: &krabka_remote_storage::ArchiveVerifyReport,
    pred: impl Fn(&VerifyBreak) -> bool,
) -> bool {
    report.all_findings().any(pred)
}

/// One test per depth for each case.
macro_rules! both_depths {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[tokio::test]
            async fn shallow() {
                ($body)(VerifyDepth::Shallow).await;
            }
            #[tokio::test]
            async fn deep() {
                ($body)(VerifyDepth::Deep).await;
            }
        }
    };
}

both_depths!(clean, |depth| async move {
    let a = archive().await;
    let report = a.verify(depth, Some(a.sealed[2].head)).await;
    assert_eq!(report.outcome(), VerifyOutcome::Verified, "{report:#?}");
    assert_eq!(report.partitions.len(), 1);
    let partition = &report.partitions[0];
    assert_eq!(partition.tip, Some(a.sealed[2].head));
    assert_eq!(partition.epochs.len(), 1);
    assert_eq!(partition.epochs[0].accepted, 3);
    assert!(partition.gaps.is_empty());
    assert_eq!(report.all_findings().count(), 0);
    let mut request = VerifyRequest::new(Some(PREFIX.to_owned()), trusted());
    request.depth = depth;
    let authenticated = authenticate_archive(&*a.store, &request).await.unwrap();
    assert_eq!(authenticated.tips().count(), 1);
    if depth == VerifyDepth::Deep {
        assert_eq!(partition.bytes_hashed, 3 * (1000 + 40 + 60 + 8));
    }
});

both_depths!(flipped_byte, |depth| async move {
    let a = archive().await;
    let key = a.object_key(1, ".log");
    let mut bytes = a.get(&key).await;
    bytes[500] ^= 1;
    a.put(&key, bytes).await;
    let report = a.verify(depth, None).await;
    match depth {
        VerifyDepth::Shallow => assert_eq!(report.outcome(), VerifyOutcome::Verified),
        VerifyDepth::Deep => {
            assert_eq!(report.outcome(), VerifyOutcome::Tampered);
            assert!(has(
                &report,
                |f| matches!(f, VerifyBreak::HashMismatch { key: k, original_survives: None } if *k == key)
            ));
        }
    }
});

both_depths!(truncated_object, |depth| async move {
    let a = archive().await;
    let key = a.object_key(0, ".index");
    let bytes = a.get(&key).await;
    a.put(&key, bytes[..20].to_vec()).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::SizeMismatch {
            expected: 40,
            found: 20,
            ..
        }
    )));
});

both_depths!(deleted_object, |depth| async move {
    let a = archive().await;
    let key = a.object_key(2, ".log");
    a.delete(&key).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::ObjectMissing { key: k } if *k == key)
    ));
});

both_depths!(deleted_middle_manifest, |depth| async move {
    let a = archive().await;
    a.delete(&a.sealed[1].manifest_key).await;
    a.delete(&a.sealed[1].seal_key).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::ChainBroken { .. }
    )));
});

both_depths!(deleted_middle_manifest_seal_kept, |depth| async move {
    let a = archive().await;
    a.delete(&a.sealed[1].manifest_key).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::ManifestMissing { .. }
    )));
});

both_depths!(deleted_newest_manifest, |depth| async move {
    let a = archive().await;
    a.delete(&a.sealed[2].manifest_key).await;
    a.delete(&a.sealed[2].seal_key).await;
    // On its own the shorter chain verifies (its objects are strays) ...
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Verified);
    assert_eq!(report.partitions[0].tip, Some(a.sealed[1].head));
    assert!(has(&report, |f| f.severity() == Severity::Notice));
    // ... only the recorded head catches the truncation.
    let report = a.verify(depth, Some(a.sealed[2].head)).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::ExpectHeadMismatch { found: Some(h), .. } if *h == a.sealed[1].head)
    ));
});

both_depths!(reordered_sequence, |depth| async move {
    let a = archive().await;
    let (first, second) = (
        a.get(&a.sealed[0].seal_key).await,
        a.get(&a.sealed[1].seal_key).await,
    );
    a.put(&a.sealed[0].seal_key, second).await;
    a.put(&a.sealed[1].seal_key, first).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    // Each seal now records another position than its own: foreign.
    for seal in [&a.sealed[0].seal_key, &a.sealed[1].seal_key] {
        assert!(has(
            &report,
            |f| matches!(f, VerifyBreak::ForeignObject { key, detail } if key == seal && detail.contains("not its own position"))
        ));
    }
});

both_depths!(swapped_manifests, |depth| async move {
    let a = archive().await;
    let (first, second) = (
        a.get(&a.sealed[0].manifest_key).await,
        a.get(&a.sealed[1].manifest_key).await,
    );
    a.put(&a.sealed[0].manifest_key, second).await;
    a.put(&a.sealed[1].manifest_key, first).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::ManifestMisplaced { .. }
    )));
});

both_depths!(forged_signature, |depth| async move {
    let a = archive().await;
    a.reseal(1, |m| {
        let signature = m.signature.as_mut().unwrap();
        signature.signature.0[10] ^= 0x40;
    })
    .await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::SignatureInvalid { .. }
    )));
});

both_depths!(wrong_key_same_key_id, |depth| async move {
    let a = archive().await;
    let impostor = signer(9, "k1");
    a.reseal(1, |m| *m = impostor.seal(m.body.clone())).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::SignatureInvalid { .. }
    )));
});

both_depths!(unknown_key, |depth| async move {
    let a = archive().await;
    let other = signer(9, "k3");
    a.reseal(1, |m| *m = other.seal(m.body.clone())).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Incomplete);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::UntrustedKey { key_id, .. } if key_id == "k3")
    ));
});

both_depths!(unsigned, |depth| async move {
    let a = archive().await;
    a.reseal(0, |m| m.signature = None).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Incomplete);
    assert!(has(&report, |f| matches!(f, VerifyBreak::Unsigned { .. })));
});

both_depths!(duplicate_object, |depth| async move {
    let a = archive().await;
    let key_holder = signer(1, "k1");
    a.reseal(2, |m| {
        let first = m.body.objects[0].clone();
        m.body.objects.push(first);
        *m = key_holder.seal(m.body.clone());
    })
    .await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::DuplicateObject { .. }
    )));
});

both_depths!(object_outside_segment, |depth| async move {
    let a = archive().await;
    let key_holder = signer(1, "k1");
    let foreign = a.sealed[0].manifest.body.objects[0].clone();
    a.reseal(2, |m| {
        m.body.objects.push(foreign);
        *m = key_holder.seal(m.body.clone());
    })
    .await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::ObjectOutsideSegment { .. }
    )));
});

both_depths!(overwritten_object, |depth| async move {
    let a = archive().await;
    let key = a.object_key(0, ".timeindex");
    a.put(&key, vec![0xee; 60]).await;
    let report = a.verify(depth, None).await;
    match depth {
        VerifyDepth::Shallow => assert_eq!(report.outcome(), VerifyOutcome::Verified),
        VerifyDepth::Deep => {
            assert_eq!(report.outcome(), VerifyOutcome::Tampered);
            // In memory there are no versions: nothing survives beneath.
            assert!(has(&report, |f| matches!(
                f,
                VerifyBreak::HashMismatch {
                    original_survives: None,
                    ..
                }
            )));
        }
    }
});

both_depths!(stray_object, |depth| async move {
    let a = archive().await;
    let dir = a.sealed[0]
        .manifest_key
        .rsplit_once('/')
        .unwrap()
        .0
        .to_owned();
    let stray = format!("{dir}/00000000000000000900-stray.log");
    a.put(&stray, b"hello".to_vec()).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Verified);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::Orphan { key } if *key == stray)
    ));
});

both_depths!(bumped_format_version, |depth| async move {
    let a = archive().await;
    let text = String::from_utf8(a.get(&a.sealed[2].manifest_key).await).unwrap();
    let bumped = text.replacen("\"format_version\":2", "\"format_version\":3", 1);
    assert_ne!(bumped, text);
    a.replace_manifest(2, bumped.into_bytes()).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Incomplete);
    assert!(has(&report, |f| matches!(
        f,
        VerifyBreak::UnsupportedFormat { .. }
    )));
});

both_depths!(offset_gap, |depth| async move {
    let a = archive_at(&[0, 100, 300]).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Verified);
    assert_eq!(
        report.partitions[0].gaps,
        vec![krabka_remote_storage::OffsetGap {
            after: 199,
            next: 300
        }]
    );
});

/// A deep run checks several objects at once; its findings still come in
/// manifest order, object by object, as a run one object at a time makes
/// them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_findings_come_in_manifest_order_whatever_finishes_first() {
    let a = archive_at(&[0, 100, 200, 300, 400, 500]).await;
    // The largest objects of later segments are tampered first in the
    // listing, a small early one last.
    let mut tampered = Vec::new();
    for (seq, suffix) in [(5, ".log"), (4, ".index"), (2, ".log"), (0, ".timeindex")] {
        let key = a.object_key(seq, suffix);
        let len = a.get(&key).await.len();
        a.put(&key, vec![0xee; len]).await;
        tampered.push(key);
    }
    let missing = a.object_key(3, ".timeindex");
    a.delete(&missing).await;
    let expected: Vec<String> = a
        .sealed
        .iter()
        .flat_map(|sealed| sealed.manifest.body.objects.iter())
        .map(|object| object.key.clone())
        .filter(|key| tampered.contains(key) || *key == missing)
        .collect();
    let report = a.verify(VerifyDepth::Deep, None).await;
    let found: Vec<String> = report.partitions[0]
        .findings
        .iter()
        .filter_map(|finding| match finding {
            VerifyBreak::HashMismatch { key, .. } | VerifyBreak::ObjectMissing { key } => {
                Some(key.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(found, expected);
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    // Every object still present was hashed once.
    let present: u64 = a
        .sealed
        .iter()
        .flat_map(|sealed| sealed.manifest.body.objects.iter())
        .filter(|object| object.key != missing)
        .map(|object| object.size_bytes)
        .sum();
    assert_eq!(report.partitions[0].bytes_hashed, present);
}

#[tokio::test]
async fn a_tampered_archive_is_not_authentic_and_says_why() {
    let a = archive().await;
    let key = a.object_key(2, ".log");
    a.delete(&key).await;
    let request = VerifyRequest::new(Some(PREFIX.to_owned()), trusted());
    let err = authenticate_archive(&*a.store, &request).await.unwrap_err();
    let VerifyError::NotAuthentic { outcome, findings } = err else {
        panic!("not NotAuthentic: {err:?}");
    };
    assert_eq!(outcome, VerifyOutcome::Tampered);
    assert_eq!(findings, vec![VerifyBreak::ObjectMissing { key }]);
}

/// Every progress report of a run.
#[derive(Default)]
struct Recorder(std::sync::Mutex<Vec<DeepProgress>>);

impl VerifyObserver for Recorder {
    fn deep_progress(&self, progress: &DeepProgress) {
        self.0.lock().unwrap().push(*progress);
    }
}

impl Archive {
    async fn observe(&self, depth: VerifyDepth) -> (Vec<DeepProgress>, u64) {
        let mut request = VerifyRequest::new(Some(PREFIX.to_owned()), trusted());
        request.depth = depth;
        let recorder = Recorder::default();
        let report = verify_archive_observed(&*self.store, &request, &recorder)
            .await
            .unwrap();
        let hashed = report.partitions.iter().map(|p| p.bytes_hashed).sum();
        (recorder.0.into_inner().unwrap(), hashed)
    }
}

#[tokio::test]
async fn a_deep_run_reports_progress_up_to_its_totals() {
    let a = archive().await;
    let (seen, hashed) = a.observe(VerifyDepth::Deep).await;
    let objects: u64 = a
        .sealed
        .iter()
        .map(|s| s.manifest.body.objects.len() as u64)
        .sum();
    let bytes: u64 = a
        .sealed
        .iter()
        .flat_map(|s| &s.manifest.body.objects)
        .map(|o| o.size_bytes)
        .sum();
    let first = seen.first().unwrap();
    assert_eq!((first.bytes_hashed, first.objects_done), (0, 0));
    assert_eq!((first.bytes_total, first.objects_total), (bytes, objects));
    let last = seen.last().unwrap();
    assert!(last.finished);
    assert_eq!((last.bytes_hashed, last.objects_done), (bytes, objects));
    assert_eq!(hashed, bytes);
    assert_eq!(seen.iter().filter(|p| p.finished).count(), 1);
    assert!(
        seen.windows(2)
            .all(|w| w[0].bytes_hashed <= w[1].bytes_hashed
                && w[0].objects_done <= w[1].objects_done)
    );
    // One report per object at least, besides the first and the last.
    assert!(seen.len() as u64 >= objects + 2, "{}", seen.len());
}

#[tokio::test]
async fn a_shallow_run_reports_no_progress() {
    let a = archive().await;
    let (seen, hashed) = a.observe(VerifyDepth::Shallow).await;
    assert_eq!(seen, Vec::new());
    assert_eq!(hashed, 0);
}

#[tokio::test]
async fn unnamed_and_missing_objects_keep_the_final_figures_below_the_totals() {
    let a = archive().await;
    let dir = a.sealed[0]
        .manifest_key
        .rsplit_once('/')
        .unwrap()
        .0
        .to_owned();
    a.put(
        &format!("{dir}/00000000000000000900-stray.log"),
        b"hello".to_vec(),
    )
    .await;
    let gone = a.object_key(1, ".index");
    a.store.delete(&Path::from(gone.as_str())).await.unwrap();
    let (seen, _) = a.observe(VerifyDepth::Deep).await;
    let last = seen.last().unwrap();
    assert!(last.finished);
    // The stray object is listed (in the totals) but never hashed; the
    // missing one is in neither figure.
    let named: u64 = a
        .sealed
        .iter()
        .map(|s| s.manifest.body.objects.len() as u64)
        .sum();
    assert_eq!(last.objects_done, named - 1);
    assert_eq!(last.objects_total, named - 1 + 1);
    assert_eq!(last.bytes_hashed, last.bytes_total - 5);
}

// ---------------------------------------------------------------------------
// Foreign objects under `_chain/`, detours, unfinished commits.
// ---------------------------------------------------------------------------

impl Archive {
    /// The partition directory, prefix included.
    fn dir(&self) -> String {
        let (dir, _) = self.sealed[0].manifest_key.rsplit_once('/').unwrap();
        dir.to_owned()
    }

    /// The genesis epoch the archiver sealed into.
    fn epoch(&self) -> EpochId {
        self.sealed[0].manifest.body.chain.epoch_id
    }

    /// The key of the seal at `(epoch, seq)`.
    fn seal_at(&self, epoch: EpochId, seq: u64) -> String {
        seal_key(&self.dir(), epoch, ManifestSeq(seq))
    }

    /// Moves the copy sealed at `index` to seq 0 of `epoch`, building on
    /// `prev_head`, as a writer routing around a foreign object does: its
    /// old seal is removed, the new seal and manifest written (signed by
    /// the archive's key). Returns the new head.
    async fn rehome(&self, index: usize, epoch: EpochId, prev_head: ChainHead) -> ChainHead {
        let mut body = self.sealed[index].manifest.body.clone();
        body.chain = ChainStamp {
            epoch_id: epoch,
            seq: ManifestSeq(0),
            prev_head,
        };
        let manifest = signer(1, "k1").seal(body);
        self.delete(&self.sealed[index].seal_key).await;
        self.put(&self.seal_at(epoch, 0), manifest.to_bytes()).await;
        self.put(&self.sealed[index].manifest_key, manifest.to_bytes())
            .await;
        manifest_head(&manifest.body)
    }
}

/// The foreign-object finding for `key`, with its detail.
fn foreign_detail(report: &krabka_remote_storage::ArchiveVerifyReport, key: &str) -> String {
    report
        .all_findings()
        .find_map(|f| match f {
            VerifyBreak::ForeignObject { key: k, detail } if k == key => Some(detail.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no ForeignObject for {key}: {report:#?}"))
}

/// Only foreign objects are wrong: the listed chain verifies, unbroken.
fn only_foreign(report: &krabka_remote_storage::ArchiveVerifyReport) {
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    for finding in report.all_findings() {
        assert!(
            matches!(finding, VerifyBreak::ForeignObject { .. }),
            "{finding:?} in {report:#?}"
        );
    }
}

both_depths!(stray_under_chain, |depth| async move {
    let a = archive().await;
    let stray = format!("{}/_chain/notes.txt", a.dir());
    let odd_seq = format!("{}/_chain/{}/7.seal", a.dir(), a.epoch());
    a.put(&stray, b"hello".to_vec()).await;
    a.put(&odd_seq, a.get(&a.sealed[0].seal_key).await).await;
    let report = a.verify(depth, Some(a.sealed[2].head)).await;
    only_foreign(&report);
    for key in [&stray, &odd_seq] {
        let detail = foreign_detail(&report, key);
        assert!(detail.contains("no seal position"), "{detail}");
        assert!(detail.contains("holds no chain position"), "{detail}");
        assert!(
            detail.ends_with("the committed records verify without it"),
            "{detail}"
        );
    }
    assert_eq!(report.partitions[0].tip, Some(a.sealed[2].head));
});

both_depths!(garbage_seal_at_the_next_position, |depth| async move {
    let a = archive().await;
    let junk = a.seal_at(a.epoch(), 3);
    a.put(&junk, b"{\"not\":\"a manifest\"}".to_vec()).await;
    let report = a.verify(depth, Some(a.sealed[2].head)).await;
    only_foreign(&report);
    let detail = foreign_detail(&report, &junk);
    assert!(detail.starts_with("its bytes are no manifest"), "{detail}");
    assert!(detail.contains("no detour routes around it"), "{detail}");
    assert_eq!(report.partitions[0].tip, Some(a.sealed[2].head));
});

both_depths!(oversized_seal_at_the_next_position, |depth| async move {
    let a = archive().await;
    let junk = a.seal_at(a.epoch(), 3);
    a.put(&junk, vec![b'{'; MAX_MANIFEST_BYTES + 1]).await;
    let report = a.verify(depth, Some(a.sealed[2].head)).await;
    only_foreign(&report);
    let detail = foreign_detail(&report, &junk);
    assert!(
        detail.starts_with(&format!(
            "{} bytes, more than any manifest",
            MAX_MANIFEST_BYTES + 1
        )),
        "{detail}"
    );
});

both_depths!(garbage_seal_routed_around_by_a_detour, |depth| async move {
    let a = archive_at(&[0, 100, 200, 300]).await;
    // Junk took (E, 3) before the fourth copy; the writer went on at seq 0
    // of the detour epoch, on the head of (E, 2).
    let (epoch, head_2) = (a.epoch(), a.sealed[2].head);
    let detour = detour_epoch(epoch, ManifestSeq(3), head_2);
    let tip = a.rehome(3, detour, head_2).await;
    let junk = a.seal_at(epoch, 3);
    a.put(&junk, b"garbage".to_vec()).await;
    let report = a.verify(depth, Some(tip)).await;
    only_foreign(&report);
    let detail = foreign_detail(&report, &junk);
    assert!(
        detail.contains(&format!("routes around it through detour epoch {detour}")),
        "{detail}"
    );
    assert!(
        detail.ends_with("the committed records verify without it"),
        "{detail}"
    );
    let partition = &report.partitions[0];
    assert_eq!(partition.tip, Some(tip));
    let span = partition
        .epochs
        .iter()
        .find(|e| e.epoch_id == detour)
        .unwrap();
    assert_eq!(span.accepted, 1);
    assert_eq!(
        span.detour_of,
        Some(krabka_remote_storage::ChainPosition {
            epoch_id: epoch,
            seq: ManifestSeq(3)
        })
    );
    assert!(partition.gaps.is_empty());
    assert_eq!(partition.objects, 4 * 4);
});

both_depths!(
    unsigned_seal_routed_around_by_a_detour,
    |depth| async move {
        let a = archive_at(&[0, 100, 200, 300]).await;
        let (epoch, head_2) = (a.epoch(), a.sealed[2].head);
        let detour = detour_epoch(epoch, ManifestSeq(3), head_2);
        let tip = a.rehome(3, detour, head_2).await;
        // An unsigned manifest at (E, 3), recording its own position.
        let mut unsigned = a.sealed[3].manifest.clone();
        unsigned.signature = None;
        let junk = a.seal_at(epoch, 3);
        a.put(&junk, unsigned.to_bytes()).await;
        let report = a.verify(depth, Some(tip)).await;
        only_foreign(&report);
        let detail = foreign_detail(&report, &junk);
        assert!(
            detail.starts_with("an unsigned seal; the chain routes around it"),
            "{detail}"
        );
        assert_eq!(report.partitions[0].tip, Some(tip));
    }
);

both_depths!(
    unsigned_seal_at_the_next_position_without_detour,
    |depth| async move {
        let a = archive().await;
        let mut body = a.sealed[2].manifest.body.clone();
        body.segment.segment_id = Uuid::from_u128(77);
        body.segment.start_offset = 300;
        body.objects.clear();
        body.chain = ChainStamp {
            epoch_id: a.epoch(),
            seq: ManifestSeq(3),
            prev_head: a.sealed[2].head,
        };
        let junk = a.seal_at(a.epoch(), 3);
        let unsigned = SegmentManifest {
            body,
            signature: None,
        };
        a.put(&junk, unsigned.to_bytes()).await;
        let report = a.verify(depth, None).await;
        // No detour: it keeps today's finding (it may be the archive's own).
        assert_eq!(report.outcome(), VerifyOutcome::Incomplete, "{report:#?}");
        assert!(has(
            &report,
            |f| matches!(f, VerifyBreak::Unsigned { key } if *key == junk)
        ));
        assert!(!has(&report, |f| matches!(
            f,
            VerifyBreak::ForeignObject { .. }
        )));
    }
);

both_depths!(junk_at_genesis_and_at_its_detour, |depth| async move {
    let a = archive_at(&[0]).await;
    let genesis = a.epoch();
    // Junk at (G, 0): detour D1 from GENESIS; junk at (D1, 0) too: detour
    // D2 from (D1, 0), still on GENESIS.
    let first = detour_epoch(genesis, ManifestSeq(0), ChainHead::GENESIS);
    let second = detour_epoch(first, ManifestSeq(0), ChainHead::GENESIS);
    let tip = a.rehome(0, second, ChainHead::GENESIS).await;
    a.put(&a.seal_at(genesis, 0), b"junk".to_vec()).await;
    a.put(&a.seal_at(first, 0), vec![0; 10]).await;
    let report = a.verify(depth, Some(tip)).await;
    only_foreign(&report);
    let partition = &report.partitions[0];
    assert_eq!(partition.tip, Some(tip));
    let span = partition
        .epochs
        .iter()
        .find(|e| e.epoch_id == second)
        .unwrap();
    assert_eq!(
        (span.accepted, span.detour_of.map(|p| p.epoch_id)),
        (1, Some(first))
    );
    assert!(foreign_detail(&report, &a.seal_at(first, 0)).contains(&second.to_string()));
});

both_depths!(a_detour_from_the_wrong_head_breaks, |depth| async move {
    let a = archive_at(&[0, 100, 200, 300]).await;
    let epoch = a.epoch();
    // The detour of (E, 3) on the head of (E, 2), but its seq 0 claims to
    // build on the head of (E, 1): a rewritten history.
    let detour = detour_epoch(epoch, ManifestSeq(3), a.sealed[2].head);
    a.rehome(3, detour, a.sealed[1].head).await;
    a.put(&a.seal_at(epoch, 3), b"junk".to_vec()).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::ChainBroken { epoch_id, .. } if *epoch_id == detour)
    ));
});

both_depths!(commit_unfinished, |depth| async move {
    let a = archive().await;
    // The writer crashed between the newest seal and its manifest.
    a.delete(&a.sealed[2].manifest_key).await;
    let report = a.verify(depth, Some(a.sealed[2].head)).await;
    assert_eq!(report.outcome(), VerifyOutcome::Verified, "{report:#?}");
    let expected = VerifyBreak::CommitUnfinished {
        seal: a.sealed[2].seal_key.clone(),
        manifest: a.sealed[2].manifest_key.clone(),
    };
    assert_eq!(report.all_findings().collect::<Vec<_>>(), vec![&expected]);
    assert_eq!(expected.severity(), Severity::Notice);
    assert_eq!(report.partitions[0].tip, Some(a.sealed[2].head));
    // Its objects are still checked.
    let key = a.object_key(2, ".index");
    a.put(&key, vec![0; 3]).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::SizeMismatch { key: k, .. } if *k == key)
    ));
});

both_depths!(
    manifest_missing_under_a_continued_chain,
    |depth| async move {
        let a = archive_at(&[0, 100, 200, 300]).await;
        let (epoch, head_2) = (a.epoch(), a.sealed[2].head);
        // Seq 2 lost its manifest, yet the chain went on from it (through a
        // detour): the writer repairs before it extends, so this is removal.
        let detour = detour_epoch(epoch, ManifestSeq(3), head_2);
        a.rehome(3, detour, head_2).await;
        a.put(&a.seal_at(epoch, 3), b"junk".to_vec()).await;
        a.delete(&a.sealed[2].manifest_key).await;
        let report = a.verify(depth, None).await;
        assert_eq!(report.outcome(), VerifyOutcome::Tampered);
        assert!(has(
            &report,
            |f| matches!(f, VerifyBreak::ManifestMissing { seal, .. } if *seal == a.sealed[2].seal_key)
        ));
        assert!(!has(&report, |f| matches!(
            f,
            VerifyBreak::CommitUnfinished { .. }
        )));
    }
);

both_depths!(garbage_over_a_committed_seal, |depth| async move {
    let a = archive().await;
    a.put(&a.sealed[1].seal_key, b"garbage".to_vec()).await;
    let report = a.verify(depth, None).await;
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(
        foreign_detail(&report, &a.sealed[1].seal_key).starts_with("its bytes are no manifest")
    );
    assert!(has(
        &report,
        |f| matches!(f, VerifyBreak::NotInChain { key } if *key == a.sealed[1].manifest_key)
    ));
});
