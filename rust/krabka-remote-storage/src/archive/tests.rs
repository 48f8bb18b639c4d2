//! Unit tests of the archive tier over the instrumented in-memory store.

use {
    super::*,
    crate::{S3RemoteStorage, test_store::*},
    krabka_kafka::ErrorClass,
    krabka_object_store::ObjectStoreConfig,
    krabka_worm::{
        MANIFEST_SUFFIX, SegmentManifest, TrustedManifestKeys, WormChainRecord,
        verify_manifest_signature,
    },
    sha2::{Digest, Sha256},
};

struct Fixture {
    tier: WormRemoteStorage,
    store: Arc<Instrumented>,
    dir: tempfile::TempDir,
}

fn plain_tier(store: &Arc<Instrumented>) -> S3RemoteStorage {
    S3RemoteStorage::with_store(store.clone(), Some("/tier/".to_owned())).unwrap()
}

fn signer() -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[7; 32], "k1").unwrap()
}

fn worm_fixture(write_only: bool) -> Fixture {
    let store = instrumented();
    Fixture {
        tier: plain_tier(&store).with_worm_unchecked(signer(), write_only, "test".to_owned()),
        store,
        dir: tempfile::tempdir().unwrap(),
    }
}

fn trusted() -> TrustedManifestKeys {
    TrustedManifestKeys::single("k1", &signer().public_key()).unwrap()
}

fn manifest_of(fixture: &Fixture, segment: u128) -> SegmentManifest {
    let keys = SegmentKeys::new(fixture.tier.prefix(), &metadata(segment));
    let key = keys.with_suffix(MANIFEST_SUFFIX).unwrap();
    let store = Arc::clone(&fixture.store);
    let bytes: Bytes = fixture
        .tier
        .store
        .runtime()
        .block_on(async move {
            use object_store::ObjectStoreExt;
            Ok(store.inner.get(&key).await.unwrap().bytes().await.unwrap())
        })
        .unwrap();
    SegmentManifest::from_bytes(&bytes).unwrap()
}

#[test]
fn a_copy_is_sealed_signed_hashed_and_chained() {
    let f = worm_fixture(false);
    let log = pattern(5000, 3);
    let data = segment(f.dir.path(), &log, true);
    let first = f
        .tier
        .copy_log_segment_data(&metadata(1), &data)
        .unwrap()
        .unwrap();
    assert!(first.as_bytes().len() <= WormChainRecord::MAX_BYTES);
    let Some(WormChainRecord::Receipt { seq, head, .. }) =
        WormChainRecord::from_custom_metadata(first.as_bytes()).unwrap()
    else {
        panic!("not a receipt");
    };
    assert_eq!(seq.0, 0);
    let manifest = manifest_of(&f, 1);
    let verified = verify_manifest_signature(&manifest, &trusted()).unwrap();
    assert_eq!(verified.head(), head);
    let log_entry = manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap();
    assert_eq!(log_entry.size_bytes, 5000);
    assert_eq!(log_entry.sha256.0, <[u8; 32]>::from(Sha256::digest(&log)));
    assert!(log_entry.create_precondition);
    assert_eq!(
        manifest.body.objects.len(),
        6,
        "log, four indexes and the epoch checkpoint"
    );
    // The next copy continues the chain on the first head.
    let second = f
        .tier
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap()
        .unwrap();
    let Some(WormChainRecord::Receipt { seq, .. }) =
        WormChainRecord::from_custom_metadata(second.as_bytes()).unwrap()
    else {
        panic!("not a receipt");
    };
    assert_eq!(seq.0, 1);
    assert_eq!(manifest_of(&f, 2).body.chain.prev_head, head);
}

#[test]
fn a_recopy_of_the_same_keys_is_refused_as_already_existing() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let err = f
        .tier
        .copy_log_segment_data(&metadata(1), &data)
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::AlreadyExists { .. }),
        "{err:?}"
    );
}

#[test]
fn a_restarted_tier_derives_the_tip_from_the_bucket() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let head = crate::manifest_head(&manifest_of(&f, 1).body);
    let restarted = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
        .unwrap()
        .with_worm_unchecked(signer(), false, "test".to_owned());
    restarted
        .copy_log_segment_data(&metadata(2), &data)
        .unwrap();
    let second = manifest_of(&f, 2);
    assert_eq!(second.body.chain.seq.0, 1);
    assert_eq!(second.body.chain.prev_head, head);
    assert_eq!(
        second.body.chain.epoch_id,
        manifest_of(&f, 1).body.chain.epoch_id
    );
}

#[test]
fn two_writers_cannot_fork_the_chain() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    let other = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
        .unwrap()
        .with_worm_unchecked(signer(), false, "test".to_owned());
    // Both learn the tip (seq 1 next) ...
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    other.copy_log_segment_data(&metadata(2), &data).unwrap();
    // ... `f.tier` still believes seq 1 is next. Its position check finds
    // seq 1 taken before anything is uploaded, so the copy continues the
    // chain after the winner instead of losing the seal race.
    f.tier.copy_log_segment_data(&metadata(3), &data).unwrap();
    assert_eq!(manifest_of(&f, 3).body.chain.seq.0, 2);
    assert_eq!(
        manifest_of(&f, 3).body.chain.prev_head,
        crate::manifest_head(&manifest_of(&f, 2).body)
    );
}

#[test]
fn multipart_objects_need_a_version_id() {
    // InMemory returns no version id: a multipart object cannot be pinned.
    let mut f = worm_fixture(false);
    f.tier = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
        .unwrap()
        .with_multipart_tuning(1000, 1000)
        .with_worm_unchecked(signer(), false, "test".to_owned());
    let data = segment(f.dir.path(), &pattern(4000, 1), false);
    let err = f
        .tier
        .copy_log_segment_data(&metadata(1), &data)
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
}

#[test]
fn a_copy_that_never_committed_is_not_served() {
    // A multipart log first reserves its key with an empty create-only
    // write; a copy failing after that leaves the reservation (nothing can
    // be deleted), which must not read as an empty segment.
    let mut f = worm_fixture(false);
    f.tier = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
        .unwrap()
        .with_multipart_tuning(1000, 1000)
        .with_worm_unchecked(signer(), false, "test".to_owned());
    f.store.stats.fail_part.store(2, SeqCst);
    let data = segment(f.dir.path(), &pattern(4000, 1), false);
    let err = f
        .tier
        .copy_log_segment_data(&metadata(1), &data)
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::Retryable, "{err:?}");
    let log_key = SegmentKeys::new(f.tier.prefix(), &metadata(1))
        .log()
        .unwrap();
    let store = Arc::clone(&f.store);
    let reserved = f
        .tier
        .store
        .runtime()
        .block_on(async move {
            use object_store::ObjectStoreExt;
            Ok(store.inner.head(&log_key).await.unwrap().size)
        })
        .unwrap();
    assert_eq!(reserved, 0, "the reservation is left behind");
    let Err(err) = f.tier.fetch_log_segment(&metadata(1), 0, None) else {
        panic!("the log of an uncommitted copy was served");
    };
    assert!(
        matches!(err, RemoteStorageError::NotFound { .. }),
        "{err:?}"
    );
    for index in IndexType::ALL {
        let err = f.tier.fetch_index(&metadata(1), index).unwrap_err();
        assert!(
            matches!(err, RemoteStorageError::NotFound { .. }),
            "{index:?}: {err:?}"
        );
    }
    // Kafka's retry, under a new segment id, commits and is served.
    f.store.stats.fail_part.store(0, SeqCst);
    f.tier = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
        .unwrap()
        .with_worm_unchecked(signer(), false, "test".to_owned());
    f.tier.copy_log_segment_data(&metadata(2), &data).unwrap();
    assert_eq!(
        read_all(f.tier.fetch_log_segment(&metadata(2), 0, None).unwrap()),
        pattern(4000, 1)
    );
}

#[test]
fn deletes_are_retained_without_a_request() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let before = f.store.stats.requests.load(SeqCst);
    let outcome = f.tier.delete_log_segment_data(&metadata(1)).unwrap();
    assert!(
        matches!(&outcome, DeleteOutcome::RetainedByArchive { reason } if reason.contains("write-once")),
        "{outcome:?}"
    );
    assert_eq!(f.store.stats.requests.load(SeqCst), before);
    // The segment is still readable.
    assert_eq!(
        read_all(f.tier.fetch_log_segment(&metadata(1), 0, None).unwrap()).len(),
        100
    );
}

#[test]
fn write_only_refuses_fetches_without_a_request() {
    let f = worm_fixture(true);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let before = f.store.stats.requests.load(SeqCst);
    let log = f
        .tier
        .fetch_log_segment(&metadata(1), 0, None)
        .err()
        .unwrap();
    assert!(matches!(log, RemoteStorageError::Refused(_)));
    let index = f
        .tier
        .fetch_index(&metadata(1), IndexType::Offset)
        .unwrap_err();
    assert!(matches!(index, RemoteStorageError::Refused(_)));
    assert_eq!(f.store.stats.requests.load(SeqCst), before);
}

#[test]
fn with_worm_refuses_tiers_that_cannot_prove_a_lock() {
    let key_dir = tempfile::tempdir().unwrap();
    let key = key_dir.path().join("key.pem");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/worm/test-key-1.pem"
        ),
        &key,
    )
    .unwrap();
    let config = WormConfig::new(&key, "test-key-1");
    let err = plain_tier(&instrumented())
        .with_worm(config.clone())
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
    let local = S3RemoteStorage::from_config(&ObjectStoreConfig::Local {
        root: key_dir.path().to_owned(),
    })
    .unwrap();
    let err = local.with_worm(config).unwrap_err();
    assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
}

mod commit;
mod fetch;
mod log;
