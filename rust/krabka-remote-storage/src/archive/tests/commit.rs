//! The commit protocol and a writer that does not trust the bucket: a
//! failed, cancelled or crashed manifest write is finished by the next copy;
//! foreign objects at chain positions are never read when oversized, never
//! built on, and routed around.

use {
    super::*,
    crate::test_metadata::SegmentMetadataBuilder,
    krabka_ids::LeaderEpoch,
    krabka_kafka::RemoteStorageManager,
    krabka_worm::{
        ChainHead, ChainStamp, EpochId, ManifestSeq, VerifyOutcome, VerifyRequest, detour_epoch,
        genesis_epoch, manifest_head, seal_key,
    },
    object_store::ObjectStoreExt,
};

/// The partition directory of the test segments.
fn dir(f: &Fixture) -> String {
    SegmentKeys::new(f.tier.prefix(), &metadata(1))
        .partition_dir()
        .to_owned()
}

fn genesis() -> EpochId {
    genesis_epoch(&metadata(1))
}

/// Puts `bytes` at `key`, as anyone with `PutObject` on the bucket can.
fn put_raw(f: &Fixture, key: &str, bytes: Vec<u8>) {
    let store = Arc::clone(&f.store);
    let key = Path::from(key);
    f.tier
        .store
        .runtime()
        .block_on(async move {
            store.inner.put(&key, bytes.into()).await.unwrap();
            Ok(())
        })
        .unwrap();
}

/// The bytes at `key`, `None` when absent.
fn read_raw(f: &Fixture, key: &str) -> Option<Bytes> {
    let store = Arc::clone(&f.store);
    let key = Path::from(key);
    f.tier
        .store
        .runtime()
        .block_on(async move {
            Ok(match store.inner.get(&key).await {
                Ok(got) => Some(got.bytes().await.unwrap()),
                Err(_) => None,
            })
        })
        .unwrap()
}

fn manifest_key_of(f: &Fixture, segment: u128) -> String {
    SegmentKeys::new(f.tier.prefix(), &metadata(segment))
        .with_suffix(MANIFEST_SUFFIX)
        .unwrap()
        .to_string()
}

fn restarted(f: &Fixture) -> WormRemoteStorage {
    S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
        .unwrap()
        .with_worm_unchecked(signer(), false, "test".to_owned())
}

fn chain_of(f: &Fixture, segment: u128) -> ChainStamp {
    manifest_of(f, segment).body.chain
}

fn head_of(f: &Fixture, segment: u128) -> ChainHead {
    manifest_head(&manifest_of(f, segment).body)
}

/// The verifier's report at both depths; they must agree (a deep run also
/// re-hashes every object).
fn verify(f: &Fixture) -> krabka_worm::ArchiveVerifyReport {
    let at = |depth| {
        let store = Arc::clone(&f.store);
        let mut request = VerifyRequest::new(Some("tier".to_owned()), trusted());
        request.depth = depth;
        f.tier
            .store
            .runtime()
            .block_on(async move { Ok(crate::verify_archive(&*store, &request).await.unwrap()) })
            .unwrap()
    };
    let shallow = at(krabka_worm::VerifyDepth::Shallow);
    let deep = at(krabka_worm::VerifyDepth::Deep);
    assert_eq!(
        shallow.all_findings().collect::<Vec<_>>(),
        deep.all_findings().collect::<Vec<_>>(),
        "shallow and deep disagree"
    );
    assert_eq!(shallow.outcome(), deep.outcome());
    shallow
}

#[test]
fn a_failed_manifest_write_is_finished_by_the_next_copy_and_verifies_clean() {
    let f = worm_fixture(false);
    let counted = Arc::clone(f.tier.archiver().metrics());
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    assert_eq!((counted.seals(), counted.manifests()), (1, 1));
    f.store.stats.fail_puts(MANIFEST_SUFFIX, usize::MAX);
    let err = f
        .tier
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap_err();
    // Sealed, but its manifest is not written.
    assert_eq!((counted.seals(), counted.manifests()), (2, 1));
    assert_eq!(err.class(), ErrorClass::Retryable, "{err:?}");
    assert!(err.to_string().contains("committed"), "{err}");
    let seal = seal_key(&dir(&f), genesis(), ManifestSeq(1));
    let sealed = read_raw(&f, &seal).expect("the seal committed the copy");
    assert_eq!(read_raw(&f, &manifest_key_of(&f, 2)), None);
    // Kafka retries the copy under a new segment id.
    f.store.stats.fail_puts(MANIFEST_SUFFIX, 0);
    f.tier.copy_log_segment_data(&metadata(3), &data).unwrap();
    // The repair and the copy's own manifest.
    assert_eq!((counted.seals(), counted.manifests()), (3, 3));
    assert_eq!(counted.fence_losses(), 0);
    assert_eq!(read_raw(&f, &manifest_key_of(&f, 2)), Some(sealed));
    assert_eq!(chain_of(&f, 3).seq, ManifestSeq(2));
    assert_eq!(chain_of(&f, 3).prev_head, head_of(&f, 2));
    let report = verify(&f);
    assert_eq!(report.outcome(), VerifyOutcome::Verified, "{report:?}");
    assert_eq!(report.all_findings().count(), 0, "{report:?}");
}

#[test]
fn a_seal_position_taken_between_the_check_and_the_write_is_a_fence_loss() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    *f.store.stats.collide_put.lock().unwrap() = Some(".seal".to_owned());
    let err = f
        .tier
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::Retryable, "{err:?}");
    let counted = f.tier.archiver().metrics();
    assert_eq!(counted.fence_losses(), 1);
    assert_eq!((counted.seals(), counted.manifests()), (1, 1));
    // The retry continues the chain.
    f.tier.copy_log_segment_data(&metadata(3), &data).unwrap();
    assert_eq!(counted.seals(), 2);
}

#[test]
fn a_transient_manifest_failure_is_retried_within_the_copy() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.store.stats.fail_puts(MANIFEST_SUFFIX, 2);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    assert!(read_raw(&f, &manifest_key_of(&f, 1)).is_some());
}

#[test]
fn a_writer_killed_between_seal_and_manifest_is_finished_after_a_restart() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.store.stats.fail_puts(MANIFEST_SUFFIX, usize::MAX);
    f.tier
        .copy_log_segment_data(&metadata(1), &data)
        .unwrap_err();
    f.store.stats.fail_puts(MANIFEST_SUFFIX, 0);
    // The process is gone; a new one derives the tip from the bucket.
    let after = restarted(&f);
    after.copy_log_segment_data(&metadata(2), &data).unwrap();
    assert!(read_raw(&f, &manifest_key_of(&f, 1)).is_some());
    assert_eq!(chain_of(&f, 2).prev_head, head_of(&f, 1));
    assert_eq!(verify(&f).outcome(), VerifyOutcome::Verified);
}

#[test]
fn a_cancel_that_lands_after_the_seal_still_finishes_the_manifest() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    let cancel = krabka_kafka::CancellationToken::new();
    *f.store.stats.cancel_after_put.lock().unwrap() =
        Some((krabka_worm::SEAL_SUFFIX.to_owned(), cancel.clone()));
    f.tier
        .copy_log_segment_data_cancellable(&metadata(1), &data, &cancel)
        .unwrap();
    assert!(cancel.is_cancelled());
    let seal = seal_key(&dir(&f), genesis(), ManifestSeq(0));
    assert_eq!(
        read_raw(&f, &manifest_key_of(&f, 1)),
        read_raw(&f, &seal),
        "the manifest is the seal's bytes"
    );
}

#[test]
fn garbage_at_the_next_position_is_routed_around_by_a_detour() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let head = head_of(&f, 1);
    put_raw(
        &f,
        &seal_key(&dir(&f), genesis(), ManifestSeq(1)),
        b"junk".to_vec(),
    );
    // The cached tip is stale: the position check finds it taken.
    f.tier.copy_log_segment_data(&metadata(2), &data).unwrap();
    let detour = detour_epoch(genesis(), ManifestSeq(1), head);
    assert_eq!(
        chain_of(&f, 2),
        ChainStamp {
            epoch_id: detour,
            seq: ManifestSeq(0),
            prev_head: head
        }
    );
    f.tier.copy_log_segment_data(&metadata(3), &data).unwrap();
    assert_eq!(chain_of(&f, 3).epoch_id, detour);
    assert_eq!(chain_of(&f, 3).seq, ManifestSeq(1));
    // A writer that derives the tip from the bucket follows the detour.
    restarted(&f)
        .copy_log_segment_data(&metadata(4), &data)
        .unwrap();
    assert_eq!(chain_of(&f, 4).epoch_id, detour);
    assert_eq!(chain_of(&f, 4).prev_head, head_of(&f, 3));
    assert_only_foreign(&f, 1);
}

/// The archive verifies with `count` foreign-object findings and nothing
/// else: the chain routed around them is unbroken.
fn assert_only_foreign(f: &Fixture, count: usize) {
    let report = verify(f);
    let findings: Vec<_> = report.all_findings().collect();
    assert_eq!(findings.len(), count, "{report:#?}");
    assert!(
        findings
            .iter()
            .all(|finding| matches!(finding, krabka_worm::VerifyBreak::ForeignObject { .. })),
        "{report:#?}"
    );
}

#[test]
fn a_junked_detour_is_routed_around_again() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let head = head_of(&f, 1);
    let detour = detour_epoch(genesis(), ManifestSeq(1), head);
    put_raw(
        &f,
        &seal_key(&dir(&f), genesis(), ManifestSeq(1)),
        b"junk".to_vec(),
    );
    put_raw(
        &f,
        &seal_key(&dir(&f), detour, ManifestSeq(0)),
        b"more junk".to_vec(),
    );
    restarted(&f)
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap();
    assert_eq!(
        chain_of(&f, 2),
        ChainStamp {
            epoch_id: detour_epoch(detour, ManifestSeq(0), head),
            seq: ManifestSeq(0),
            prev_head: head
        }
    );
    assert_only_foreign(&f, 2);
}

#[test]
fn an_oversized_object_at_a_seal_position_is_never_read() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let huge = seal_key(&dir(&f), genesis(), ManifestSeq(1));
    put_raw(&f, &huge, vec![b'{'; krabka_worm::MAX_MANIFEST_BYTES + 1]);
    f.store.stats.got.lock().unwrap().clear();
    restarted(&f)
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap();
    let got = f.store.stats.got.lock().unwrap().clone();
    assert!(!got.contains(&huge), "read {huge}: {got:?}");
    assert_eq!(chain_of(&f, 2).prev_head, head_of(&f, 1));
    assert_eq!(chain_of(&f, 2).seq, ManifestSeq(0));
    assert_only_foreign(&f, 1);
}

#[test]
fn an_unsigned_seal_at_the_next_position_is_not_built_on() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let head = head_of(&f, 1);
    let mut forged = manifest_of(&f, 1);
    forged.signature = None;
    forged.body.chain = ChainStamp {
        epoch_id: genesis(),
        seq: ManifestSeq(1),
        prev_head: head,
    };
    put_raw(
        &f,
        &seal_key(&dir(&f), genesis(), ManifestSeq(1)),
        forged.to_bytes(),
    );
    restarted(&f)
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap();
    let chain = chain_of(&f, 2);
    assert_eq!(chain.prev_head, head, "built on the unsigned seal");
    assert_eq!(
        chain.epoch_id,
        detour_epoch(genesis(), ManifestSeq(1), head)
    );
}

#[test]
fn brokers_with_different_keys_share_a_chain_when_they_trust_each_other() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    let other_signer = ManifestSigner::from_secret_bytes(&[9; 32], "k2").unwrap();
    let other_keys = TrustedManifestKeys::single("k2", &other_signer.public_key()).unwrap();
    let archive = |signer: ManifestSigner, trusted: &TrustedManifestKeys| {
        let plain = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned())).unwrap();
        WormArchiver::new(
            Arc::clone(plain.store()),
            plain.prefix().map(str::to_owned),
            signer,
        )
        .with_trusted_keys(trusted)
        .unwrap()
    };
    let ours = archive(signer(), &other_keys);
    let theirs = archive(other_signer, &trusted());
    let runtime = Arc::clone(f.tier.store.runtime());
    let copy = |archiver: &WormArchiver, segment_id: u128| {
        runtime
            .handle()
            .block_on(archiver.archive(
                &metadata(segment_id),
                &data,
                &krabka_kafka::CancellationToken::new(),
            ))
            .unwrap()
    };
    let first = copy(&ours, 1);
    let second = copy(&theirs, 2);
    let third = copy(&ours, 3);
    assert_eq!(second.manifest.body.chain.prev_head, first.head);
    assert_eq!(third.manifest.body.chain.prev_head, second.head);
    assert_eq!(third.manifest.body.chain.seq, ManifestSeq(2));
    // A writer that does not trust `k2` treats its seal as foreign.
    let stranger = WormArchiver::new(
        Arc::clone(f.tier.store()),
        f.tier.prefix().map(str::to_owned),
        ManifestSigner::from_secret_bytes(&[3; 32], "k3").unwrap(),
    );
    let derived = runtime
        .handle()
        .block_on(crate::derive_tip(
            &*f.store,
            &dir(&f),
            genesis(),
            stranger.trusted(),
        ))
        .unwrap();
    assert!(derived.extends.is_none());
    assert_eq!(derived.foreign.len(), 3, "{derived:?}");
}

#[test]
fn a_newer_leader_epoch_re_derives_the_tip() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    let tp = krabka_kafka::TopicIdPartition::new(uuid::Uuid::from_u128(7), "orders", 3);
    let at_epoch = |segment: u128, epoch: i32| {
        SegmentMetadataBuilder::new(&tp, 100)
            .segment_id(uuid::Uuid::from_u128(segment))
            .epochs([(LeaderEpoch(epoch), 100)])
            .size(0)
            .build()
    };
    f.tier
        .copy_log_segment_data(&at_epoch(1, 0), &data)
        .unwrap();
    let lists = f.store.stats.lists.load(SeqCst);
    f.tier
        .copy_log_segment_data(&at_epoch(2, 0), &data)
        .unwrap();
    assert_eq!(
        f.store.stats.lists.load(SeqCst),
        lists,
        "same leader: cached tip"
    );
    f.tier
        .copy_log_segment_data(&at_epoch(3, 4), &data)
        .unwrap();
    assert_eq!(
        f.store.stats.lists.load(SeqCst),
        lists + 1,
        "new leader: derived"
    );
}
