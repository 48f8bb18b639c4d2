//! Seals without their manifest beside the segment. The seal is a copy's
//! commit point and the manifest is written after it, so a writer that
//! crashed in between leaves the newest seal of its chain without its
//! manifest, and the next copy of the partition writes it before extending
//! the chain: **committed but unfinished** (a notice). A seal the chain went
//! on from has had its manifest removed: evidence of tampering.

use {
    super::{crosscheck::Unmanifested, epochs::Route, partition::Chain, report::VerifyBreak},
    crate::stamp::ManifestSeq,
};

/// A [`VerifyBreak::CommitUnfinished`] for every seal of `unmanifested`
/// that is the last of its epoch in `chain` and from which no route in
/// `routes` continues; a [`VerifyBreak::ManifestMissing`] for every other.
/// Seals at a position a route leaves from are foreign, not reported here.
pub(super) fn report_unmanifested(
    unmanifested: Vec<Unmanifested>,
    chain: &Chain,
    routes: &[Route],
    findings: &mut Vec<VerifyBreak>,
) {
    for seal in unmanifested {
        if routes.iter().any(|r| r.from == seal.position) {
            continue;
        }
        let (epoch_id, seq) = seal.position;
        let later_entry = seq.0.checked_add(1).is_some_and(|next| {
            chain
                .range((epoch_id, ManifestSeq(next))..=(epoch_id, ManifestSeq(u64::MAX)))
                .next()
                .is_some()
        });
        let continued = routes
            .iter()
            .any(|r| r.from.0 == epoch_id && r.from.1 > seq);
        findings.push(if later_entry || continued {
            VerifyBreak::ManifestMissing {
                seal: seal.seal,
                manifest: seal.manifest,
            }
        } else {
            VerifyBreak::CommitUnfinished {
                seal: seal.seal,
                manifest: seal.manifest,
            }
        });
    }
}
