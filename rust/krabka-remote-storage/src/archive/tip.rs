//! Where a partition's chain continues, derived from the bucket without
//! trusting it: [`derive_tip`].
//!
//! Anyone with `PutObject` on the bucket can put objects under `_chain/`.
//! The derivation therefore:
//!
//! - never reads an object larger than any manifest
//!   ([`check_seal_size`], from the listed size);
//! - counts only **seals**: manifests signed by a key the writer trusts that
//!   record their own position ([`judge_seal`]); anything else at a seal
//!   position is a **foreign object**, reported and never built on;
//! - **routes around** a foreign object that holds the position the chain
//!   would take next: the chain continues at seq 0 of its
//!   [`detour_epoch`], on the same head, so no object can stall a partition;
//! - returns the seal it extends, whose manifest the writer must finish
//!   before extending it (a crash or a failed write between the seal and
//!   the manifest leaves a committed but unfinished copy).

use {
    crate::store_bridge::spi_error,
    futures_util::TryStreamExt,
    krabka_kafka::{RemoteStorageError, Result},
    krabka_object_store::store::{errors::to_store_error, fetch::read_prefix},
    krabka_worm::{
        CHAIN_DIR, ChainHead, ChainStamp, EpochId, ForeignSeal, MAX_MANIFEST_BYTES, ManifestSeq,
        TrustedManifestKeys, VerifiedManifest, check_seal_size, detour_epoch, judge_seal,
        manifest_key, parse_seal_name, seal_key,
    },
    object_store::{ObjectStore, path::Path},
    std::collections::{BTreeMap, BTreeSet},
};

/// A seal the chain builds on: its bytes are the manifest that finishes its
/// commit.
#[derive(Debug, Clone)]
pub struct TipSeal {
    /// The seal's key.
    pub seal_key: String,
    /// The key of the manifest beside its segment.
    pub manifest_key: String,
    /// The seal's bytes (the manifest's bytes).
    pub bytes: Vec<u8>,
    /// Its chain head.
    pub head: ChainHead,
}

/// A foreign object at a seal position.
#[derive(Debug)]
pub struct ForeignObject {
    /// Its key.
    pub key: String,
    /// Why it is not a seal.
    pub reason: ForeignSeal,
}

/// What [`derive_tip`] found.
#[derive(Debug)]
pub struct DerivedTip {
    /// The position the next seal takes.
    pub next: ChainStamp,
    /// The seal `next` builds on (`None` at the genesis of the chain).
    pub extends: Option<TipSeal>,
    /// Foreign objects met at seal positions, in key order.
    pub foreign: Vec<ForeignObject>,
}

/// One seal position as listed.
struct Listed {
    key: String,
    size: u64,
}

/// A judged seal position.
enum Judged {
    Seal(Box<(VerifiedManifest, Vec<u8>)>),
    Foreign,
}

/// Derives where the chain of partition directory `dir` continues.
///
/// Per epoch, the listed positions are judged from the newest down to the
/// first seal; the newest seal of all epochs by `(segment start offset,
/// seq)` is extended, following detours: when the position after it holds
/// a foreign object, the chain continues in that position's
/// [`detour_epoch`] (extending that epoch's newest seal when it has one).
/// Without any seal the chain starts at seq 0 of `genesis`.
///
/// # Errors
/// [`RemoteStorageError::Corrupt`] when the position after the newest seal
/// holds a seal of the writers that does not continue it (a forked chain:
/// the writer stops rather than fork it further);
/// [`RemoteStorageError::Refused`] when an epoch is exhausted; the store's
/// errors.
pub async fn derive_tip(
    store: &dyn ObjectStore,
    dir: &str,
    genesis: EpochId,
    trusted: &TrustedManifestKeys,
) -> Result<DerivedTip> {
    let listed = list_positions(store, dir).await?;
    let mut judged: BTreeMap<(EpochId, ManifestSeq), Judged> = BTreeMap::new();
    let mut foreign = Vec::new();
    let epochs: BTreeSet<EpochId> = listed.keys().map(|(epoch, _)| *epoch).collect();
    // The newest seal of each epoch, judging from the top down.
    let mut newest: BTreeMap<EpochId, ManifestSeq> = BTreeMap::new();
    for epoch in epochs {
        let positions = listed.range((epoch, ManifestSeq(0))..=(epoch, ManifestSeq(u64::MAX)));
        for ((_, seq), at) in positions.rev() {
            match judge(store, at, epoch, *seq, trusted).await? {
                Ok(seal) => {
                    judged.insert((epoch, *seq), Judged::Seal(Box::new(seal)));
                    newest.insert(epoch, *seq);
                    break;
                }
                Err(reason) => {
                    judged.insert((epoch, *seq), Judged::Foreign);
                    foreign.push(ForeignObject {
                        key: at.key.clone(),
                        reason,
                    });
                }
            }
        }
    }
    foreign.sort_by(|a, b| a.key.cmp(&b.key));
    let best = newest
        .iter()
        .filter_map(|(epoch, seq)| match judged.get(&(*epoch, *seq)) {
            Some(Judged::Seal(seal)) => Some(((seal.0.body().segment.start_offset, *seq), *epoch)),
            _ => None,
        })
        .max()
        .map(|((_, seq), epoch)| (epoch, seq));
    let Some(mut at) = best else {
        let next = route_around(ChainStamp::genesis(genesis), &listed, &judged)?;
        return match next {
            Continue::Free(next) => Ok(DerivedTip {
                next,
                extends: None,
                foreign,
            }),
            Continue::Seal(epoch) => Err(forked(dir, epoch)),
        };
    };
    // Follow the chain from the newest seal through every detour.
    for _ in 0..=listed.len() {
        let Some(Judged::Seal(seal)) = judged.get(&at) else {
            return Err(forked(dir, at.0));
        };
        let (verified, bytes) = &**seal;
        let stamp = verified.body().chain;
        let next = stamp.next(verified.head()).ok_or_else(|| {
            RemoteStorageError::Refused(format!(
                "chain epoch {} of {dir} is exhausted at seq {}",
                stamp.epoch_id, stamp.seq
            ))
        })?;
        match route_around(next, &listed, &judged)? {
            Continue::Free(next) => {
                return Ok(DerivedTip {
                    next,
                    extends: Some(TipSeal {
                        seal_key: seal_key(dir, stamp.epoch_id, stamp.seq),
                        manifest_key: manifest_key(dir, &verified.body().segment),
                        bytes: bytes.clone(),
                        head: verified.head(),
                    }),
                    foreign,
                });
            }
            Continue::Seal(epoch) => match newest.get(&epoch) {
                Some(seq) => at = (epoch, *seq),
                None => return Err(forked(dir, epoch)),
            },
        }
    }
    Err(forked(dir, at.0))
}

/// Where a chain continues from a candidate position.
enum Continue {
    /// At this free position.
    Free(ChainStamp),
    /// In this epoch, which holds seals (a detour already taken).
    Seal(EpochId),
}

/// Moves `next` past foreign objects: while its position holds one, the
/// chain continues at seq 0 of the position's detour epoch, on the same
/// head.
fn route_around(
    mut next: ChainStamp,
    listed: &BTreeMap<(EpochId, ManifestSeq), Listed>,
    judged: &BTreeMap<(EpochId, ManifestSeq), Judged>,
) -> Result<Continue> {
    for _ in 0..=listed.len() {
        let position = (next.epoch_id, next.seq);
        if !listed.contains_key(&position) {
            return Ok(Continue::Free(next));
        }
        match judged.get(&position) {
            Some(Judged::Foreign) => {
                next = ChainStamp {
                    epoch_id: detour_epoch(next.epoch_id, next.seq, next.prev_head),
                    seq: ManifestSeq(0),
                    prev_head: next.prev_head,
                };
            }
            // A listed position that was not judged lies below its epoch's
            // newest seal: the chain went on in that epoch.
            Some(Judged::Seal(_)) | None => return Ok(Continue::Seal(next.epoch_id)),
        }
    }
    Err(RemoteStorageError::Corrupt {
        format: "WORM chain",
        detail: "the detours around foreign objects do not end".to_owned(),
    })
}

fn forked(dir: &str, epoch: EpochId) -> RemoteStorageError {
    RemoteStorageError::Corrupt {
        format: "WORM chain",
        detail: format!(
            "the chain of {dir} continues in epoch {epoch} with seals that do not extend its newest seal; the writer stops rather than fork it"
        ),
    }
}

/// Every listed seal position of `dir` with its key and size; names that
/// are not seal positions are left to the verifier.
async fn list_positions(
    store: &dyn ObjectStore,
    dir: &str,
) -> Result<BTreeMap<(EpochId, ManifestSeq), Listed>> {
    let chain_dir = format!("{dir}/{CHAIN_DIR}/");
    let listed: Vec<_> = store
        .list(Some(&Path::from(format!("{dir}/{CHAIN_DIR}"))))
        .try_collect()
        .await
        .map_err(|e| spi_error(to_store_error(e, "listing of", &chain_dir)))?;
    Ok(listed
        .into_iter()
        .filter_map(|meta| {
            let position = meta
                .location
                .as_ref()
                .strip_prefix(&chain_dir)
                .and_then(parse_seal_name)?;
            Some((
                position,
                Listed {
                    key: meta.location.to_string(),
                    size: meta.size,
                },
            ))
        })
        .collect())
}

/// Reads and judges the object at seal position `(epoch, seq)`: never more
/// than [`MAX_MANIFEST_BYTES`] + 1 bytes, whatever the listing said.
async fn judge(
    store: &dyn ObjectStore,
    at: &Listed,
    epoch: EpochId,
    seq: ManifestSeq,
    trusted: &TrustedManifestKeys,
) -> Result<Result<(VerifiedManifest, Vec<u8>), ForeignSeal>> {
    if let Err(reason) = check_seal_size(at.size) {
        return Ok(Err(reason));
    }
    let key = Path::from(at.key.as_str());
    let bytes = match read_prefix(store, &key, MAX_MANIFEST_BYTES as u64 + 1).await {
        Ok(bytes) => bytes.to_vec(),
        // An empty object answers a range with 416 on some servers.
        Err(_) if at.size == 0 => Vec::new(),
        Err(err) => {
            return Err(spi_error(to_store_error(
                err,
                "read of chain seal",
                &at.key,
            )));
        }
    };
    Ok(judge_seal(&bytes, epoch, seq, trusted).map(|verified| (verified, bytes)))
}
