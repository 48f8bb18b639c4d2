//! A broker's checkpoint: the state of every partition it held, written in
//! a few objects when it closes, so that its restart reads a handful of
//! objects instead of one snapshot per partition.
//!
//! Keys: `<root>/_checkpoints/<broker>/<written:020>/<index:06>-of-<count:06>`,
//! `written` the milliseconds since the epoch when it was written. A
//! checkpoint counts only when all `count` parts are listed; its parts hold
//! snapshots in the format of the per-partition ones (`KRMS`), each the state
//! after the records up to its `through`.
//!
//! A checkpoint is a hint, never the truth: the records are. A restarted
//! broker uses a partition's entry only where a fresh listing of the
//! partition's history shows it is still the state there (no snapshot after
//! it, its records contiguous after it), and reads the newer records after
//! it like any tail.
//!
//! Part format (big-endian): `"KRMC"`, `u8` version = 1, `u32` count, then
//! count × (`u32` length, a snapshot's bytes).

use {
    super::history::{delete_objects, get_whole},
    crate::store_bridge::spi_error,
    bytes::Bytes,
    futures_util::{StreamExt, TryStreamExt, stream},
    krabka_kafka::{
        MAX_SNAPSHOT_BYTES, MetadataSnapshot, RemoteStorageError, Result, TopicIdPartition,
        decode_snapshot,
    },
    krabka_object_store::store::{
        Path, StoreErrorClass, StoreHandle, errors::to_store_error, upload::create_only_put,
    },
    std::{
        collections::{BTreeMap, HashMap},
        sync::Arc,
    },
    tokio_util::sync::CancellationToken,
};

/// The directory of the checkpoints under the histories' root. It is not a
/// partition history's directory (those are `<topicId>-<partition>`).
pub(crate) const CHECKPOINT_DIR: &str = "_checkpoints";
/// The format's magic bytes.
const MAGIC: &[u8; 4] = b"KRMC";
/// The format's version.
const VERSION: u8 = 1;
/// The size past which a part is closed and the next one begun (a part
/// holds at least one snapshot, so one larger snapshot makes a larger part).
const PART_TARGET_BYTES: usize = 4 * 1024 * 1024;
/// The largest part a reader accepts.
const MAX_PART_BYTES: usize = MAX_SNAPSHOT_BYTES + PART_TARGET_BYTES;
/// The most parts a checkpoint may have.
const MAX_PARTS: usize = 999_999;
/// Parts written or read at once.
const PARTS_AT_ONCE: usize = 8;
/// Width of the zero-padded numbers in the keys.
const STAMP_WIDTH: usize = 20;
/// Width of the part index and count.
const PART_WIDTH: usize = 6;

/// A broker's checkpoints as listed: by stamp, each's parts by (index,
/// count).
type Listed = BTreeMap<u64, BTreeMap<(usize, usize), Path>>;

/// Where one broker's checkpoints live.
#[derive(Debug, Clone)]
pub(super) struct Checkpoints {
    store: StoreHandle,
    /// `<root>/_checkpoints/<broker>`, relative to the handle's prefix.
    dir: String,
}

/// What a written checkpoint holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CheckpointWritten {
    /// Partitions in it.
    pub(super) partitions: usize,
    /// Its parts.
    pub(super) parts: usize,
    /// Their bytes.
    pub(super) bytes: usize,
}

impl Checkpoints {
    /// The checkpoints of broker `broker` under `root` in `store`.
    pub(super) fn new(store: StoreHandle, root: &str, broker: i32) -> Self {
        Self {
            store,
            dir: format!("{root}/{CHECKPOINT_DIR}/{broker}"),
        }
    }

    /// Writes a checkpoint of `snapshots` (each encoded by
    /// `encode_snapshot`: a partition's state is encoded as soon as it is
    /// taken, so the checkpoint holds only bytes) stamped `written_ms`, its
    /// parts create-only, then deletes this broker's older checkpoints when
    /// `compact`.
    ///
    /// # Errors
    /// The store's errors; a part another writer created first (two closes
    /// in one millisecond) is [`RemoteStorageError::Fenced`].
    pub(super) fn write(
        &self,
        snapshots: Vec<Vec<u8>>,
        written_ms: u64,
        compact: bool,
    ) -> Result<CheckpointWritten> {
        let partitions = snapshots.len();
        let parts = pack_parts(snapshots);
        if parts.len() > MAX_PARTS {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "a checkpoint of {partitions} partitions needs {} parts (at most {MAX_PARTS})",
                parts.len()
            )));
        }
        let count = parts.len();
        let bytes = parts.iter().map(Vec::len).sum();
        let keyed = parts
            .into_iter()
            .enumerate()
            .map(|(index, part)| Ok((self.part_key(written_ms, index, count)?, part)))
            .collect::<Result<Vec<_>>>()?;
        let inner = Arc::clone(self.store.store());
        let created = self.store.runtime().run(async move {
            stream::iter(keyed)
                .map(|(key, part)| {
                    let inner = Arc::clone(&inner);
                    async move {
                        let put = create_only_put(
                            inner.as_ref(),
                            &key,
                            Bytes::from(part),
                            &CancellationToken::new(),
                        )
                        .await;
                        (key, put)
                    }
                })
                .buffer_unordered(PARTS_AT_ONCE)
                .collect::<Vec<_>>()
                .await
        });
        for (key, put) in created.map_err(spi_error)? {
            match put {
                Ok(_) => {}
                Err(err) if err.class() == StoreErrorClass::AlreadyExists => {
                    return Err(RemoteStorageError::Fenced {
                        partition: format!("checkpoint `{key}`"),
                        sequence: written_ms,
                    });
                }
                Err(err) => return Err(spi_error(err)),
            }
        }
        if compact {
            let older: Vec<Path> = self
                .list()?
                .into_iter()
                .filter(|(stamp, _)| *stamp != written_ms)
                .flat_map(|(_, parts)| parts.into_values())
                .collect();
            delete_objects(&self.store, older, "older remote log metadata checkpoints")?;
        }
        Ok(CheckpointWritten {
            partitions,
            parts: count,
            bytes,
        })
    }

    /// The newest complete checkpoint's snapshots by partition (empty when
    /// there is none), its parts read together.
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Corrupt`] for a part that
    /// does not decode.
    pub(super) fn read_newest(&self) -> Result<HashMap<TopicIdPartition, MetadataSnapshot>> {
        let listed = self.list()?;
        let newest = listed.into_iter().rev().find_map(|(stamp, parts)| {
            let count = parts.keys().next().map(|(_, count)| *count)?;
            let complete = parts.len() == count
                && parts
                    .keys()
                    .enumerate()
                    .all(|(expected, (index, of))| *index == expected && *of == count);
            complete.then_some((stamp, parts))
        });
        let Some((_, parts)) = newest else {
            return Ok(HashMap::new());
        };
        let inner = Arc::clone(self.store.store());
        let fetched = self.store.runtime().run(async move {
            stream::iter(parts.into_values())
                .map(|key| {
                    let inner = Arc::clone(&inner);
                    async move {
                        let bytes = get_whole(inner.as_ref(), &key, MAX_PART_BYTES).await;
                        (key, bytes)
                    }
                })
                .buffer_unordered(PARTS_AT_ONCE)
                .collect::<Vec<_>>()
                .await
        });
        let mut snapshots = HashMap::new();
        for (key, bytes) in fetched.map_err(spi_error)? {
            let Some(bytes) = bytes.map_err(spi_error)? else {
                // Replaced by a newer one while it was read.
                return Ok(HashMap::new());
            };
            for snapshot in decode_part(&bytes).map_err(|err| match err {
                RemoteStorageError::Corrupt { format, detail } => RemoteStorageError::Corrupt {
                    format,
                    detail: format!("`{key}`: {detail}"),
                },
                other => other,
            })? {
                snapshots.insert(snapshot.partition.clone(), snapshot);
            }
        }
        Ok(snapshots)
    }

    /// This broker's checkpoint parts, by stamp, then by (index, count).
    fn list(&self) -> Result<Listed> {
        let dir = self.store.key(&self.dir).map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let listed = self.store.runtime().block_on(async move {
            let mut found = Listed::new();
            let mut entries = store.list(Some(&dir));
            while let Some(meta) = entries
                .try_next()
                .await
                .map_err(|err| to_store_error(err, "listing of", dir.as_ref()))?
            {
                if let Some((stamp, index, count)) = parse_part(&dir, &meta.location) {
                    found
                        .entry(stamp)
                        .or_default()
                        .insert((index, count), meta.location);
                }
            }
            Ok(found)
        });
        listed.map_err(spi_error)
    }

    /// The key of part `index` of `count` of the checkpoint `written_ms`.
    fn part_key(&self, written_ms: u64, index: usize, count: usize) -> Result<Path> {
        self.store
            .key(&format!(
                "{}/{written_ms:0STAMP_WIDTH$}/{index:0PART_WIDTH$}-of-{count:0PART_WIDTH$}",
                self.dir
            ))
            .map_err(spi_error)
    }
}

/// The stamp, index and count a part's key under `dir` says, if it is one.
fn parse_part(dir: &Path, key: &Path) -> Option<(u64, usize, usize)> {
    let mut parts = key.prefix_match(dir)?;
    let stamp = parts.next()?;
    let name = parts.next()?;
    if parts.next().is_some() {
        return None;
    }
    let stamp = stamp.as_ref();
    if stamp.len() != STAMP_WIDTH || !stamp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (index, count) = name.as_ref().split_once("-of-")?;
    let number = |text: &str| -> Option<usize> {
        (text.len() == PART_WIDTH && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse().ok())
            .flatten()
    };
    let (index, count) = (number(index)?, number(count)?);
    (index < count).then_some((stamp.parse().ok()?, index, count))
}

/// Encoded `snapshots` packed into parts of about `PART_TARGET_BYTES`
/// each.
fn pack_parts(snapshots: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let mut current: Vec<Vec<u8>> = Vec::new();
    let mut size = 0;
    for encoded in snapshots {
        if !current.is_empty() && size + encoded.len() > PART_TARGET_BYTES {
            parts.push(encode_part(&std::mem::take(&mut current)));
            size = 0;
        }
        size += encoded.len() + 4;
        current.push(encoded);
    }
    if !current.is_empty() {
        parts.push(encode_part(&current));
    }
    parts
}

/// One part holding `snapshots` (each already encoded, each at most
/// `MAX_SNAPSHOT_BYTES`, and at most `u32::MAX` of them).
fn encode_part(snapshots: &[Vec<u8>]) -> Vec<u8> {
    let size = 9 + snapshots.iter().map(|s| s.len() + 4).sum::<usize>();
    let mut bytes = Vec::with_capacity(size);
    bytes.extend_from_slice(MAGIC);
    bytes.push(VERSION);
    bytes.extend_from_slice(
        &u32::try_from(snapshots.len())
            .unwrap_or(u32::MAX)
            .to_be_bytes(),
    );
    for snapshot in snapshots {
        bytes.extend_from_slice(
            &u32::try_from(snapshot.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        bytes.extend_from_slice(snapshot);
    }
    bytes
}

/// The snapshots of one part.
///
/// # Errors
/// [`RemoteStorageError::Corrupt`] (format `remote log metadata
/// checkpoint`) for anything but a part of this format holding valid
/// snapshots, with nothing after the last one.
fn decode_part(bytes: &[u8]) -> Result<Vec<MetadataSnapshot>> {
    let corrupt = |detail: String| RemoteStorageError::Corrupt {
        format: "remote log metadata checkpoint",
        detail,
    };
    if bytes.len() < 9 || &bytes[..4] != MAGIC {
        return Err(corrupt("not a checkpoint part (no KRMC header)".to_owned()));
    }
    if bytes[4] != VERSION {
        return Err(corrupt(format!("version {} (valid: {VERSION})", bytes[4])));
    }
    let count = read_u32(&bytes[5..9]);
    let mut rest = &bytes[9..];
    // Each snapshot takes its length and a header: the count cannot exceed
    // what the bytes could hold.
    if usize::try_from(count).unwrap_or(usize::MAX) > rest.len() / 8 {
        return Err(corrupt(format!(
            "{count} snapshots cannot fit in {} bytes",
            rest.len()
        )));
    }
    let mut snapshots = Vec::new();
    for index in 0..count {
        if rest.len() < 4 {
            return Err(corrupt(format!("snapshot {index} of {count} is cut off")));
        }
        let length = usize::try_from(read_u32(&rest[..4])).unwrap_or(usize::MAX);
        rest = &rest[4..];
        if length > rest.len() {
            return Err(corrupt(format!(
                "snapshot {index} of {count} claims {length} bytes, {} are left",
                rest.len()
            )));
        }
        let (snapshot, after) = rest.split_at(length);
        snapshots.push(decode_snapshot(snapshot)?);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(corrupt(format!(
            "{} bytes after the last snapshot",
            rest.len()
        )));
    }
    Ok(snapshots)
}

/// A big-endian `u32` from exactly four bytes.
fn read_u32(bytes: &[u8]) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(bytes);
    u32::from_be_bytes(word)
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        krabka_kafka::{RemotePartitionDeleteState, encode_snapshot},
        uuid::Uuid,
    };

    fn snapshot(partition: i32, through: u64) -> MetadataSnapshot {
        MetadataSnapshot {
            partition: TopicIdPartition::new(Uuid::from_u128(7), "t", partition),
            through,
            segments: Vec::new(),
            delete_state: (partition % 2 == 0)
                .then_some(RemotePartitionDeleteState::DeletePartitionMarked),
        }
    }

    #[test]
    fn a_part_decodes_to_its_snapshots_and_anything_else_is_corrupt() {
        let snapshots: Vec<_> = (0..5).map(|p| snapshot(p, 10 + p as u64)).collect();
        let parts = pack_parts(
            snapshots
                .iter()
                .map(|s| encode_snapshot(s).unwrap())
                .collect(),
        );
        assert_eq!(parts.len(), 1);
        assert_eq!(decode_part(&parts[0]).unwrap(), snapshots);
        let part = &parts[0];
        let mut trailing = part.clone();
        trailing.push(0);
        let mut version = part.clone();
        version[4] = 2;
        let mut count = part.clone();
        count[5..9].copy_from_slice(&6u32.to_be_bytes());
        let mut huge_count = part.clone();
        huge_count[5..9].copy_from_slice(&u32::MAX.to_be_bytes());
        let mut length = part.clone();
        length[9..13].copy_from_slice(&u32::MAX.to_be_bytes());
        for (name, bad) in [
            ("trailing", trailing),
            ("version", version),
            ("count", count),
            ("huge count", huge_count),
            ("length", length),
            ("truncated", part[..part.len() - 1].to_vec()),
            ("empty", Vec::new()),
            ("magic", b"KRMS\x01\0\0\0\0".to_vec()),
        ] {
            assert!(
                matches!(decode_part(&bad), Err(RemoteStorageError::Corrupt { .. })),
                "{name}"
            );
        }
    }

    #[test]
    fn parts_close_near_their_target_size() {
        // Snapshots of about 1 KiB (a long topic name).
        let snapshots: Vec<_> = (0..32_000)
            .map(|p| MetadataSnapshot {
                partition: TopicIdPartition::new(Uuid::from_u128(9), "n".repeat(240), p),
                ..snapshot(p, 3)
            })
            .collect();
        let parts = pack_parts(
            snapshots
                .iter()
                .map(|s| encode_snapshot(s).unwrap())
                .collect(),
        );
        assert!(parts.len() > 1);
        for part in &parts[..parts.len() - 1] {
            assert!(part.len() <= PART_TARGET_BYTES + 9, "{}", part.len());
            assert!(part.len() > PART_TARGET_BYTES - 1024, "{}", part.len());
        }
        let decoded: Vec<_> = parts.iter().flat_map(|p| decode_part(p).unwrap()).collect();
        assert_eq!(decoded, snapshots);
    }

    #[test]
    fn part_keys_parse_back_and_foreign_keys_do_not() {
        let store =
            StoreHandle::new(Arc::new(object_store::memory::InMemory::new()), None).unwrap();
        let checkpoints = Checkpoints::new(store.clone(), "meta", 3);
        let dir = store.key("meta/_checkpoints/3").unwrap();
        let key = checkpoints.part_key(1_700_000_000_000, 2, 5).unwrap();
        assert_eq!(
            key.as_ref(),
            "meta/_checkpoints/3/00000001700000000000/000002-of-000005"
        );
        assert_eq!(parse_part(&dir, &key), Some((1_700_000_000_000, 2, 5)));
        for foreign in [
            "meta/_checkpoints/3/00000001700000000000/000005-of-000005",
            "meta/_checkpoints/3/00000001700000000000/2-of-5",
            "meta/_checkpoints/3/1700000000000/000002-of-000005",
            "meta/_checkpoints/3/00000001700000000000/000002-of-000005/x",
            "meta/_checkpoints/3/00000001700000000000/000002-of-000005#1",
        ] {
            assert_eq!(parse_part(&dir, &Path::from(foreign)), None, "{foreign}");
        }
    }
}
