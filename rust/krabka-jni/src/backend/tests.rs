use {
    super::*,
    crate::test_metadata::metadata,
    krabka_remote_storage::{
        DeleteOutcome, ManifestSigner, ObjectStoreConfig, RemoteStorageError, WormConfig,
    },
};

fn in_memory_tier() -> S3RemoteStorage {
    S3RemoteStorage::from_config(&ObjectStoreConfig::InMemory).unwrap()
}

fn signer() -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[7; 32], "test-key").unwrap()
}

#[test]
fn outcome_codes_are_the_adapters_constants() {
    assert_eq!(delete_code(&DeleteOutcome::Deleted), 0);
    let retained = DeleteOutcome::RetainedByArchive {
        reason: "write-once".to_owned(),
    };
    assert_eq!(delete_code(&retained), 1);
}

#[test]
fn an_archive_tier_retains_and_a_plain_tier_deletes() {
    let archive =
        Storage::new(in_memory_tier().with_worm_unchecked(signer(), false, "test".to_owned()));
    assert_eq!(archive.delete_segment(&metadata()).unwrap(), 1);
    // Every repeat is the same, without an error.
    assert_eq!(archive.delete_segment(&metadata()).unwrap(), 1);

    let plain = Storage::new(in_memory_tier());
    assert_eq!(plain.delete_segment(&metadata()).unwrap(), 0);
    let dir = tempfile::tempdir().unwrap();
    let filesystem = Storage::new(LocalTieredStorage::new(dir.path().to_owned()));
    assert_eq!(filesystem.delete_segment(&metadata()).unwrap(), 0);
}

#[test]
fn an_archive_that_cannot_prove_its_lock_fails_to_open() {
    let err = open_storage(BackendConfig::ObjectStore {
        store: Box::new(ObjectStoreConfig::InMemory),
        worm: Some(Box::new(WormConfig::new(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../krabka-remote-storage/tests/fixtures/worm/test-key-1.pem"
            ),
            "test-key-1",
        ))),
        allow_plain_on_archive: false,
        read_cache: None,
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            BridgeError::WormStartup(RemoteStorageError::Refused(_))
        ),
        "{err:?}"
    );
    let err = open_storage(BackendConfig::ObjectStore {
        store: Box::new(ObjectStoreConfig::InMemory),
        worm: Some(Box::new(WormConfig::new("/nonexistent/worm-key.pem", "k1"))),
        allow_plain_on_archive: false,
        read_cache: None,
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            BridgeError::WormStartup(RemoteStorageError::Config { .. })
        ),
        "{err:?}"
    );
    let plain = open_storage(BackendConfig::ObjectStore {
        store: Box::new(ObjectStoreConfig::InMemory),
        worm: None,
        allow_plain_on_archive: false,
        read_cache: None,
    })
    .unwrap();
    assert_eq!(plain.delete_segment(&metadata()).unwrap(), 0);
}

#[test]
fn the_plain_tier_refuses_a_bucket_that_holds_an_archive_unless_allowed() {
    let root = tempfile::tempdir().unwrap();
    let plain = |allow_plain_on_archive| {
        open_storage(BackendConfig::ObjectStore {
            store: Box::new(ObjectStoreConfig::Local {
                root: root.path().to_owned(),
            }),
            worm: None,
            allow_plain_on_archive,
            read_cache: None,
        })
    };
    plain(false).expect("an empty bucket is no archive");
    let probes = root.path().join("_krabka-worm-probe");
    std::fs::create_dir_all(&probes).unwrap();
    std::fs::write(probes.join("1764700000-0001"), b"").unwrap();
    let err = plain(false).unwrap_err();
    assert!(matches!(err, BridgeError::PlainOnArchive), "{err:?}");
    assert!(
        err.to_string().contains("worm.allow.plain.on.archive"),
        "{err}"
    );
    plain(true).expect("allowed explicitly");
}
