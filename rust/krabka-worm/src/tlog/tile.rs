//! Tiles of C2SP `tlog-tiles`: the tree's hashes stored in create-only
//! objects of up to 256 hashes, their paths, and [`TreeEdge`], the right
//! edge of a growing tree from which the next tiles and the root follow.
//!
//! A tile at level `L` holds hashes of subtrees of `256^L` leaves: level 0
//! the leaf hashes, level 1 the roots of 256-leaf subtrees, and so on. Tile
//! `N` of level `L` holds those subtrees `N·256 … N·256 + 255`. A tile with
//! fewer than 256 hashes is *partial* and named with its width
//! (`….p/<W>`); each width is an object of its own, so a growing tree
//! writes every tile create-only and never replaces one.

use {
    super::{error::LogError, hash::LogHash, proof::HashSource},
    std::collections::HashMap,
};

/// Hashes per full tile (tile height 8).
pub const TILE_WIDTH: usize = 256;

/// Bits of leaf index per tile level.
const TILE_HEIGHT: u32 = 8;

/// A tile's coordinates: its level, its index at that level and its width
/// (1–256 hashes or entries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileId {
    /// Tile level (0: leaf hashes); [`TileId::ENTRIES`] for an entry bundle.
    pub level: u8,
    /// Index of the tile at its level.
    pub index: u64,
    /// Number of hashes (or entries) it holds, 1–256.
    pub width: u16,
}

impl TileId {
    /// The pseudo-level of entry bundles (`tile/entries/…`).
    pub const ENTRIES: u8 = u8::MAX;

    /// The path of the tile under the log's root, as C2SP tlog-tiles names
    /// it: `tile/<L>/<N>` or `tile/entries/<N>`, with `.p/<W>` for a partial
    /// tile; `N` in groups of three digits, all but the last prefixed `x`
    /// (`1234067` → `x001/x234/067`).
    #[must_use]
    pub fn path(&self) -> String {
        let level = if self.level == Self::ENTRIES {
            "entries".to_owned()
        } else {
            self.level.to_string()
        };
        let mut path = format!("tile/{level}/{}", encode_index(self.index));
        if usize::from(self.width) < TILE_WIDTH {
            path.push_str(&format!(".p/{}", self.width));
        }
        path
    }

    /// The tile of level `level` that holds the hashes of a tree of `size`
    /// leaves at tile index `index`: full, or partial with the width the
    /// tree gives it; `None` when the tree has no hash in it.
    #[must_use]
    pub fn in_tree(level: u8, index: u64, size: u64) -> Option<Self> {
        let shift = u32::from(level) * TILE_HEIGHT;
        let hashes = if shift >= 64 { 0 } else { size >> shift };
        let start = index.checked_mul(TILE_WIDTH as u64)?;
        let width = hashes.checked_sub(start)?.min(TILE_WIDTH as u64);
        (width > 0).then_some(Self {
            level,
            index,
            width: width as u16,
        })
    }
}

/// `N` of a tile path.
fn encode_index(mut n: u64) -> String {
    let mut groups = Vec::new();
    loop {
        groups.push(n % 1000);
        n /= 1000;
        if n == 0 {
            break;
        }
    }
    let last = groups.len() - 1;
    groups
        .iter()
        .rev()
        .enumerate()
        .map(|(i, g)| {
            if i == last {
                format!("{g:03}")
            } else {
                format!("x{g:03}")
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The bytes of a hash tile: its hashes, 32 bytes each.
#[must_use]
pub fn encode_tile(hashes: &[LogHash]) -> Vec<u8> {
    hashes.iter().flat_map(|h| h.0).collect()
}

/// The hashes of a tile's bytes, which must be exactly `width` hashes.
///
/// # Errors
/// [`LogError::Malformed`] for any other length.
pub fn decode_tile(bytes: &[u8], width: u16) -> Result<Vec<LogHash>, LogError> {
    if bytes.len() != usize::from(width) * 32 {
        return Err(LogError::Malformed {
            what: "tile",
            reason: format!(
                "{} bytes where {width} hashes take {}",
                bytes.len(),
                usize::from(width) * 32
            ),
        });
    }
    Ok(bytes
        .chunks_exact(32)
        .map(|c| LogHash(c.try_into().unwrap_or([0; 32])))
        .collect())
}

/// The bytes of an entry bundle: each entry as a big-endian `u16` length
/// and its bytes.
///
/// # Errors
/// [`LogError::TooLarge`] for an entry above 65 535 bytes.
pub fn encode_bundle<E: AsRef<[u8]>>(entries: &[E]) -> Result<Vec<u8>, LogError> {
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.as_ref();
        let len = u16::try_from(entry.len()).map_err(|_| LogError::TooLarge {
            what: "log entry",
            size: entry.len(),
            max: usize::from(u16::MAX),
        })?;
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(entry);
    }
    Ok(out)
}

/// The entries of a bundle's bytes, which must hold exactly `width` of them
/// and nothing after.
///
/// # Errors
/// [`LogError::Malformed`].
pub fn decode_bundle(bytes: &[u8], width: u16) -> Result<Vec<Vec<u8>>, LogError> {
    let malformed = |reason: String| LogError::Malformed {
        what: "entry bundle",
        reason,
    };
    let mut entries = Vec::with_capacity(usize::from(width));
    let mut rest = bytes;
    while !rest.is_empty() {
        if entries.len() == usize::from(width) {
            return Err(malformed(format!(
                "{} bytes after its {width} entries",
                rest.len()
            )));
        }
        let Some((len, tail)) = rest.split_first_chunk::<2>() else {
            return Err(malformed("a truncated entry length".to_owned()));
        };
        let len = usize::from(u16::from_be_bytes(*len));
        if tail.len() < len {
            return Err(malformed(format!(
                "entry {} claims {len} bytes, {} remain",
                entries.len(),
                tail.len()
            )));
        }
        entries.push(tail[..len].to_vec());
        rest = &tail[len..];
    }
    if entries.len() != usize::from(width) {
        return Err(malformed(format!(
            "{} entries where the tree has {width}",
            entries.len()
        )));
    }
    Ok(entries)
}

/// A tile that a [`TreeEdge`] completed or holds: its id and hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    /// Where it goes.
    pub id: TileId,
    /// Its hashes.
    pub hashes: Vec<LogHash>,
}

/// The right edge of a tree: for every tile level, the hashes of its
/// rightmost, not yet full tile. It is all a writer needs to append leaves,
/// write the tiles they fill and compute the root, in memory logarithmic in
/// the tree size (at most 256 hashes per level).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeEdge {
    size: u64,
    /// `levels[L]`: the hashes of the rightmost tile of level `L`.
    levels: Vec<Vec<LogHash>>,
}

impl TreeEdge {
    /// The edge of the empty tree.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The edge of a tree of `size` leaves from its rightmost partial tiles:
    /// `partial(tile)` gives the hashes of each tile [`TreeEdge::partial_tiles`]
    /// would name.
    ///
    /// # Errors
    /// Those of `partial`; [`LogError::Malformed`] for a tile of another
    /// width.
    pub fn from_partial_tiles(
        size: u64,
        mut partial: impl FnMut(TileId) -> Result<Vec<LogHash>, LogError>,
    ) -> Result<Self, LogError> {
        let mut edge = Self {
            size,
            levels: Vec::new(),
        };
        for id in Self::partial_tile_ids(size) {
            let hashes = partial(id)?;
            if hashes.len() != usize::from(id.width) {
                return Err(LogError::Malformed {
                    what: "tile",
                    reason: format!("{} hashes in {}", hashes.len(), id.path()),
                });
            }
            let level = usize::from(id.level);
            if edge.levels.len() <= level {
                edge.levels.resize(level + 1, Vec::new());
            }
            edge.levels[level] = hashes;
        }
        Ok(edge)
    }

    /// The number of leaves.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends a leaf hash; returns the tiles it completed (full tiles of
    /// 256 hashes, lowest level first).
    pub fn push(&mut self, leaf: LogHash) -> Vec<Tile> {
        self.size += 1;
        let mut completed = Vec::new();
        let mut carry = leaf;
        let mut level = 0usize;
        loop {
            if self.levels.len() <= level {
                self.levels.push(Vec::new());
            }
            self.levels[level].push(carry);
            if self.levels[level].len() < TILE_WIDTH {
                break;
            }
            let hashes = std::mem::take(&mut self.levels[level]);
            let shift = (level as u32 + 1) * TILE_HEIGHT;
            let index = if shift >= 64 {
                0
            } else {
                (self.size >> shift) - 1
            };
            carry = LogHash::perfect_root(&hashes).unwrap_or_default();
            completed.push(Tile {
                id: TileId {
                    level: level as u8,
                    index,
                    width: TILE_WIDTH as u16,
                },
                hashes,
            });
            level += 1;
        }
        completed
    }

    /// The rightmost partial tile of every level of a tree of `size`
    /// leaves that has one: what [`TreeEdge::from_partial_tiles`] reads.
    #[must_use]
    pub fn partial_tile_ids(size: u64) -> Vec<TileId> {
        (0u8..8)
            .filter_map(|level| {
                let shift = u32::from(level + 1) * TILE_HEIGHT;
                let index = if shift >= 64 { 0 } else { size >> shift };
                TileId::in_tree(level, index, size).filter(|id| usize::from(id.width) < TILE_WIDTH)
            })
            .collect()
    }

    /// The rightmost partial tile of every level that has one, as a reader
    /// of the tree at this size finds them.
    #[must_use]
    pub fn partial_tiles(&self) -> Vec<Tile> {
        Self::partial_tile_ids(self.size)
            .into_iter()
            .map(|id| Tile {
                id,
                hashes: self.levels[usize::from(id.level)].clone(),
            })
            .collect()
    }

    /// The tree's root.
    #[must_use]
    pub fn root(&self) -> LogHash {
        // The complete subtrees of the size's binary decomposition, largest
        // (leftmost) first: each lies in the rightmost tile of its level.
        let mut subtrees = Vec::new();
        for hashes in self.levels.iter().rev() {
            let mut start = 0usize;
            for bit in (0..TILE_HEIGHT).rev() {
                let width = 1usize << bit;
                if hashes.len() & width != 0 {
                    subtrees.push(
                        LogHash::perfect_root(&hashes[start..start + width]).unwrap_or_default(),
                    );
                    start += width;
                }
            }
        }
        let Some((last, rest)) = subtrees.split_last() else {
            return LogHash::empty_root();
        };
        rest.iter()
            .rev()
            .fold(*last, |right, left| LogHash::node(left, &right))
    }
}

/// A [`HashSource`] over tiles held in memory:
/// fill it with the tiles [`TileHashes::tiles_for`] names, then produce
/// proofs from it.
#[derive(Debug, Clone, Default)]
pub struct TileHashes {
    tiles: HashMap<(u8, u64), Vec<LogHash>>,
}

impl TileHashes {
    /// An empty source.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The tiles (with the widths the tree of `size` gives them) that hold
    /// the complete subtrees `needed`.
    #[must_use]
    pub fn tiles_for(size: u64, needed: &[(u8, u64)]) -> Vec<TileId> {
        let mut ids: Vec<TileId> = needed
            .iter()
            .filter_map(|&(level, index)| {
                let tile_level = level / TILE_HEIGHT as u8;
                let within = u32::from(level % TILE_HEIGHT as u8);
                let first = index.checked_shl(within)?;
                TileId::in_tree(tile_level, first / TILE_WIDTH as u64, size)
            })
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Adds a tile's hashes.
    pub fn insert(&mut self, id: TileId, hashes: Vec<LogHash>) {
        self.tiles.insert((id.level, id.index), hashes);
    }
}

impl HashSource for TileHashes {
    fn hash(&mut self, level: u8, index: u64) -> Result<LogHash, LogError> {
        let unavailable = |reason: &str| LogError::HashUnavailable {
            level,
            index,
            reason: reason.to_owned(),
        };
        let tile_level = level / TILE_HEIGHT as u8;
        let within = u32::from(level % TILE_HEIGHT as u8);
        let first = index
            .checked_shl(within)
            .ok_or_else(|| unavailable("index too high"))?;
        let tile = first / TILE_WIDTH as u64;
        let start = (first % TILE_WIDTH as u64) as usize;
        let hashes = self
            .tiles
            .get(&(tile_level, tile))
            .ok_or_else(|| unavailable("its tile was not loaded"))?;
        let slice = hashes
            .get(start..start + (1usize << within))
            .ok_or_else(|| unavailable("beyond its tile's width"))?;
        LogHash::perfect_root(slice).ok_or_else(|| unavailable("not a perfect subtree"))
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::tlog::proof::{
            LeafHashes, ProofRequest, consistency_proof, needed_hashes, tree_root,
        },
    };

    #[test]
    fn tile_paths_follow_c2sp() {
        let id = |level, index, width| TileId {
            level,
            index,
            width,
        };
        assert_eq!(id(0, 0, 256).path(), "tile/0/000");
        assert_eq!(id(0, 1_234_067, 256).path(), "tile/0/x001/x234/067");
        assert_eq!(id(1, 5, 17).path(), "tile/1/005.p/17");
        assert_eq!(
            id(TileId::ENTRIES, 1000, 3).path(),
            "tile/entries/x001/000.p/3"
        );
    }

    #[test]
    fn the_edge_gives_the_roots_and_tiles_of_a_growing_tree() {
        let leaves: Vec<LogHash> = (0u64..70_000)
            .map(|i| LogHash::leaf(&i.to_be_bytes()))
            .collect();
        let mut source = LeafHashes(leaves.clone());
        let mut edge = TreeEdge::new();
        let mut full = Vec::new();
        for (i, leaf) in leaves.iter().enumerate() {
            full.extend(edge.push(*leaf));
            let size = i as u64 + 1;
            if size < 600 || size % 9_973 == 0 || size == 65_536 || size == 70_000 {
                assert_eq!(
                    edge.root(),
                    tree_root(&mut source, size).unwrap(),
                    "size {size}"
                );
                let reloaded = TreeEdge::from_partial_tiles(size, |id| {
                    Ok(edge
                        .partial_tiles()
                        .into_iter()
                        .find(|t| t.id == id)
                        .map(|t| t.hashes)
                        .unwrap_or_default())
                })
                .unwrap();
                assert_eq!(reloaded, edge);
            }
        }
        assert_eq!(full.iter().filter(|t| t.id.level == 0).count(), 273);
        assert_eq!(full.iter().filter(|t| t.id.level == 1).count(), 1);
        assert_eq!(
            full[1].id,
            TileId {
                level: 0,
                index: 1,
                width: 256
            }
        );
        assert_eq!(TreeEdge::new().root(), LogHash::empty_root());

        // Proofs from tiles alone equal proofs from the leaves.
        let size = 70_000;
        let mut tiles = TileHashes::new();
        for tile in full.iter().cloned().chain(edge.partial_tiles()) {
            tiles.insert(tile.id, tile.hashes);
        }
        let needed = needed_hashes(ProofRequest::Consistency {
            old: 300,
            new: size,
        })
        .unwrap();
        let wanted = TileHashes::tiles_for(size, &needed);
        assert!(
            wanted
                .iter()
                .all(|id| tiles.tiles.contains_key(&(id.level, id.index)))
        );
        assert_eq!(
            consistency_proof(&mut tiles, 300, size).unwrap(),
            consistency_proof(&mut source, 300, size).unwrap()
        );
    }

    #[test]
    fn bundles_and_tiles_refuse_bytes_of_the_wrong_shape() {
        let bundle = encode_bundle(&[b"ab".as_slice(), b"".as_slice(), b"xyz".as_slice()]).unwrap();
        assert_eq!(
            decode_bundle(&bundle, 3).unwrap(),
            vec![b"ab".to_vec(), vec![], b"xyz".to_vec()]
        );
        assert!(decode_bundle(&bundle, 2).is_err());
        assert!(decode_bundle(&bundle, 4).is_err());
        assert!(decode_bundle(&bundle[..bundle.len() - 1], 3).is_err());
        assert!(decode_bundle(&[0], 1).is_err());
        assert!(decode_tile(&[0; 64], 2).is_ok());
        assert!(decode_tile(&[0; 63], 2).is_err());
        assert!(encode_bundle(&[vec![0u8; 70_000]]).is_err());
    }
}
