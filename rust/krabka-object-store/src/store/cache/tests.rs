//! The read cache against an in-memory store that counts and can fail or
//! hold its GETs.

use {
    super::*,
    crate::store::{fetch::Opened, tuning::Tuning},
    async_trait::async_trait,
    futures_util::stream::BoxStream,
    object_store::{
        CopyOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
        ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult, memory::InMemory,
    },
    std::{
        fmt,
        io::{self, Read},
        sync::atomic::{AtomicBool, AtomicUsize},
    },
};

pub(super) const CHUNK: u64 = 4096;

/// An in-memory store counting its GETs and the bytes they asked for;
/// `fail` makes ranged GETs fail, `hold` makes them wait until released,
/// `stall_body` makes a GET's body stop after its first [`CHUNK`] bytes
/// until released.
#[derive(Debug, Default)]
pub(super) struct Counting {
    inner: InMemory,
    gets: AtomicUsize,
    pub(super) ranged_bytes: AtomicU64,
    pub(super) fail: AtomicBool,
    pub(super) hold: AtomicBool,
    stall_body: Arc<AtomicBool>,
}

impl fmt::Display for Counting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting")
    }
}

#[async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        while self.hold.load(Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        if self.fail.load(Ordering::SeqCst) {
            return Err(object_store::Error::Generic {
                store: "Counting",
                source: "Server returned non-2xx status code: 503 Service Unavailable".into(),
            });
        }
        if let Some(GetRange::Bounded(range)) = &options.range {
            self.ranged_bytes
                .fetch_add(range.end - range.start, Ordering::SeqCst);
        }
        let result = self.inner.get_opts(location, options).await?;
        if !self.stall_body.load(Ordering::SeqCst) {
            return Ok(result);
        }
        let (meta, range, attributes, extensions) = (
            result.meta.clone(),
            result.range.clone(),
            result.attributes.clone(),
            result.extensions.clone(),
        );
        let mut rest = result.bytes().await?;
        let head = rest.split_to(rest.len().min(CHUNK as usize));
        let stall = Arc::clone(&self.stall_body);
        let rest = async move {
            while stall.load(Ordering::SeqCst) {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            Ok(rest)
        };
        let body = futures_util::stream::once(async move { Ok(head) })
            .chain(futures_util::stream::once(rest))
            .boxed();
        Ok(GetResult {
            payload: GetResultPayload::Stream(body),
            meta,
            range,
            attributes,
            extensions,
        })
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

pub(super) struct Fixture {
    pub(super) runtime: Arc<StoreRuntime>,
    pub(super) store: Arc<Counting>,
    pub(super) cache: Arc<ChunkCache>,
}

pub(super) fn fixture(config: CacheConfig) -> Fixture {
    Fixture {
        runtime: Arc::new(StoreRuntime::new(2).unwrap()),
        store: Arc::new(Counting::default()),
        cache: Arc::new(ChunkCache::new(config).unwrap()),
    }
}

/// A cache of 4 KiB chunks, whose fetches are expected to read two.
pub(super) fn small(prefetch_chunks: usize) -> CacheConfig {
    CacheConfig {
        capacity_bytes: CHUNK * 64,
        chunk_bytes: CHUNK,
        prefetch_chunks,
        prefetch_in_flight: 8,
        expected_fetch_bytes: 2 * CHUNK,
        disk: None,
    }
}

/// [`small`] without read-ahead of any kind: every chunk is asked for by
/// its reader.
fn on_demand() -> CacheConfig {
    CacheConfig {
        expected_fetch_bytes: 1,
        ..small(0)
    }
}

/// Bytes whose every position differs from its neighbours'.
pub(super) fn pattern(len: u64, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed))
        .collect()
}

impl Fixture {
    pub(super) fn put(&self, key: &str, bytes: Vec<u8>) {
        let store = Arc::clone(&self.store);
        let key = Path::from(key);
        self.runtime
            .block_on(async move {
                store
                    .put(&key, PutPayload::from(bytes))
                    .await
                    .map_err(|e| to_store_error(e, "put", "test"))
            })
            .unwrap();
    }

    fn open(&self, key: &str, start: u64, end: Option<u64>) -> Result<Box<dyn Read + Send>> {
        self.open_then(key, start, end, None)
    }

    /// Opens a reader whose tier names `next` as read after `key`.
    pub(super) fn open_then(
        &self,
        key: &str,
        start: u64,
        end: Option<u64>,
        next: Option<NextObjects>,
    ) -> Result<Box<dyn Read + Send>> {
        let open = open_cached(
            Arc::clone(&self.cache),
            Arc::clone(&self.runtime),
            Arc::clone(&self.store) as Arc<dyn ObjectStore>,
            ObjectAt::from(Path::from(key)),
            key.to_owned(),
            start,
            end,
            Tuning::default(),
            next,
        );
        Ok(self.runtime.block_on(open)?.into_reader())
    }

    /// Reads `len` bytes from `start` in one stream, then drops it.
    pub(super) fn read(&self, key: &str, start: u64, len: u64) -> Vec<u8> {
        let mut reader = self.open(key, start, None).unwrap();
        let mut out = vec![0; usize::try_from(len).unwrap()];
        reader.read_exact(&mut out).unwrap();
        out
    }

    /// Waits (bounded) until no read-ahead GET or warming is in flight.
    pub(super) fn settle(&self) {
        for _ in 0..2000 {
            if self.cache.prefetching.load(Ordering::SeqCst) == 0
                && self.cache.warming.load(Ordering::SeqCst) == 0
                && self.cache.lock().loading.is_empty()
            {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("read-ahead never settled");
    }

    pub(super) fn gets(&self) -> usize {
        self.store.gets.load(Ordering::SeqCst)
    }
}

#[test]
fn reads_return_the_objects_bytes_at_every_position_and_bound() {
    let f = fixture(small(2));
    let bytes = pattern(10 * CHUNK + 123, 1);
    f.put("a", bytes.clone());
    for (start, end) in [
        (0, None),
        (1, Some(0u64)),
        (CHUNK - 1, Some(CHUNK)),
        (3 * CHUNK + 5, Some(7 * CHUNK + 9)),
        (10 * CHUNK, None),
        (5, Some(100 * CHUNK)),
    ] {
        let Some(end) = end.map(|e| e.max(start)).or(Some(bytes.len() as u64 - 1)) else {
            unreachable!()
        };
        let mut out = Vec::new();
        f.open("a", start, Some(end))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        let stop = usize::try_from((end + 1).min(bytes.len() as u64)).unwrap();
        assert_eq!(
            out,
            bytes[usize::try_from(start).unwrap()..stop],
            "{start}..={end}"
        );
    }
    let mut out = Vec::new();
    let mut reader = f.open("a", bytes.len() as u64, None).unwrap();
    reader.read_to_end(&mut out).unwrap();
    assert!(out.is_empty());
    assert!(matches!(
        f.open("a", bytes.len() as u64 + 1, None),
        Err(StoreError::InvalidArgument(_))
    ));
    assert!(matches!(
        f.open("missing", 0, None),
        Err(StoreError::NotFound { .. })
    ));
}

#[test]
fn a_second_read_of_held_chunks_makes_no_request() {
    let f = fixture(small(0));
    f.put("a", pattern(4 * CHUNK, 2));
    let first = f.read("a", 100, 2 * CHUNK);
    let gets = f.gets();
    let waited = f.cache.stats().miss_wait;
    assert_eq!(f.read("a", 100, 2 * CHUNK), first);
    assert_eq!(f.gets(), gets);
    assert!(f.cache.stats().hits >= 3);
    assert_eq!(f.cache.stats().miss_wait, waited, "a hit waits for nothing");
}

#[test]
fn a_fetch_that_continues_the_previous_one_reads_ahead_and_is_then_served_from_memory() {
    let f = fixture(small(4));
    let bytes = pattern(40 * CHUNK, 3);
    f.put("a", bytes.clone());
    // Fetches of two chunks each, each closed, the next one where the
    // previous one stopped: the way a consumer catches up.
    let mut position = 0;
    while position < bytes.len() as u64 {
        let len = (2 * CHUNK).min(bytes.len() as u64 - position);
        let got = f.read("a", position, len);
        assert_eq!(got, bytes[position as usize..(position + len) as usize]);
        position += len;
        f.settle();
    }
    let stats = f.cache.stats();
    // Every chunk fetched once; most of them ahead of the reader.
    assert_eq!(stats.bytes_fetched, bytes.len() as u64, "{stats:?}");
    assert!(
        stats.prefetched_bytes >= bytes.len() as u64 / 2,
        "{stats:?}"
    );
    // Read-ahead coalesces chunks: fewer GETs than chunks.
    assert!(stats.gets < 40, "{stats:?}");
    assert_eq!(stats.prefetch_unread_bytes, 0, "{stats:?}");
}

#[test]
fn a_catching_up_reader_reads_ahead_in_full_gets_not_a_fetch_at_a_time() {
    // A window of 16 chunks topped up 8 at a time (a full read-ahead GET).
    let f = fixture(CacheConfig {
        capacity_bytes: CHUNK * 256,
        prefetch_in_flight: 16,
        ..small(16)
    });
    let chunks = 128;
    let bytes = pattern(chunks * CHUNK, 5);
    f.put("a", bytes.clone());
    // Fetches of two chunks each, each one a new reader continuing the last:
    // each moves the read-ahead window by two chunks. Were each fetch to ask
    // for the two chunks it uncovers, that would be a GET a fetch (64).
    let mut position = 0;
    while position < bytes.len() as u64 {
        let len = 2 * CHUNK;
        assert_eq!(
            f.read("a", position, len),
            bytes[position as usize..(position + len) as usize]
        );
        position += len;
        f.settle();
    }
    let stats = f.cache.stats();
    assert_eq!(stats.bytes_fetched, bytes.len() as u64, "{stats:?}");
    // The GETs before read-ahead begins, then one a full batch of 8 chunks.
    let full_batches = chunks / 8;
    assert!(
        stats.gets <= full_batches + 6,
        "{} GETs: {stats:?}",
        stats.gets
    );
}

#[test]
fn a_deep_sequential_reader_reads_ahead_in_the_largest_gets() {
    // A window of 32 chunks, topped up 16 at a time: each GET as large as
    // read-ahead makes them.
    let f = fixture(CacheConfig {
        capacity_bytes: CHUNK * 256,
        prefetch_in_flight: 16,
        ..small(2 * COALESCED_CHUNKS)
    });
    let chunks = 256;
    let bytes = pattern(chunks * CHUNK, 6);
    f.put("a", bytes.clone());
    let mut position = 0;
    while position < bytes.len() as u64 {
        let len = 2 * CHUNK;
        assert_eq!(
            f.read("a", position, len),
            bytes[position as usize..(position + len) as usize]
        );
        position += len;
        f.settle();
    }
    let stats = f.cache.stats();
    assert_eq!(stats.bytes_fetched, bytes.len() as u64, "{stats:?}");
    let largest = chunks / COALESCED_CHUNKS as u64;
    assert!(
        stats.gets <= largest + 4,
        "{} GETs where {largest} of {COALESCED_CHUNKS} chunks would do: {stats:?}",
        stats.gets
    );
}

#[test]
fn random_fetches_read_only_the_chunks_they_touch() {
    let f = fixture(small(8));
    let bytes = pattern(200 * CHUNK, 4);
    f.put("a", bytes.clone());
    let mut served = 0;
    // Positions far apart, never continuing the previous fetch.
    for step in [7u64, 151, 33, 99, 12, 180, 60, 120] {
        let start = step * CHUNK + 333;
        let got = f.read("a", start, 2 * CHUNK);
        assert_eq!(got, bytes[start as usize..(start + 2 * CHUNK) as usize]);
        served += 2 * CHUNK;
    }
    f.settle();
    let stats = f.cache.stats();
    // Nothing read beyond the fetches: two chunks' worth at an unaligned
    // start touches three chunks.
    assert!(stats.bytes_fetched * 2 <= served * 3, "{stats:?}");
}

#[test]
fn the_cache_stays_within_its_budget_and_counts_evictions() {
    let f = fixture(CacheConfig {
        capacity_bytes: 8 * CHUNK,
        chunk_bytes: CHUNK,
        prefetch_chunks: 2,
        prefetch_in_flight: 4,
        expected_fetch_bytes: 2 * CHUNK,
        disk: None,
    });
    let bytes = pattern(64 * CHUNK, 5);
    f.put("a", bytes.clone());
    let mut reader = f.open("a", 0, None).unwrap();
    let mut out = Vec::new();
    let mut buffer = vec![0; 1000];
    loop {
        let n = reader.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buffer[..n]);
        assert!(f.cache.stats().bytes_held <= 8 * CHUNK);
    }
    assert_eq!(out, bytes);
    f.settle();
    let stats = f.cache.stats();
    assert!(stats.bytes_held <= 8 * CHUNK, "{stats:?}");
    assert!(stats.evictions >= 56, "{stats:?}");
}

#[test]
fn two_readers_of_one_chunk_make_one_request() {
    let f = fixture(on_demand());
    f.put("a", pattern(4 * CHUNK, 6));
    // Learn the object (its first chunk) first.
    f.read("a", 0, 10);
    let before = f.gets();
    f.store.hold.store(true, Ordering::SeqCst);
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let mut reader = f.open("a", 2 * CHUNK, None).unwrap();
            std::thread::spawn(move || {
                let mut out = vec![0; 100];
                reader.read_exact(&mut out).unwrap();
                out
            })
        })
        .collect();
    // Bounded wait until the one GET is waiting in the store.
    for _ in 0..2000 {
        if f.gets() > before {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    f.store.hold.store(false, Ordering::SeqCst);
    let outs: Vec<_> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(f.gets(), before + 1);
    let stats = f.cache.stats();
    assert_eq!(stats.joined, 2);
    // The reader that made the GET waited at least while it was held.
    assert!(
        stats.miss_wait >= std::time::Duration::from_millis(50),
        "{stats:?}"
    );
}

#[test]
fn a_chunk_is_served_as_soon_as_its_bytes_arrive_not_when_its_whole_get_ends() {
    let f = fixture(CacheConfig {
        expected_fetch_bytes: 8 * CHUNK,
        ..small(8)
    });
    let bytes = pattern(32 * CHUNK, 8);
    f.put("a", bytes.clone());
    // Learn the object (its first chunk; chunks 1 to 7 are read ahead).
    assert_eq!(f.read("a", 0, CHUNK), bytes[..CHUNK as usize]);
    f.settle();
    // From now on every GET's body stops after its first chunk. A fetch
    // at chunk 8 gets it from its own GET, and chunks 9 to 15 from one
    // GET whose body stops after chunk 9.
    f.store.stall_body.store(true, Ordering::SeqCst);
    let mut reader = f.open("a", 8 * CHUNK, None).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let reading = std::thread::spawn(move || {
        let mut out = vec![0; 2 * CHUNK as usize];
        let outcome = reader.read_exact(&mut out).map(|()| out);
        sender.send(outcome.is_ok()).unwrap();
        (reader, outcome)
    });
    let served_while_stalled = receiver.recv_timeout(std::time::Duration::from_secs(20));
    f.store.stall_body.store(false, Ordering::SeqCst);
    let (mut reader, outcome) = reading.join().unwrap();
    assert_eq!(
        served_while_stalled,
        Ok(true),
        "chunk 9 waited for the rest of its GET"
    );
    assert_eq!(
        outcome.unwrap(),
        bytes[8 * CHUNK as usize..10 * CHUNK as usize]
    );
    // The rest of that GET arrives once the body goes on.
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, bytes[10 * CHUNK as usize..]);
}

#[test]
fn sequential_readers_share_the_room_for_read_ahead() {
    use super::reader::max_read_ahead;
    let config = CacheConfig::default();
    let chunk = config.chunk_bytes;
    let configured = config.prefetch_chunks as u64;
    // Alone, a reader reads ahead up to a quarter of the cache (capped at
    // eight times the configured depth).
    let alone = max_read_ahead(&config, 1);
    assert_eq!(alone * chunk, 64 * 1024 * 1024);
    assert_eq!(max_read_ahead(&config, 0), alone);
    // Together, their read-ahead stays within that quarter, but none goes
    // below the configured depth.
    for readers in [2, 4, 8, 16, 64] {
        let each = max_read_ahead(&config, readers);
        assert!(each >= configured, "{readers} readers: {each}");
        assert!(
            each == configured || each * chunk * readers as u64 <= config.capacity_bytes / 4,
            "{readers} readers: {each}"
        );
    }
    assert_eq!(max_read_ahead(&config, 16), configured);

    // Readers count while they read sequentially, and no longer once
    // closed.
    let f = fixture(small(4));
    f.put("a", pattern(40 * CHUNK, 9));
    f.put("b", pattern(40 * CHUNK, 10));
    f.read("a", 0, 2 * CHUNK);
    f.read("b", 0, 2 * CHUNK);
    let mut a = f.open("a", 2 * CHUNK, None).unwrap();
    let mut b = f.open("b", 2 * CHUNK, None).unwrap();
    assert_eq!(f.cache.sequential_readers.load(Ordering::SeqCst), 2);
    let mut out = vec![0; CHUNK as usize];
    a.read_exact(&mut out).unwrap();
    b.read_exact(&mut out).unwrap();
    drop(a);
    assert_eq!(f.cache.sequential_readers.load(Ordering::SeqCst), 1);
    drop(b);
    assert_eq!(f.cache.sequential_readers.load(Ordering::SeqCst), 0);
    // A random reader never counts.
    let c = f.open("a", 30 * CHUNK, None).unwrap();
    assert_eq!(f.cache.sequential_readers.load(Ordering::SeqCst), 0);
    drop(c);
    f.settle();
}

#[test]
fn a_fetch_of_a_whole_object_from_its_start_reads_ahead_at_once() {
    let f = fixture(small(4));
    f.put("a", pattern(40 * CHUNK, 11));
    f.put("b", pattern(40 * CHUNK, 12));
    // The first fetch of a segment, as a consumer moving on from the
    // previous one makes it: from 0, to the end.
    f.read("a", 0, 2 * CHUNK);
    f.settle();
    let whole = f.cache.stats();
    // Its expected two chunks, and read-ahead beyond them.
    assert!(
        whole.bytes_fetched >= 5 * CHUNK && whole.prefetched_bytes >= 3 * CHUNK,
        "{whole:?}"
    );
    // A fetch from 0 with an end short of the object's does not.
    let mut bounded = f.open("b", 0, Some(2 * CHUNK - 1)).unwrap();
    let mut out = Vec::new();
    bounded.read_to_end(&mut out).unwrap();
    drop(bounded);
    f.settle();
    let after = f.cache.stats();
    assert_eq!(out.len() as u64, 2 * CHUNK);
    assert_eq!(
        after.bytes_fetched - whole.bytes_fetched,
        2 * CHUNK,
        "{after:?}"
    );
}

#[test]
fn errors_are_not_cached() {
    let f = fixture(on_demand());
    let bytes = pattern(4 * CHUNK, 7);
    f.put("a", bytes.clone());
    f.read("a", 0, 10);
    f.store.fail.store(true, Ordering::SeqCst);
    let mut reader = f.open("a", 2 * CHUNK, None).unwrap();
    let err = reader.read(&mut [0; 10]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::TimedOut, "{err}");
    f.store.fail.store(false, Ordering::SeqCst);
    assert_eq!(
        f.read("a", 2 * CHUNK, 10),
        bytes[2 * CHUNK as usize..2 * CHUNK as usize + 10]
    );
}

#[test]
fn a_replaced_object_is_never_served_mixed_with_its_old_version() {
    let f = fixture(on_demand());
    let old = pattern(4 * CHUNK, 8);
    f.put("a", old.clone());
    // A reader holds the old version's first chunk.
    let mut reader = f.open("a", 0, None).unwrap();
    let mut first = vec![0; CHUNK as usize];
    reader.read_exact(&mut first).unwrap();
    assert_eq!(first, old[..CHUNK as usize]);
    let new = pattern(4 * CHUNK, 9);
    f.put("a", new.clone());
    // Its next chunk is asked for at the old version: refused, not mixed.
    let err = reader.read(&mut [0; 10]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::TimedOut, "{err}");
    // The next fetch learns the new version and reads it whole.
    let mut out = Vec::new();
    f.open("a", 0, None).unwrap().read_to_end(&mut out).unwrap();
    assert_eq!(out, new);
}

#[test]
fn a_dropped_reader_leaves_nothing_behind_but_its_chunks() {
    let f = fixture(small(4));
    f.put("a", pattern(40 * CHUNK, 10));
    {
        let mut reader = f.open("a", 0, None).unwrap();
        let mut out = vec![0; (6 * CHUNK) as usize];
        reader.read_exact(&mut out).unwrap();
    }
    f.settle();
    assert!(f.cache.lock().loading.is_empty());
    assert_eq!(f.cache.prefetching.load(Ordering::SeqCst), 0);
    assert!(f.cache.stats().bytes_held <= 64 * CHUNK);
}

#[test]
fn sizes_that_do_not_fit_are_refused() {
    for config in [
        CacheConfig {
            chunk_bytes: 100,
            ..CacheConfig::default()
        },
        CacheConfig {
            capacity_bytes: DEFAULT_CHUNK_BYTES,
            ..CacheConfig::default()
        },
    ] {
        assert!(matches!(
            ChunkCache::new(config),
            Err(StoreError::InvalidArgument(_))
        ));
    }
    assert!(matches!(
        Opened::Empty.into_reader().read(&mut [0; 1]),
        Ok(0)
    ));
}

#[test]
fn forgotten_keys_are_read_again_and_found_gone() {
    let f = fixture(small(0));
    f.put("a", pattern(4 * CHUNK, 11));
    f.put("b", pattern(4 * CHUNK, 12));
    f.read("a", 0, 2 * CHUNK);
    f.read("b", 0, 2 * CHUNK);
    let store = Arc::clone(&f.store);
    f.runtime
        .block_on(async move {
            store
                .delete(&Path::from("a"))
                .await
                .map_err(|e| to_store_error(e, "delete", "a"))
        })
        .unwrap();
    // Still served from memory until the tier says the key is gone.
    assert_eq!(f.read("a", 0, 10), pattern(4 * CHUNK, 11)[..10]);
    f.cache.forget_keys(&[Path::from("a")]);
    assert!(matches!(
        f.open("a", 0, None),
        Err(StoreError::NotFound { .. })
    ));
    // Other objects keep their chunks.
    let gets = f.gets();
    f.read("b", 0, 2 * CHUNK);
    assert_eq!(f.gets(), gets);
}
