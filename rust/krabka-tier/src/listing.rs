//! [`list_tier`]: what a tier holds, from one listing of its keys.

use {
    crate::{
        TierError,
        details::{SegmentDetails, segment_details},
    },
    futures_util::TryStreamExt,
    krabka_kafka::{LOG_FILE_SUFFIX, parse_partition_dir_name, parse_segment_file_name},
    object_store::{ObjectStore, path::Path},
    serde::Serialize,
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// One segment copy of a partition: its files, by suffix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentListing {
    /// The segment's start offset (from its file names).
    pub start_offset: i64,
    /// The segment copy's id.
    pub segment_id: Uuid,
    /// The key of the `.log`, `None` when only other files are present.
    pub log_key: Option<String>,
    /// The size of the `.log` in bytes (0 without one).
    pub log_bytes: u64,
    /// Every file of the copy: suffix → key.
    pub files: BTreeMap<String, String>,
    /// When its newest file was written (milliseconds since the epoch).
    pub last_modified_ms: i64,
    /// Its last offset, largest timestamp and leader epochs, once read
    /// ([`add_details`]; a listing of keys alone has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<SegmentDetails>,
}

impl SegmentListing {
    /// The key of the file with `suffix`.
    #[must_use]
    pub fn file(&self, suffix: &str) -> Option<&str> {
        self.files.get(suffix).map(String::as_str)
    }
}

/// One partition directory of the tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionListing {
    /// The directory's key (prefix included).
    pub dir: String,
    /// Topic name.
    pub topic: String,
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition number.
    pub partition: i32,
    /// Segment copies by start offset, then id.
    pub segments: Vec<SegmentListing>,
    /// Keys in the directory that are not segment files (archive manifests
    /// and seals are segment files or under `_chain/`; both are counted
    /// here only when unrecognised).
    pub other_keys: Vec<String>,
}

/// Lists the tier under `prefix`: every partition directory whose name the
/// key codec reads, with its segment copies. Keys outside partition
/// directories are left out.
///
/// # Errors
/// [`TierError::Store`] when the store cannot be listed.
pub async fn list_tier(
    store: &dyn ObjectStore,
    prefix: Option<&str>,
) -> Result<Vec<PartitionListing>, TierError> {
    let prefix = prefix
        .map(|p| p.trim_matches('/'))
        .filter(|p| !p.is_empty());
    let listed: Vec<_> = store
        .list(prefix.map(Path::from).as_ref())
        .try_collect()
        .await
        .map_err(|source| TierError::Store {
            operation: "listing of",
            key: prefix.unwrap_or("/").to_owned(),
            source,
        })?;
    let mut partitions: BTreeMap<String, PartitionListing> = BTreeMap::new();
    let mut segments: BTreeMap<(String, i64, Uuid), SegmentListing> = BTreeMap::new();
    for meta in listed {
        let key = meta.location.to_string();
        let relative = match prefix {
            Some(p) => match key.strip_prefix(p).and_then(|k| k.strip_prefix('/')) {
                Some(rest) => rest,
                None => continue,
            },
            None => key.as_str(),
        };
        let Some((dir_name, file)) = relative.split_once('/') else {
            continue;
        };
        let Some(parsed) = parse_partition_dir_name(dir_name) else {
            continue;
        };
        let dir = match prefix {
            Some(p) => format!("{p}/{dir_name}"),
            None => dir_name.to_owned(),
        };
        let partition = partitions
            .entry(dir.clone())
            .or_insert_with(|| PartitionListing {
                dir: dir.clone(),
                topic: parsed.topic.clone(),
                topic_id: parsed.topic_id,
                partition: parsed.partition,
                segments: Vec::new(),
                other_keys: Vec::new(),
            });
        match parse_segment_file_name(file) {
            Some(name) if !file.contains('/') => {
                let segment = segments
                    .entry((dir, name.base_offset, name.segment_id))
                    .or_insert_with(|| SegmentListing {
                        start_offset: name.base_offset,
                        segment_id: name.segment_id,
                        log_key: None,
                        log_bytes: 0,
                        files: BTreeMap::new(),
                        last_modified_ms: 0,
                        details: None,
                    });
                segment.last_modified_ms = segment
                    .last_modified_ms
                    .max(meta.last_modified.timestamp_millis());
                if name.suffix == LOG_FILE_SUFFIX {
                    segment.log_key = Some(key.clone());
                    segment.log_bytes = meta.size;
                }
                segment.files.insert(name.suffix.to_owned(), key);
            }
            _ => partition.other_keys.push(key),
        }
    }
    for ((dir, _, _), segment) in segments {
        if let Some(partition) = partitions.get_mut(&dir) {
            partition.segments.push(segment);
        }
    }
    Ok(partitions.into_values().collect())
}

/// Reads the details ([`SegmentDetails`]: last offset, largest timestamp,
/// leader epochs) of every segment copy of `partitions`: a few small reads
/// per copy, never a whole log.
///
/// # Errors
/// [`TierError::Store`] when the store fails for a reason other than a
/// missing object.
pub async fn add_details(
    store: &dyn ObjectStore,
    partitions: &mut [PartitionListing],
) -> Result<(), TierError> {
    for partition in partitions {
        for segment in &mut partition.segments {
            segment.details = Some(segment_details(store, segment).await?);
        }
    }
    Ok(())
}
