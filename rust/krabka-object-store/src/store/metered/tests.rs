use {
    super::*,
    futures_util::{StreamExt, TryStreamExt, stream},
    object_store::{
        ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, memory::InMemory, path::Path,
    },
    std::sync::Arc,
};

fn metered() -> (MeteredObjectStore, Arc<RequestMetrics>) {
    let metrics = Arc::new(RequestMetrics::new());
    (
        MeteredObjectStore::new(Arc::new(InMemory::new()), Arc::clone(&metrics)),
        metrics,
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

fn generic(message: &str) -> object_store::Error {
    object_store::Error::Generic {
        store: "S3",
        source: message.to_owned().into(),
    }
}

#[test]
fn gets_heads_and_puts_are_counted_by_outcome() {
    let (store, metrics) = metered();
    runtime().block_on(async {
        let key = Path::from("a/b");
        store
            .put(&key, PutPayload::from_static(b"abc"))
            .await
            .unwrap();
        let create = PutOptions::from(PutMode::Create);
        assert!(
            store
                .put_opts(&key, PutPayload::from_static(b"x"), create)
                .await
                .is_err()
        );
        store.get(&key).await.unwrap().bytes().await.unwrap();
        store.get_range(&key, 0..2).await.unwrap();
        assert!(store.get(&Path::from("missing")).await.is_err());
        store.head(&key).await.unwrap();
    });
    assert_eq!(metrics.count(Operation::Put, Outcome::Ok), 1);
    assert_eq!(metrics.count(Operation::Put, Outcome::Conflict), 1);
    assert_eq!(metrics.count(Operation::Get, Outcome::Ok), 2);
    assert_eq!(metrics.count(Operation::Get, Outcome::NotFound), 1);
    assert_eq!(metrics.count(Operation::Head, Outcome::Ok), 1);
    assert_eq!(metrics.latency(Operation::Get).count(), 3);
    assert_eq!(metrics.latency(Operation::Put).count(), 2);
    assert_eq!(metrics.count(Operation::Delete, Outcome::Ok), 0);
}

#[test]
fn multipart_parts_completion_and_aborts_are_counted() {
    let (store, metrics) = metered();
    runtime().block_on(async {
        let mut upload = store.put_multipart(&Path::from("big")).await.unwrap();
        upload
            .put_part(PutPayload::from(vec![1u8; 10]))
            .await
            .unwrap();
        upload
            .put_part(PutPayload::from(vec![2u8; 5]))
            .await
            .unwrap();
        upload.complete().await.unwrap();
        let mut dropped = store.put_multipart(&Path::from("gone")).await.unwrap();
        dropped
            .put_part(PutPayload::from(vec![3u8; 7]))
            .await
            .unwrap();
        dropped.abort().await.unwrap();
    });
    assert_eq!(metrics.count(Operation::MultipartCreate, Outcome::Ok), 2);
    assert_eq!(metrics.count(Operation::PartUpload, Outcome::Ok), 3);
    assert_eq!(metrics.part_bytes(), 22);
    assert_eq!(metrics.count(Operation::MultipartComplete, Outcome::Ok), 1);
    assert_eq!(metrics.count(Operation::MultipartAbort, Outcome::Ok), 1);
    assert_eq!(metrics.upload_bytes_in_flight(), 0);
}

#[test]
fn upload_bytes_are_in_flight_until_their_request_ends() {
    let (store, metrics) = metered();
    runtime().block_on(async {
        let mut upload = store.put_multipart(&Path::from("big")).await.unwrap();
        let part = upload.put_part(PutPayload::from(vec![1u8; 10]));
        let other = upload.put_part(PutPayload::from(vec![1u8; 4]));
        assert_eq!(metrics.upload_bytes_in_flight(), 14);
        part.await.unwrap();
        assert_eq!(metrics.upload_bytes_in_flight(), 4);
        // A part dropped unfinished (a cancelled copy) releases its bytes.
        drop(other);
        assert_eq!(metrics.upload_bytes_in_flight(), 0);
        upload.abort().await.unwrap();
    });
}

#[test]
fn listings_count_once_and_deletes_once_per_object() {
    let (store, metrics) = metered();
    runtime().block_on(async {
        for name in ["p/1", "p/2", "p/3"] {
            store
                .put(&Path::from(name), PutPayload::from_static(b"x"))
                .await
                .unwrap();
        }
        let listed: Vec<_> = store
            .list(Some(&Path::from("p")))
            .try_collect()
            .await
            .unwrap();
        assert_eq!(listed.len(), 3);
        store
            .list_with_delimiter(Some(&Path::from("p")))
            .await
            .unwrap();
        // Polled once, then dropped: one listing.
        let mut partial = store.list(Some(&Path::from("p")));
        partial.next().await.unwrap().unwrap();
        drop(partial);
        // Never polled: no request made.
        drop(store.list(None));
        store
            .copy(&Path::from("p/1"), &Path::from("q/1"))
            .await
            .unwrap();
        let paths = stream::iter(["p/1", "p/2"].map(|p| Ok(Path::from(p)))).boxed();
        let deleted: Vec<_> = store.delete_stream(paths).try_collect().await.unwrap();
        assert_eq!(deleted.len(), 2);
    });
    assert_eq!(metrics.count(Operation::List, Outcome::Ok), 3);
    assert_eq!(metrics.count(Operation::Copy, Outcome::Ok), 1);
    assert_eq!(metrics.count(Operation::Delete, Outcome::Ok), 2);
    assert_eq!(metrics.count(Operation::Put, Outcome::Ok), 3);
}

#[test]
fn failures_are_told_apart() {
    let throttled = generic(
        "Error performing PUT after 3 retries, max_retries: 3, retry_timeout: 180s - Server returned non-2xx status code: 503 Service Unavailable",
    );
    assert_eq!(Outcome::of_error(&throttled), Outcome::Throttled);
    assert_eq!(
        Outcome::of_error(&generic(
            "Error performing GET after 2 retries, max_retries: 2, retry_timeout: 1000s  - Server returned non-2xx status code: 502 Bad Gateway"
        )),
        Outcome::Retried
    );
    assert_eq!(
        Outcome::of_error(&generic(
            "Server returned non-2xx status code: 403 Forbidden: AccessDenied"
        )),
        Outcome::Failed
    );
    assert_eq!(
        Outcome::of_error(&generic("Server returned error response: SlowDown")),
        Outcome::Throttled
    );
    let missing = object_store::Error::NotFound {
        path: "x".to_owned(),
        source: "gone".into(),
    };
    assert_eq!(Outcome::of_error(&missing), Outcome::NotFound);
}

#[test]
fn latency_is_averaged_and_maximal() {
    let metrics = RequestMetrics::new();
    metrics.record(
        Operation::Get,
        Outcome::Ok,
        std::time::Duration::from_millis(2),
    );
    metrics.record(
        Operation::Get,
        Outcome::Failed,
        std::time::Duration::from_millis(4),
    );
    let latency = metrics.latency(Operation::Get);
    assert_eq!(latency.count(), 2);
    assert!((latency.avg_ms() - 3.0).abs() < 1e-9);
    assert!((latency.max_ms() - 4.0).abs() < 1e-9);
    assert_eq!(metrics.latency(Operation::Head).count(), 0);
}
