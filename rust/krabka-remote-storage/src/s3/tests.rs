//! Unit tests of the object-store tier over an instrumented in-memory store.

use {
    super::*,
    crate::{RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentState, TopicIdPartition},
    async_trait::async_trait,
    bytes::Bytes,
    futures_util::{StreamExt, stream::BoxStream},
    krabka_ids::LeaderEpoch,
    object_store::{
        CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta,
        PutMultipartOptions, PutOptions, PutPayload, PutResult, UploadPart, memory::InMemory,
    },
    std::{
        collections::BTreeMap,
        io::Read,
        path::PathBuf,
        sync::atomic::{AtomicUsize, Ordering::SeqCst},
        time::{Duration, Instant},
    },
    uuid::Uuid,
};

/// Counters of what the tier asked the store to do.
#[derive(Debug, Default)]
struct Stats {
    parts: AtomicUsize,
    parts_in_flight: AtomicUsize,
    max_parts_in_flight: AtomicUsize,
    part_bytes_in_flight: AtomicUsize,
    max_part_bytes_in_flight: AtomicUsize,
    aborts: AtomicUsize,
    completes: AtomicUsize,
    gets: AtomicUsize,
    gets_dropped: AtomicUsize,
    /// 1-based part number that fails; 0 = none.
    fail_part: AtomicUsize,
    part_delay_ms: AtomicUsize,
    /// Delay of every GET but the first of a test.
    get_delay_ms: AtomicUsize,
    /// Every request of any kind.
    requests: AtomicUsize,
}

/// An in-memory store that counts requests and can delay or fail them.
#[derive(Debug)]
struct Instrumented {
    inner: InMemory,
    stats: Arc<Stats>,
}

impl fmt::Display for Instrumented {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Instrumented({})", self.inner)
    }
}

/// Decrements a counter when dropped (also when the future is cancelled).
struct Gauge<'a>(&'a AtomicUsize, usize);

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(self.1, SeqCst);
    }
}

fn raise(gauge: &AtomicUsize, max: &AtomicUsize, by: usize) {
    let now = gauge.fetch_add(by, SeqCst) + by;
    max.fetch_max(now, SeqCst);
}

#[derive(Debug)]
struct InstrumentedUpload {
    inner: Box<dyn MultipartUpload>,
    stats: Arc<Stats>,
}

#[async_trait]
impl MultipartUpload for InstrumentedUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let stats = Arc::clone(&self.stats);
        let number = stats.parts.fetch_add(1, SeqCst) + 1;
        let len = data.content_length();
        raise(&stats.parts_in_flight, &stats.max_parts_in_flight, 1);
        raise(
            &stats.part_bytes_in_flight,
            &stats.max_part_bytes_in_flight,
            len,
        );
        let inner = self.inner.put_part(data);
        Box::pin(async move {
            let _parts = Gauge(&stats.parts_in_flight, 1);
            let _bytes = Gauge(&stats.part_bytes_in_flight, len);
            let delay = stats.part_delay_ms.load(SeqCst) as u64;
            tokio::time::sleep(Duration::from_millis(delay)).await;
            if stats.fail_part.load(SeqCst) == number {
                return Err(object_store::Error::Generic {
                    store: "test",
                    source:
                        "Server returned non-2xx status code: 503 Service Unavailable: SlowDown"
                            .into(),
                });
            }
            inner.await
        })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.stats.completes.fetch_add(1, SeqCst);
        self.inner.complete().await
    }

    async fn abort(&mut self) -> object_store::Result<()> {
        self.stats.aborts.fetch_add(1, SeqCst);
        self.inner.abort().await
    }
}

#[async_trait]
impl ObjectStore for Instrumented {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.stats.requests.fetch_add(1, SeqCst);
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.stats.requests.fetch_add(1, SeqCst);
        let inner = self.inner.put_multipart_opts(location, opts).await?;
        Ok(Box::new(InstrumentedUpload {
            inner,
            stats: Arc::clone(&self.stats),
        }))
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.stats.requests.fetch_add(1, SeqCst);
        let number = self.stats.gets.fetch_add(1, SeqCst);
        // Counts a GET dropped before it answered.
        struct Dropped<'a>(&'a AtomicUsize, bool);
        impl Drop for Dropped<'_> {
            fn drop(&mut self) {
                if !self.1 {
                    self.0.fetch_add(1, SeqCst);
                }
            }
        }
        let mut guard = Dropped(&self.stats.gets_dropped, false);
        if number > 0 {
            let delay = self.stats.get_delay_ms.load(SeqCst) as u64;
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        let result = self.inner.get_opts(location, options).await;
        guard.1 = true;
        result
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.stats.requests.fetch_add(1, SeqCst);
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.stats.requests.fetch_add(1, SeqCst);
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.stats.requests.fetch_add(1, SeqCst);
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.stats.requests.fetch_add(1, SeqCst);
        self.inner.copy_opts(from, to, options).await
    }
}

struct Fixture {
    tier: S3RemoteStorage,
    store: Arc<Instrumented>,
    dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let store = Arc::new(Instrumented {
        inner: InMemory::new(),
        stats: Arc::default(),
    });
    let tier = S3RemoteStorage::with_store(store.clone(), Some("/tier/".to_owned())).unwrap();
    Fixture {
        tier,
        store,
        dir: tempfile::tempdir().unwrap(),
    }
}

fn metadata(segment: u128) -> RemoteLogSegmentMetadata {
    let tp = TopicIdPartition::new(Uuid::from_u128(7), "orders", 3);
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp, Uuid::from_u128(segment)),
        100,
        199,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            0,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), 100)]),
        ),
    )
    .unwrap()
}

/// Deterministic, position-dependent bytes.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
        .collect()
}

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn segment(dir: &std::path::Path, log: &[u8], txn: bool) -> LogSegmentData {
    LogSegmentData {
        log_segment: write(dir, "s.log", log),
        offset_index: write(dir, "s.index", &pattern(80, 1)),
        time_index: write(dir, "s.timeindex", &pattern(120, 2)),
        transaction_index: txn.then(|| write(dir, "s.txnindex", &pattern(40, 3))),
        producer_snapshot_index: Some(write(dir, "s.snapshot", &pattern(30, 4))),
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 100\n"),
    }
}

fn read_all(mut reader: SegmentReader) -> Vec<u8> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).unwrap();
    bytes
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
        .runtime
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
fn an_invalid_config_is_invalid_argument() {
    let config = S3Config::new("", "us-east-1");
    assert!(matches!(
        S3RemoteStorage::from_s3_config(&config),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
}

/// The write-once archive mode over the instrumented in-memory store.
mod worm_mode {
    use {
        super::*,
        crate::{
            ErrorClass, MANIFEST_SUFFIX, ManifestSigner, SegmentManifest, TrustedManifestKeys,
            WormChainRecord, WormConfig, verify_manifest_signature,
        },
        sha2::{Digest, Sha256},
    };

    fn signer() -> ManifestSigner {
        ManifestSigner::from_secret_bytes(&[7; 32], "k1").unwrap()
    }

    fn worm_fixture(write_only: bool) -> Fixture {
        let mut fixture = fixture();
        fixture.tier = fixture
            .tier
            .with_worm_unchecked(signer(), write_only, "test".to_owned());
        fixture
    }

    fn trusted() -> TrustedManifestKeys {
        TrustedManifestKeys::single("k1", &signer().public_key()).unwrap()
    }

    fn manifest_of(fixture: &Fixture, segment: u128) -> SegmentManifest {
        let keys = SegmentKeys::new(fixture.tier.prefix(), &metadata(segment));
        let key = keys.with_suffix(MANIFEST_SUFFIX).unwrap();
        let store = Arc::clone(&fixture.store);
        let bytes: Bytes = fixture
            .tier
            .runtime
            .block_on(async move {
                use object_store::ObjectStoreExt;
                Ok(store.inner.get(&key).await.unwrap().bytes().await.unwrap())
            })
            .unwrap();
        SegmentManifest::from_bytes(&bytes).unwrap()
    }

    #[test]
    fn a_copy_is_sealed_signed_hashed_and_chained() {
        let f = worm_fixture(false);
        let log = pattern(5000, 3);
        let data = segment(f.dir.path(), &log, true);
        let first = f
            .tier
            .copy_log_segment_data(&metadata(1), &data)
            .unwrap()
            .unwrap();
        assert!(first.as_bytes().len() <= WormChainRecord::MAX_BYTES);
        let Some(WormChainRecord::Receipt { seq, head, .. }) =
            WormChainRecord::from_custom_metadata(first.as_bytes()).unwrap()
        else {
            panic!("not a receipt");
        };
        assert_eq!(seq.0, 0);
        let manifest = manifest_of(&f, 1);
        let verified = verify_manifest_signature(&manifest, &trusted()).unwrap();
        assert_eq!(verified.head(), head);
        let log_entry = manifest
            .body
            .objects
            .iter()
            .find(|o| o.suffix == ".log")
            .unwrap();
        assert_eq!(log_entry.size_bytes, 5000);
        assert_eq!(log_entry.sha256.0, <[u8; 32]>::from(Sha256::digest(&log)));
        assert!(log_entry.create_precondition);
        assert_eq!(
            manifest.body.objects.len(),
            6,
            "log, four indexes and the epoch checkpoint"
        );
        // The next copy continues the chain on the first head.
        let second = f
            .tier
            .copy_log_segment_data(&metadata(2), &data)
            .unwrap()
            .unwrap();
        let Some(WormChainRecord::Receipt { seq, .. }) =
            WormChainRecord::from_custom_metadata(second.as_bytes()).unwrap()
        else {
            panic!("not a receipt");
        };
        assert_eq!(seq.0, 1);
        assert_eq!(manifest_of(&f, 2).body.chain.prev_head, head);
    }

    #[test]
    fn a_recopy_of_the_same_keys_is_refused_as_already_existing() {
        let f = worm_fixture(false);
        let data = segment(f.dir.path(), &pattern(100, 1), false);
        f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
        let err = f
            .tier
            .copy_log_segment_data(&metadata(1), &data)
            .unwrap_err();
        assert!(
            matches!(err, RemoteStorageError::AlreadyExists { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_restarted_tier_derives_the_tip_from_the_bucket() {
        let f = worm_fixture(false);
        let data = segment(f.dir.path(), &pattern(100, 1), false);
        f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
        let head = crate::manifest_head(&manifest_of(&f, 1).body);
        let restarted = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
            .unwrap()
            .with_worm_unchecked(signer(), false, "test".to_owned());
        restarted
            .copy_log_segment_data(&metadata(2), &data)
            .unwrap();
        let second = manifest_of(&f, 2);
        assert_eq!(second.body.chain.seq.0, 1);
        assert_eq!(second.body.chain.prev_head, head);
        assert_eq!(
            second.body.chain.epoch_id,
            manifest_of(&f, 1).body.chain.epoch_id
        );
    }

    #[test]
    fn two_writers_cannot_fork_the_chain() {
        let f = worm_fixture(false);
        let data = segment(f.dir.path(), &pattern(100, 1), false);
        let other = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
            .unwrap()
            .with_worm_unchecked(signer(), false, "test".to_owned());
        // Both learn the tip (seq 1 next) ...
        f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
        other.copy_log_segment_data(&metadata(2), &data).unwrap();
        // ... `f.tier` still believes seq 1 is next: it loses cleanly.
        let err = f
            .tier
            .copy_log_segment_data(&metadata(3), &data)
            .unwrap_err();
        assert_eq!(err.class(), ErrorClass::Retryable, "{err:?}");
        // Its retry (Kafka retries with a new segment id) continues the chain.
        f.tier.copy_log_segment_data(&metadata(4), &data).unwrap();
        assert_eq!(manifest_of(&f, 4).body.chain.seq.0, 2);
        assert_eq!(
            manifest_of(&f, 4).body.chain.prev_head,
            crate::manifest_head(&manifest_of(&f, 2).body)
        );
    }

    #[test]
    fn multipart_objects_need_a_version_id() {
        // InMemory returns no version id: a multipart object cannot be pinned.
        let mut f = worm_fixture(false);
        f.tier = S3RemoteStorage::with_store(f.store.clone(), Some("tier".to_owned()))
            .unwrap()
            .with_multipart_tuning(1000, 1000)
            .with_worm_unchecked(signer(), false, "test".to_owned());
        let data = segment(f.dir.path(), &pattern(4000, 1), false);
        let err = f
            .tier
            .copy_log_segment_data(&metadata(1), &data)
            .unwrap_err();
        assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
    }

    #[test]
    fn deletes_are_refused_without_a_request() {
        let f = worm_fixture(false);
        let data = segment(f.dir.path(), &pattern(100, 1), false);
        f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
        let before = f.store.stats.requests.load(SeqCst);
        let err = f.tier.delete_log_segment_data(&metadata(1)).unwrap_err();
        assert_eq!(err.class(), ErrorClass::Refused);
        assert_eq!(f.store.stats.requests.load(SeqCst), before);
        // The segment is still readable.
        assert_eq!(
            read_all(f.tier.fetch_log_segment(&metadata(1), 0, None).unwrap()).len(),
            100
        );
    }

    #[test]
    fn write_only_refuses_fetches_without_a_request() {
        let f = worm_fixture(true);
        let data = segment(f.dir.path(), &pattern(100, 1), false);
        f.tier.copy_log_segment_data(&metadata(1), &data).unwrap();
        let before = f.store.stats.requests.load(SeqCst);
        let log = f
            .tier
            .fetch_log_segment(&metadata(1), 0, None)
            .err()
            .unwrap();
        assert!(matches!(log, RemoteStorageError::Refused(_)));
        let index = f
            .tier
            .fetch_index(&metadata(1), IndexType::Offset)
            .unwrap_err();
        assert!(matches!(index, RemoteStorageError::Refused(_)));
        assert_eq!(f.store.stats.requests.load(SeqCst), before);
    }

    #[test]
    fn with_worm_refuses_tiers_that_cannot_prove_a_lock() {
        let key_dir = tempfile::tempdir().unwrap();
        let key = key_dir.path().join("key.pem");
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/worm/test-key-1.pem"
            ),
            &key,
        )
        .unwrap();
        let config = WormConfig::new(&key, "test-key-1");
        let err = fixture().tier.with_worm(config.clone()).unwrap_err();
        assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
        let local = S3RemoteStorage::from_config(&ObjectStoreConfig::Local {
            root: key_dir.path().to_owned(),
        })
        .unwrap();
        let err = local.with_worm(config).unwrap_err();
        assert!(matches!(err, RemoteStorageError::Refused(_)), "{err:?}");
    }
}
