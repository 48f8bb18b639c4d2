//! The tree, rebuilt from the entry bundles leaf by leaf into its right
//! edge: every checkpoint's root at its size, every hash tile the archive
//! stores against the hashes of the entries below it, every leaf against
//! the chain seal it names, and every seal against a leaf.

use {
    super::{MAX_MISSING_FINDINGS, checkpoints::store_error, listing::LogListing, relative},
    crate::{
        digest::Sha256Digest,
        tlog::{
            LogEntry, LogHash, LogLayout, Tile, TileId, TreeEdge,
            store::{LogReadError, MAX_CLAIM_BYTES, read_bounded, read_bundle, read_tile},
            tile::TILE_WIDTH,
        },
        verify::{
            Result,
            listing::wanted,
            report::{ArchiveVerifyReport, VerifyBreak, VerifyRequest},
        },
    },
    futures_util::{StreamExt, stream},
    krabka_kafka::parse_partition_dir_name,
    object_store::ObjectStore,
    std::collections::HashMap,
};

/// Bundles (and tiles) read at once.
const READ_AHEAD: usize = 8;

/// Completed tiles compared together.
const TILE_BATCH: usize = 16;

/// A root the tree must have at a size.
pub(super) struct Target {
    pub(super) size: u64,
    pub(super) root: LogHash,
    /// Its key, or where it came from.
    pub(super) source: String,
    /// The signed note, for the evidence.
    pub(super) note: String,
}

/// The seals of the partitions in scope, by key relative to the archive
/// prefix, and whether a leaf has named each.
pub(super) struct SealIndex {
    prefix: Option<String>,
    seals: HashMap<String, (Sha256Digest, bool)>,
}

impl SealIndex {
    /// The seals `report`'s partitions read.
    pub(super) fn new(prefix: Option<&str>, report: &ArchiveVerifyReport) -> Self {
        let seals = report
            .partitions
            .iter()
            .flat_map(|p| p.seals.iter())
            .map(|(key, digest)| (relative(prefix, key).to_owned(), (*digest, false)))
            .collect();
        Self {
            prefix: prefix.map(str::to_owned),
            seals,
        }
    }

    /// The seal key with the archive prefix.
    fn full(&self, relative: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}/{relative}"),
            None => relative.to_owned(),
        }
    }

    /// Checks leaf `index`, whose entry is `entry`: the seal it names is in
    /// the archive with the bytes it hashes (when its partition is in the
    /// request's scope).
    fn check_leaf(
        &mut self,
        index: u64,
        entry: &LogEntry,
        request: &VerifyRequest,
        findings: &mut Vec<VerifyBreak>,
    ) {
        let in_scope = entry
            .seal_key
            .split_once('/')
            .and_then(|(dir, _)| parse_partition_dir_name(dir))
            .is_some_and(|parsed| wanted(request, &parsed));
        if !in_scope {
            return;
        }
        let seal = self.full(&entry.seal_key);
        match self.seals.get_mut(&entry.seal_key) {
            None => findings.push(VerifyBreak::LeafWithoutSeal { index, seal }),
            Some((digest, _)) if *digest != entry.seal_sha256 => {
                findings.push(VerifyBreak::LeafSealMismatch { index, seal });
            }
            Some((_, logged)) if *logged => {
                findings.push(VerifyBreak::LeafDuplicate { index, seal });
            }
            Some((_, logged)) => *logged = true,
        }
    }

    /// Marks the seal a pending claim names as logged.
    fn pending(&mut self, entry: &LogEntry) {
        if let Some((digest, logged)) = self.seals.get_mut(&entry.seal_key) {
            if *digest == entry.seal_sha256 {
                *logged = true;
            }
        }
    }

    /// A [`VerifyBreak::NotInLog`] for every seal no leaf or claim names.
    pub(super) fn report_unlogged(&self, findings: &mut Vec<VerifyBreak>) {
        let mut unlogged: Vec<String> = self
            .seals
            .iter()
            .filter(|(_, (_, logged))| !logged)
            .map(|(key, _)| self.full(key))
            .collect();
        unlogged.sort();
        findings.extend(
            unlogged
                .into_iter()
                .map(|seal| VerifyBreak::NotInLog { seal }),
        );
    }
}

/// What the rebuild read.
pub(super) struct Rebuilt {
    /// Leaves read back (the size of the tree the archive still holds, up
    /// to the newest checkpoint's).
    pub(super) leaves: u64,
    /// Hash tiles compared.
    pub(super) tiles: u64,
}

/// Rebuilds the tree of `size` leaves from the entry bundles, checking
/// every target whose size it reaches, the tiles, and every leaf. Stops at
/// the first bundle that is missing or does not decode (a finding).
#[allow(clippy::too_many_arguments)]
pub(super) async fn rebuild(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    request: &VerifyRequest,
    size: u64,
    mut targets: Vec<Target>,
    seals: &mut SealIndex,
    wanted: &mut HashMap<String, Option<(u64, LogHash)>>,
    findings: &mut Vec<VerifyBreak>,
) -> Result<Rebuilt> {
    targets.sort_by_key(|t| t.size);
    let mut targets = targets.into_iter().peekable();
    // A target of size 0 is the empty tree.
    let mut edge = TreeEdge::new();
    check_targets(&edge, &mut targets, findings);
    let width = TILE_WIDTH as u64;
    let bundles = size.div_ceil(width);
    let mut tiles = 0u64;
    let mut completed = Vec::new();
    let mut reads = stream::iter(0..bundles)
        .map(|index| {
            let entries = (size - index * width).min(width) as u16;
            async move {
                let read = read_bundle(store, layout, index, entries).await;
                (index, entries, read)
            }
        })
        .buffered(READ_AHEAD);
    'bundles: while let Some((index, entries, read)) = reads.next().await {
        let id = TileId {
            level: TileId::ENTRIES,
            index,
            width: entries,
        };
        let bundle = match read {
            Ok(bundle) => bundle,
            Err(LogReadError::Missing { key }) => {
                findings.push(VerifyBreak::LogObjectMissing { key });
                break 'bundles;
            }
            Err(LogReadError::Invalid { key, source }) => {
                findings.push(VerifyBreak::LogObjectUnreadable {
                    key,
                    detail: source.to_string(),
                });
                break 'bundles;
            }
            Err(err) => return Err(store_error(err)),
        };
        for (offset, bytes) in bundle.iter().enumerate() {
            let leaf = index * width + offset as u64;
            let hash = LogHash::leaf(bytes);
            completed.extend(edge.push(hash));
            check_targets(&edge, &mut targets, findings);
            match LogEntry::from_bytes(bytes) {
                Ok(entry) => {
                    if let Some(found @ None) = wanted.get_mut(&entry.seal_key) {
                        *found = Some((leaf, hash));
                    }
                    seals.check_leaf(leaf, &entry, request, findings);
                }
                Err(err) => findings.push(VerifyBreak::LogObjectUnreadable {
                    key: layout.tile(id),
                    detail: format!("leaf {leaf}: {err}"),
                }),
            }
        }
        // Completed tiles are compared a batch at a time, so their reads
        // overlap as the bundles' do.
        if completed.len() >= TILE_BATCH {
            tiles += check_tiles(store, layout, std::mem::take(&mut completed), findings).await?;
        }
    }
    tiles += check_tiles(store, layout, completed, findings).await?;
    if edge.size() == size {
        // The tiles not yet full at the newest checkpoint's size.
        tiles += check_tiles(store, layout, edge.partial_tiles(), findings).await?;
    }
    Ok(Rebuilt {
        leaves: edge.size(),
        tiles,
    })
}

/// Compares the root of `edge` with every target of its size.
fn check_targets(
    edge: &TreeEdge,
    targets: &mut std::iter::Peekable<std::vec::IntoIter<Target>>,
    findings: &mut Vec<VerifyBreak>,
) {
    while let Some(target) = targets.next_if(|t| t.size == edge.size()) {
        if target.root != edge.root() {
            findings.push(VerifyBreak::CheckpointInconsistent {
                key: target.source,
                detail: format!(
                    "its root is not the root of the archive's entries at size {}",
                    target.size
                ),
                evidence: vec![target.note],
            });
        }
    }
}

/// Compares `tiles` with the stored ones; the number compared.
async fn check_tiles(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    tiles: Vec<Tile>,
    findings: &mut Vec<VerifyBreak>,
) -> Result<u64> {
    let count = tiles.len() as u64;
    let read: Vec<(Tile, std::result::Result<Vec<LogHash>, LogReadError>)> = stream::iter(tiles)
        .map(|tile| async move {
            let stored = read_tile(store, layout, tile.id).await;
            (tile, stored)
        })
        .buffered(READ_AHEAD)
        .collect()
        .await;
    for (tile, stored) in read {
        let key = layout.tile(tile.id);
        match stored {
            Ok(hashes) if hashes == tile.hashes => {}
            Ok(_) => findings.push(VerifyBreak::LogTileMismatch { key }),
            Err(LogReadError::Missing { key }) => {
                findings.push(VerifyBreak::LogObjectMissing { key });
            }
            Err(LogReadError::Invalid { key, source }) => {
                findings.push(VerifyBreak::LogObjectUnreadable {
                    key,
                    detail: source.to_string(),
                });
            }
            Err(err) => return Err(store_error(err)),
        }
    }
    Ok(count)
}

/// Checks the claims: every index below `size` is claimed (claims are
/// never deleted), and the claims after it (waiting for the next
/// checkpoint) are read so their seals count as logged. The number
/// pending.
pub(super) async fn claims(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    listing: &LogListing,
    size: u64,
    seals: &mut SealIndex,
    findings: &mut Vec<VerifyBreak>,
) -> Result<u64> {
    let below = listing.claims.range(..size).count() as u64;
    if below < size {
        let missing = (0..size)
            .filter(|i| !listing.claims.contains(i))
            .take(MAX_MISSING_FINDINGS);
        for index in missing {
            findings.push(VerifyBreak::LogObjectMissing {
                key: layout.claim(index),
            });
        }
    }
    let pending: Vec<u64> = listing.claims.range(size..).copied().collect();
    let read: Vec<(u64, std::result::Result<Option<bytes::Bytes>, LogReadError>)> =
        stream::iter(pending.iter().copied())
            .map(|index| async move {
                let bytes = read_bounded(store, &layout.claim(index), MAX_CLAIM_BYTES).await;
                (index, bytes)
            })
            .buffered(READ_AHEAD)
            .collect()
            .await;
    for (index, bytes) in read {
        let key = layout.claim(index);
        let entry = match bytes {
            // Gone since the listing: it was claimed, and is checked as a
            // leaf once a checkpoint covers it.
            Ok(None) => continue,
            Ok(Some(bytes)) => LogEntry::from_bytes(&bytes).map_err(|err| err.to_string()),
            Err(LogReadError::Invalid { source, .. }) => Err(source.to_string()),
            Err(err) => return Err(store_error(err)),
        };
        match entry {
            Ok(entry) => seals.pending(&entry),
            Err(detail) => findings.push(VerifyBreak::LogObjectUnreadable { key, detail }),
        }
    }
    Ok(pending.len() as u64)
}
