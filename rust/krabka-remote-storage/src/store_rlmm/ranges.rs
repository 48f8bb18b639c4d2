//! Listing many partitions' histories with a few listings: their
//! directories, sorted by key, are cut into contiguous ranges, and each range
//! is one listing from its first directory on (S3's `start-after`, GCS's
//! `startOffset`) up to past its last, the ranges listed together. A restart
//! of a broker hosting thousands of partitions then lists about one page
//! (1,000 keys) per 30 partitions instead of once per partition.

use {
    super::{history::Listing, keys::PartitionKeys},
    crate::store_bridge::spi_error,
    futures_util::{StreamExt, TryStreamExt, stream},
    krabka_kafka::{Result, TopicIdPartition},
    krabka_object_store::{
        ObjectStoreConfig,
        store::{Path, StoreError, StoreHandle, errors::to_store_error},
    },
    object_store::ObjectStore,
    std::{collections::HashMap, sync::Arc},
};

/// Whether `store` lists from a key on without reading what comes before it
/// (S3 and GCS do; a filesystem or Azure listing from an offset reads the
/// whole tree and filters it, so there each partition is listed alone).
pub(super) fn lists_from_an_offset(store: &StoreHandle) -> bool {
    matches!(
        store.config(),
        Some(ObjectStoreConfig::S3(_) | ObjectStoreConfig::Gcs(_))
    )
}

/// One partition's directory: its key followed by `/`, what its keys start
/// with (sorting by it sorts as the store lists), and the partition.
type Dir = (String, TopicIdPartition);

/// The listing of each of `partitions`' histories under `root`, from at most
/// `ranges` listings made together (an empty listing for a partition with no
/// history).
///
/// # Errors
/// The store's errors.
pub(super) fn scan_many(
    store: &StoreHandle,
    root: &str,
    partitions: &[TopicIdPartition],
    ranges: usize,
) -> Result<HashMap<TopicIdPartition, Listing>> {
    let mut dirs = partitions
        .iter()
        .map(|partition| {
            let dir = PartitionKeys::new(root, partition).dir(store)?;
            Ok((format!("{dir}/"), partition.clone()))
        })
        .collect::<std::result::Result<Vec<Dir>, StoreError>>()
        .map_err(spi_error)?;
    if dirs.is_empty() {
        return Ok(HashMap::new());
    }
    dirs.sort_by(|a, b| a.0.cmp(&b.0));
    dirs.dedup_by(|a, b| a.0 == b.0);
    let ranges = ranges.clamp(1, dirs.len());
    let per_range = dirs.len().div_ceil(ranges);
    let chunks: Vec<Vec<Dir>> = dirs.chunks(per_range).map(<[Dir]>::to_vec).collect();
    let root_key = store.key(root).map_err(spi_error)?;
    let inner = Arc::clone(store.store());
    let listed = store.runtime().block_on(async move {
        stream::iter(chunks)
            .map(|chunk| list_range(Arc::clone(&inner), root_key.clone(), chunk))
            .buffer_unordered(ranges)
            .try_collect::<Vec<_>>()
            .await
    });
    Ok(listed.map_err(spi_error)?.into_iter().flatten().collect())
}

/// The listings of the directories `range` (sorted, contiguous in key
/// order), from one listing of `root` after the first one's key up to past
/// the last one's keys; keys of other directories in between are skipped.
async fn list_range(
    store: Arc<dyn ObjectStore>,
    root: Path,
    range: Vec<Dir>,
) -> std::result::Result<Vec<(TopicIdPartition, Listing)>, StoreError> {
    let (Some((first, _)), Some((last, _))) = (range.first(), range.last()) else {
        return Ok(Vec::new());
    };
    // Every key under `<dir>/` (its children are `log` and `snapshot`) is
    // greater than `<dir>/!` and less than `<dir>0` ('0' follows '/'). The
    // offset lies inside the first directory, not at its name: SeaweedFS
    // skips a whole directory whose own name is the offset.
    let offset = Path::from(format!("{first}!"));
    let end = format!("{}0", last.trim_end_matches('/'));
    let dirs: Vec<Path> = range
        .iter()
        .map(|(dir, _)| Path::from(dir.trim_end_matches('/')))
        .collect();
    let index: HashMap<&str, usize> = range
        .iter()
        .enumerate()
        .map(|(at, (dir, _))| (dir.as_str(), at))
        .collect();
    let mut listings = vec![Listing::default(); range.len()];
    let mut entries = store.list_with_offset(Some(&root), &offset);
    while let Some(meta) = entries
        .try_next()
        .await
        .map_err(|err| to_store_error(err, "listing of", root.as_ref()))?
    {
        let key = meta.location.as_ref();
        if key >= end.as_str() {
            break;
        }
        let Some(at) = dir_of(root.as_ref(), key).and_then(|dir| index.get(dir)) else {
            continue;
        };
        listings[*at].add(&dirs[*at], meta.location);
    }
    Ok(range
        .into_iter()
        .zip(listings)
        .map(|((_, partition), mut listing)| {
            listing.sort();
            (partition, listing)
        })
        .collect())
}

/// The `<root>/<name>/` that `key` lies under, if it lies two or more
/// levels under `root`.
fn dir_of<'k>(root: &str, key: &'k str) -> Option<&'k str> {
    let rest = key.strip_prefix(root)?.strip_prefix('/')?;
    let name = rest.split('/').next()?;
    let end = root.len() + 1 + name.len() + 1;
    (key.len() > end).then(|| &key[..end])
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        object_store::{ObjectStoreExt, memory::InMemory},
        uuid::Uuid,
    };

    #[test]
    fn a_key_lies_under_its_partition_directory() {
        assert_eq!(
            dir_of("t/meta", "t/meta/AAA-4/log/1"),
            Some("t/meta/AAA-4/")
        );
        assert_eq!(dir_of("t/meta", "t/meta/AAA-4"), None);
        assert_eq!(dir_of("t/meta", "t/other/AAA-4/log/1"), None);
        assert_eq!(dir_of("t/meta", "t/metaX/AAA-4/log/1"), None);
    }

    #[test]
    fn ranges_list_each_partition_whole_and_only_its_keys() {
        let store = StoreHandle::new(Arc::new(InMemory::new()), Some("tier".to_owned())).unwrap();
        let topic = krabka_kafka::kafka_uuid(Uuid::from_u128(5));
        // Partitions 1, 10, 100 and 11 sort as strings; 2 and 3 are not asked
        // for; a sibling root must not leak in.
        let keys = [
            "meta/{topic}-1/log/00000000000000000001",
            "meta/{topic}-1/snapshot/00000000000000000001",
            "meta/{topic}-10/log/00000000000000000007",
            "meta/{topic}-100/log/00000000000000000003",
            "meta/{topic}-11/log/00000000000000000002",
            "meta/{topic}-2/log/00000000000000000001",
            "meta/_checkpoints/1/00000000000000000001/000000-of-000001",
            "metaX/{topic}-1/log/00000000000000000009",
        ];
        let inner = Arc::clone(store.store());
        store
            .runtime()
            .run(async move {
                for key in keys {
                    let key = key.replace("{topic}", &topic);
                    inner
                        .put(&Path::from(format!("tier/{key}")), "x".into())
                        .await?;
                }
                Ok::<_, object_store::Error>(())
            })
            .unwrap()
            .unwrap();
        let id = |p| TopicIdPartition::new(Uuid::from_u128(5), "t", p);
        let wanted: Vec<_> = [1, 10, 100, 11, 3].into_iter().map(id).collect();
        for ranges in [1, 2, 3, 5, 64] {
            let listed = scan_many(&store, "meta", &wanted, ranges).unwrap();
            assert_eq!(listed.len(), 5, "{ranges}");
            assert_eq!(listed[&id(1)].records, vec![1], "{ranges}");
            assert_eq!(listed[&id(1)].snapshots, vec![1], "{ranges}");
            assert_eq!(listed[&id(1)].keys.len(), 2, "{ranges}");
            assert_eq!(listed[&id(10)].records, vec![7], "{ranges}");
            assert_eq!(listed[&id(100)].records, vec![3], "{ranges}");
            assert_eq!(listed[&id(11)].records, vec![2], "{ranges}");
            assert!(listed[&id(3)].keys.is_empty(), "{ranges}");
        }
    }
}
