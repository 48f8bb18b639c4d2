//! The object-store tier against Azurite (Azure Blob Storage on loopback,
//! started by `scripts/test.d/50-object-store.sh`): what Azure does
//! differently from S3 and GCS, beyond the shared conformance suite and the
//! fault tests. Block blobs: a create-only Put Blob carries
//! `If-None-Match: *`; staged blocks (Put Block) stay invisible until a Put
//! Block List commits them; Azure has no abort.

mod servers;
mod support;

use {
    bytes::Bytes,
    krabka_object_store::{
        AzureCredentials, ObjectStoreConfig, Secret, StoreError,
        store::{StoreHandle, upload::create_only_put},
    },
    krabka_remote_storage::{IndexType, RemoteStorageError, RemoteStorageManager, S3RemoteStorage},
    object_store::{ObjectStoreExt, PutMultipartOptions, PutPayload, path::Path},
    servers::{AzureServer, segment, unique_prefix},
    std::{
        sync::Arc,
        time::{Duration, Instant},
    },
    support::orders_segment,
    tokio_util::sync::CancellationToken,
};

fn handle(server: &AzureServer, test: &str) -> StoreHandle {
    let mut config = server.config();
    config.prefix = Some(unique_prefix(test));
    StoreHandle::from_config(&ObjectStoreConfig::Azure(config)).unwrap()
}

#[test]
fn azurite_round_trip_with_blocks_ranges_and_deletes() {
    let Some(server) = servers::azurite("azurite_round_trip") else {
        return;
    };
    let mut config = server.config();
    config.prefix = Some(unique_prefix("round-trip"));
    config.multipart_threshold = 5 * 1024 * 1024;
    config.multipart_chunk_size = 5 * 1024 * 1024;
    let tier = S3RemoteStorage::from_azure_config(&config)
        .unwrap()
        .with_upload_concurrency(3)
        .with_fetch_tuning(1024 * 1024, 3);
    servers::round_trip(&tier);
}

#[test]
fn a_create_only_put_blob_is_refused_for_an_existing_blob() {
    let Some(server) = servers::azurite("azurite_create_only") else {
        return;
    };
    let handle = handle(&server, "create-only");
    let key = handle.key("seal").unwrap();
    let store = Arc::clone(handle.store());
    let (second, kept) = handle
        .runtime()
        .run(async move {
            let never = CancellationToken::new();
            create_only_put(&*store, &key, Bytes::from_static(b"first"), &never)
                .await
                .unwrap();
            let second =
                create_only_put(&*store, &key, Bytes::from_static(b"second"), &never).await;
            let kept = store.get(&key).await.unwrap().bytes().await.unwrap();
            (second, kept)
        })
        .unwrap();
    assert!(
        matches!(second, Err(StoreError::AlreadyExists { .. })),
        "{second:?}"
    );
    assert_eq!(&kept[..], b"first");
}

#[test]
fn staged_blocks_without_a_block_list_are_invisible() {
    let Some(server) = servers::azurite("azurite_staged_blocks") else {
        return;
    };
    let handle = handle(&server, "staged");
    let key = handle.key("staged.log").unwrap();
    let prefix = Path::from(handle.prefix().unwrap());
    let store = Arc::clone(handle.store());
    let (head, listed) = handle
        .runtime()
        .run(async move {
            let mut upload = store
                .put_multipart_opts(&key, PutMultipartOptions::default())
                .await
                .unwrap();
            upload
                .put_part(PutPayload::from(vec![7u8; 1024]))
                .await
                .unwrap();
            // Dropped without complete(): a failed copy. Azure has no abort.
            drop(upload);
            let head = store.head(&key).await;
            let listed = store.list_with_delimiter(Some(&prefix)).await.unwrap();
            (head, listed.objects.len())
        })
        .unwrap();
    assert!(
        matches!(head, Err(object_store::Error::NotFound { .. })),
        "{head:?}"
    );
    assert_eq!(listed, 0);
}

#[test]
fn a_wrong_shared_key_is_refused_at_once() {
    let Some(server) = servers::azurite("azurite_wrong_key") else {
        return;
    };
    let mut config = server.config();
    config.max_retries = 5;
    config.credentials = AzureCredentials::AccessKey(Secret::new("bm90LXRoZS1rZXk="));
    let tier = S3RemoteStorage::from_azure_config(&config).unwrap();
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
    // Refused at once, not retried five times with backoff.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_missing_container_is_a_backend_error_not_a_missing_segment() {
    let Some(mut server) = servers::azurite("azurite_missing_container") else {
        return;
    };
    server.container = "krabka-missing-container".to_owned();
    let tier = S3RemoteStorage::from_azure_config(&server.config()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(100);
    let err = tier
        .copy_log_segment_data(&md, &segment(dir.path(), 100, false))
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
    let Err(err) = tier.fetch_log_segment(&md, 0, None) else {
        panic!("a fetch from a missing container succeeded");
    };
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
}
