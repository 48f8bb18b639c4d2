//! Reading the archive log from an object store: the end of a contiguous
//! sequence of create-only objects, checkpoints, tiles and entry bundles.
//! Shared by the writer (which extends the log) and the verifier.

use {
    super::{
        Checkpoint, LogError, LogHash, LogLayout, SignedNote, TileHashes, TileId,
        note::MAX_NOTE_BYTES,
        proof::{ProofRequest, needed_hashes},
        tile::{TILE_WIDTH, decode_bundle, decode_tile},
    },
    bytes::Bytes,
    futures_util::{StreamExt, TryStreamExt, stream},
    object_store::{ObjectStore, ObjectStoreExt, path::Path},
};

/// The largest claim or marker object a reader reads.
pub const MAX_CLAIM_BYTES: usize = 4096;

/// A failure to read the log from the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogReadError {
    /// The store failed (not an absent object).
    #[error("read of {key} failed")]
    Store {
        /// The key.
        key: String,
        /// The store's error.
        #[source]
        source: object_store::Error,
    },
    /// An object the tree needs is absent.
    #[error("{key} is missing")]
    Missing {
        /// The key.
        key: String,
    },
    /// An object that is not of its format.
    #[error("{key} is not a valid log object")]
    Invalid {
        /// The key.
        key: String,
        /// Why.
        #[source]
        source: LogError,
    },
}

impl LogReadError {
    /// The key the failure is about.
    #[must_use]
    pub fn key(&self) -> &str {
        match self {
            Self::Store { key, .. } | Self::Missing { key } | Self::Invalid { key, .. } => key,
        }
    }
}

/// Reads at most `max` bytes of `key` (one more to tell an oversized
/// object); `None` when it does not exist.
///
/// # Errors
/// [`LogReadError::Store`]; [`LogReadError::Invalid`] above `max`.
pub async fn read_bounded(
    store: &dyn ObjectStore,
    key: &str,
    max: usize,
) -> Result<Option<Bytes>, LogReadError> {
    let path = Path::from(key);
    match krabka_object_store::store::fetch::read_prefix(store, &path, max as u64 + 1).await {
        Ok(bytes) if bytes.len() > max => Err(LogReadError::Invalid {
            key: key.to_owned(),
            source: LogError::TooLarge {
                what: "log object",
                size: bytes.len(),
                max,
            },
        }),
        Ok(bytes) => Ok(Some(bytes)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        // An empty object answers a ranged read with 416 on some stores.
        Err(err) if err.to_string().contains("416") => Ok(Some(Bytes::new())),
        Err(source) => Err(LogReadError::Store {
            key: key.to_owned(),
            source,
        }),
    }
}

/// Whether `key` exists.
///
/// # Errors
/// [`LogReadError::Store`].
pub async fn exists(store: &dyn ObjectStore, key: &str) -> Result<bool, LogReadError> {
    match store.head(&Path::from(key)).await {
        Ok(_) => Ok(true),
        Err(object_store::Error::NotFound { .. }) => Ok(false),
        Err(source) => Err(LogReadError::Store {
            key: key.to_owned(),
            source,
        }),
    }
}

/// The first index at or after `from` whose object `key_of(index)` does not
/// exist, in a sequence written without holes (every object is created only
/// after the one before it): galloping, then bisecting, so about
/// `2·log2(distance)` HEAD requests.
///
/// # Errors
/// [`LogReadError::Store`].
pub async fn find_end(
    store: &dyn ObjectStore,
    key_of: impl Fn(u64) -> String,
    from: u64,
) -> Result<u64, LogReadError> {
    if !exists(store, &key_of(from)).await? {
        return Ok(from);
    }
    // `low` exists, `high` does not.
    let mut low = from;
    let mut step = 1u64;
    let mut high = loop {
        let probe = low.saturating_add(step);
        if !exists(store, &key_of(probe)).await? {
            break probe;
        }
        low = probe;
        step = step.saturating_mul(2);
    };
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if exists(store, &key_of(mid)).await? {
            low = mid;
        } else {
            high = mid;
        }
    }
    Ok(high)
}

/// A checkpoint as stored: its number, the signed note and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCheckpoint {
    /// Its number in the log's sequence of checkpoints.
    pub seq: u64,
    /// The signed note, as stored.
    pub note: SignedNote,
    /// The checkpoint the note's text holds.
    pub checkpoint: Checkpoint,
}

/// Reads checkpoint `seq`; `None` when absent.
///
/// # Errors
/// [`LogReadError::Store`], [`LogReadError::Invalid`] for bytes that are
/// no signed checkpoint.
pub async fn read_checkpoint(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    seq: u64,
) -> Result<Option<StoredCheckpoint>, LogReadError> {
    let key = layout.checkpoint(seq);
    let Some(bytes) = read_bounded(store, &key, MAX_NOTE_BYTES).await? else {
        return Ok(None);
    };
    let invalid = |source| LogReadError::Invalid {
        key: key.clone(),
        source,
    };
    let note = SignedNote::parse(&bytes).map_err(invalid)?;
    let checkpoint = Checkpoint::parse(&note.text).map_err(invalid)?;
    Ok(Some(StoredCheckpoint {
        seq,
        note,
        checkpoint,
    }))
}

/// Reads the hash tile `id`.
///
/// # Errors
/// [`LogReadError::Missing`] when absent; [`LogReadError::Invalid`].
pub async fn read_tile(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    id: TileId,
) -> Result<Vec<LogHash>, LogReadError> {
    let key = layout.tile(id);
    let bytes = read_bounded(store, &key, TILE_WIDTH * 32)
        .await?
        .ok_or_else(|| LogReadError::Missing { key: key.clone() })?;
    decode_tile(&bytes, id.width).map_err(|source| LogReadError::Invalid { key, source })
}

/// Reads the entry bundle `index` of width `width`.
///
/// # Errors
/// [`LogReadError::Missing`] when absent; [`LogReadError::Invalid`].
pub async fn read_bundle(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    index: u64,
    width: u16,
) -> Result<Vec<Vec<u8>>, LogReadError> {
    let id = TileId {
        level: TileId::ENTRIES,
        index,
        width,
    };
    let key = layout.tile(id);
    let bytes = read_bounded(store, &key, TILE_WIDTH * (2 + u16::MAX as usize))
        .await?
        .ok_or_else(|| LogReadError::Missing { key: key.clone() })?;
    decode_bundle(&bytes, width).map_err(|source| LogReadError::Invalid { key, source })
}

/// The tiles a proof about a tree of `size` leaves reads, fetched (a few
/// at a time) into a [`TileHashes`] the proof can be produced from.
///
/// # Errors
/// Those of [`read_tile`]; [`LogReadError::Invalid`] for an invalid
/// request.
pub async fn tiles_for_proof(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    size: u64,
    request: ProofRequest,
) -> Result<TileHashes, LogReadError> {
    let needed = needed_hashes(request).map_err(|source| LogReadError::Invalid {
        key: layout.root().to_owned(),
        source,
    })?;
    let ids = TileHashes::tiles_for(size, &needed);
    let tiles: Vec<(TileId, Vec<LogHash>)> = stream::iter(ids)
        .map(|id| async move { read_tile(store, layout, id).await.map(|h| (id, h)) })
        .buffered(8)
        .try_collect()
        .await?;
    let mut hashes = TileHashes::new();
    for (id, tile) in tiles {
        hashes.insert(id, tile);
    }
    Ok(hashes)
}

#[cfg(test)]
mod tests {
    use {super::*, object_store::memory::InMemory};

    #[tokio::test]
    async fn find_end_finds_the_first_absent_index() {
        let store = InMemory::new();
        let key = |i: u64| format!("seq/{i:020}");
        assert_eq!(find_end(&store, key, 0).await.unwrap(), 0);
        for n in 0..37u64 {
            store
                .put(&Path::from(key(n)), Bytes::from_static(b"x").into())
                .await
                .unwrap();
            assert_eq!(find_end(&store, key, 0).await.unwrap(), n + 1);
            assert_eq!(find_end(&store, key, n / 2).await.unwrap(), n + 1);
        }
    }
}
