//! One partition directory, step by step: read its manifests and seals,
//! cross-check them, check signatures, walk the chain epochs (around
//! foreign objects), judge seals without manifests, check the objects,
//! report strays, offset gaps and foreign objects.

use {
    super::{
        Result, coverage,
        crosscheck::cross_check,
        epochs,
        foreign::{Foreign, report_foreign},
        objects::ObjectCheck,
        progress::Tracker,
        read::{self, ReadEntries},
        report::{PartitionVerifyReport, VerifyDepth, VerifyRequest},
        signatures, unfinished,
    },
    crate::{
        digest::Sha256Digest,
        manifest::{MANIFEST_SUFFIX, SegmentManifest},
        seal::seal_key,
        stamp::{EpochId, ManifestSeq},
    },
    object_store::ObjectStore,
    std::collections::{BTreeMap, BTreeSet},
};

/// A chain position: epoch and seq.
pub(super) type Position = (EpochId, ManifestSeq);

/// A manifest or a seal as read from the archive.
pub(super) struct Entry {
    /// Its key.
    pub(super) key: String,
    /// Its bytes.
    pub(super) bytes: Vec<u8>,
    /// Its decoded value.
    pub(super) manifest: SegmentManifest,
}

impl Entry {
    /// The chain position its body records.
    pub(super) fn position(&self) -> Position {
        let chain = &self.manifest.body.chain;
        (chain.epoch_id, chain.seq)
    }
}

/// Entries by chain position.
pub(super) type Chain = BTreeMap<Position, Entry>;

/// Verifies the partition directory `report.dir`, whose listed names (with
/// their sizes) are `names`, into `report`.
///
/// # Errors
/// [`VerifyError::Store`](super::VerifyError::Store) when an object cannot
/// be read for a reason other than its absence.
pub(super) async fn verify_partition(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
    names: &BTreeMap<String, u64>,
    report: &mut PartitionVerifyReport,
    tracker: &Tracker<'_>,
) -> Result<()> {
    let dir = report.dir.clone();
    // Manifests beside the segments, seals, and foreign objects under
    // `_chain/`.
    let ReadEntries {
        manifests,
        seals,
        mut foreign,
    } = read::read_entries(store, &dir, names, report).await?;
    // Cross-check manifests and seals; the chain is walked over the union.
    let (mut chain, unmanifested) = cross_check(&dir, manifests, seals, &mut report.findings);
    // Signatures: an untrusted seal is foreign when a detour routes around
    // it, else reported as such.
    let untrusted = signatures::check_signatures(&chain, &request.trusted);
    let foreign_at: BTreeSet<_> = foreign
        .iter()
        .filter_map(Foreign::position)
        .chain(untrusted.keys().copied())
        .collect();
    // Chains, epoch by epoch, and the offsets they leave uncovered.
    let walked = epochs::walk_epochs(&chain, &foreign_at, report);
    report.gaps.extend(coverage::offset_gaps(&walked.accepted));
    coverage::summarize(&walked.accepted, report);
    let routes = walked.routes;
    for (position, finding) in untrusted {
        if !routes.iter().any(|r| r.from == position) {
            report.findings.push(finding);
            continue;
        }
        let Some(entry) = chain.remove(&position) else {
            continue;
        };
        let seal = seal_key(&dir, position.0, position.1);
        report.archived.retain(|(key, _)| *key != seal);
        if entry.key.ends_with(MANIFEST_SUFFIX) {
            foreign.push(Foreign::untrusted(entry.key, position, finding.clone()));
        }
        foreign.push(Foreign::untrusted(seal, position, finding));
    }
    // Seals without their manifest: unfinished, or the manifest removed.
    unfinished::report_unmanifested(unmanifested, &chain, &routes, &mut report.findings);
    for (position, entry) in &chain {
        report.archived.push((entry.key.clone(), None));
        let seal = seal_key(&dir, position.0, position.1);
        if let Some(name) = seal.strip_prefix(&dir).and_then(|n| n.strip_prefix('/')) {
            if names.contains_key(name) {
                report.seals.push((seal, Sha256Digest::of(&entry.bytes)));
            }
        }
    }
    // Objects.
    let objects = ObjectCheck {
        store,
        dir: &dir,
        names,
        deep: request.depth == VerifyDepth::Deep,
    };
    let named = objects.check_chain(&chain, report, tracker).await?;
    // Stray objects: neither manifest, seal nor named.
    coverage::report_strays(&dir, names, &named, &mut report.findings);
    // Foreign objects under `_chain/`, last: their detail says whether the
    // rest verifies without them.
    report_foreign(foreign, &routes, &mut report.findings);
    Ok(())
}
