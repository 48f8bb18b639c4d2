//! An instrumented in-memory object store and segment fixtures for the
//! object-store tiers' unit tests.

use crate::test_metadata::SegmentMetadataBuilder;
pub(crate) use {
    async_trait::async_trait,
    bytes::Bytes,
    futures_util::{StreamExt, stream::BoxStream},
    krabka_kafka::{LogSegmentData, RemoteLogSegmentMetadata, SegmentReader, TopicIdPartition},
    object_store::{
        CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
        PutMultipartOptions, PutOptions, PutPayload, PutResult, UploadPart, memory::InMemory,
        path::Path,
    },
    std::{
        fmt,
        io::Read,
        path::PathBuf,
        sync::{
            Arc,
            atomic::{AtomicUsize, Ordering::SeqCst},
        },
        time::{Duration, Instant},
    },
    uuid::Uuid,
};

/// A fresh instrumented in-memory store.
pub(crate) fn instrumented() -> Arc<Instrumented> {
    Arc::new(Instrumented {
        inner: InMemory::new(),
        stats: Arc::default(),
    })
}

/// Counters of what the tier asked the store to do.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) parts: AtomicUsize,
    pub(crate) parts_in_flight: AtomicUsize,
    pub(crate) max_parts_in_flight: AtomicUsize,
    pub(crate) part_bytes_in_flight: AtomicUsize,
    pub(crate) max_part_bytes_in_flight: AtomicUsize,
    pub(crate) aborts: AtomicUsize,
    pub(crate) completes: AtomicUsize,
    pub(crate) gets: AtomicUsize,
    pub(crate) gets_dropped: AtomicUsize,
    /// 1-based part number that fails; 0 = none.
    pub(crate) fail_part: AtomicUsize,
    pub(crate) part_delay_ms: AtomicUsize,
    /// Extra delay of a part, more for earlier parts: part `n` (1-based)
    /// waits this many ms times `8 - (n - 1) % 8` more, so within every
    /// eight parts sent together the later ones are stored first.
    pub(crate) part_delay_reversed_ms: AtomicUsize,
    /// Part numbers in the order their requests finished.
    pub(crate) parts_stored: std::sync::Mutex<Vec<usize>>,
    /// Delay of every GET but the first of a test.
    pub(crate) get_delay_ms: AtomicUsize,
    /// GETs answering right now.
    pub(crate) gets_in_flight: AtomicUsize,
    /// The most GETs that were answering at once.
    pub(crate) max_gets_in_flight: AtomicUsize,
    /// When not 0, a GET waits (at most a minute) until this many GETs were
    /// in flight at once: a test proves concurrency without timing.
    pub(crate) get_rendezvous: AtomicUsize,
    /// Every request of any kind.
    pub(crate) requests: AtomicUsize,
    /// Listings.
    pub(crate) lists: AtomicUsize,
    /// The keys of every GET, in order.
    pub(crate) got: std::sync::Mutex<Vec<String>>,
    /// PUTs of keys ending in `.0` fail with a 503 while `.1` > 0 (counting
    /// down).
    pub(crate) fail_puts: std::sync::Mutex<Option<(String, usize)>>,
    /// The next PUT of a key ending in this suffix finds an object there
    /// (another writer won the key); once.
    pub(crate) collide_put: std::sync::Mutex<Option<String>>,
    /// What was stored, in order: `part` for a multipart upload's part,
    /// `put <key>` for a PUT, `complete <key>` for a completed upload.
    pub(crate) timeline: std::sync::Mutex<Vec<String>>,
    /// PUTs of keys ending in `.0` wait `.1` milliseconds first.
    pub(crate) put_delay: std::sync::Mutex<Option<(String, u64)>>,
    /// Fired once a PUT of a key ending in `.0` succeeded.
    pub(crate) cancel_after_put:
        std::sync::Mutex<Option<(String, krabka_kafka::CancellationToken)>>,
}

impl Stats {
    /// Fails the next `count` PUTs of keys ending in `suffix`.
    pub(crate) fn fail_puts(&self, suffix: &str, count: usize) {
        *self.fail_puts.lock().unwrap() = Some((suffix.to_owned(), count));
    }

    /// Whether this PUT of `location` is to fail (counting it).
    fn put_fails(&self, location: &Path) -> bool {
        let mut fail = self.fail_puts.lock().unwrap();
        match fail.as_mut() {
            Some((suffix, left)) if *left > 0 && location.as_ref().ends_with(suffix.as_str()) => {
                *left -= 1;
                true
            }
            _ => false,
        }
    }

    /// Fires the cancel-after-put hook of `location`.
    fn after_put(&self, location: &Path) {
        if let Some((suffix, token)) = &*self.cancel_after_put.lock().unwrap() {
            if location.as_ref().ends_with(suffix.as_str()) {
                token.cancel();
            }
        }
    }
}

/// An in-memory store that counts requests and can delay or fail them.
#[derive(Debug)]
pub(crate) struct Instrumented {
    pub(crate) inner: InMemory,
    pub(crate) stats: Arc<Stats>,
}

impl fmt::Display for Instrumented {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Instrumented({})", self.inner)
    }
}

/// Decrements a counter when dropped (also when the future is cancelled).
pub(crate) struct Gauge<'a>(&'a AtomicUsize, usize);

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(self.1, SeqCst);
    }
}

pub(crate) fn raise(gauge: &AtomicUsize, max: &AtomicUsize, by: usize) {
    let now = gauge.fetch_add(by, SeqCst) + by;
    max.fetch_max(now, SeqCst);
}

#[derive(Debug)]
pub(crate) struct InstrumentedUpload {
    pub(crate) inner: Box<dyn MultipartUpload>,
    pub(crate) stats: Arc<Stats>,
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
            let reversed = stats.part_delay_reversed_ms.load(SeqCst) * (8 - (number - 1) % 8);
            let delay = (stats.part_delay_ms.load(SeqCst) + reversed) as u64;
            tokio::time::sleep(Duration::from_millis(delay)).await;
            if stats.fail_part.load(SeqCst) == number {
                return Err(object_store::Error::Generic {
                    store: "test",
                    source:
                        "Server returned non-2xx status code: 503 Service Unavailable: SlowDown"
                            .into(),
                });
            }
            let stored = inner.await;
            stats.parts_stored.lock().unwrap().push(number);
            stats.timeline.lock().unwrap().push("part".to_owned());
            stored
        })
    }

    async fn complete(&mut self) -> object_store::Result<PutResult> {
        self.stats.completes.fetch_add(1, SeqCst);
        let completed = self.inner.complete().await;
        if completed.is_ok() {
            self.stats
                .timeline
                .lock()
                .unwrap()
                .push("complete".to_owned());
        }
        completed
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
        let collides = {
            let mut collide = self.stats.collide_put.lock().unwrap();
            let hit = collide
                .as_deref()
                .is_some_and(|suffix| location.as_ref().ends_with(suffix));
            if hit {
                *collide = None;
            }
            hit
        };
        if collides {
            return Err(object_store::Error::AlreadyExists {
                path: location.to_string(),
                source: "another writer created it first".into(),
            });
        }
        if self.stats.put_fails(location) {
            return Err(object_store::Error::Generic {
                store: "test",
                source: "Server returned non-2xx status code: 503 Service Unavailable: SlowDown"
                    .into(),
            });
        }
        let delay = self
            .stats
            .put_delay
            .lock()
            .unwrap()
            .as_ref()
            .filter(|(suffix, _)| location.as_ref().ends_with(suffix.as_str()))
            .map(|(_, ms)| *ms);
        if let Some(ms) = delay {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        let put = self.inner.put_opts(location, payload, opts).await;
        if put.is_ok() {
            self.stats.after_put(location);
            self.stats
                .timeline
                .lock()
                .unwrap()
                .push(format!("put {location}"));
        }
        put
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
        self.stats.got.lock().unwrap().push(location.to_string());
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
        raise(
            &self.stats.gets_in_flight,
            &self.stats.max_gets_in_flight,
            1,
        );
        let _in_flight = Gauge(&self.stats.gets_in_flight, 1);
        let wanted = self.stats.get_rendezvous.load(SeqCst);
        let deadline = Instant::now() + Duration::from_secs(60);
        while wanted > 0
            && self.stats.max_gets_in_flight.load(SeqCst) < wanted
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
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
        self.stats.lists.fetch_add(1, SeqCst);
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

pub(crate) fn metadata(segment: u128) -> RemoteLogSegmentMetadata {
    let tp = TopicIdPartition::new(Uuid::from_u128(7), "orders", 3);
    SegmentMetadataBuilder::new(&tp, 100)
        .segment_id(Uuid::from_u128(segment))
        .size(0)
        .build()
}

/// Deterministic, position-dependent bytes.
pub(crate) fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
        .collect()
}

pub(crate) fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

pub(crate) fn segment(dir: &std::path::Path, log: &[u8], txn: bool) -> LogSegmentData {
    LogSegmentData {
        log_segment: write(dir, "s.log", log),
        offset_index: write(dir, "s.index", &pattern(80, 1)),
        time_index: write(dir, "s.timeindex", &pattern(120, 2)),
        transaction_index: txn.then(|| write(dir, "s.txnindex", &pattern(40, 3))),
        producer_snapshot_index: Some(write(dir, "s.snapshot", &pattern(30, 4))),
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 100\n"),
    }
}

pub(crate) fn read_all(mut reader: SegmentReader) -> Vec<u8> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).unwrap();
    bytes
}
