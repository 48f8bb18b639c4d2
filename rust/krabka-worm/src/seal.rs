//! Where the chain seals live: `<partition>/_chain/<epoch id>/<seq:020>.seal`,
//! the first epoch of a partition's chain, the detour epoch that routes a
//! chain around a foreign object, and what makes an object at a seal
//! position a seal ([`judge_seal`]).

use {
    crate::{
        ChainHead, EpochId, MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, ManifestSeq, SegmentIdentity,
        TrustedManifestKeys, VerifiedManifest, WormError, verify_manifest_bytes,
    },
    krabka_kafka::RemoteLogSegmentMetadata,
    krabka_kafka::kafka_uuid,
    sha2::{Digest, Sha256},
    uuid::Uuid,
};

/// The directory, inside a partition directory, holding the chain seals.
pub const CHAIN_DIR: &str = "_chain";

/// The suffix of a chain seal object.
pub const SEAL_SUFFIX: &str = ".seal";

/// The key of the seal at `(epoch_id, seq)` in `partition_dir`.
#[must_use]
pub fn seal_key(partition_dir: &str, epoch_id: EpochId, seq: ManifestSeq) -> String {
    format!(
        "{partition_dir}/{CHAIN_DIR}/{epoch_id}/{:020}{SEAL_SUFFIX}",
        seq.0
    )
}

/// The key of the manifest beside the segment `segment` in `partition_dir`:
/// `<partition_dir>/<start offset:020>-<segment id>.manifest`, where a
/// seal's commit is finished.
#[must_use]
pub fn manifest_key(partition_dir: &str, segment: &SegmentIdentity) -> String {
    format!(
        "{partition_dir}/{:020}-{}{MANIFEST_SUFFIX}",
        segment.start_offset,
        kafka_uuid(segment.segment_id)
    )
}

/// Parses the part of a seal key after `<partition>/_chain/`.
#[must_use]
pub fn parse_seal_name(name: &str) -> Option<(EpochId, ManifestSeq)> {
    let (epoch, file) = name.split_once('/')?;
    let seq = file.strip_suffix(SEAL_SUFFIX)?;
    if seq.len() != 20 || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let uuid = Uuid::try_parse(epoch).ok()?;
    if uuid.hyphenated().to_string() != epoch {
        return None;
    }
    Some((EpochId(uuid), ManifestSeq(seq.parse().ok()?)))
}

/// The first chain epoch of a partition, the same for every writer: a
/// version-8 UUID from the first 16 bytes of
/// `SHA-256("krabka-worm-genesis-epoch-v1" ‖ 00 ‖ topic id ‖ i32(partition))`.
#[must_use]
pub fn genesis_epoch(metadata: &RemoteLogSegmentMetadata) -> EpochId {
    let partition = metadata.topic_id_partition();
    let mut hasher = Sha256::new();
    hasher.update(b"krabka-worm-genesis-epoch-v1\0");
    hasher.update(partition.topic_id.as_bytes());
    hasher.update(partition.partition.to_be_bytes());
    let digest: [u8; 32] = hasher.finalize().into();
    uuid_v8(&digest)
}

/// The epoch that continues a chain around a foreign object at
/// `(from, seq)`: a version-8 UUID from the first 16 bytes of
/// `SHA-256("krabka-worm-detour-epoch-v1" ‖ 00 ‖ from ‖ u64(seq) ‖ prev_head)`,
/// where `prev_head` is the head the blocked position would have built on
/// (the head of `(from, seq - 1)`, or [`ChainHead::GENESIS`] at seq 0).
///
/// Its first manifest sits at seq 0 of the detour epoch and builds on
/// `prev_head` (not on the genesis head), so the chain stays one chain.
/// Every writer that finds the same foreign object computes the same
/// detour, so they still contend for one seal: the fence holds.
#[must_use]
pub fn detour_epoch(from: EpochId, seq: ManifestSeq, prev_head: ChainHead) -> EpochId {
    let mut hasher = Sha256::new();
    hasher.update(b"krabka-worm-detour-epoch-v1\0");
    hasher.update(from.0.as_bytes());
    hasher.update(seq.0.to_be_bytes());
    hasher.update(prev_head.0);
    let digest: [u8; 32] = hasher.finalize().into();
    uuid_v8(&digest)
}

/// A version-8 UUID from the first 16 bytes of `digest`.
fn uuid_v8(digest: &[u8; 32]) -> EpochId {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    EpochId(Uuid::from_bytes(bytes))
}

/// Why an object at a seal position is not a seal of the archive's writers:
/// a **foreign object**. Writers route their chain around it
/// ([`detour_epoch`]); the verifier reports it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ForeignSeal {
    /// Larger than any manifest ([`MAX_MANIFEST_BYTES`]): never read.
    #[error("{size} bytes, more than any manifest ({MAX_MANIFEST_BYTES})")]
    Oversized {
        /// Its listed size.
        size: u64,
    },
    /// Its bytes are not a manifest signed by a trusted key.
    #[error("{0}")]
    NotTrusted(WormError),
    /// A trusted manifest, but of another chain position.
    #[error("it records epoch {epoch_id} seq {seq}, not its own position")]
    Misplaced {
        /// The epoch its body records.
        epoch_id: EpochId,
        /// The seq its body records.
        seq: ManifestSeq,
    },
}

/// Whether an object of `listed_size` bytes may be read as the seal at
/// `(epoch_id, seq)` at all: a larger one is foreign without a read.
///
/// # Errors
/// [`ForeignSeal::Oversized`].
pub fn check_seal_size(listed_size: u64) -> Result<(), ForeignSeal> {
    if usize::try_from(listed_size).is_ok_and(|size| size <= MAX_MANIFEST_BYTES) {
        Ok(())
    } else {
        Err(ForeignSeal::Oversized { size: listed_size })
    }
}

/// Judges the bytes read at the seal position `(epoch_id, seq)`: a seal of
/// the archive is a manifest signed by a key of `trusted` that records its
/// own position. Anything else is foreign.
///
/// # Errors
/// The [`ForeignSeal`] reason.
pub fn judge_seal(
    bytes: &[u8],
    epoch_id: EpochId,
    seq: ManifestSeq,
    trusted: &TrustedManifestKeys,
) -> Result<VerifiedManifest, ForeignSeal> {
    check_seal_size(bytes.len() as u64)?;
    let verified = verify_manifest_bytes(bytes, trusted).map_err(ForeignSeal::NotTrusted)?;
    let chain = verified.body().chain;
    if chain.epoch_id != epoch_id || chain.seq != seq {
        return Err(ForeignSeal::Misplaced {
            epoch_id: chain.epoch_id,
            seq: chain.seq,
        });
    }
    Ok(verified)
}
