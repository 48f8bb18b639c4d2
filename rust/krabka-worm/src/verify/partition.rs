//! One partition directory, step by step: read its manifests and seals,
//! cross-check them, check signatures, walk the chain epochs, check the
//! objects, report strays and offset gaps.

use {
    super::{
        Result, coverage, crosscheck, epochs,
        objects::ObjectCheck,
        progress::Tracker,
        read,
        report::{PartitionVerifyReport, VerifyDepth, VerifyRequest},
        signatures,
    },
    crate::{
        manifest::SegmentManifest,
        stamp::{EpochId, ManifestSeq},
    },
    object_store::ObjectStore,
    std::collections::BTreeMap,
};

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
    pub(super) fn position(&self) -> (EpochId, ManifestSeq) {
        let chain = &self.manifest.body.chain;
        (chain.epoch_id, chain.seq)
    }
}

/// Entries by chain position.
pub(super) type Chain = BTreeMap<(EpochId, ManifestSeq), Entry>;

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
    tracker: &mut Tracker<'_>,
) -> Result<()> {
    let dir = report.dir.clone();
    // Manifests beside the segments, and seals.
    let read = read::read_entries(store, &dir, names, report).await?;
    // Cross-check manifests and seals; the chain is walked over the union.
    let chain = crosscheck::cross_check(&dir, read, &mut report.findings);
    // Signatures.
    signatures::check_signatures(&chain, &request.trusted, &mut report.findings);
    // Chains, epoch by epoch.
    let accepted = epochs::walk_epochs(&chain, report);
    for entry in chain.values() {
        report.archived.push((entry.key.clone(), None));
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
    // Offset gaps between accepted manifests.
    report.gaps.extend(coverage::offset_gaps(&accepted));
    Ok(())
}
