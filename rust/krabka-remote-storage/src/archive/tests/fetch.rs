//! Fetches read the committed copy's manifest once, check it, and read the
//! objects it names.

use {super::*, krabka_kafka::RemoteStorageManager, object_store::ObjectStoreExt};

#[test]
fn the_manifest_is_read_once_per_segment() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    let manifest = SegmentKeys::new(f.tier.prefix(), &metadata(1))
        .with_suffix(MANIFEST_SUFFIX)
        .unwrap()
        .to_string();
    f.store.stats.got.lock().unwrap().clear();
    for _ in 0..3 {
        assert_eq!(
            read_all(f.tier.fetch_log_segment(&metadata(1), 0, None).unwrap()),
            pattern(100, 1)
        );
        f.tier.fetch_index(&metadata(1), IndexType::Offset).unwrap();
    }
    let got = f.store.stats.got.lock().unwrap().clone();
    assert_eq!(
        got.iter().filter(|key| **key == manifest).count(),
        1,
        "{got:?}"
    );
}

#[test]
fn a_manifest_not_signed_by_a_trusted_key_is_not_served() {
    let f = worm_fixture(false);
    let data = segment(f.dir.path(), &pattern(100, 1), false);
    f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
    // Another archive tier on the same bucket with another key: it trusts
    // only its own seals and manifests.
    let stranger = plain_tier(&f.store).with_worm_unchecked(
        ManifestSigner::from_secret_bytes(&[8; 32], "k9").unwrap(),
        false,
        "test".to_owned(),
    );
    let Err(err) = stranger.fetch_log_segment(&metadata(1), 0, None) else {
        panic!("served a manifest signed by an untrusted key");
    };
    assert_eq!(err.class(), ErrorClass::Integrity, "{err:?}");
    // A manifest that names another segment is not served either.
    let keys = |segment| {
        SegmentKeys::new(f.tier.prefix(), &metadata(segment))
            .with_suffix(MANIFEST_SUFFIX)
            .unwrap()
    };
    let store = Arc::clone(&f.store);
    let (from, to) = (keys(1), keys(2));
    f.tier
        .store
        .runtime()
        .block_on(async move {
            let bytes = store.inner.get(&from).await.unwrap().bytes().await.unwrap();
            store.inner.put(&to, bytes.into()).await.unwrap();
            Ok(())
        })
        .unwrap();
    let err = f
        .tier
        .fetch_index(&metadata(2), IndexType::Offset)
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::Integrity, "{err:?}");
}
