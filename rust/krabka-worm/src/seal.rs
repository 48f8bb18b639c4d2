//! Where the chain seals live: `<partition>/_chain/<epoch id>/<seq:020>.seal`,
//! and the first epoch of a partition's chain.

use {
    crate::{EpochId, ManifestSeq},
    krabka_kafka::RemoteLogSegmentMetadata,
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
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    EpochId(Uuid::from_bytes(bytes))
}
