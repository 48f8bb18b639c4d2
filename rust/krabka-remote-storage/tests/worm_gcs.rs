//! The write-once archive on GCS, against the in-repo GCS server, which
//! enforces what Google documents for Bucket Lock
//! (`tests/gcs-server/server.py`): a bucket with a **locked retention
//! policy and no versioning** (`KRABKA_GCS_WORM_BUCKET`, created by
//! `scripts/test.d/55-worm.sh`) is accepted; a bucket without a policy,
//! with an unlocked one, or with versioning is refused at start-up; the
//! server itself refuses a bucket with both versioning and a policy (the
//! archive's former requirement). On the lock bucket a log in parts goes up
//! without any reservation, its generation is pinned, nothing can replace
//! it, a second writer of a key loses, and the shared conformance suite
//! passes, read-write and write-only.

#![allow(missing_docs)]

mod servers;
mod support;

use {
    krabka_object_store::{
        GcsConfig, ObjectStoreConfig, StoreError,
        store::{
            CreateOnlyParts, StoreHandle,
            upload::{UploadSource, WriteMode, upload},
        },
    },
    krabka_remote_storage::{
        DeleteOutcome, IndexType, MANIFEST_SUFFIX, RemoteStorageError, RemoteStorageManager,
        S3RemoteStorage, SegmentManifest, TopicIdPartition, VerifyDepth, VerifyOutcome,
        VerifyRequest, WormRemoteStorage, verify_archive,
    },
    object_store::{ObjectStoreExt, path::Path},
    servers::{segment, skip_or_fail, unique_prefix},
    std::{io::Read, sync::Arc},
    support::{
        conformance::{self, Capabilities},
        segment_metadata,
        worm_key::{trusted, worm_config},
    },
    tokio_util::sync::CancellationToken,
    uuid::Uuid,
};

const PART: usize = 5 * 1024 * 1024;

/// The GCS server with the lock bucket the stage script created.
fn lock_bucket(test: &str) -> Option<servers::GcsServer> {
    let mut server = servers::gcs(test)?;
    match std::env::var("KRABKA_GCS_WORM_BUCKET") {
        Ok(bucket) if !bucket.is_empty() => server.bucket = bucket,
        _ => {
            skip_or_fail(test, "KRABKA_GCS_WORM_BUCKET");
            return None;
        }
    }
    Some(server)
}

fn lock_config(server: &servers::GcsServer, prefix: &str) -> GcsConfig {
    let mut config = server.config();
    config.prefix = Some(prefix.to_owned());
    config.multipart_threshold = PART as u64;
    config.multipart_chunk_size = PART;
    config
}

fn open(config: GcsConfig, write_only: bool) -> Result<WormRemoteStorage, RemoteStorageError> {
    S3RemoteStorage::from_config(&ObjectStoreConfig::Gcs(config))
        .unwrap()
        .with_worm(worm_config().write_only(write_only))
}

/// Creates a bucket on the server through the JSON API; returns its name
/// and the status of the creation.
fn create_bucket(server: &servers::GcsServer, resource: &str) -> (String, u16) {
    let name = format!("worm-{}", &Uuid::new_v4().simple().to_string()[..12]);
    let body = resource.replace("NAME", &name);
    let (status, answer) = servers::http(
        &server.endpoint,
        "POST",
        "/storage/v1/b?project=test",
        body.as_bytes(),
    );
    assert!(
        status == 200 || status == 400,
        "{status}: {}",
        String::from_utf8_lossy(&answer)
    );
    (name, status)
}

fn refused_at_start_up(server: &servers::GcsServer, bucket: &str) {
    let mut config = server.config();
    config.bucket = bucket.to_owned();
    let err = open(config, false).unwrap_err();
    assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
    eprintln!("bucket {bucket}: {err}");
}

#[test]
fn gcs_buckets_without_a_locked_policy_are_refused_and_the_old_setup_cannot_exist() {
    let Some(server) = servers::gcs("gcs_worm_refusals") else {
        return;
    };
    // The plain bucket: no retention policy.
    refused_at_start_up(&server, &server.bucket);
    // An unlocked policy can still be removed.
    let (unlocked, status) = create_bucket(
        &server,
        r#"{"name":"NAME","retentionPolicy":{"retentionPeriod":"86400"}}"#,
    );
    assert_eq!(status, 200);
    refused_at_start_up(&server, &unlocked);
    // Versioning alone retains nothing.
    let (versioned, status) =
        create_bucket(&server, r#"{"name":"NAME","versioning":{"enabled":true}}"#);
    assert_eq!(status, 200);
    refused_at_start_up(&server, &versioned);
    // Object Retention Lock alone: the archive's writes set no retention.
    let mut config = server.config();
    let name = format!("worm-{}", &Uuid::new_v4().simple().to_string()[..12]);
    let (status, _) = servers::http(
        &server.endpoint,
        "POST",
        "/storage/v1/b?project=test&enableObjectRetention=true",
        format!(r#"{{"name":"{name}"}}"#).as_bytes(),
    );
    assert_eq!(status, 200);
    config.bucket = name;
    assert!(matches!(
        open(config, false),
        Err(RemoteStorageError::Refused(_))
    ));
    // The former requirement, versioning and a retention policy on one
    // bucket, is refused by the server as Google documents.
    let (_, status) = create_bucket(
        &server,
        r#"{"name":"NAME","versioning":{"enabled":true},"retentionPolicy":{"retentionPeriod":"86400"}}"#,
    );
    assert_eq!(status, 400);
}

#[test]
fn gcs_lock_bucket_archives_in_parts_pins_generations_and_keeps_the_first_copy() {
    let Some(server) = lock_bucket("gcs_worm_lock_bucket") else {
        return;
    };
    let prefix = unique_prefix("gcslock");
    let tier = open(lock_config(&server, &prefix), false).unwrap();
    assert!(
        tier.evidence().contains("locked retention policy"),
        "{}",
        tier.evidence()
    );
    let dir = tempfile::tempdir().unwrap();
    let log_len = PART + PART / 2 + 17;
    let data = segment(dir.path(), log_len, true);
    let tp = TopicIdPartition::new(Uuid::new_v4(), "orders", 0);
    let metadata = segment_metadata(&tp, 0, log_len);
    tier.copy_log_segment_data(&metadata, &data)
        .unwrap()
        .unwrap();
    let store = Arc::clone(tier.store());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let manifest_key = format!(
        "{prefix}/{}/{}",
        krabka_remote_storage::partition_dir_name(&metadata),
        krabka_remote_storage::segment_file_name(&metadata, MANIFEST_SUFFIX)
    );
    let manifest_bytes = runtime
        .block_on(async {
            store
                .get(&Path::from(manifest_key.as_str()))
                .await?
                .bytes()
                .await
        })
        .unwrap();
    let manifest = SegmentManifest::from_bytes(&manifest_bytes).unwrap();
    let log = manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap();
    assert!(!log.create_precondition, "the log went up in parts");
    let generation = log.version_id.clone().expect("the generation is pinned");
    let head = runtime
        .block_on(store.head(&Path::from(log.key.as_str())))
        .unwrap();
    assert_eq!(head.version.as_deref(), Some(generation.as_str()));
    assert_eq!(head.size, log_len as u64);
    assert!(
        manifest
            .body
            .objects
            .iter()
            .filter(|o| o.suffix != ".log")
            .all(|o| o.create_precondition && o.version_id.is_some())
    );
    // Consumers read it back.
    let mut bytes = Vec::new();
    tier.fetch_log_segment(&metadata, 0, None)
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    assert_eq!(bytes, servers::pattern_at(0, log_len));
    assert!(
        !tier
            .fetch_index(&metadata, IndexType::Offset)
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        tier.delete_log_segment_data(&metadata).unwrap(),
        DeleteOutcome::RetainedByArchive { .. }
    ));
    // A second writer of the same segment loses, from another tier too.
    let second = open(lock_config(&server, &prefix), false).unwrap();
    let err = second.copy_log_segment_data(&metadata, &data).unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::AlreadyExists { .. }),
        "{err:?}"
    );
    // The bucket refuses to replace or delete the archived log.
    let replaced = runtime.block_on(store.put(&Path::from(log.key.as_str()), vec![0u8; 16].into()));
    assert!(
        matches!(replaced, Err(object_store::Error::PermissionDenied { .. })),
        "{replaced:?}"
    );
    let deleted = runtime.block_on(store.delete(&Path::from(log.key.as_str())));
    assert!(deleted.is_err(), "{deleted:?}");
    // The archive verifies deep.
    let mut request = VerifyRequest::new(Some(prefix.clone()), trusted());
    request.depth = VerifyDepth::Deep;
    let report = runtime.block_on(verify_archive(&*store, &request)).unwrap();
    assert_eq!(report.outcome(), VerifyOutcome::Verified, "{report:#?}");
}

#[test]
fn gcs_concurrent_uploads_in_parts_of_one_key_keep_exactly_one_object() {
    let Some(server) = lock_bucket("gcs_worm_concurrent_parts") else {
        return;
    };
    let prefix = unique_prefix("gcsrace");
    let handle =
        StoreHandle::from_config(&ObjectStoreConfig::Gcs(lock_config(&server, &prefix))).unwrap();
    assert_eq!(
        handle.tuning().create_only_parts,
        CreateOnlyParts::RetentionGuarded
    );
    let dir = tempfile::tempdir().unwrap();
    let len = PART + 1000;
    let files: Vec<_> = (0..3u8)
        .map(|writer| {
            let path = dir.path().join(format!("writer-{writer}"));
            std::fs::write(&path, vec![writer; len]).unwrap();
            path
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    for round in 0..3 {
        let key = handle.key(&format!("race-{round}.log")).unwrap();
        let results: Vec<_> = runtime.block_on(async {
            let tasks: Vec<_> = files
                .iter()
                .map(|file| {
                    let (store, key, file) =
                        (Arc::clone(handle.store()), key.clone(), file.clone());
                    let tuning = handle.tuning();
                    tokio::spawn(async move {
                        upload(
                            &*store,
                            &key,
                            UploadSource::File(file),
                            tuning,
                            WriteMode::CreateOnly,
                            false,
                            &CancellationToken::new(),
                        )
                        .await
                    })
                })
                .collect();
            let mut results = Vec::new();
            for task in tasks {
                results.push(task.await.unwrap());
            }
            results
        });
        let winners: Vec<usize> = results
            .iter()
            .enumerate()
            .filter_map(|(writer, result)| result.is_ok().then_some(writer))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        for result in &results {
            if let Err(err) = result {
                assert!(
                    matches!(err, StoreError::AlreadyExists { .. }),
                    "round {round}: {err:?}"
                );
            }
        }
        let winner = winners[0];
        let Ok(uploaded) = &results[winner] else {
            unreachable!("the winner uploaded");
        };
        let stored = runtime
            .block_on(async { handle.store().get(&key).await?.bytes().await })
            .unwrap();
        assert_eq!(stored.len(), len);
        assert!(
            stored.iter().all(|b| usize::from(*b) == winner),
            "round {round}: the object is the winner's"
        );
        let head = runtime.block_on(handle.store().head(&key)).unwrap();
        assert_eq!(head.version, uploaded.result.version);
    }
}

fn conformance_on_the_lock_bucket(test: &str, write_only: bool) {
    let Some(server) = lock_bucket(test) else {
        return;
    };
    let tier = open(lock_config(&server, &unique_prefix("gcsconf")), write_only).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(&tier, Capabilities::archive(write_only), scratch.path());
}

#[test]
fn gcs_lock_bucket_passes_the_conformance_suite() {
    conformance_on_the_lock_bucket("gcs_lock_conformance", false);
}

#[test]
fn gcs_write_only_lock_bucket_passes_the_conformance_suite() {
    conformance_on_the_lock_bucket("gcs_write_only_lock_conformance", true);
}
