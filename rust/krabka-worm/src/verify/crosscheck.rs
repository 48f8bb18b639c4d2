//! Manifests beside the segments against their chain seals: the same bytes
//! at the same position, each manifest under its own segment's key, one
//! manifest per position. The chain is the union of both; seals without
//! their manifest are set aside for [`unfinished`](super::unfinished).

use {
    super::{
        partition::{Chain, Entry, Position},
        report::VerifyBreak,
    },
    crate::manifest::{MANIFEST_SUFFIX, SegmentManifest},
    krabka_kafka::kafka_uuid,
    std::collections::btree_map,
};

/// A seal whose manifest beside the segment is not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unmanifested {
    /// Its chain position.
    pub(super) position: Position,
    /// The seal's key.
    pub(super) seal: String,
    /// The manifest key its body implies.
    pub(super) manifest: String,
}

/// Cross-checks the `manifests` and `seals` of the directory `dir`; the
/// chain to walk (every manifest at its position, and every seal whose
/// manifest is missing) and those seals.
pub(super) fn cross_check(
    dir: &str,
    manifests: Vec<Entry>,
    mut seals: Chain,
    findings: &mut Vec<VerifyBreak>,
) -> (Chain, Vec<Unmanifested>) {
    let mut chain = Chain::new();
    for entry in manifests {
        check_manifest(dir, &entry, &mut seals, findings);
        let position = entry.position();
        match chain.entry(position) {
            btree_map::Entry::Occupied(_) => {
                findings.push(VerifyBreak::ChainBroken {
                    epoch_id: position.0,
                    key: entry.key,
                    detail: format!("a second manifest at seq {}", position.1),
                });
            }
            btree_map::Entry::Vacant(slot) => {
                slot.insert(entry);
            }
        }
    }
    let mut unmanifested = Vec::new();
    for (position, seal) in seals {
        unmanifested.push(Unmanifested {
            position,
            seal: seal.key.clone(),
            manifest: manifest_key_of(dir, &seal.manifest),
        });
        chain.insert(position, seal);
    }
    (chain, unmanifested)
}

/// Checks one manifest against the seal at its position (taking the seal
/// out of `seals`) and against the key its body implies.
fn check_manifest(dir: &str, entry: &Entry, seals: &mut Chain, findings: &mut Vec<VerifyBreak>) {
    match seals.remove(&entry.position()) {
        Some(seal) if seal.bytes == entry.bytes => {}
        Some(seal) => findings.push(VerifyBreak::SealMismatch {
            key: seal.key,
            detail: format!("its bytes differ from the manifest {}", entry.key),
        }),
        None => findings.push(VerifyBreak::NotInChain {
            key: entry.key.clone(),
        }),
    }
    let expected_key = manifest_key_of(dir, &entry.manifest);
    if entry.key != expected_key {
        findings.push(VerifyBreak::ManifestMisplaced {
            key: entry.key.clone(),
            expected: expected_key,
        });
    }
}

/// The key of the manifest beside the segment `manifest` describes.
pub(super) fn manifest_key_of(dir: &str, manifest: &SegmentManifest) -> String {
    let segment = &manifest.body.segment;
    format!(
        "{dir}/{:020}-{}{MANIFEST_SUFFIX}",
        segment.start_offset,
        kafka_uuid(segment.segment_id)
    )
}
