//! [`segment_details`]: what `list` tells of one segment copy beyond its
//! files — its last offset, its largest timestamp and the leader epochs it
//! covers — read from the copy's own small files and the tail of its log.
//!
//! - **Leader epochs**: the `.leader_epoch_checkpoint` the plugin uploads
//!   with every segment (the broker's epoch cache up to the segment's end).
//! - **Largest timestamp**: the last entry of the `.timeindex` (Kafka
//!   appends the segment's largest timestamp when it rolls the segment);
//!   without one, the largest batch timestamp of the log's tail.
//! - **Last offset**: the last batch of the log, found by reading batch
//!   headers from the last `.index` entry's position (a few KiB, whatever
//!   the segment's size); without an index, from the start of the log.
//!
//! A file that cannot be read or decoded leaves its field empty and adds a
//! problem naming the key; the listing goes on.

use {
    crate::{
        BatchStream, TierError, epochs::parse_leader_epoch_checkpoint, listing::SegmentListing,
    },
    krabka_kafka::{
        IndexType,
        index::{parse_offset_index, parse_time_index},
    },
    object_store::{ObjectStore, ObjectStoreExt, path::Path},
    serde::Serialize,
};

/// Index and checkpoint files larger than this are not read for a listing.
const MAX_SMALL_FILE: u64 = 64 * 1024 * 1024;

/// One entry of a segment's leader-epoch checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EpochStart {
    /// The leader epoch.
    pub epoch: i32,
    /// The first offset written in it.
    pub start_offset: i64,
}

/// The offsets, timestamps and leader epochs of one segment copy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SegmentDetails {
    /// The offset of the last record (of the last batch), when the log
    /// could be read.
    pub end_offset: Option<i64>,
    /// The largest record timestamp, in milliseconds since the epoch.
    pub max_timestamp: Option<i64>,
    /// The leader epochs up to the segment's end, from its checkpoint.
    pub leader_epochs: Vec<EpochStart>,
    /// What could not be read, by key.
    pub problems: Vec<String>,
}

/// Reads the details of `segment` from `store`.
///
/// # Errors
/// [`TierError::Store`] only when the store fails for a reason other than
/// a missing object; undecodable files are problems in the result.
pub async fn segment_details(
    store: &dyn ObjectStore,
    segment: &SegmentListing,
) -> Result<SegmentDetails, TierError> {
    match read_details(store, segment).await {
        // A segment in the chunked format that cannot be decoded (its key
        // pair not given, a damaged chunk) is a problem of that segment, not
        // of the listing.
        Err(TierError::Store {
            key,
            source:
                object_store::Error::Generic {
                    store: "chunked segment",
                    source,
                },
            ..
        }) => Ok(SegmentDetails {
            problems: vec![format!("{key}: {source}")],
            ..SegmentDetails::default()
        }),
        other => other,
    }
}

async fn read_details(
    store: &dyn ObjectStore,
    segment: &SegmentListing,
) -> Result<SegmentDetails, TierError> {
    let mut details = SegmentDetails::default();
    if let Some(key) = segment.file(IndexType::LeaderEpoch.suffix()) {
        if let Some(bytes) = read_small(store, key, &mut details.problems).await? {
            match parse_leader_epoch_checkpoint(&bytes) {
                Ok(entries) => {
                    details.leader_epochs = entries
                        .into_iter()
                        .map(|(epoch, start_offset)| EpochStart {
                            epoch,
                            start_offset,
                        })
                        .collect();
                }
                Err(err) => details.problems.push(format!("{key}: {err}")),
            }
        }
    }
    if let Some(key) = segment.file(IndexType::Timestamp.suffix()) {
        if let Some(bytes) = read_small(store, key, &mut details.problems).await? {
            match parse_time_index(&bytes) {
                Ok(entries) => {
                    details.max_timestamp = entries.last().map(|entry| entry.timestamp.get());
                }
                Err(err) => details.problems.push(format!("{key}: {err}")),
            }
        }
    }
    let Some(log) = segment.log_key.as_deref() else {
        details.problems.push(format!(
            "segment {} at offset {} has no .log",
            krabka_kafka::kafka_uuid(segment.segment_id),
            segment.start_offset
        ));
        return Ok(details);
    };
    let from = tail_position(store, segment, &mut details.problems).await?;
    let mut batches = BatchStream::open_at(store, log, from).await?;
    let mut tail_max_timestamp = None;
    loop {
        match batches.next().await {
            Ok(Some(batch)) => {
                details.end_offset = batch.last_offset().or(details.end_offset);
                tail_max_timestamp = tail_max_timestamp.max(batch.max_timestamp());
            }
            Ok(None) => break,
            Err(Ok(problem)) => {
                details.problems.push(format!("{log}: {problem}"));
                break;
            }
            Err(Err(err)) => return Err(err),
        }
    }
    if details.max_timestamp.is_none() {
        details.max_timestamp = tail_max_timestamp;
    }
    Ok(details)
}

/// Where the log's last indexed batch starts (0 without a usable index).
async fn tail_position(
    store: &dyn ObjectStore,
    segment: &SegmentListing,
    problems: &mut Vec<String>,
) -> Result<u64, TierError> {
    let Some(key) = segment.file(IndexType::Offset.suffix()) else {
        return Ok(0);
    };
    let Some(bytes) = read_small(store, key, problems).await? else {
        return Ok(0);
    };
    match parse_offset_index(&bytes) {
        Ok(entries) => Ok(entries
            .last()
            .map_or(0, |entry| u64::from(entry.position.get()))
            .min(segment.log_bytes)),
        Err(err) => {
            problems.push(format!("{key}: {err}"));
            Ok(0)
        }
    }
}

/// The bytes of a small file, `None` (with a problem) when it is missing
/// or larger than [`MAX_SMALL_FILE`].
async fn read_small(
    store: &dyn ObjectStore,
    key: &str,
    problems: &mut Vec<String>,
) -> Result<Option<bytes::Bytes>, TierError> {
    let store_error = |source| TierError::Store {
        operation: "read of",
        key: key.to_owned(),
        source,
    };
    let got = match store.get(&Path::from(key)).await {
        Ok(got) => got,
        Err(object_store::Error::NotFound { .. }) => {
            problems.push(format!("{key}: listed, then gone"));
            return Ok(None);
        }
        Err(source) => return Err(store_error(source)),
    };
    if got.meta.size > MAX_SMALL_FILE {
        problems.push(format!(
            "{key}: {} bytes, not read for a listing",
            got.meta.size
        ));
        return Ok(None);
    }
    got.bytes().await.map(Some).map_err(store_error)
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::list_tier,
        object_store::{PutPayload, memory::InMemory},
        uuid::Uuid,
    };

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/kafka")
                .join(name),
        )
        .unwrap()
    }

    /// A store holding one copy of the `txn` fixture segment (offset 1000),
    /// with the files named in `files` (suffix, fixture file or bytes).
    async fn store_with(files: &[(&str, Vec<u8>)]) -> (InMemory, SegmentListing) {
        let store = InMemory::new();
        let dir = format!("orders-2-{}", krabka_kafka::kafka_uuid(Uuid::from_u128(7)));
        let base = format!(
            "{dir}/{:020}-{}",
            1000,
            krabka_kafka::kafka_uuid(Uuid::from_u128(9))
        );
        for (suffix, bytes) in files {
            store
                .put(
                    &Path::from(format!("{base}{suffix}")),
                    PutPayload::from(bytes.clone()),
                )
                .await
                .unwrap();
        }
        let listing = list_tier(&store, None).await.unwrap();
        let segment = listing[0].segments[0].clone();
        (store, segment)
    }

    /// The last offset and largest timestamp of `log`, read batch by batch
    /// from its start: what the details must agree with.
    async fn truth(log: &[u8]) -> (i64, i64) {
        let store = InMemory::new();
        store
            .put(&Path::from("log"), PutPayload::from(log.to_vec()))
            .await
            .unwrap();
        let mut batches = BatchStream::open(&store, "log").await.unwrap();
        let (mut last, mut max) = (i64::MIN, i64::MIN);
        while let Some(batch) = batches.next().await.unwrap() {
            last = batch.last_offset().unwrap();
            max = max.max(batch.max_timestamp().unwrap());
        }
        (last, max)
    }

    #[tokio::test]
    async fn details_agree_with_a_full_read_of_the_log() {
        let log = fixture("txn/00000000000000001000.log");
        let (last, max) = truth(&log).await;
        let (store, segment) = store_with(&[
            (".log", log),
            (".index", fixture("txn/00000000000000001000.index")),
            (".timeindex", fixture("txn/00000000000000001000.timeindex")),
            (".leader_epoch_checkpoint", b"0\n2\n0 0\n3 1010\n".to_vec()),
        ])
        .await;
        let details = segment_details(&store, &segment).await.unwrap();
        assert_eq!(details.end_offset, Some(last));
        assert_eq!(details.max_timestamp, Some(max));
        assert_eq!(
            details.leader_epochs,
            vec![
                EpochStart {
                    epoch: 0,
                    start_offset: 0
                },
                EpochStart {
                    epoch: 3,
                    start_offset: 1010
                }
            ]
        );
        assert!(details.problems.is_empty(), "{:?}", details.problems);
    }

    #[tokio::test]
    async fn without_indexes_the_log_alone_answers_and_bad_files_are_named() {
        let log = fixture("txn/00000000000000001000.log");
        let (last, max) = truth(&log).await;
        let (store, segment) = store_with(&[
            (".log", log),
            (".timeindex", vec![1, 2, 3]),
            (".leader_epoch_checkpoint", b"not a checkpoint".to_vec()),
        ])
        .await;
        let details = segment_details(&store, &segment).await.unwrap();
        assert_eq!(details.end_offset, Some(last));
        assert_eq!(details.max_timestamp, Some(max));
        assert!(details.leader_epochs.is_empty());
        assert_eq!(details.problems.len(), 2, "{:?}", details.problems);
        assert!(
            details.problems.iter().all(|p| p.contains("orders-2-")),
            "{:?}",
            details.problems
        );
    }

    #[tokio::test]
    async fn a_truncated_log_is_a_problem_not_an_error() {
        let mut log = fixture("txn/00000000000000001000.log");
        log.truncate(log.len() - 10);
        let (store, segment) = store_with(&[(".log", log)]).await;
        let details = segment_details(&store, &segment).await.unwrap();
        assert!(details.end_offset.is_some());
        assert!(
            details.problems.iter().any(|p| p.contains("truncated")),
            "{:?}",
            details.problems
        );
    }
}
