//! Unit tests of the plain object-store tier over the instrumented store.

use {super::*, crate::test_store::*, krabka_kafka::RemoteStorageError};

struct Fixture {
    tier: S3RemoteStorage,
    store: Arc<Instrumented>,
    dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let store = instrumented();
    let tier = S3RemoteStorage::with_store(store.clone(), Some("/tier/".to_owned())).unwrap();
    Fixture {
        tier,
        store,
        dir: tempfile::tempdir().unwrap(),
    }
}

#[test]
fn copy_then_fetch_round_trips_under_the_prefix() {
    let f = fixture();
    let log = pattern(5000, 9);
    let md = metadata(1);
    f.tier
        .copy_log_segment_data(&md, &segment(f.dir.path(), &log, true))
        .unwrap();
    assert_eq!(
        read_all(f.tier.fetch_log_segment(&md, 0, None).unwrap()),
        log
    );
    assert_eq!(
        read_all(f.tier.fetch_log_segment(&md, 10, Some(19)).unwrap()),
        log[10..20]
    );
    assert_eq!(
        read_all(
            f.tier
                .fetch_log_segment(&md, 4990, Some(1_000_000))
                .unwrap()
        ),
        log[4990..]
    );
    assert_eq!(
        f.tier.fetch_index(&md, IndexType::Offset).unwrap(),
        pattern(80, 1)
    );
    assert_eq!(
        f.tier.fetch_index(&md, IndexType::Transaction).unwrap(),
        pattern(40, 3)
    );
    assert_eq!(
        f.tier.fetch_index(&md, IndexType::LeaderEpoch).unwrap(),
        b"0\n1\n0 100\n"
    );
    let listed: Vec<String> = f
        .tier
        .store
        .runtime()
        .block_on({
            let store = f.store.clone();
            async move {
                Ok(store
                    .list(None)
                    .map(|meta| meta.unwrap().location.to_string())
                    .collect::<Vec<_>>()
                    .await)
            }
        })
        .unwrap();
    assert_eq!(listed.len(), 6, "{listed:?}");
    assert!(
        listed.iter().all(
            |key| key.starts_with("tier/orders-3-AAAAAAAAAAAAAAAAAAAABw/00000000000000000100-")
        ),
        "{listed:?}"
    );
}

#[test]
fn range_edges_follow_the_contract() {
    let f = fixture();
    let log = pattern(100, 5);
    let md = metadata(2);
    f.tier
        .copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    assert!(read_all(f.tier.fetch_log_segment(&md, 100, None).unwrap()).is_empty());
    assert!(read_all(f.tier.fetch_log_segment(&md, 100, Some(200)).unwrap()).is_empty());
    assert_eq!(
        read_all(f.tier.fetch_log_segment(&md, 99, Some(99)).unwrap()),
        [log[99]]
    );
    assert!(matches!(
        f.tier.fetch_log_segment(&md, 101, None),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    assert!(matches!(
        f.tier.fetch_log_segment(&md, 10, Some(9)),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
}

#[test]
fn an_empty_log_reads_as_empty() {
    let f = fixture();
    let md = metadata(3);
    f.tier
        .copy_log_segment_data(&md, &segment(f.dir.path(), &[], false))
        .unwrap();
    assert!(read_all(f.tier.fetch_log_segment(&md, 0, None).unwrap()).is_empty());
}

#[test]
fn missing_objects_are_not_found_and_delete_is_idempotent() {
    let f = fixture();
    let md = metadata(4);
    assert!(matches!(
        f.tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    for index in IndexType::ALL {
        assert!(matches!(
            f.tier.fetch_index(&md, index),
            Err(RemoteStorageError::NotFound { .. })
        ));
    }
    f.tier
        .copy_log_segment_data(&md, &segment(f.dir.path(), b"abc", false))
        .unwrap();
    assert!(matches!(
        f.tier.fetch_index(&md, IndexType::Transaction),
        Err(RemoteStorageError::NotFound { .. })
    ));
    f.tier.delete_log_segment_data(&md).unwrap();
    f.tier.delete_log_segment_data(&md).unwrap();
    assert!(matches!(
        f.tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert!(matches!(
        f.tier.fetch_index(&md, IndexType::Offset),
        Err(RemoteStorageError::NotFound { .. })
    ));
}

const KIB: usize = 1024;

#[test]
fn large_files_stream_as_multipart_with_bounded_parts_in_flight() {
    let f = fixture();
    f.store.stats.part_delay_ms.store(5, SeqCst);
    let tier = f
        .tier
        .with_multipart_tuning(64 * KIB as u64, 16 * KIB)
        .with_upload_concurrency(3);
    let log = pattern(1000 * KIB + 7, 11);
    let md = metadata(5);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    let stats = &f.store.stats;
    assert_eq!(
        stats.parts.load(SeqCst),
        (1000 * KIB + 7).div_ceil(16 * KIB)
    );
    assert_eq!(stats.completes.load(SeqCst), 1);
    assert_eq!(stats.aborts.load(SeqCst), 0);
    assert!(
        stats.max_parts_in_flight.load(SeqCst) > 1,
        "parts never overlapped"
    );
    assert!(stats.max_parts_in_flight.load(SeqCst) <= 3);
    assert!(stats.max_part_bytes_in_flight.load(SeqCst) <= 3 * 16 * KIB);
    assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
}

#[test]
fn parts_stored_out_of_order_make_the_object_in_file_order() {
    let f = fixture();
    f.store.stats.part_delay_reversed_ms.store(3, SeqCst);
    let tier = f
        .tier
        .with_multipart_tuning(64 * KIB as u64, 16 * KIB)
        .with_upload_concurrency(8);
    let log = pattern(40 * 16 * KIB + 5, 13);
    let md = metadata(15);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    let stored = f.store.stats.parts_stored.lock().unwrap().clone();
    assert_eq!(stored.len(), 41);
    assert!(
        stored.windows(2).any(|pair| pair[0] > pair[1]),
        "the parts were stored in order, so the test proves nothing: {stored:?}"
    );
    assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
}

#[test]
fn the_log_goes_up_beside_its_indexes_and_becomes_visible_after_them() {
    let f = fixture();
    // The time index takes long: the log's parts go up meanwhile, and its
    // upload completes only after it.
    *f.store.stats.put_delay.lock().unwrap() = Some((".timeindex".to_owned(), 300));
    let tier = f
        .tier
        .with_multipart_tuning(64 * KIB as u64, 16 * KIB)
        .with_upload_concurrency(4);
    let log = pattern(20 * 16 * KIB, 19);
    let md = metadata(17);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    let timeline = f.store.stats.timeline.lock().unwrap().clone();
    let at = |what: &dyn Fn(&String) -> bool| timeline.iter().position(what).unwrap();
    let time_index = at(&|e| e.starts_with("put ") && e.ends_with(".timeindex"));
    let first_part = at(&|e| e == "part");
    let complete = at(&|e| e == "complete");
    assert!(
        first_part < time_index,
        "the log waited for the indexes: {timeline:?}"
    );
    assert!(
        time_index < complete,
        "the log became visible before an index: {timeline:?}"
    );
    assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
}

#[test]
fn a_gate_holding_memory_takes_part_slots_until_it_ends() {
    use {
        krabka_object_store::store::{
            Tuning,
            upload::{Gate, UploadSource, upload_after},
        },
        object_store::ObjectStoreExt,
    };
    let f = fixture();
    f.store.stats.part_delay_ms.store(5, SeqCst);
    let log = pattern(20 * 16 * KIB, 29);
    let path = f.dir.path().join("gated.log");
    std::fs::write(&path, &log).unwrap();
    let tuning = Tuning::default()
        .with_multipart(64 * KIB as u64, 16 * KIB)
        .with_parts_in_flight(4);
    // The gate holds two parts' worth of memory and ends only once every
    // part of the log is stored: the log has two slots throughout.
    let stats = Arc::clone(&f.store.stats);
    let gate = Gate::new(
        async move {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while stats.parts_stored.lock().unwrap().len() < 20 {
                assert!(std::time::Instant::now() < deadline, "the parts stalled");
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            Ok(())
        },
        2 * 16 * KIB as u64 - 1,
    );
    let key = Path::from("gated/log");
    let cancel = tokio_util::sync::CancellationToken::new();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime
        .block_on(upload_after(
            &*f.store,
            &key,
            UploadSource::File(path),
            tuning,
            &cancel,
            gate,
        ))
        .unwrap();
    let max = f.store.stats.max_parts_in_flight.load(SeqCst);
    assert!(max > 1, "parts never overlapped");
    assert!(max <= 2, "{max} parts in flight beside a gate holding two");
    let stored =
        runtime.block_on(async { f.store.get(&key).await.unwrap().bytes().await.unwrap() });
    assert_eq!(stored, log);
}

#[test]
fn a_failed_index_aborts_the_log_beside_it_and_leaves_no_log() {
    let f = fixture();
    f.store.stats.fail_puts(".timeindex", usize::MAX);
    let tier = f
        .tier
        .with_multipart_tuning(64 * KIB as u64, 16 * KIB)
        .with_upload_concurrency(4);
    let log = pattern(20 * 16 * KIB, 23);
    let md = metadata(18);
    assert!(
        tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
            .is_err()
    );
    let stats = &f.store.stats;
    assert_eq!(stats.completes.load(SeqCst), 0);
    assert_eq!(stats.aborts.load(SeqCst), 1);
    assert!(
        !stats
            .timeline
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.ends_with(".log")),
        "a log became visible"
    );
    assert!(tier.fetch_log_segment(&md, 0, None).is_err());
}

#[test]
fn a_file_too_large_for_ten_thousand_parts_goes_up_in_larger_parts() {
    let f = fixture();
    let tier = f
        .tier
        .with_multipart_tuning(64, 16)
        .with_upload_concurrency(4);
    let log = pattern(200 * KIB, 17);
    let md = metadata(16);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    let parts = f.store.stats.parts.load(SeqCst);
    assert!(parts <= 10_000, "{parts} parts");
    assert!(parts > 9_000, "{parts} parts: larger than needed");
    assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
}

#[test]
fn the_threshold_is_inclusive() {
    let f = fixture();
    // Every index of the fixture is below 200 bytes.
    let tier = f.tier.with_multipart_tuning(200, 80);
    let md = metadata(6);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &pattern(199, 1), false))
        .unwrap();
    assert_eq!(f.store.stats.parts.load(SeqCst), 0);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &pattern(200, 1), false))
        .unwrap();
    assert_eq!(f.store.stats.parts.load(SeqCst), 3);
    assert_eq!(
        read_all(tier.fetch_log_segment(&md, 0, None).unwrap()),
        pattern(200, 1)
    );
}

#[test]
fn a_failed_part_aborts_the_upload_and_leaves_no_log() {
    let f = fixture();
    f.store.stats.fail_part.store(4, SeqCst);
    let tier = f
        .tier
        .with_multipart_tuning(1024, 256)
        .with_upload_concurrency(2);
    let md = metadata(7);
    let err = tier
        .copy_log_segment_data(&md, &segment(f.dir.path(), &pattern(4096, 2), false))
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::Retryable { .. }),
        "{err:?}"
    );
    assert_eq!(f.store.stats.aborts.load(SeqCst), 1);
    assert_eq!(f.store.stats.completes.load(SeqCst), 0);
    assert!(matches!(
        tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    f.store.stats.fail_part.store(0, SeqCst);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &pattern(4096, 2), false))
        .unwrap();
    assert_eq!(
        read_all(tier.fetch_log_segment(&md, 0, None).unwrap()),
        pattern(4096, 2)
    );
}

#[test]
fn a_cancelled_copy_stops_and_aborts() {
    let f = fixture();
    f.store.stats.part_delay_ms.store(50, SeqCst);
    let tier = Arc::new(
        f.tier
            .with_multipart_tuning(1024, 1024)
            .with_upload_concurrency(2),
    );
    let md = metadata(8);
    let data = segment(f.dir.path(), &pattern(200 * 1024, 3), false);
    let token = CancellationToken::new();
    let canceller = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(120));
            token.cancel();
        })
    };
    let started = Instant::now();
    let err = tier
        .copy_log_segment_data_cancellable(&md, &data, &token)
        .unwrap_err();
    canceller.join().unwrap();
    assert!(matches!(err, RemoteStorageError::Cancelled(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(f.store.stats.aborts.load(SeqCst), 1);
    assert!(f.store.stats.parts.load(SeqCst) < 200);
    assert!(matches!(
        tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert!(matches!(
        tier.copy_log_segment_data_cancellable(&md, &data, &token),
        Err(RemoteStorageError::Cancelled(_))
    ));
}

#[test]
fn a_reader_that_stops_early_never_prefetches() {
    let f = fixture();
    let tier = f.tier.with_fetch_tuning(64 * KIB, 3);
    let md = metadata(9);
    let log = pattern(1024 * KIB, 6);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    let gets_before = f.store.stats.gets.load(SeqCst);
    let mut reader = tier.fetch_log_segment(&md, 0, None).unwrap();
    let mut head = vec![0; 1000];
    reader.read_exact(&mut head).unwrap();
    assert_eq!(head, log[..1000]);
    drop(reader);
    assert_eq!(f.store.stats.gets.load(SeqCst) - gets_before, 1);
}

#[test]
fn dropping_a_reader_cancels_its_prefetches() {
    let f = fixture();
    let tier = f.tier.with_fetch_tuning(64 * KIB, 3);
    let md = metadata(10);
    let log = pattern(1024 * KIB, 7);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    f.store.stats.gets.store(0, SeqCst);
    f.store.stats.get_delay_ms.store(10_000, SeqCst);
    let mut reader = tier.fetch_log_segment(&md, 0, None).unwrap();
    let mut head = vec![0; 40 * KIB];
    reader.read_exact(&mut head).unwrap();
    assert_eq!(head, log[..40 * KIB]);
    // Past half of the first chunk: exactly `parallelism` prefetches start.
    eventually(|| f.store.stats.gets.load(SeqCst) > 3);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(f.store.stats.gets.load(SeqCst), 1 + 3);
    drop(reader);
    eventually(|| f.store.stats.gets_dropped.load(SeqCst) >= 3);
    assert_eq!(f.store.stats.gets_dropped.load(SeqCst), 3);
}

/// Waits up to five seconds for `condition`.
fn eventually(condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !condition() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_long_range_reads_through_parallel_chunks_in_order() {
    let f = fixture();
    let tier = f.tier.with_fetch_tuning(10 * KIB, 4);
    let md = metadata(11);
    let log = pattern(333 * KIB + 5, 8);
    tier.copy_log_segment_data(&md, &segment(f.dir.path(), &log, false))
        .unwrap();
    assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
    let start = 12_345;
    let end = 250 * KIB as u64;
    assert_eq!(
        read_all(tier.fetch_log_segment(&md, start, Some(end)).unwrap()),
        log[start as usize..=end as usize]
    );
}

fn shared_fixture() -> (
    Arc<S3RemoteStorage>,
    RemoteLogSegmentMetadata,
    Vec<u8>,
    tempfile::TempDir,
) {
    let f = fixture();
    let md = metadata(12);
    let log = pattern(64 * KIB, 1);
    f.tier
        .copy_log_segment_data(&md, &segment(f.dir.path(), &log, true))
        .unwrap();
    (Arc::new(f.tier), md, log, f.dir)
}

#[test]
fn the_sync_api_works_inside_a_current_thread_runtime() {
    let (tier, md, log, _dir) = shared_fixture();
    let outer = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    outer.block_on(async {
        assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
        assert_eq!(
            tier.fetch_index(&md, IndexType::Transaction).unwrap(),
            pattern(40, 3)
        );
    });
}

#[test]
fn the_sync_api_works_on_multi_thread_workers_and_blocking_threads() {
    let (tier, md, log, _dir) = shared_fixture();
    let outer = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    outer.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..8 {
            let (tier, md, log) = (tier.clone(), md.clone(), log.clone());
            tasks.push(tokio::spawn(async move {
                let read = move || read_all(tier.fetch_log_segment(&md, 0, None).unwrap()) == log;
                if i % 2 == 0 {
                    read()
                } else {
                    tokio::task::spawn_blocking(read).await.unwrap()
                }
            }));
        }
        for task in tasks {
            assert!(task.await.unwrap());
        }
    });
}

#[test]
fn the_sync_api_works_from_many_plain_threads_and_the_tier_drops_in_a_runtime() {
    let (tier, md, log, _dir) = shared_fixture();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (tier, md, log) = (tier.clone(), md.clone(), log.clone());
            std::thread::spawn(move || {
                for _ in 0..5 {
                    assert_eq!(read_all(tier.fetch_log_segment(&md, 0, None).unwrap()), log);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let reader = tier.fetch_log_segment(&md, 0, None).unwrap();
    let outer = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    outer.block_on(async move {
        drop(tier);
        // The reader keeps the runtime alive after the tier is gone.
        assert_eq!(read_all(reader), log);
    });
}

#[test]
fn bad_prefixes_are_refused() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    assert!(matches!(
        S3RemoteStorage::with_store(store.clone(), Some("a//b".to_owned())),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    let tier = S3RemoteStorage::with_store(store, Some("/".to_owned())).unwrap();
    assert_eq!(tier.prefix(), None);
}

#[test]
fn an_invalid_config_is_a_configuration_error_naming_the_field() {
    let config = S3Config::new("", "us-east-1");
    let err = S3RemoteStorage::from_s3_config(&config).unwrap_err();
    assert_eq!(err.class(), krabka_kafka::ErrorClass::InvalidInput);
    let RemoteStorageError::Config { what, source } = &err else {
        panic!("not a configuration error: {err:?}");
    };
    assert_eq!(*what, "object store");
    assert!(
        source
            .downcast_ref::<krabka_object_store::ObjectStoreBuildError>()
            .is_some(),
        "{source:?}"
    );
}

#[test]
fn index_fetches_go_through_the_read_cache() {
    let store = instrumented();
    let handle = StoreHandle::new(store.clone(), Some("/tier/".to_owned()))
        .unwrap()
        .with_read_cache(Some(
            krabka_object_store::store::cache::CacheConfig::default(),
        ))
        .unwrap();
    let tier = S3RemoteStorage::on(handle);
    let dir = tempfile::tempdir().unwrap();
    let md = metadata(1);
    tier.copy_log_segment_data(&md, &segment(dir.path(), &pattern(5000, 9), true))
        .unwrap();
    let gets = || store.stats.gets.load(std::sync::atomic::Ordering::SeqCst);
    let before = gets();
    assert_eq!(
        tier.fetch_index(&md, IndexType::Offset).unwrap(),
        pattern(80, 1)
    );
    let first = gets();
    assert!(first > before, "the first fetch reads the store");
    for _ in 0..3 {
        assert_eq!(
            tier.fetch_index(&md, IndexType::Offset).unwrap(),
            pattern(80, 1)
        );
        assert_eq!(
            tier.fetch_index(&md, IndexType::LeaderEpoch).unwrap(),
            b"0\n1\n0 100\n"
        );
    }
    // One more object (the leader-epoch index) was read once; the offset index never again.
    assert_eq!(
        gets(),
        first + (first - before),
        "repeated index fetches hit the cache"
    );
    let stats = tier.store.read_cache().unwrap().stats();
    assert!(stats.hits >= 4, "{stats:?}");
    // A missing index is still a missing resource, not a read error.
    let err = tier
        .fetch_index(&metadata(2), IndexType::Offset)
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::NotFound { .. }),
        "{err:?}"
    );
}

/// The segment of `orders-3` starting at `start`, with id `segment`.
fn metadata_at(start: i64, segment: u128) -> RemoteLogSegmentMetadata {
    let tp = krabka_kafka::TopicIdPartition::new(uuid::Uuid::from_u128(7), "orders", 3);
    crate::test_metadata::SegmentMetadataBuilder::new(&tp, start)
        .segment_id(uuid::Uuid::from_u128(segment))
        .size(0)
        .build()
}

/// Waits (bounded) until the store has answered no new GET for a while.
fn quiet(store: &Instrumented) -> usize {
    let gets = || store.stats.gets.load(std::sync::atomic::Ordering::SeqCst);
    let mut last = gets();
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = gets();
        if now == last {
            return now;
        }
        last = now;
    }
    panic!("the store never went quiet");
}

#[test]
fn reading_a_segment_to_its_end_warms_the_next_one() {
    use krabka_object_store::store::cache::CacheConfig;
    const CHUNK: usize = 4096;
    let store = instrumented();
    let handle = StoreHandle::new(store.clone(), Some("/tier/".to_owned()))
        .unwrap()
        .with_read_cache(Some(CacheConfig {
            capacity_bytes: 256 * CHUNK as u64,
            chunk_bytes: CHUNK as u64,
            prefetch_chunks: 4,
            prefetch_in_flight: 16,
            expected_fetch_bytes: 2 * CHUNK as u64,
            disk: None,
        }))
        .unwrap();
    let tier = S3RemoteStorage::on(handle);
    let dir = tempfile::tempdir().unwrap();
    let (first, second, third) = (
        metadata_at(100, 1),
        metadata_at(200, 2),
        metadata_at(300, 3),
    );
    let logs = [
        pattern(16 * CHUNK, 1),
        pattern(16 * CHUNK + 7, 2),
        pattern(CHUNK, 3),
    ];
    for (md, log) in [&first, &second, &third].into_iter().zip(&logs) {
        let segment_dir = dir.path().join(md.start_offset().to_string());
        std::fs::create_dir(&segment_dir).unwrap();
        tier.copy_log_segment_data(md, &segment(&segment_dir, log, true))
            .unwrap();
    }
    // The first segment, read the way Kafka reads it for a consumer
    // catching up: fetch after fetch, each closed.
    let mut read = Vec::new();
    while read.len() < logs[0].len() {
        let mut fetch = tier
            .fetch_log_segment(&first, read.len() as u64, None)
            .unwrap();
        let mut buf = vec![0; 2 * CHUNK];
        let n = std::io::Read::read(&mut fetch, &mut buf).unwrap();
        read.extend_from_slice(&buf[..n]);
    }
    assert_eq!(read, logs[0]);
    let gets = quiet(&store);
    // Moving on to the second segment: its indexes, as Kafka fetches them
    // first, and its first fetch come from the cache, not the store.
    assert_eq!(
        tier.fetch_index(&second, IndexType::Offset).unwrap(),
        pattern(80, 1)
    );
    assert_eq!(
        tier.fetch_index(&second, IndexType::Timestamp).unwrap(),
        pattern(120, 2)
    );
    assert_eq!(
        tier.fetch_index(&second, IndexType::Transaction).unwrap(),
        pattern(40, 3)
    );
    assert_eq!(
        store.stats.gets.load(std::sync::atomic::Ordering::SeqCst),
        gets,
        "the second segment's indexes were warmed"
    );
    let cache = tier.store.read_cache().unwrap();
    let misses = cache.stats().misses;
    let mut fetch = tier.fetch_log_segment(&second, 0, None).unwrap();
    let mut head = vec![0; 2 * CHUNK];
    std::io::Read::read_exact(&mut fetch, &mut head).unwrap();
    assert_eq!(head, logs[1][..2 * CHUNK]);
    drop(fetch);
    let stats = cache.stats();
    assert_eq!(
        stats.misses, misses,
        "its first fetch was warmed: {stats:?}"
    );
    assert!(stats.prefetched_bytes > 0, "{stats:?}");
    // What was warmed is the second segment as copied.
    assert_eq!(
        read_all(tier.fetch_log_segment(&second, 0, None).unwrap()),
        logs[1]
    );
    assert_eq!(
        read_all(tier.fetch_log_segment(&third, 0, None).unwrap()),
        logs[2]
    );
}
