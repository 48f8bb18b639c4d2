//! The write-once archive mode against real S3 servers: a SeaweedFS bucket
//! with Object Lock (COMPLIANCE default retention) is accepted, SeaweedFS's
//! plain bucket and s3s-fs are refused. Started by
//! `scripts/test.d/55-worm.sh`, which creates the lock bucket and sets
//! `KRABKA_S3_WORM_BUCKET`. The shared conformance suite runs on the lock
//! bucket, read-write and write-only. The archive on GCS is `worm_gcs.rs`.
//!
//! Every S3 request goes through the aws-rules front
//! (`tests/aws-rules/front.py`, `KRABKA_S3_ENDPOINT`), which refuses what
//! Amazon S3 refuses and SeaweedFS lets through: above all an upload into an
//! Object Lock bucket without `Content-MD5` or an `x-amz-checksum-*` header.
//! [`the_aws_rules_front_refuses_lock_bucket_uploads_without_a_checksum`]
//! shows that it does.

#![allow(missing_docs)]

mod servers;
mod support;

use {
    krabka_remote_storage::{
        DeleteOutcome, ErrorClass, IndexType, MANIFEST_SUFFIX, RemoteStorageError,
        RemoteStorageManager, S3RemoteStorage, SegmentManifest, TopicIdPartition, VerifyBreak,
        VerifyDepth, VerifyOutcome, VerifyRequest, WormChainRecord, WormRemoteStorage,
        verify_archive, verify_manifest_signature,
    },
    object_store::{ObjectStoreExt, path::Path},
    servers::{segment, skip_or_fail, unique_prefix},
    std::{io::Read, sync::Arc},
    support::{
        conformance::{self, Capabilities},
        keys::{ring, sealing_codec, write_key_pair},
        segment_metadata,
        worm_key::{trusted, worm_config},
    },
    uuid::Uuid,
};

fn worm_bucket(test: &str) -> Option<servers::S3Server> {
    let mut server = servers::seaweedfs(test)?;
    match std::env::var("KRABKA_S3_WORM_BUCKET") {
        Ok(bucket) if !bucket.is_empty() => server.bucket = bucket,
        _ => {
            skip_or_fail(test, "KRABKA_S3_WORM_BUCKET");
            return None;
        }
    }
    Some(server)
}

fn worm_tier(server: &servers::S3Server, prefix: &str, write_only: bool) -> WormRemoteStorage {
    let mut config = server.config();
    config.prefix = Some(prefix.to_owned());
    config.multipart_threshold = 5 * 1024 * 1024;
    config.multipart_chunk_size = 5 * 1024 * 1024;
    S3RemoteStorage::from_s3_config(&config)
        .unwrap()
        .with_worm(worm_config().write_only(write_only))
        .unwrap()
}

fn read_manifest(tier: &WormRemoteStorage, key: &str) -> SegmentManifest {
    let store = Arc::clone(tier.store());
    let key = Path::from(key);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let bytes = runtime.block_on(async { store.get(&key).await.unwrap().bytes().await.unwrap() });
    SegmentManifest::from_bytes(&bytes).unwrap()
}

#[test]
fn seaweedfs_lock_bucket_archives_pins_versions_and_refuses_deletes() {
    let Some(server) = worm_bucket("seaweedfs_lock_bucket") else {
        return;
    };
    let prefix = unique_prefix("wormlock");
    let tier = worm_tier(&server, &prefix, false);
    assert!(tier.evidence().contains("COMPLIANCE"));
    let dir = tempfile::tempdir().unwrap();
    let log_len = 6 * 1024 * 1024 + 17;
    let data = segment(dir.path(), log_len, true);
    let tp = TopicIdPartition::new(Uuid::new_v4(), "orders", 0);
    let metadata = segment_metadata(&tp, 0, log_len);
    let receipt = tier
        .copy_log_segment_data(&metadata, &data)
        .unwrap()
        .unwrap();
    assert!(receipt.as_bytes().len() <= WormChainRecord::MAX_BYTES);
    let Some(WormChainRecord::Receipt { head, .. }) =
        WormChainRecord::from_custom_metadata(receipt.as_bytes()).unwrap()
    else {
        panic!("no receipt");
    };
    let log_key = format!(
        "{prefix}/{}/{}",
        krabka_remote_storage::partition_dir_name(&metadata),
        krabka_remote_storage::segment_file_name(&metadata, MANIFEST_SUFFIX)
    );
    let manifest = read_manifest(&tier, &log_key);
    assert_eq!(
        verify_manifest_signature(&manifest, &trusted())
            .unwrap()
            .head(),
        head
    );
    let log = manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap();
    assert!(!log.create_precondition, "the log went up as multipart");
    assert!(log.version_id.is_some(), "the multipart version is pinned");
    assert_eq!(log.size_bytes, log_len as u64);
    assert!(
        manifest
            .body
            .objects
            .iter()
            .filter(|o| o.suffix != ".log")
            .all(|o| o.create_precondition)
    );
    // Consumers read it back.
    let mut bytes = Vec::new();
    tier.fetch_log_segment(&metadata, 0, None)
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    assert_eq!(bytes.len(), log_len);
    assert_eq!(bytes, servers::pattern_at(0, log_len));
    assert!(
        !tier
            .fetch_index(&metadata, IndexType::Offset)
            .unwrap()
            .is_empty()
    );
    // Deletes are retained by the archive.
    assert!(matches!(
        tier.delete_log_segment_data(&metadata).unwrap(),
        DeleteOutcome::RetainedByArchive { .. }
    ));
    // The archive verifies deep, with the receipt's head as its tip.
    let request = |depth| {
        let mut request = VerifyRequest::new(Some(prefix.clone()), trusted());
        request.depth = depth;
        request.expect_head = Some(head);
        request
    };
    let store = Arc::clone(tier.store());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let report = runtime
        .block_on(verify_archive(&*store, &request(VerifyDepth::Deep)))
        .unwrap();
    assert_eq!(report.outcome(), VerifyOutcome::Verified, "{report:#?}");
    // An overwrite (a new version on top) is caught deep, and the original
    // bytes survive beneath in the pinned version.
    let log_key = manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap()
        .key
        .clone();
    runtime
        .block_on(store.put(&Path::from(log_key.as_str()), vec![0u8; log_len].into()))
        .unwrap();
    // Fetches read the version the manifest pins, never the one on top:
    // through the tier that wrote it and through a fresh one.
    for reader in [&tier, &worm_tier(&server, &prefix, false)] {
        let mut again = Vec::new();
        reader
            .fetch_log_segment(&metadata, 1000, None)
            .unwrap()
            .read_to_end(&mut again)
            .unwrap();
        assert!(
            again == servers::pattern_at(1000, log_len - 1000),
            "the fetch served the overwrite"
        );
    }
    let report = runtime
        .block_on(verify_archive(&*store, &request(VerifyDepth::Shallow)))
        .unwrap();
    assert_eq!(report.outcome(), VerifyOutcome::Verified);
    let report = runtime
        .block_on(verify_archive(&*store, &request(VerifyDepth::Deep)))
        .unwrap();
    assert_eq!(report.outcome(), VerifyOutcome::Tampered);
    assert!(
        report.all_findings().any(|f| matches!(
            f,
            VerifyBreak::HashMismatch { key, original_survives: Some(true) } if *key == log_key
        )),
        "{report:#?}"
    );
    // Through the configuration (as the command line reads S3): the
    // overwrite also shows as a newer version shadowing the archived one,
    // and every archived version is under COMPLIANCE retention.
    let mut s3 = server.config();
    s3.prefix = Some(prefix.clone());
    let report = krabka_remote_storage::verify_archive_config(
        &krabka_object_store::ObjectStoreConfig::S3(s3),
        &request(VerifyDepth::Shallow),
    )
    .unwrap();
    assert!(
        report.all_findings().any(|f| matches!(
            f,
            VerifyBreak::Shadowed { key, .. } if *key == log_key
        )),
        "{report:#?}"
    );
    let protection = &report.partitions[0].protection;
    assert!(!protection.is_empty());
    assert!(
        protection
            .iter()
            .all(|p| p.mode.as_deref() == Some("COMPLIANCE") && p.retain_until.is_some()),
        "{protection:#?}"
    );
    assert!(
        !report
            .all_findings()
            .any(|f| matches!(f, VerifyBreak::RetentionWeak { .. }))
    );
    // The server refuses to delete the archived version.
    let version = log.version_id.clone().unwrap();
    let status = runtime.block_on(signed_delete(&server, &log_key, &version));
    assert_eq!(status, 403, "deleting a locked version must be refused");
}

/// A SigV4-signed `DELETE /bucket/key?versionId=…`; returns the status.
async fn signed_delete(server: &servers::S3Server, key: &str, version: &str) -> u16 {
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
    signed_request(server, "DELETE", &url, Vec::new()).await.0
}

/// A SigV4-signed request with `body` and no other header; returns the
/// status, whether the aws-rules front (not the server) answered, and the body.
async fn signed_request(
    server: &servers::S3Server,
    method: &str,
    url: &str,
    body: Vec<u8>,
) -> (u16, bool, String) {
    use object_store::{
        ClientOptions,
        aws::{AwsAuthorizer, AwsCredential},
        client::{HttpConnector, HttpRequestBody, ReqwestConnector},
    };
    let credential = AwsCredential {
        key_id: server.access_key.clone(),
        secret_key: server.secret_key.clone(),
        token: None,
    };
    let mut request = http::Request::builder()
        .method(method)
        .uri(url)
        .body(HttpRequestBody::from(body))
        .unwrap();
    AwsAuthorizer::new(&credential, "s3", &server.region)
        .try_authorize(&mut request, None)
        .unwrap();
    let client = ReqwestConnector::default()
        .connect(&ClientOptions::new().with_allow_http(true))
        .unwrap();
    let response = client.execute(request).await.unwrap();
    let status = response.status().as_u16();
    let by_front = response.headers().contains_key("x-krabka-aws-rules");
    let text = String::from_utf8_lossy(&response.into_body().bytes().await.unwrap()).into_owned();
    (status, by_front, text)
}

/// The lock bucket behind the aws-rules front, and SeaweedFS's own address.
fn lock_bucket_behind_the_front(test: &str) -> Option<(servers::S3Server, String)> {
    let server = worm_bucket(test)?;
    match (
        std::env::var("KRABKA_S3_AWS_RULES").as_deref(),
        std::env::var("KRABKA_S3_UPSTREAM_ENDPOINT"),
    ) {
        (Ok("1"), Ok(upstream)) if !upstream.is_empty() => Some((server, upstream)),
        _ => {
            skip_or_fail(test, "KRABKA_S3_AWS_RULES / KRABKA_S3_UPSTREAM_ENDPOINT");
            None
        }
    }
}

/// Amazon S3 refuses a PutObject or UploadPart into a bucket with Object
/// Lock that carries neither `Content-MD5` nor an `x-amz-checksum-*` header;
/// SeaweedFS accepts it. The front refuses it as AWS does, for a raw signed
/// request and for an `object_store` client built without the checksum,
/// while the tier's own client (checksum on) passes. (Every other test here
/// opens its archive through the front too, so the start-up probe's
/// create-only writes pass the rule as well.)
#[test]
fn the_aws_rules_front_refuses_lock_bucket_uploads_without_a_checksum() {
    let Some((server, upstream)) = lock_bucket_behind_the_front("aws_rules_front") else {
        return;
    };
    let prefix = unique_prefix("awsrules");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = |endpoint: &str, name: &str| format!("{endpoint}/{}/{prefix}/{name}", server.bucket);
    // A raw signed PUT without a checksum: AWS's 400 from the front; SeaweedFS alone stores it.
    let (status, by_front, body) = runtime.block_on(signed_request(
        &server,
        "PUT",
        &url(&server.endpoint, "raw"),
        b"no checksum".to_vec(),
    ));
    assert_eq!((status, by_front), (400, true), "{body}");
    assert!(body.contains("<Code>InvalidRequest</Code>"), "{body}");
    let (status, by_front, body) = runtime.block_on(signed_request(
        &server,
        "PUT",
        &url(&upstream, "raw"),
        b"no checksum".to_vec(),
    ));
    assert_eq!(
        (status, by_front),
        (200, false),
        "SeaweedFS is expected to accept it (the gap the front closes): {body}"
    );
    // An object_store client without the checksum option: its PUT and its
    // UploadPart are refused.
    let bare = object_store::aws::AmazonS3Builder::new()
        .with_endpoint(&server.endpoint)
        .with_allow_http(true)
        .with_virtual_hosted_style_request(false)
        .with_region(&server.region)
        .with_bucket_name(&server.bucket)
        .with_access_key_id(&server.access_key)
        .with_secret_access_key(&server.secret_key)
        .with_retry(object_store::RetryConfig {
            max_retries: 0,
            ..object_store::RetryConfig::default()
        })
        .build()
        .unwrap();
    runtime.block_on(async {
        let key = Path::from(format!("{prefix}/bare"));
        assert!(
            bare.put(&key, b"no checksum".to_vec().into())
                .await
                .is_err()
        );
        let mut upload = object_store::ObjectStore::put_multipart_opts(
            &bare,
            &key,
            object_store::PutMultipartOptions::default(),
        )
        .await
        .unwrap();
        assert!(upload.put_part(vec![1u8; 1000].into()).await.is_err());
        upload.abort().await.unwrap();
    });
    // The tier's client (the default configuration) writes through the front.
    let mut config = server.config();
    config.prefix = Some(prefix.clone());
    let store = krabka_object_store::build_object_store(
        &krabka_object_store::ObjectStoreConfig::S3(config),
    )
    .unwrap();
    runtime
        .block_on(store.put(
            &Path::from(format!("{prefix}/tier")),
            b"with checksum".to_vec().into(),
        ))
        .unwrap();
}

/// The shared conformance suite on the lock bucket. Unlike the in-memory
/// store (`archive_conformance.rs`), the bucket keeps versions, so the
/// archive's multipart path (a reserved key, then a pinned version) runs for
/// every log from 5 MiB.
fn conformance_on_the_lock_bucket(test: &str, write_only: bool) {
    let Some(server) = worm_bucket(test) else {
        return;
    };
    let tier = worm_tier(&server, &unique_prefix("wormconf"), write_only);
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(&tier, Capabilities::archive(write_only), scratch.path());
}

#[test]
fn seaweedfs_lock_bucket_passes_the_conformance_suite() {
    conformance_on_the_lock_bucket("seaweedfs_lock_conformance", false);
}

/// The suite on the lock bucket with every copy compressed and encrypted:
/// encoded streams go up as multipart uploads pinned to their versions, and
/// each manifest seals the segment's envelope with the other objects.
#[test]
fn seaweedfs_lock_bucket_passes_the_conformance_suite_compressed_and_encrypted() {
    let Some(server) = worm_bucket("seaweedfs_lock_conformance_chunked") else {
        return;
    };
    let keys = tempfile::tempdir().unwrap();
    let pair = write_key_pair(keys.path(), "k1");
    let mut config = server.config();
    config.prefix = Some(unique_prefix("wormchunked"));
    config.multipart_threshold = 5 * 1024 * 1024;
    config.multipart_chunk_size = 5 * 1024 * 1024;
    let tier = S3RemoteStorage::from_s3_config(&config)
        .unwrap()
        .with_codec(sealing_codec(64 * 1024, ring("k1", &[pair])))
        .unwrap()
        .with_worm(worm_config())
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(&tier, Capabilities::archive(false), scratch.path());
}

#[test]
fn seaweedfs_write_only_lock_bucket_passes_the_conformance_suite() {
    conformance_on_the_lock_bucket("seaweedfs_write_only_lock_conformance", true);
}

#[test]
fn seaweedfs_two_writers_never_fork_the_chain() {
    let Some(server) = worm_bucket("seaweedfs_two_writers") else {
        return;
    };
    let prefix = unique_prefix("wormrace");
    let dir = tempfile::tempdir().unwrap();
    let data = segment(dir.path(), 1000, false);
    let a = Arc::new(worm_tier(&server, &prefix, false));
    let b = Arc::new(worm_tier(&server, &prefix, false));
    let mut losses = 0;
    for round in 0..4 {
        let tp = TopicIdPartition::new(Uuid::new_v4(), "race", round);
        let barrier = Arc::new(std::sync::Barrier::new(2));
        let results: Vec<_> = [Arc::clone(&a), Arc::clone(&b)]
            .into_iter()
            .enumerate()
            .map(|(i, tier)| {
                let (barrier, data, tp) = (Arc::clone(&barrier), data.clone(), tp.clone());
                std::thread::spawn(move || {
                    let metadata = segment_metadata(&tp, i64::try_from(i).unwrap() * 100, 1000);
                    barrier.wait();
                    (
                        metadata.clone(),
                        tier.copy_log_segment_data(&metadata, &data),
                    )
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        let mut seqs = Vec::new();
        for (index, (_, result)) in results.into_iter().enumerate() {
            let record = match result {
                Ok(custom) => custom.unwrap(),
                Err(err) => {
                    assert_eq!(err.class(), ErrorClass::Retryable, "{err:?}");
                    losses += 1;
                    // The retry (a new segment id, as Kafka does) continues the chain.
                    let tier = if index == 0 { &a } else { &b };
                    tier.copy_log_segment_data(&segment_metadata(&tp, 500, 1000), &data)
                        .unwrap()
                        .unwrap()
                }
            };
            let Some(WormChainRecord::Receipt { seq, epoch_id, .. }) =
                WormChainRecord::from_custom_metadata(record.as_bytes()).unwrap()
            else {
                panic!("no receipt");
            };
            eprintln!("round {round} writer {index}: epoch {epoch_id} seq {seq}");
            seqs.push(seq.0);
        }
        seqs.sort_unstable();
        assert_eq!(seqs, vec![0, 1], "round {round}: one chain, no fork");
    }
    eprintln!("two-writer race: {losses} of 4 rounds had a loser");
}

#[test]
fn seaweedfs_plain_bucket_is_refused() {
    let Some(server) = servers::seaweedfs("seaweedfs_plain_refused") else {
        return;
    };
    let tier = S3RemoteStorage::from_s3_config(&server.config()).unwrap();
    let err = tier.with_worm(worm_config()).unwrap_err();
    assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
}

#[test]
fn s3s_fs_is_refused() {
    let Some(server) = servers::plain_s3("s3s_refused") else {
        return;
    };
    let tier = S3RemoteStorage::from_s3_config(&server.config()).unwrap();
    let err = tier.with_worm(worm_config()).unwrap_err();
    assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
}

/// Diagnostic: how many of 8 concurrent create-only writes of one key win.
fn concurrent_create_winners(tier: &WormRemoteStorage, key: &str) -> usize {
    let store = Arc::clone(tier.store());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let store = Arc::clone(&store);
                let key = Path::from(key);
                tokio::spawn(async move {
                    store
                        .put_opts(
                            &key,
                            object_store::PutPayload::from(vec![i; 10]),
                            object_store::PutOptions::from(object_store::PutMode::Create),
                        )
                        .await
                        .is_ok()
                })
            })
            .collect();
        let mut winners = 0;
        for task in tasks {
            winners += usize::from(task.await.unwrap());
        }
        winners
    })
}

#[test]
fn seaweedfs_concurrent_creates_on_the_lock_bucket() {
    let Some(server) = worm_bucket("seaweedfs_concurrent_creates") else {
        return;
    };
    let prefix = unique_prefix("wormcc");
    let tier = worm_tier(&server, &prefix, false);
    let winners: Vec<usize> = (0..5)
        .map(|i| concurrent_create_winners(&tier, &format!("{prefix}/k{i}")))
        .collect();
    eprintln!("winners per round: {winners:?}");
    assert!(winners.iter().all(|w| *w == 1), "{winners:?}");
}
