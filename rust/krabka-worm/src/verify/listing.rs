//! The one listing of a verification: every key under the archive prefix,
//! grouped by partition directory, and the partitions a request asks for.

use {
    super::{Result, report::VerifyRequest},
    crate::{WORM_PROBE_DIR, manifest::MANIFEST_SUFFIX, seal::CHAIN_DIR, tlog::LOG_DIR},
    futures_util::TryStreamExt,
    krabka_kafka::{PartitionDirName, parse_partition_dir_name},
    krabka_object_store::store::errors::to_store_error,
    object_store::{ObjectStore, path::Path},
    std::collections::BTreeMap,
};

/// The archive prefix of `request`: no leading or trailing `/`, `None` when
/// empty.
pub(super) fn archive_prefix(request: &VerifyRequest) -> Option<&str> {
    request
        .prefix
        .as_deref()
        .map(|p| p.trim_matches('/'))
        .filter(|p| !p.is_empty())
}

/// The part of a name within a partition directory after `_chain/`, when
/// it is under the chain directory.
pub(super) fn chain_name(name: &str) -> Option<&str> {
    name.strip_prefix(CHAIN_DIR)?.strip_prefix('/')
}

/// Whether a name within a partition directory is a data object: neither a
/// manifest nor anything under the chain directory.
pub(super) fn is_data_object(name: &str) -> bool {
    !name.ends_with(MANIFEST_SUFFIX) && chain_name(name).is_none()
}

/// The directory (relative to `prefix`) and the name within it of `key`;
/// `None` for a key outside any directory or in the start-up probe's.
pub(super) fn split_key<'k>(key: &'k str, prefix: Option<&str>) -> Option<(&'k str, &'k str)> {
    let relative = match prefix {
        Some(prefix) => key.strip_prefix(prefix)?.strip_prefix('/')?,
        None => key,
    };
    relative
        .split_once('/')
        .filter(|(dir, _)| *dir != WORM_PROBE_DIR)
}

/// Whether the partition directory `parsed` is in the request's scope.
pub(super) fn wanted(request: &VerifyRequest, parsed: &PartitionDirName) -> bool {
    request.topic.as_ref().is_none_or(|t| *t == parsed.topic)
        && request.partition.is_none_or(|p| p == parsed.partition)
}

/// The directory `dir` (relative to `prefix`) as keys name it.
pub(super) fn full_dir(prefix: Option<&str>, dir: &str) -> String {
    match prefix {
        Some(prefix) => format!("{prefix}/{dir}"),
        None => dir.to_owned(),
    }
}

/// The keys under the archive prefix.
pub(super) struct Listing {
    /// Objects listed, in and out of partition directories.
    pub(super) objects_listed: usize,
    /// Partition directory (relative to the prefix) -> name within it ->
    /// size; the start-up probe directory and the archive log left out.
    partitions: BTreeMap<String, BTreeMap<String, u64>>,
    /// The archive log's objects: name within its directory -> size.
    pub(super) log: BTreeMap<String, u64>,
}

/// A partition directory in scope of the request.
pub(super) struct PartitionDir {
    /// The directory, relative to the archive prefix.
    dir: String,
    /// Its topic and partition.
    pub(super) parsed: PartitionDirName,
    /// Name within the directory -> size.
    pub(super) names: BTreeMap<String, u64>,
}

impl Listing {
    /// Lists everything under `prefix` once.
    pub(super) async fn read(store: &dyn ObjectStore, prefix: Option<&str>) -> Result<Self> {
        let listed: Vec<_> = store
            .list(prefix.map(Path::from).as_ref())
            .try_collect()
            .await
            .map_err(|e| to_store_error(e, "listing of", prefix.unwrap_or("the bucket")))?;
        let objects_listed = listed.len();
        let mut partitions: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut log = BTreeMap::new();
        for meta in listed {
            let key = meta.location.to_string();
            let Some((dir, name)) = split_key(&key, prefix) else {
                continue;
            };
            if dir == LOG_DIR {
                log.insert(name.to_owned(), meta.size);
                continue;
            }
            partitions
                .entry(dir.to_owned())
                .or_default()
                .insert(name.to_owned(), meta.size);
        }
        Ok(Self {
            objects_listed,
            partitions,
            log,
        })
    }

    /// The partition directories the request's topic and partition select,
    /// sorted by directory; keys outside partition directories are dropped.
    pub(super) fn in_scope(&mut self, request: &VerifyRequest) -> Vec<PartitionDir> {
        std::mem::take(&mut self.partitions)
            .into_iter()
            .filter_map(|(dir, names)| {
                let parsed = parse_partition_dir_name(&dir)?;
                wanted(request, &parsed).then_some(PartitionDir { dir, parsed, names })
            })
            .collect()
    }
}

impl PartitionDir {
    /// The directory with the archive prefix, as keys name it.
    pub(super) fn full_dir(&self, prefix: Option<&str>) -> String {
        full_dir(prefix, &self.dir)
    }

    /// The listed sizes of the data objects in the directory.
    pub(super) fn data_object_sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.names
            .iter()
            .filter(|(name, _)| is_data_object(name))
            .map(|(_, size)| *size)
    }
}
