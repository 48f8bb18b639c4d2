//! Data keys from AWS KMS (moto's server mode, started by
//! `scripts/test.d/50-object-store.sh` with two keys): the RSM conformance
//! suite on a filesystem tier encrypting under KMS, a rotation to another
//! KMS key with old segments still read, KMS beside RSA key pairs, and the
//! errors of a key KMS does not know. Skipped without the server unless
//! `KRABKA_REQUIRE_SERVERS=1`.

mod support;

use {
    krabka_object_store::{S3Credentials, Secret},
    krabka_remote_storage::{
        Cipher, CombinedKeyRing, Compression, IndexType, KeyRing, KmsConfig, KmsKeyRing,
        LocalTieredStorage, RemoteStorageError, RemoteStorageManager, SegmentCodec,
    },
    std::{path::Path, sync::Arc},
    support::{
        SegmentSpec, conformance,
        conformance::Capabilities,
        keys::{ring, write_key_pair},
        orders_segment, read_all, write_segment,
    },
};

/// The server and its two keys, or `None` (skipped) without them.
fn kms(test: &str) -> Option<(String, String, String)> {
    let var = |name| {
        std::env::var(name)
            .ok()
            .filter(|value: &String| !value.is_empty())
    };
    match (
        var("KRABKA_KMS_ENDPOINT"),
        var("KRABKA_KMS_KEY_A"),
        var("KRABKA_KMS_KEY_B"),
    ) {
        (Some(endpoint), Some(a), Some(b)) => Some((endpoint, a, b)),
        _ => {
            assert!(
                std::env::var("KRABKA_REQUIRE_SERVERS").is_err(),
                "{test}: KRABKA_KMS_ENDPOINT and its keys are required"
            );
            eprintln!("SKIPPED {test}: no KMS server (KRABKA_KMS_ENDPOINT)");
            None
        }
    }
}

fn kms_ring(endpoint: &str, key: &str) -> Arc<dyn KeyRing> {
    let mut config = KmsConfig::new(key, "us-east-1");
    config.endpoint = Some(endpoint.to_owned());
    config.credentials = S3Credentials::Static {
        access_key_id: "test".to_owned(),
        secret_access_key: Secret::new("testtesttest".to_owned()),
        session_token: None,
    };
    Arc::new(KmsKeyRing::new(&config).unwrap())
}

fn codec(keys: Arc<dyn KeyRing>) -> SegmentCodec {
    SegmentCodec {
        chunk_size: 4096,
        compression: Some(Compression::default()),
        encryption: Some(Cipher::Aes256Gcm),
        keys: Some(keys),
    }
}

fn tier(root: &Path, keys: Arc<dyn KeyRing>) -> LocalTieredStorage {
    LocalTieredStorage::new(root.to_path_buf())
        .with_codec(codec(keys))
        .unwrap()
}

#[test]
fn a_tier_encrypting_under_kms_passes_the_suite() {
    let Some((endpoint, key_a, _)) = kms("kms_conformance") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tier = tier(&dir.path().join("tier"), kms_ring(&endpoint, &key_a));
    conformance::run_rsm_conformance(&tier, Capabilities::PLAIN, &dir.path().join("scratch"));
}

#[test]
fn a_rotation_to_another_kms_key_keeps_old_segments_readable() {
    let Some((endpoint, key_a, key_b)) = kms("kms_rotation") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tier");
    let scratch = dir.path().join("scratch");
    let copy = |tier: &LocalTieredStorage, seed| {
        let files = write_segment(&scratch, &SegmentSpec::seeded(seed));
        let metadata = orders_segment(files.log.len());
        let custom = tier.copy_log_segment_data(&metadata, &files.data).unwrap();
        (metadata.with_custom_metadata(custom), files)
    };
    let (under_a, files_a) = copy(&tier(&root, kms_ring(&endpoint, &key_a)), 1);
    let envelope = std::fs::read(
        tier(&root, kms_ring(&endpoint, &key_a))
            .segment_path(&under_a, krabka_remote_storage::ENVELOPE_SUFFIX)
            .unwrap(),
    )
    .unwrap();
    assert!(
        envelope
            .windows(key_a.len())
            .any(|window| window == key_a.as_bytes())
    );
    // Key B is now the active key: A's segment still reads (KMS decrypts
    // blobs of any key the credentials may use), B's too.
    let rotated = tier(&root, kms_ring(&endpoint, &key_b));
    let (under_b, files_b) = copy(&rotated, 2);
    assert_eq!(
        read_all(rotated.fetch_log_segment(&under_a, 0, None).unwrap()),
        files_a.log
    );
    assert_eq!(
        read_all(rotated.fetch_log_segment(&under_b, 10, None).unwrap()),
        files_b.log[10..]
    );
    assert_eq!(
        rotated.fetch_index(&under_a, IndexType::Offset).unwrap(),
        files_a.offset_index
    );

    // KMS beside RSA key pairs: segments of either read through one ring.
    let keys = tempfile::tempdir().unwrap();
    let pair = write_key_pair(keys.path(), "rsa1");
    let rsa = ring("rsa1", &[pair]);
    let (under_rsa, files_rsa) = copy(&tier(&root, Arc::clone(&rsa)), 3);
    let combined: Arc<dyn KeyRing> =
        Arc::new(CombinedKeyRing::new(kms_ring(&endpoint, &key_b), vec![rsa]));
    let both = tier(&root, combined);
    assert_eq!(
        read_all(both.fetch_log_segment(&under_rsa, 0, None).unwrap()),
        files_rsa.log
    );
    assert_eq!(
        read_all(both.fetch_log_segment(&under_a, 0, None).unwrap()),
        files_a.log
    );
}

#[test]
fn a_key_kms_does_not_know_is_a_typed_error() {
    let Some((endpoint, _, _)) = kms("kms_unknown_key") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let unknown = "arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000000";
    let tier = tier(&dir.path().join("tier"), kms_ring(&endpoint, unknown));
    let files = write_segment(&dir.path().join("scratch"), &SegmentSpec::default());
    let err = tier
        .copy_log_segment_data(&orders_segment(files.log.len()), &files.data)
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Config { .. }), "{err:?}");
    assert!(format!("{err:?}").contains("NotFoundException"), "{err:?}");
}
