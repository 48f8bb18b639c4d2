use {
    super::*,
    std::{
        sync::{Arc, mpsc},
        thread,
        time::Duration,
    },
};

fn open(budget: u64) -> (tempfile::TempDir, RemoteIndexCache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = RemoteIndexCache::new(dir.path(), budget).unwrap();
    (dir, cache)
}

fn bytes_for(segment: u128, index: IndexType, len: usize) -> Vec<u8> {
    let seed = segment
        .wrapping_mul(31)
        .wrapping_add(index as u128)
        .to_le_bytes()[0];
    (0..len)
        .map(|i| seed.wrapping_add(u8::try_from(i % 251).unwrap()))
        .collect()
}

fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut files: Vec<(String, u64)> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().into_string().unwrap(),
                entry.metadata().unwrap().len(),
            )
        })
        .collect();
    files.sort();
    files
}

fn lookup(
    cache: &RemoteIndexCache,
    segment: u128,
    index: IndexType,
    len: usize,
) -> IndexCacheOutcome {
    let expected = bytes_for(segment, index, len);
    let (bytes, outcome) = cache
        .get_or_fetch(Uuid::from_u128(segment), index, || Ok(expected.clone()))
        .unwrap();
    assert_eq!(bytes, expected);
    outcome
}

#[test]
fn second_lookup_is_a_hit() {
    let (_dir, cache) = open(1024);
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 32),
        IndexCacheOutcome::Miss
    );
    let (bytes, outcome) = cache
        .get_or_fetch(Uuid::from_u128(1), IndexType::Offset, || {
            Err(RemoteStorageError::Refused(
                "the fetcher must not run".into(),
            ))
        })
        .unwrap();
    assert_eq!(outcome, IndexCacheOutcome::Hit);
    assert_eq!(bytes, bytes_for(1, IndexType::Offset, 32));
    assert_eq!(
        cache.stats(),
        IndexCacheStats {
            hits: 1,
            misses: 1,
            evictions: 0,
            entries: 1,
            bytes: 32
        }
    );
}

#[test]
fn cache_files_are_named_by_segment_uuid_and_suffix() {
    let (dir, cache) = open(1024);
    let segment = Uuid::from_u128(0xabc);
    lookup(&cache, 0xabc, IndexType::Timestamp, 12);
    assert_eq!(
        cache.dir(),
        Some(dir.path().join(REMOTE_INDEX_CACHE_DIR).as_path())
    );
    assert_eq!(
        files_in(cache.dir().unwrap()),
        [(format!("{}.timeindex", segment.hyphenated()), 12)]
    );
}

#[test]
fn index_types_are_separate_entries() {
    let (_dir, cache) = open(1024);
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 16),
        IndexCacheOutcome::Miss
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Timestamp, 24),
        IndexCacheOutcome::Miss
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 16),
        IndexCacheOutcome::Hit
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Timestamp, 24),
        IndexCacheOutcome::Hit
    );
    let stats = cache.stats();
    assert_eq!((stats.entries, stats.bytes), (2, 40));
}

#[test]
fn the_least_recently_used_entry_is_evicted() {
    let (_dir, cache) = open(80);
    lookup(&cache, 1, IndexType::Offset, 40);
    lookup(&cache, 2, IndexType::Offset, 40);
    // Use 1 again, so 2 is the least recently used.
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 40),
        IndexCacheOutcome::Hit
    );
    assert_eq!(
        lookup(&cache, 3, IndexType::Offset, 40),
        IndexCacheOutcome::Miss
    );
    let stats = cache.stats();
    assert_eq!((stats.evictions, stats.entries, stats.bytes), (1, 2, 80));
    let names: Vec<String> = files_in(cache.dir().unwrap())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(
        !names.contains(&format!("{}.index", Uuid::from_u128(2).hyphenated())),
        "{names:?}"
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 40),
        IndexCacheOutcome::Hit
    );
    assert_eq!(
        lookup(&cache, 3, IndexType::Offset, 40),
        IndexCacheOutcome::Hit
    );
    assert_eq!(
        lookup(&cache, 2, IndexType::Offset, 40),
        IndexCacheOutcome::Miss
    );
}

#[test]
fn one_large_entry_can_evict_several() {
    let (_dir, cache) = open(100);
    for segment in 1..=4 {
        lookup(&cache, segment, IndexType::Offset, 25);
    }
    assert_eq!(cache.stats().bytes, 100);
    lookup(&cache, 9, IndexType::Offset, 60);
    let stats = cache.stats();
    assert_eq!((stats.evictions, stats.entries, stats.bytes), (3, 2, 85));
    assert_eq!(
        lookup(&cache, 4, IndexType::Offset, 25),
        IndexCacheOutcome::Hit
    );
    assert_eq!(files_in(cache.dir().unwrap()).len(), 2);
}

#[test]
fn an_entry_larger_than_the_budget_is_returned_but_not_stored() {
    let (_dir, cache) = open(16);
    lookup(&cache, 1, IndexType::Offset, 8);
    assert_eq!(
        lookup(&cache, 2, IndexType::Offset, 64),
        IndexCacheOutcome::Miss
    );
    assert_eq!(
        lookup(&cache, 2, IndexType::Offset, 64),
        IndexCacheOutcome::Miss
    );
    let stats = cache.stats();
    assert_eq!((stats.entries, stats.bytes, stats.evictions), (1, 8, 0));
    assert_eq!(files_in(cache.dir().unwrap()).len(), 1);
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 8),
        IndexCacheOutcome::Hit
    );
}

#[test]
fn an_entry_of_exactly_the_budget_is_stored() {
    let (_dir, cache) = open(16);
    lookup(&cache, 1, IndexType::Offset, 16);
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 16),
        IndexCacheOutcome::Hit
    );
}

#[test]
fn removing_a_segment_frees_all_its_bytes_and_files() {
    let (_dir, cache) = open(1024);
    for index in IndexType::ALL {
        lookup(&cache, 1, index, 10);
    }
    lookup(&cache, 2, IndexType::Offset, 10);
    assert_eq!(cache.stats().entries, 6);
    cache.remove_segment(Uuid::from_u128(1));
    let stats = cache.stats();
    assert_eq!((stats.entries, stats.bytes), (1, 10));
    assert_eq!(
        files_in(cache.dir().unwrap()),
        [(format!("{}.index", Uuid::from_u128(2).hyphenated()), 10)]
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 10),
        IndexCacheOutcome::Miss
    );
    cache.remove_segment(Uuid::from_u128(77));
}

#[test]
fn a_disabled_cache_fetches_every_time() {
    let cache = RemoteIndexCache::disabled();
    assert!(!cache.is_enabled());
    assert_eq!((cache.dir(), cache.max_bytes()), (None, None));
    for _ in 0..3 {
        assert_eq!(
            lookup(&cache, 1, IndexType::Offset, 8),
            IndexCacheOutcome::Disabled
        );
    }
    assert_eq!(cache.stats(), IndexCacheStats::default());
    cache.remove_segment(Uuid::from_u128(1));
}

#[test]
fn a_fetch_error_propagates_and_stores_nothing() {
    let (_dir, cache) = open(1024);
    let err = cache
        .get_or_fetch(Uuid::from_u128(1), IndexType::Transaction, || {
            Err(RemoteStorageError::not_found("transaction index"))
        })
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::NotFound { .. }),
        "{err:?}"
    );
    let stats = cache.stats();
    assert_eq!((stats.misses, stats.entries, stats.bytes), (1, 0, 0));
    assert!(files_in(cache.dir().unwrap()).is_empty());
    assert_eq!(
        lookup(&cache, 1, IndexType::Transaction, 24),
        IndexCacheOutcome::Miss
    );
}

#[test]
fn opening_empties_a_stale_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join(REMOTE_INDEX_CACHE_DIR);
    fs::create_dir_all(cache_dir.join("nested")).unwrap();
    let stale = format!("{}.index", Uuid::from_u128(1).hyphenated());
    fs::write(cache_dir.join(&stale), b"stale bytes").unwrap();
    fs::write(cache_dir.join(format!(".{stale}.abc.tmp")), b"partial").unwrap();
    let cache = RemoteIndexCache::new(dir.path(), 1024).unwrap();
    assert!(files_in(&cache_dir).is_empty());
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 8),
        IndexCacheOutcome::Miss
    );
}

#[test]
fn a_zero_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = RemoteIndexCache::new(dir.path(), 0).unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::InvalidArgument(_)),
        "{err:?}"
    );
}

#[test]
fn an_unusable_directory_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    fs::write(&file, b"x").unwrap();
    let err = RemoteIndexCache::new(&file, 1024).unwrap_err();
    assert!(matches!(err, RemoteStorageError::Io { .. }), "{err:?}");
}

#[test]
fn a_vanished_cache_file_becomes_a_miss() {
    let (_dir, cache) = open(1024);
    lookup(&cache, 1, IndexType::Offset, 32);
    fs::remove_file(
        cache
            .dir()
            .unwrap()
            .join(format!("{}.index", Uuid::from_u128(1).hyphenated())),
    )
    .unwrap();
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 32),
        IndexCacheOutcome::Miss
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 32),
        IndexCacheOutcome::Hit
    );
    let stats = cache.stats();
    assert_eq!(
        (stats.hits, stats.misses, stats.entries, stats.bytes),
        (1, 2, 1, 32)
    );
}

#[test]
fn a_panicking_fetcher_leaves_the_cache_usable() {
    let (_dir, cache) = open(1024);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cache.get_or_fetch(
            Uuid::from_u128(1),
            IndexType::Offset,
            || -> Result<Vec<u8>> { panic!("fetcher failed") },
        )
    }));
    assert!(result.is_err());
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 8),
        IndexCacheOutcome::Miss
    );
    assert_eq!(
        lookup(&cache, 1, IndexType::Offset, 8),
        IndexCacheOutcome::Hit
    );
}

/// Two misses on different keys must be able to fetch at the same time: each
/// fetcher waits for the other to start. Were fetches run under the lock, the
/// second could not start and the first would time out with an error.
#[test]
fn fetches_run_outside_the_lock() {
    let (_dir, cache) = open(1024);
    let cache = Arc::new(cache);
    let (to_b, from_a) = mpsc::channel::<()>();
    let (to_a, from_b) = mpsc::channel::<()>();
    let run = |segment: u128, tell: mpsc::Sender<()>, hear: mpsc::Receiver<()>| {
        let cache = Arc::clone(&cache);
        thread::spawn(move || {
            cache.get_or_fetch(Uuid::from_u128(segment), IndexType::Offset, move || {
                tell.send(())
                    .map_err(|_| RemoteStorageError::Cancelled("peer gone".into()))?;
                hear.recv_timeout(Duration::from_secs(10))
                    .map_err(|_| RemoteStorageError::Cancelled("peer never fetched".into()))?;
                Ok(vec![1; 8])
            })
        })
    };
    let a = run(1, to_b, from_b);
    let b = run(2, to_a, from_a);
    for handle in [a, b] {
        let (_, outcome) = handle.join().unwrap().unwrap();
        assert_eq!(outcome, IndexCacheOutcome::Miss);
    }
}

#[test]
fn concurrent_lookups_stay_correct_and_bounded() {
    const THREADS: usize = 8;
    const ROUNDS: usize = 300;
    const BUDGET: u64 = 600;
    let (_dir, cache) = open(BUDGET);
    let cache = Arc::new(cache);
    let handles: Vec<_> = (0..THREADS)
        .map(|thread_no| {
            let cache = Arc::clone(&cache);
            thread::spawn(move || {
                for round in 0..ROUNDS {
                    // Half the lookups share a small hot set, half spread out.
                    let segment = if round % 2 == 0 {
                        u128::try_from(round % 3).unwrap()
                    } else {
                        u128::try_from(10 + (round * 7 + thread_no) % 40).unwrap()
                    };
                    let index = IndexType::ALL[round % IndexType::ALL.len()];
                    let len = 8 + usize::try_from(segment % 50).unwrap();
                    let expected = bytes_for(segment, index, len);
                    let (bytes, outcome) = cache
                        .get_or_fetch(Uuid::from_u128(segment), index, || Ok(expected.clone()))
                        .unwrap();
                    assert_eq!(bytes, expected, "segment {segment} {index:?}");
                    assert_ne!(outcome, IndexCacheOutcome::Disabled);
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let stats = cache.stats();
    assert_eq!(
        stats.hits + stats.misses,
        u64::try_from(THREADS * ROUNDS).unwrap()
    );
    assert!(
        stats.hits > 0 && stats.misses > 0 && stats.evictions > 0,
        "{stats:?}"
    );
    assert!(stats.bytes <= BUDGET, "{stats:?}");
    let files = files_in(cache.dir().unwrap());
    assert_eq!(
        u64::try_from(files.len()).unwrap(),
        stats.entries,
        "{files:?}"
    );
    assert_eq!(files.iter().map(|(_, len)| len).sum::<u64>(), stats.bytes);
    assert!(
        files.iter().all(|(name, _)| !name.starts_with('.')),
        "{files:?}"
    );
}
