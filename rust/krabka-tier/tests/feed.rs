//! The replay feed: a partition's committed records in encoded chunks
//! (what the Java replay tool pulls over JNI), compared with the export.

#![allow(missing_docs)]

use {
    krabka_tier::{CHUNK_END, CHUNK_RECORDS, ExportRange, FeedError, ReplaySource},
    object_store::local::LocalFileSystem,
    std::{fs, path::Path},
    uuid::Uuid,
};

/// offset, timestamp, key, value, headers.
type Flat = (
    i64,
    i64,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Vec<(Vec<u8>, Option<Vec<u8>>)>,
);

/// A tier with topic `orders`, partition 0, the fixture `txn` segment.
fn tier() -> tempfile::TempDir {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kafka/txn");
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(format!(
        "orders-0-{}",
        krabka_kafka::kafka_uuid(Uuid::from_u128(7))
    ));
    fs::create_dir_all(&dir).unwrap();
    let name = format!(
        "{:020}-{}",
        1000,
        krabka_kafka::kafka_uuid(Uuid::from_u128(9))
    );
    for suffix in ["log", "txnindex"] {
        fs::copy(
            fixtures.join(format!("00000000000000001000.{suffix}")),
            dir.join(format!("{name}.{suffix}")),
        )
        .unwrap();
    }
    root
}

fn exported(root: &Path) -> Vec<Flat> {
    let store = LocalFileSystem::new_with_prefix(root).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let listing = krabka_tier::list_tier(&store, None).await.unwrap();
        let mut records = Vec::new();
        let mut sink = |r: &krabka_tier::ExportedRecord<'_>| {
            records.push((
                r.offset,
                r.timestamp,
                r.key.map(<[u8]>::to_vec),
                r.value.map(<[u8]>::to_vec),
                r.headers
                    .iter()
                    .map(|(k, v)| (k.to_vec(), v.map(<[u8]>::to_vec)))
                    .collect(),
            ));
            Ok(())
        };
        krabka_tier::export_partition(&store, &listing[0], &ExportRange::default(), &mut sink)
            .await
            .unwrap();
        records
    })
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }
    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.take(4).try_into().unwrap())
    }
    fn i64(&mut self) -> i64 {
        i64::from_be_bytes(self.take(8).try_into().unwrap())
    }
    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = self.i32();
        (n >= 0).then(|| self.take(n as usize).to_vec())
    }
}

/// Every record of the feed, the number of record chunks and the end JSON.
fn drain(source: &ReplaySource, skip: u64) -> (Vec<Flat>, usize, serde_json::Value) {
    let feed = source.feed(0, skip, 64).unwrap();
    let mut records = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = feed.next_chunk() {
        match chunk[0] {
            CHUNK_RECORDS => {
                chunks += 1;
                let mut r = Reader(&chunk[1..]);
                for _ in 0..r.i32() {
                    let (offset, timestamp) = (r.i64(), r.i64());
                    let (key, value) = (r.bytes(), r.bytes());
                    let headers = (0..r.i32())
                        .map(|_| (r.bytes().unwrap(), r.bytes()))
                        .collect();
                    records.push((offset, timestamp, key, value, headers));
                }
                assert!(r.0.is_empty());
            }
            CHUNK_END => {
                assert_eq!(chunk[1], 0, "failed");
                let mut r = Reader(&chunk[2..]);
                assert_eq!((r.i32(), r.i32()), (0, 0), "problems, gaps");
                let end = serde_json::from_slice(r.0).unwrap();
                assert!(feed.next_chunk().is_none());
                return (records, chunks, end);
            }
            other => panic!("chunk kind {other}"),
        }
    }
    panic!("no end chunk");
}

#[test]
fn the_feed_carries_the_committed_records_in_chunks_and_resumes_after_a_count() {
    let root = tier();
    let local = root.path().to_str().unwrap().to_owned();
    let args: Vec<String> = ["--local", &local, "--topic", "orders"]
        .map(str::to_owned)
        .to_vec();
    let source = ReplaySource::open(&args).unwrap();
    assert_eq!(source.partitions(), vec![0]);
    let want = exported(root.path());
    assert!(want.len() > 4);
    let (records, chunks, end) = drain(&source, 0);
    assert_eq!(records, want);
    assert!(chunks > 1, "{chunks}");
    assert_eq!(end["summary"]["records"], want.len());
    assert_eq!(end["summary"]["aborted_batches"], 3);
    let (records, _, end) = drain(&source, 3);
    assert_eq!(records, want[3..].to_vec());
    assert_eq!(end["skipped"], 3);
}

#[test]
fn bad_options_and_unknown_topics_are_refused() {
    let root = tier();
    let local = root.path().to_str().unwrap().to_owned();
    let open = |args: &[&str]| {
        ReplaySource::open(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>())
    };
    assert!(matches!(
        open(&["--local", &local]),
        Err(FeedError::Usage(_))
    ));
    assert!(matches!(open(&["--help"]), Err(FeedError::Help(_))));
    assert!(matches!(
        open(&["--local", &local, "--topic", "payments"]),
        Err(FeedError::Tier(_))
    ));
    let source = open(&["--local", &local, "--topic", "orders"]).unwrap();
    assert!(matches!(
        source.feed(5, 0, 64),
        Err(FeedError::UnknownPartition(5))
    ));
}
