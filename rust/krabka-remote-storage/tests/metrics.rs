//! `MeteredStorage` over the filesystem tier: the counters move with real
//! copies, fetches, index fetches and deletes.

mod support;

use {
    krabka_remote_storage::{
        IndexType, LocalTieredStorage, MeteredStorage, RemoteStorageManager, TierMetrics,
    },
    std::io::Read,
    support::{SegmentSpec, new_partition, ok, read_all, segment_metadata, write_segment},
};

/// The value of `name` (with tag value `tag`, if given) in `metrics`.
fn value(metrics: &TierMetrics, name: &str, tag: Option<&str>) -> f64 {
    let snapshot = metrics.snapshot();
    let found = snapshot
        .iter()
        .find(|(def, _)| def.name == name && def.tag.map(|(_, v)| v) == tag);
    found.map_or_else(|| panic!("no metric {name} {tag:?}"), |(_, v)| *v)
}

#[test]
fn copies_fetches_and_deletes_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let storage = MeteredStorage::new(LocalTieredStorage::new(dir.path().join("tier")));
    let metrics = storage.metrics().clone();
    let partition = new_partition("orders", 0);

    let small = write_segment(&dir.path().join("local"), &SegmentSpec::seeded(1));
    let big_spec = SegmentSpec {
        log_len: 10_000,
        ..SegmentSpec::seeded(2)
    };
    let big = write_segment(&dir.path().join("local"), &big_spec);
    let small_meta = segment_metadata(&partition, 0, small.log.len());
    let big_meta = segment_metadata(&partition, 100, big.log.len());
    ok(
        storage.copy_log_segment_data(&small_meta, &small.data),
        "copy small",
    );
    ok(
        storage.copy_log_segment_data(&big_meta, &big.data),
        "copy big",
    );

    assert_eq!(value(&metrics, "copy-total", None), 2.0);
    assert_eq!(
        value(&metrics, "copy-bytes-total", None),
        (small.log.len() + big.log.len()) as f64
    );
    assert_eq!(value(&metrics, "copy-in-flight", None), 0.0);
    assert!(value(&metrics, "copy-time-max", None) >= value(&metrics, "copy-time-avg", None));
    assert!(value(&metrics, "copy-time-max", None) > 0.0);

    // A whole fetch, then a ranged one read partly and held open.
    let whole = read_all(ok(storage.fetch_log_segment(&big_meta, 0, None), "fetch"));
    assert_eq!(whole, big.log);
    let mut ranged = ok(
        storage.fetch_log_segment(&big_meta, 100, Some(1099)),
        "fetch",
    );
    let mut buf = [0u8; 10];
    ranged.read_exact(&mut buf).unwrap();
    assert_eq!(value(&metrics, "fetch-total", None), 2.0);
    assert_eq!(value(&metrics, "fetch-open-streams", None), 1.0);
    assert_eq!(
        value(&metrics, "fetch-bytes-requested-total", None),
        (big.log.len() + 1000) as f64
    );
    assert!(value(&metrics, "fetch-bytes-served-total", None) >= (big.log.len() + 10) as f64);
    drop(ranged);
    assert_eq!(value(&metrics, "fetch-open-streams", None), 0.0);
    assert!(value(&metrics, "fetch-first-byte-time-max", None) > 0.0);

    let offset_index = ok(storage.fetch_index(&big_meta, IndexType::Offset), "index");
    let time_index = ok(
        storage.fetch_index(&small_meta, IndexType::Timestamp),
        "index",
    );
    assert_eq!(value(&metrics, "index-fetch-total", None), 2.0);
    assert_eq!(
        value(&metrics, "index-fetch-bytes-total", None),
        (offset_index.len() + time_index.len()) as f64
    );

    ok(storage.delete_log_segment_data(&small_meta), "delete");
    assert_eq!(value(&metrics, "delete-total", None), 1.0);
    assert_eq!(value(&metrics, "delete-retained-total", None), 0.0);

    // Nothing failed so far.
    for (def, v) in metrics.snapshot() {
        if def.name.ends_with("-failures-total") {
            assert_eq!(v, 0.0, "{} {:?}", def.name, def.tag);
        }
    }

    // A fetch and an index fetch of the deleted segment fail as not found.
    assert!(storage.fetch_log_segment(&small_meta, 0, None).is_err());
    assert!(storage.fetch_index(&small_meta, IndexType::Offset).is_err());
    assert_eq!(
        value(&metrics, "fetch-failures-total", Some("not-found")),
        1.0
    );
    assert_eq!(
        value(&metrics, "index-fetch-failures-total", Some("not-found")),
        1.0
    );
    assert_eq!(value(&metrics, "fetch-total", None), 3.0);
    assert_eq!(value(&metrics, "fetch-open-streams", None), 0.0);
}

#[test]
fn a_failed_copy_counts_as_a_failure_not_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let storage = MeteredStorage::new(LocalTieredStorage::new(dir.path().join("tier")));
    let partition = new_partition("orders", 0);
    let files = write_segment(&dir.path().join("local"), &SegmentSpec::seeded(3));
    let meta = segment_metadata(&partition, 0, files.log.len());
    let mut data = files.data.clone();
    data.offset_index = dir.path().join("local/missing.index");
    assert!(storage.copy_log_segment_data(&meta, &data).is_err());
    let metrics = storage.metrics();
    assert_eq!(value(metrics, "copy-total", None), 0.0);
    assert_eq!(value(metrics, "copy-bytes-total", None), 0.0);
    assert_eq!(value(metrics, "copy-in-flight", None), 0.0);
    let failures: f64 = metrics
        .snapshot()
        .iter()
        .filter(|(def, _)| def.name == "copy-failures-total")
        .map(|(_, v)| v)
        .sum();
    assert_eq!(failures, 1.0);
}

#[test]
fn the_catalog_names_every_series_once_in_snapshot_order() {
    let catalog = TierMetrics::catalog();
    let snapshot = TierMetrics::new().snapshot();
    assert_eq!(catalog.len(), snapshot.len());
    for (def, (snap, _)) in catalog.iter().zip(&snapshot) {
        assert_eq!(def, snap);
    }
    let mut series: Vec<_> = catalog.iter().map(|def| (def.name, def.tag)).collect();
    series.sort_unstable();
    series.dedup();
    assert_eq!(series.len(), catalog.len(), "a series appears twice");
}

#[test]
fn the_read_cache_is_reported_once_attached() {
    use {
        krabka_object_store::store::{StoreHandle, cache::CacheConfig},
        krabka_remote_storage::S3RemoteStorage,
        object_store::memory::InMemory,
        std::sync::Arc,
    };
    let dir = tempfile::tempdir().unwrap();
    let handle = StoreHandle::new(Arc::new(InMemory::new()), None)
        .unwrap()
        .with_read_cache(Some(CacheConfig::default()))
        .unwrap();
    let cache = Arc::clone(handle.read_cache().unwrap());
    let storage = MeteredStorage::new(S3RemoteStorage::on(handle));
    let metrics = storage.metrics().clone();
    assert_eq!(value(&metrics, "read-cache-gets-total", None), 0.0);
    metrics.attach_read_cache(cache);

    let partition = new_partition("orders", 0);
    let spec = SegmentSpec {
        log_len: 10_000,
        ..SegmentSpec::seeded(3)
    };
    let segment = write_segment(&dir.path().join("local"), &spec);
    let meta = segment_metadata(&partition, 0, segment.log.len());
    ok(storage.copy_log_segment_data(&meta, &segment.data), "copy");
    for _ in 0..2 {
        let read = read_all(ok(storage.fetch_log_segment(&meta, 0, None), "fetch"));
        assert_eq!(read, segment.log);
    }
    // The first fetch missed and fetched the log; the second one hit.
    assert!(value(&metrics, "read-cache-misses-total", None) >= 1.0);
    assert!(value(&metrics, "read-cache-hits-total", None) >= 1.0);
    assert_eq!(
        value(&metrics, "read-cache-bytes-fetched-total", None),
        segment.log.len() as f64
    );
    assert_eq!(
        value(&metrics, "read-cache-bytes-held", None),
        segment.log.len() as f64
    );
}

#[test]
fn the_store_requests_are_reported_once_attached() {
    use {
        krabka_object_store::store::StoreHandle, krabka_remote_storage::S3RemoteStorage,
        object_store::memory::InMemory, std::sync::Arc,
    };
    let dir = tempfile::tempdir().unwrap();
    let handle = StoreHandle::new(Arc::new(InMemory::new()), None).unwrap();
    let requests = Arc::clone(handle.request_metrics());
    let storage = MeteredStorage::new(S3RemoteStorage::on(handle));
    let metrics = storage.metrics().clone();
    let partition = new_partition("orders", 0);
    let segment = write_segment(&dir.path().join("local"), &SegmentSpec::seeded(4));
    let meta = segment_metadata(&partition, 0, segment.log.len());
    ok(storage.copy_log_segment_data(&meta, &segment.data), "copy");
    // Not attached yet: the tier's snapshot shows none of them.
    assert_eq!(value(&metrics, "object-store-put-total", Some("ok")), 0.0);
    metrics.attach_store_requests(requests);
    let puts = value(&metrics, "object-store-put-total", Some("ok"));
    // The log and its indexes, one PUT each.
    assert!(puts >= 4.0, "{puts}");
    let read = read_all(ok(storage.fetch_log_segment(&meta, 0, None), "fetch"));
    assert_eq!(read, segment.log);
    assert!(value(&metrics, "object-store-get-total", Some("ok")) >= 1.0);
    assert!(value(&metrics, "object-store-put-time-max", None) > 0.0);
    assert_eq!(
        value(&metrics, "object-store-put-total", Some("failed")),
        0.0
    );
    assert_eq!(value(&metrics, "archive-seals-written-total", None), 0.0);
}
