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

/// Set in the child process of
/// [`seaweedfs_ambient_environment_credentials_sign_requests`]: `ok` or
/// `refused`, what the copy through the ambient chain must do.
const AMBIENT_CHILD: &str = "KRABKA_AMBIENT_CHILD_EXPECTS";

/// The ambient AWS chain (no static keys in the configuration): credentials
/// from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` reach SeaweedFS, which
/// checks the SigV4 signature. The process environment cannot be changed
/// safely inside a test, so the test runs itself again as a child process
/// with the variables set: once with the server's keys (the round trip
/// works), once with a wrong secret (refused at once, so the environment is
/// what signs).
#[test]
fn seaweedfs_ambient_environment_credentials_sign_requests() {
    let Some(server) = servers::seaweedfs("seaweedfs_ambient_credentials") else {
        return;
    };
    match std::env::var(AMBIENT_CHILD).ok().as_deref() {
        Some("ok") => {
            let mut config = server.config();
            config.credentials = S3Credentials::Ambient;
            config.prefix = Some(unique_prefix("ambient"));
            servers::round_trip(&S3RemoteStorage::from_s3_config(&config).unwrap());
        }
        Some(_) => {
            let mut config = server.config();
            config.credentials = S3Credentials::Ambient;
            let tier = S3RemoteStorage::from_s3_config(&config).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let err = tier
                .copy_log_segment_data(&orders_segment(100), &segment(dir.path(), 100, false))
                .unwrap_err();
            assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
        }
        None => {
            for (expect, secret) in [
                ("ok", server.secret_key.as_str()),
                ("refused", "not-the-secret"),
            ] {
                let output = std::process::Command::new(std::env::current_exe().unwrap())
                    .args([
                        "--exact",
                        "seaweedfs_ambient_environment_credentials_sign_requests",
                        "--test-threads=1",
                    ])
                    .env_remove("AWS_SESSION_TOKEN")
                    .env_remove("AWS_WEB_IDENTITY_TOKEN_FILE")
                    .env_remove("AWS_ROLE_ARN")
                    .env("AWS_ACCESS_KEY_ID", &server.access_key)
                    .env("AWS_SECRET_ACCESS_KEY", secret)
                    .env(AMBIENT_CHILD, expect)
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&output.stdout);
                assert!(
                    output.status.success() && stdout.contains("1 passed"),
                    "child expecting {expect}: {stdout}\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
    }
}

/// The headers of a SigV4-signed HEAD of `key` in the server's bucket.
fn head_headers(server: &S3Server, key: &str) -> http::HeaderMap {
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
        let url = format!("{}/{}/{key}", server.endpoint, server.bucket);
        let mut request = http::Request::builder()
            .method("HEAD")
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
        response.headers().clone()
    })
}

/// A copy and a read with a storage class and server-side encryption
/// requested on every write (single PUTs for the indexes, a multipart upload
/// for the log); returns the headers of a signed HEAD of the log and of the
/// offset index.
fn copy_with_class_and_encryption(
    server: &S3Server,
    test: &str,
    sse: krabka_object_store::S3ServerSideEncryption,
) -> [http::HeaderMap; 2] {
    let mut config = server.config();
    let prefix = unique_prefix(test);
    config.prefix = Some(prefix.clone());
    config.multipart_threshold = 5 * MIB as u64;
    config.multipart_chunk_size = 5 * MIB;
    config.storage_class = Some("STANDARD_IA".to_owned());
    config.server_side_encryption = sse;
    let tier = S3RemoteStorage::from_s3_config(&config).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let len = 6 * MIB;
    let md = orders_segment(len);
    tier.copy_log_segment_data(&md, &segment(dir.path(), len, false))
        .unwrap();
    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, 0, None).unwrap(), 0),
        len
    );
    let key = |suffix| {
        format!(
            "{prefix}/{}/{}",
            krabka_remote_storage::partition_dir_name(&md),
            krabka_remote_storage::segment_file_name(&md, suffix)
        )
    };
    [
        head_headers(server, &key(".log")),
        head_headers(server, &key(".index")),
    ]
}

/// SeaweedFS takes the storage class and SSE-S3 on PutObject and on
/// CreateMultipartUpload and reports both back on a HEAD.
#[test]
fn seaweedfs_stores_the_storage_class_and_sse_s3() {
    let Some(server) = servers::seaweedfs("seaweedfs_sse_s3") else {
        return;
    };
    let heads = copy_with_class_and_encryption(
        &server,
        "sse-s3",
        krabka_object_store::S3ServerSideEncryption::S3Managed,
    );
    for headers in heads {
        assert_eq!(
            headers
                .get("x-amz-server-side-encryption")
                .and_then(|v| v.to_str().ok()),
            Some("AES256"),
            "{headers:?}"
        );
        assert_eq!(
            headers
                .get("x-amz-storage-class")
                .and_then(|v| v.to_str().ok()),
            Some("STANDARD_IA"),
            "{headers:?}"
        );
    }
}
