//! Reading every partition's history in a store without writing anything:
//! what offline tools (`krabka-tier fsck`) compare the tier with.

use {
    super::{
        history::History,
        partition::{PartitionState, StateSettings},
    },
    crate::{metrics::MetadataMetrics, store_bridge::spi_error},
    krabka_kafka::{RemoteLogSegmentMetadata, Result, TopicIdPartition, decode_kafka_uuid},
    krabka_object_store::store::{StoreHandle, errors::to_store_error},
    object_store::ObjectStore,
    std::{collections::BTreeMap, sync::Arc},
};

/// One partition's history in the store, as a reader sees it.
#[derive(Debug, Clone)]
pub struct HistoryView {
    /// The partition (its topic name as the history records it).
    pub partition: TopicIdPartition,
    /// The segments the history names that are not deleted (copy started or
    /// finished, delete started), as Kafka's listing returns them.
    pub segments: Vec<RemoteLogSegmentMetadata>,
    /// The history's objects in the store (records, snapshots, anything
    /// else under its directory).
    pub objects: Vec<String>,
    /// When its newest object was written (milliseconds since the epoch).
    pub last_written_ms: i64,
}

/// A directory under the histories' root that is not one of ours, or a
/// history that could not be read.
#[derive(Debug, Clone)]
pub struct UnreadableHistory {
    /// The directory's key.
    pub dir: String,
    /// Why.
    pub reason: String,
}

/// Reads every partition history under `root` in `store`, writing nothing
/// (no snapshot, no compaction). Blocks on the store's runtime: call it
/// from a thread that is not a runtime's.
///
/// # Errors
/// The listing's errors; a history that does not load is an
/// [`UnreadableHistory`], not an error.
pub fn read_histories(
    store: &StoreHandle,
    root: &str,
) -> Result<(Vec<HistoryView>, Vec<UnreadableHistory>)> {
    let root_key = store.key(root).map_err(spi_error)?;
    let listing_store = Arc::clone(store.store());
    let listed_root = root_key.clone();
    let listed = store.runtime().block_on(async move {
        use futures_util::TryStreamExt;
        listing_store
            .list(Some(&listed_root))
            .try_collect::<Vec<_>>()
            .await
            .map_err(|err| to_store_error(err, "listing of", listed_root.as_ref()))
    });
    let objects = listed.map_err(spi_error)?;
    // Directory name → (its keys, newest write).
    let mut dirs: BTreeMap<String, (Vec<String>, i64)> = BTreeMap::new();
    for meta in objects {
        let Some(mut parts) = meta.location.prefix_match(&root_key) else {
            continue;
        };
        let Some(dir) = parts.next() else {
            continue;
        };
        let entry = dirs.entry(dir.as_ref().to_owned()).or_default();
        entry.0.push(meta.location.to_string());
        entry.1 = entry.1.max(meta.last_modified.timestamp_millis());
    }
    let metrics = Arc::new(MetadataMetrics::new());
    let mut views = Vec::new();
    let mut unreadable = Vec::new();
    for (dir, (keys, last_written_ms)) in dirs {
        if dir == super::checkpoint::CHECKPOINT_DIR {
            // Brokers' checkpoints: copies of histories' states, no history.
            continue;
        }
        let dir_key = format!("{root_key}/{dir}");
        let Some((topic_id, partition)) = parse_dir(&dir) else {
            unreadable.push(UnreadableHistory {
                dir: dir_key,
                reason: "not a partition history's directory (<topicId>-<partition>)".to_owned(),
            });
            continue;
        };
        // The topic name is in every record and snapshot: a snapshot's, or
        // a live segment's, names the partition below.
        let history = History::new(
            store.clone(),
            root,
            TopicIdPartition::new(topic_id, "", partition),
        );
        let read_only = StateSettings {
            snapshot_every: u64::MAX,
            compact: false,
            metrics: Arc::clone(&metrics),
        };
        match PartitionState::load(history, read_only) {
            Ok(state) => {
                let segments = state.cache().list();
                let mut partition = state.cache().partition().clone();
                if partition.topic.is_empty() {
                    if let Some(named) = segments.first() {
                        partition = named.topic_id_partition().clone();
                    }
                }
                views.push(HistoryView {
                    partition,
                    segments,
                    objects: keys,
                    last_written_ms,
                });
            }
            Err(err) => unreadable.push(UnreadableHistory {
                dir: dir_key,
                reason: err.to_string(),
            }),
        }
    }
    Ok((views, unreadable))
}

/// The topic id and partition a history directory's name says.
fn parse_dir(name: &str) -> Option<(uuid::Uuid, i32)> {
    let (id, partition) = name.rsplit_once('-')?;
    let partition: i32 = partition.parse().ok().filter(|p: &i32| *p >= 0)?;
    Some((decode_kafka_uuid(id)?, partition))
}
