//! The object-store tier against real S3 servers on loopback: SeaweedFS
//! (SigV4 checked) and s3s-fs (no conditional writes, no Object Lock).
//! Started by `scripts/test.d/50-object-store.sh`; see `servers/mod.rs` for
//! how a missing server is skipped or fails.

mod servers;
mod support;

use {
    krabka_object_store::{S3Credentials, Secret},
    krabka_remote_storage::{
        CancellationToken, IndexType, RemoteStorageError, RemoteStorageManager, S3RemoteStorage,
    },
    object_store::{
        ClientOptions,
        aws::{AwsAuthorizer, AwsCredential},
        client::{HttpConnector, HttpRequestBody, ReqwestConnector},
    },
    servers::{S3Server, pattern, pattern_at, segment, unique_prefix, verify_stream},
    std::{
        io::Read,
        sync::Arc,
        time::{Duration, Instant},
    },
    support::orders_segment,
};

const MIB: usize = 1024 * 1024;

fn tier(server: &S3Server, test: &str) -> S3RemoteStorage {
    let mut config = server.config();
    config.prefix = Some(unique_prefix(test));
    config.multipart_threshold = 5 * MIB as u64;
    config.multipart_chunk_size = 5 * MIB;
    S3RemoteStorage::from_s3_config(&config)
        .unwrap()
        .with_upload_concurrency(3)
        .with_fetch_tuning(MIB, 3)
}

#[test]
fn seaweedfs_round_trip_with_multipart_ranges_and_deletes() {
    let Some(server) = servers::seaweedfs("seaweedfs_round_trip") else {
        return;
    };
    servers::round_trip(&tier(&server, "round-trip"));
}

#[test]
fn s3s_fs_round_trip_without_conditional_writes_or_object_lock() {
    let Some(server) = servers::plain_s3("s3s_fs_round_trip") else {
        return;
    };
    servers::round_trip(&tier(&server, "plain-round-trip"));
}

#[test]
fn seaweedfs_missing_transaction_index_is_not_found() {
    let Some(server) = servers::seaweedfs("seaweedfs_missing_txn") else {
        return;
    };
    let tier = tier(&server, "missing-txn");
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(1000);
    tier.copy_log_segment_data(&md, &segment(dir.path(), 1000, false))
        .unwrap();
    assert!(matches!(
        tier.fetch_index(&md, IndexType::Transaction),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, 0, None).unwrap(), 0),
        1000
    );
}

#[test]
fn seaweedfs_wrong_secret_is_refused_at_once() {
    let Some(server) = servers::seaweedfs("seaweedfs_wrong_secret") else {
        return;
    };
    let mut config = server.config();
    config.max_retries = 5;
    config.credentials = S3Credentials::Static {
        access_key_id: server.access_key.clone(),
        secret_access_key: Secret::new("not-the-secret"),
        session_token: None,
    };
    let tier = S3RemoteStorage::from_s3_config(&config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(100);
    let started = Instant::now();
    let err = tier
        .copy_log_segment_data(&md, &segment(dir.path(), 100, false))
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
    assert!(matches!(
        tier.fetch_index(&md, IndexType::Offset),
        Err(RemoteStorageError::Backend { .. })
    ));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// Reads (and, where `copy_too`, a copy) from a bucket that does not exist.
/// (s3s-fs answers `NoSuchKey` for a missing bucket and, like SeaweedFS,
/// creates buckets on the first write, so it has no such test.)
fn missing_bucket_is_a_backend_error(server: &S3Server, copy_too: bool) {
    let mut config = server.config();
    config.bucket = format!("krabka-missing-{}", uuid::Uuid::new_v4().simple());
    let tier = S3RemoteStorage::from_s3_config(&config).unwrap();
    let md = orders_segment(100);
    let Err(err) = tier.fetch_log_segment(&md, 0, None) else {
        panic!("a fetch from a missing bucket succeeded");
    };
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
    let err = tier.fetch_index(&md, IndexType::Offset).unwrap_err();
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
    if copy_too {
        let dir = tempfile::tempdir().unwrap();
        let err = tier
            .copy_log_segment_data(&md, &segment(dir.path(), 100, false))
            .unwrap_err();
        assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
    }
}

#[test]
fn seaweedfs_missing_bucket_is_a_backend_error_not_a_missing_segment() {
    let Some(server) = servers::seaweedfs("seaweedfs_missing_bucket") else {
        return;
    };
    // SeaweedFS creates a bucket on the first PUT for an admin identity, so
    // only reads can meet a missing bucket there.
    missing_bucket_is_a_backend_error(&server, false);
}

#[test]
fn seaweedfs_serves_plain_threads_and_tokio_callers_at_once() {
    let Some(server) = servers::seaweedfs("seaweedfs_threads") else {
        return;
    };
    let tier = Arc::new(tier(&server, "threads"));
    let dir = tempfile::tempdir().unwrap();
    let len = 3 * MIB;
    let md = orders_segment(len);
    tier.copy_log_segment_data(&md, &segment(dir.path(), len, true))
        .unwrap();
    let plain: Vec<_> = (0..4)
        .map(|i| {
            let (tier, md) = (Arc::clone(&tier), md.clone());
            std::thread::spawn(move || {
                let start = i * 1000;
                verify_stream(
                    tier.fetch_log_segment(&md, start as u64, None).unwrap(),
                    start,
                )
            })
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let in_runtime = runtime.block_on({
        let (tier, md) = (Arc::clone(&tier), md.clone());
        async move {
            let index = tier.fetch_index(&md, IndexType::Offset).unwrap();
            (
                index,
                verify_stream(tier.fetch_log_segment(&md, 0, None).unwrap(), 0),
            )
        }
    });
    assert_eq!(in_runtime, (pattern(800, 1), len));
    for (i, thread) in plain.into_iter().enumerate() {
        assert_eq!(thread.join().unwrap(), len - i * 1000);
    }
}

#[test]
fn seaweedfs_reader_dropped_early_reads_only_a_prefix() {
    let Some(server) = servers::seaweedfs("seaweedfs_early_drop") else {
        return;
    };
    let tier = tier(&server, "early-drop");
    let dir = tempfile::tempdir().unwrap();
    let len = 12 * MIB;
    let md = orders_segment(len);
    tier.copy_log_segment_data(&md, &segment(dir.path(), len, false))
        .unwrap();
    for _ in 0..20 {
        let mut reader = tier.fetch_log_segment(&md, 100, None).unwrap();
        let mut head = vec![0; 64 * 1024];
        reader.read_exact(&mut head).unwrap();
        assert_eq!(head, pattern_at(100, head.len()));
    }
}

/// Multipart uploads still open under `prefix` (SigV4-signed ListMultipartUploads).
fn open_multipart_uploads(server: &S3Server, prefix: &str) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let credential = AwsCredential {
            key_id: server.access_key.clone(),
            secret_key: server.secret_key.clone(),
            token: None,
        };
        let url = format!(
            "{}/{}?uploads=&prefix={prefix}",
            server.endpoint, server.bucket
        );
        let mut request = http::Request::builder()
            .method("GET")
            .uri(url)
            .body(HttpRequestBody::empty())
            .unwrap();
        AwsAuthorizer::new(&credential, "s3", &server.region)
            .try_authorize(&mut request, None)
            .unwrap();
        let client = ReqwestConnector::default()
            .connect(&ClientOptions::new().with_allow_http(true))
            .unwrap();
        let response = client.execute(request).await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        let body = response.into_body().bytes().await.unwrap();
        String::from_utf8_lossy(&body).matches("<UploadId>").count()
    })
}

#[test]
fn seaweedfs_cancelled_copy_aborts_its_multipart_upload() {
    let Some(server) = servers::seaweedfs("seaweedfs_cancel") else {
        return;
    };
    let mut config = server.config();
    let prefix = unique_prefix("cancel");
    config.prefix = Some(prefix.clone());
    config.multipart_threshold = 5 * MIB as u64;
    config.multipart_chunk_size = 5 * MIB;
    let tier = S3RemoteStorage::from_s3_config(&config)
        .unwrap()
        .with_upload_concurrency(1);
    let dir = tempfile::tempdir().unwrap();
    let len = 64 * MIB;
    let md = orders_segment(len);
    let data = segment(dir.path(), len, false);
    let token = CancellationToken::new();
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            token.cancel();
        })
    };
    let err = tier
        .copy_log_segment_data_cancellable(&md, &data, &token)
        .unwrap_err();
    canceller.join().unwrap();
    assert!(matches!(err, RemoteStorageError::Cancelled(_)), "{err:?}");
    assert!(matches!(
        tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert_eq!(open_multipart_uploads(&server, &prefix), 0);
    tier.copy_log_segment_data(&md, &data).unwrap();
    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, 0, None).unwrap(), 0),
        len
    );
    assert_eq!(open_multipart_uploads(&server, &prefix), 0);
}
