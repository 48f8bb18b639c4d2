//! The chain walk: every epoch of a partition from seq 0 until it breaks,
//! and the tip over all epochs.

use {
    super::{
        partition::{Chain, Entry},
        report::{EpochSpan, PartitionVerifyReport, VerifyBreak},
    },
    crate::{
        chain::ChainWalk,
        digest::ChainHead,
        stamp::{EpochId, ManifestSeq},
    },
};

/// What the walks of a partition's epochs gather.
struct Walked<'c> {
    /// Every accepted entry, epoch by epoch, in seq order.
    accepted: Vec<&'c Entry>,
    /// The newest accepted manifest (by start offset, then seq) and its
    /// head.
    tip: Option<((i64, ManifestSeq), ChainHead)>,
}

impl<'c> Walked<'c> {
    /// `entry` at `seq` accepted with `head`.
    fn accept(&mut self, entry: &'c Entry, seq: ManifestSeq, head: ChainHead) {
        self.accepted.push(entry);
        let rank = (entry.manifest.body.segment.start_offset, seq);
        if self.tip.as_ref().is_none_or(|(best, _)| rank > *best) {
            self.tip = Some((rank, head));
        }
    }
}

/// Walks every epoch of `chain` into `report` (epochs, tip, findings);
/// the accepted entries.
pub(super) fn walk_epochs<'c>(
    chain: &'c Chain,
    report: &mut PartitionVerifyReport,
) -> Vec<&'c Entry> {
    let mut walked = Walked {
        accepted: Vec::new(),
        tip: None,
    };
    let mut epoch_ids: Vec<EpochId> = chain.keys().map(|(e, _)| *e).collect();
    epoch_ids.dedup();
    for epoch_id in epoch_ids {
        let span = walk_epoch(chain, epoch_id, &mut walked, &mut report.findings);
        report.epochs.push(span);
    }
    report.tip = walked.tip.map(|(_, head)| head);
    walked.accepted
}

/// Walks the epoch `epoch_id` of `chain` from seq 0 until it breaks (a
/// finding).
fn walk_epoch<'c>(
    chain: &'c Chain,
    epoch_id: EpochId,
    walked: &mut Walked<'c>,
    findings: &mut Vec<VerifyBreak>,
) -> EpochSpan {
    let mut walk = ChainWalk::new(epoch_id);
    let mut last_seq = None;
    for ((_, seq), entry) in
        chain.range((epoch_id, ManifestSeq(0))..=(epoch_id, ManifestSeq(u64::MAX)))
    {
        match walk.accept(&entry.manifest.body) {
            Ok(head) => {
                last_seq = Some(*seq);
                walked.accept(entry, *seq, head);
            }
            Err(err) => {
                findings.push(VerifyBreak::ChainBroken {
                    epoch_id,
                    key: entry.key.clone(),
                    detail: err.to_string(),
                });
                break;
            }
        }
    }
    EpochSpan {
        epoch_id,
        accepted: walk.len() as u64,
        last_seq,
        head: walk.head(),
    }
}
