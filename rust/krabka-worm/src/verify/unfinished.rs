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

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{
            digest::ChainHead,
            verify::epochs::tests::{entry, epoch},
        },
    };

    fn seal(seq: u64) -> Unmanifested {
        Unmanifested {
            position: (epoch(1), ManifestSeq(seq)),
            seal: format!("s{seq}"),
            manifest: format!("m{seq}"),
        }
    }

    #[test]
    fn only_the_last_seal_of_an_epoch_nobody_continued_is_unfinished() {
        let main = epoch(1);
        let mut chain = Chain::new();
        let (e0, h0) = entry(main, 0, ChainHead::GENESIS, 0);
        let (e1, _) = entry(main, 1, h0, 10);
        chain.insert((main, ManifestSeq(0)), e0);
        chain.insert((main, ManifestSeq(1)), e1);
        let mut findings = Vec::new();
        report_unmanifested(vec![seal(0), seal(1)], &chain, &[], &mut findings);
        assert_eq!(
            findings,
            vec![
                VerifyBreak::ManifestMissing {
                    seal: "s0".into(),
                    manifest: "m0".into()
                },
                VerifyBreak::CommitUnfinished {
                    seal: "s1".into(),
                    manifest: "m1".into()
                },
            ]
        );
        // A detour from (main, 2) continued the chain from seq 1.
        let route = Route {
            from: (main, ManifestSeq(2)),
            detour: epoch(2),
            head: h0,
        };
        let mut findings = Vec::new();
        report_unmanifested(
            vec![seal(1)],
            &chain,
            std::slice::from_ref(&route),
            &mut findings,
        );
        assert!(matches!(
            findings[..],
            [VerifyBreak::ManifestMissing { .. }]
        ));
        // A seal a detour routes around is foreign, not reported here.
        let mut findings = Vec::new();
        let routed = Route {
            from: (main, ManifestSeq(1)),
            ..route
        };
        report_unmanifested(vec![seal(1)], &chain, &[routed], &mut findings);
        assert_eq!(findings, Vec::new());
    }
}
