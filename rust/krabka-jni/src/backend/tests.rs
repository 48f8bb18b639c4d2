use {
    super::*,
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        ErrorClass, ManifestSigner, ObjectStoreConfig, RemoteLogSegmentDetails, RemoteLogSegmentId,
        RemoteLogSegmentState, TopicIdPartition, WormConfig,
    },
    std::collections::BTreeMap,
    uuid::Uuid,
};

fn metadata() -> RemoteLogSegmentMetadata {
    let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 0);
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp, Uuid::from_u128(2)),
        0,
        9,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            10,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), 0)]),
        ),
    )
    .unwrap()
}

fn in_memory_tier() -> S3RemoteStorage {
    S3RemoteStorage::from_config(&ObjectStoreConfig::InMemory).unwrap()
}

fn signer() -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[7; 32], "test-key").unwrap()
}

#[test]
fn outcome_codes_are_the_adapters_constants() {
    assert_eq!(DeleteOutcome::Deleted.code(), 0);
    assert_eq!(DeleteOutcome::RetainedByArchive.code(), 1);
}

#[test]
fn only_an_archives_refusal_is_a_retained_segment() {
    let refused = || Err(RemoteStorageError::Refused("write-once".to_owned()));
    assert_eq!(
        DeleteOutcome::of(true, refused()).unwrap(),
        DeleteOutcome::RetainedByArchive
    );
    assert_eq!(
        DeleteOutcome::of(true, Ok(())).unwrap(),
        DeleteOutcome::Deleted
    );
    assert_eq!(
        DeleteOutcome::of(false, Ok(())).unwrap(),
        DeleteOutcome::Deleted
    );
    // A refusal from a tier that is not an archive stays an error.
    assert!(matches!(
        DeleteOutcome::of(false, refused()),
        Err(RemoteStorageError::Refused(_))
    ));
    // Other failures of an archive stay errors.
    let transient = Err(RemoteStorageError::Retryable {
        message: "503".to_owned(),
        source: None,
    });
    assert!(matches!(
        DeleteOutcome::of(true, transient),
        Err(RemoteStorageError::Retryable { .. })
    ));
    let missing = Err(RemoteStorageError::not_found("segment"));
    assert_eq!(
        DeleteOutcome::of(true, missing).unwrap_err().class(),
        ErrorClass::NotFound
    );
}

#[test]
fn an_archive_tier_retains_and_a_plain_tier_deletes() {
    let archive = Storage::ObjectStore(Box::new(in_memory_tier().with_worm_unchecked(
        signer(),
        false,
        "test".to_owned(),
    )));
    assert!(archive.is_worm());
    assert_eq!(
        archive.delete_segment(&metadata()).unwrap(),
        DeleteOutcome::RetainedByArchive
    );
    // Every repeat is the same, without an error.
    assert_eq!(
        archive.delete_segment(&metadata()).unwrap(),
        DeleteOutcome::RetainedByArchive
    );

    let plain = Storage::ObjectStore(Box::new(in_memory_tier()));
    assert!(!plain.is_worm());
    assert_eq!(
        plain.delete_segment(&metadata()).unwrap(),
        DeleteOutcome::Deleted
    );
    let dir = tempfile::tempdir().unwrap();
    let filesystem = Storage::Filesystem(LocalTieredStorage::new(dir.path().to_owned()));
    assert!(!filesystem.is_worm());
    assert_eq!(
        filesystem.delete_segment(&metadata()).unwrap(),
        DeleteOutcome::Deleted
    );
}

#[test]
fn an_archive_that_cannot_prove_its_lock_fails_to_open() {
    let err = open_storage(BackendConfig::ObjectStore {
        store: Box::new(ObjectStoreConfig::InMemory),
        worm: Some(WormConfig::new(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../krabka-remote-storage/tests/fixtures/worm/test-key-1.pem"
            ),
            "test-key-1",
        )),
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
        worm: Some(WormConfig::new("/nonexistent/worm-key.pem", "k1")),
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            BridgeError::WormStartup(RemoteStorageError::InvalidArgument(_))
        ),
        "{err:?}"
    );
    let plain = open_storage(BackendConfig::ObjectStore {
        store: Box::new(ObjectStoreConfig::InMemory),
        worm: None,
    })
    .unwrap();
    assert!(!plain.is_worm());
}
