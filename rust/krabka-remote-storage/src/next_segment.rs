//! What a consumer catching up reads after a segment: the next segment of
//! the partition, found by one listing.
//!
//! A partition's keys are `<partition dir>/<start offset, 20 digits>-<segment
//! id><suffix>`, so they sort by start offset: the first segment listed after
//! a segment's own objects (`start-after` its log's key) is the next one
//! copied. The read cache warms its log and the indexes Kafka fetches before
//! reading a segment it has not read yet (offset, time, transaction) when a
//! sequential reader nears the end of the current log (see
//! `krabka_object_store::store::cache`).
//!
//! A segment without a log object is skipped for nothing is warmed (a copy
//! uploads its log last). A dead leader's unfinished copy listed next is
//! warmed like any: what it costs is bounded like all read-ahead, and
//! counted when never read.

use {
    futures_util::{FutureExt, StreamExt},
    krabka_kafka::{IndexType, LOG_FILE_SUFFIX, parse_segment_file_name},
    krabka_object_store::store::{Path, Result, cache::NextObjects, errors::to_store_error},
    object_store::ObjectStore,
    std::sync::Arc,
    uuid::Uuid,
};

/// Keys listed at most after a segment's log: the rest of its own objects
/// (up to five indexes) and the next segment's (a log and five indexes),
/// with room for a stray object between.
const LISTED_AT_MOST: usize = 16;

/// Suffixes of the objects worth warming, in the order they are worth it:
/// the log, then the indexes Kafka fetches (in that order) before it reads
/// a segment new to it.
const WARMED_SUFFIXES: [&str; 4] = [
    LOG_FILE_SUFFIX,
    IndexType::Offset.suffix(),
    IndexType::Timestamp.suffix(),
    IndexType::Transaction.suffix(),
];

/// The [`NextObjects`] of the segment whose log is `log`, in the partition
/// directory `dir`.
pub(crate) fn after(store: Arc<dyn ObjectStore>, dir: Path, log: Path) -> NextObjects {
    Arc::new(move || {
        let (store, dir, log) = (Arc::clone(&store), dir.clone(), log.clone());
        async move { next_segment_objects(&*store, &dir, &log).await }.boxed()
    })
}

/// The objects worth warming of the segment listed after the one whose log
/// is `log`: in [`WARMED_SUFFIXES`] order, none when no segment with a log
/// follows within [`LISTED_AT_MOST`] keys.
///
/// # Errors
/// The listing's failure.
pub(crate) async fn next_segment_objects(
    store: &dyn ObjectStore,
    dir: &Path,
    log: &Path,
) -> Result<Vec<Path>> {
    let current = segment_of(log);
    let mut listing = store.list_with_offset(Some(dir), log).take(LISTED_AT_MOST);
    let mut next: Option<(i64, Uuid)> = None;
    let mut found: Vec<(usize, Path)> = Vec::new();
    while let Some(listed) = listing.next().await {
        let listed = listed.map_err(|e| to_store_error(e, "listing after", log.as_ref()))?;
        let Some(name) = listed.location.filename() else {
            continue;
        };
        let Some(parsed) = parse_segment_file_name(name) else {
            continue;
        };
        let segment = (parsed.base_offset, parsed.segment_id);
        if Some(segment) == current {
            continue;
        }
        match next {
            None => next = Some(segment),
            Some(next) if next != segment => break,
            Some(_) => {}
        }
        if let Some(rank) = WARMED_SUFFIXES.iter().position(|s| *s == parsed.suffix) {
            found.push((rank, listed.location));
        }
    }
    if !found.iter().any(|(rank, _)| *rank == 0) {
        return Ok(Vec::new());
    }
    found.sort_by_key(|(rank, _)| *rank);
    Ok(found.into_iter().map(|(_, key)| key).collect())
}

/// The start offset and id of the segment whose object is `key`.
fn segment_of(key: &Path) -> Option<(i64, Uuid)> {
    let parsed = parse_segment_file_name(key.filename()?)?;
    Some((parsed.base_offset, parsed.segment_id))
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        krabka_kafka::{RemoteLogSegmentMetadata, TopicIdPartition, segment_file_name},
        object_store::{ObjectStoreExt, PutPayload, memory::InMemory},
    };

    fn metadata(start: i64, id: u128) -> RemoteLogSegmentMetadata {
        let tp = TopicIdPartition::new(Uuid::from_u128(1), "t", 0);
        crate::test_metadata::SegmentMetadataBuilder::new(&tp, start)
            .segment_id(Uuid::from_u128(id))
            .end_offset(start + 9)
            .size(10)
            .build()
    }

    fn key(start: i64, id: u128, suffix: &str) -> Path {
        Path::from(format!(
            "p/t-0-dir/{}",
            segment_file_name(&metadata(start, id), suffix)
        ))
    }

    async fn put_all(store: &InMemory, keys: &[Path]) {
        for key in keys {
            store.put(key, PutPayload::from_static(b"x")).await.unwrap();
        }
    }

    fn all_suffixes() -> Vec<&'static str> {
        let mut suffixes = vec![LOG_FILE_SUFFIX];
        suffixes.extend(IndexType::ALL.iter().map(|index| index.suffix()));
        suffixes
    }

    #[tokio::test]
    async fn the_next_segments_log_then_the_indexes_kafka_reads_first() {
        let store = InMemory::new();
        let mut keys = Vec::new();
        for (start, id) in [(0, 7), (10, 3), (20, 9)] {
            for suffix in all_suffixes() {
                keys.push(key(start, id, suffix));
            }
        }
        put_all(&store, &keys).await;
        let dir = Path::from("p/t-0-dir");
        let next = next_segment_objects(&store, &dir, &key(0, 7, ".log"))
            .await
            .unwrap();
        assert_eq!(
            next,
            vec![
                key(10, 3, ".log"),
                key(10, 3, ".index"),
                key(10, 3, ".timeindex"),
                key(10, 3, ".txnindex"),
            ]
        );
        let last = next_segment_objects(&store, &dir, &key(20, 9, ".log"))
            .await
            .unwrap();
        assert!(
            last.is_empty(),
            "nothing follows the last segment: {last:?}"
        );
    }

    #[tokio::test]
    async fn a_segment_without_a_log_or_a_transaction_index() {
        let store = InMemory::new();
        put_all(
            &store,
            &[
                key(0, 1, ".log"),
                key(0, 1, ".index"),
                // An unfinished copy: indexes only.
                key(10, 2, ".index"),
                key(10, 2, ".timeindex"),
                key(30, 4, ".log"),
            ],
        )
        .await;
        let dir = Path::from("p/t-0-dir");
        let next = next_segment_objects(&store, &dir, &key(0, 1, ".log"))
            .await
            .unwrap();
        assert!(
            next.is_empty(),
            "the next segment listed has no log: {next:?}"
        );
        let next = next_segment_objects(&store, &dir, &key(10, 2, ".log"))
            .await
            .unwrap();
        assert_eq!(next, vec![key(30, 4, ".log")]);
    }

    #[tokio::test]
    async fn another_partitions_keys_and_stray_names_are_not_read() {
        let store = InMemory::new();
        put_all(
            &store,
            &[
                key(0, 1, ".log"),
                Path::from("p/t-0-dir/notes.txt"),
                Path::from(format!(
                    "p/t-1-dir/{}",
                    segment_file_name(&metadata(5, 5), ".log")
                )),
            ],
        )
        .await;
        let dir = Path::from("p/t-0-dir");
        let next = next_segment_objects(&store, &dir, &key(0, 1, ".log"))
            .await
            .unwrap();
        assert!(next.is_empty(), "{next:?}");
    }
}
