//! The chain walk: every epoch of a partition from seq 0 until it breaks or
//! detours, each detour epoch resumed from the head it routes around, and
//! the tip over all epochs.
//!
//! A writer that finds a foreign object at the position it would take next,
//! `(E, n)`, continues at seq 0 of `detour_epoch(E, n, h)`, building on `h`,
//! the head of `(E, n - 1)` (or GENESIS at seq 0). So a walk of `E` that
//! reaches a foreign position whose detour epoch exists ends there, and that
//! epoch is walked from `h`. Epochs that are nobody's detour are walked from
//! GENESIS.

use {
    super::{
        partition::{Chain, Entry, Position},
        report::{ChainPosition, EpochSpan, PartitionVerifyReport, VerifyBreak},
    },
    crate::{
        chain::ChainWalk,
        digest::ChainHead,
        seal::detour_epoch,
        stamp::{EpochId, ManifestSeq},
    },
    std::collections::{BTreeMap, BTreeSet},
};

/// A chain leaving its epoch at a foreign position for a detour epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Route {
    /// The foreign position routed around.
    pub(super) from: Position,
    /// The detour epoch.
    pub(super) detour: EpochId,
    /// The head the detour's seq 0 builds on.
    pub(super) head: ChainHead,
}

/// What walking a partition's epochs yields.
pub(super) struct Walked<'c> {
    /// Every accepted entry, epoch by epoch, in seq order.
    pub(super) accepted: Vec<&'c Entry>,
    /// Every route from a foreign position to its detour epoch.
    pub(super) routes: Vec<Route>,
}

/// The walk of one epoch.
struct EpochWalk<'c> {
    /// Accepted entries with their seq and head.
    accepted: Vec<(&'c Entry, ManifestSeq, ChainHead)>,
    /// Where it broke.
    broken: Option<VerifyBreak>,
    /// Where it left for a detour epoch.
    route: Option<Route>,
    /// Its span.
    span: EpochSpan,
}

/// What a walk needs to know of the whole partition.
struct Context<'c> {
    /// The chain.
    chain: &'c Chain,
    /// Every epoch of the chain or of a foreign position (a detour whose
    /// seq 0 is junk too holds nothing else).
    epochs: BTreeSet<EpochId>,
    /// Positions holding a foreign object (never a trusted seal).
    foreign: &'c BTreeSet<Position>,
}

/// Walks every epoch of `chain` into `report` (epochs, tip, findings);
/// positions in `foreign` hold objects that are no trusted seal.
pub(super) fn walk_epochs<'c>(
    chain: &'c Chain,
    foreign: &'c BTreeSet<Position>,
    report: &mut PartitionVerifyReport,
) -> Walked<'c> {
    let context = Context {
        chain,
        epochs: chain.keys().chain(foreign).map(|(e, _)| *e).collect(),
        foreign,
    };
    // Which epoch detours from where follows from the walks of the epochs
    // they detour from: walk until the routes stop changing (one more
    // round per level of nesting; bounded by the number of epochs).
    let mut detours: BTreeMap<EpochId, Route> = BTreeMap::new();
    let mut walks = Vec::new();
    for _ in 0..=context.epochs.len() {
        walks = context
            .epochs
            .iter()
            .map(|e| walk_epoch(&context, *e, detours.get(e)))
            .collect();
        let mut found = BTreeMap::new();
        for route in walks
            .iter()
            .filter_map(|w: &EpochWalk<'_>| w.route.as_ref())
        {
            found.entry(route.detour).or_insert_with(|| route.clone());
        }
        if found == detours {
            break;
        }
        detours = found;
    }
    let mut walked = Walked {
        accepted: Vec::new(),
        routes: detours.into_values().collect(),
    };
    let mut tip: Option<((i64, ManifestSeq), ChainHead)> = None;
    for walk in walks {
        // An epoch of nothing but a foreign object is no epoch of the
        // chain, unless the chain passes through it.
        let of_chain = context
            .chain
            .range(epoch_range(walk.span.epoch_id))
            .next()
            .is_some()
            || walk.span.detour_of.is_some()
            || walk.route.is_some();
        for (entry, seq, head) in walk.accepted {
            walked.accepted.push(entry);
            let rank = (entry.manifest.body.segment.start_offset, seq);
            if tip.as_ref().is_none_or(|(best, _)| rank > *best) {
                tip = Some((rank, head));
            }
        }
        report.findings.extend(walk.broken);
        if of_chain {
            report.epochs.push(walk.span);
        }
    }
    report.tip = tip.map(|(_, head)| head);
    walked
}

/// Walks the epoch `epoch_id` from seq 0 (from the head of `detour`, when
/// it is a detour epoch, else from GENESIS) until it breaks (a finding) or
/// reaches a foreign position whose detour epoch exists (a route).
fn walk_epoch<'c>(
    context: &Context<'c>,
    epoch_id: EpochId,
    detour: Option<&Route>,
) -> EpochWalk<'c> {
    let mut walk = ChainWalk::resume(epoch_id, detour.map_or(ChainHead::GENESIS, |r| r.head));
    let mut out = EpochWalk {
        accepted: Vec::new(),
        broken: None,
        route: None,
        span: EpochSpan {
            epoch_id,
            accepted: 0,
            last_seq: None,
            head: walk.head(),
            detour_of: detour.map(|r| ChainPosition {
                epoch_id: r.from.0,
                seq: r.from.1,
            }),
        },
    };
    let mut entries = context.chain.range(epoch_range(epoch_id));
    loop {
        if let Some(route) = route_at(context, epoch_id, &walk) {
            // The chain left the epoch here; nothing of it may follow (the
            // foreign entry at the position itself is reported as such).
            let after = entries.find(|((_, seq), _)| *seq > route.from.1);
            if let Some((_, entry)) = after {
                out.broken = Some(VerifyBreak::ChainBroken {
                    epoch_id,
                    key: entry.key.clone(),
                    detail: format!(
                        "a manifest after seq {}, where the chain detours to epoch {}",
                        route.from.1, route.detour
                    ),
                });
            }
            out.route = Some(route);
            break;
        }
        let Some(((_, seq), entry)) = entries.next() else {
            break;
        };
        match walk.accept(&entry.manifest.body) {
            Ok(head) => {
                out.span.last_seq = Some(*seq);
                out.accepted.push((entry, *seq, head));
            }
            Err(err) => {
                out.broken = Some(VerifyBreak::ChainBroken {
                    epoch_id,
                    key: entry.key.clone(),
                    detail: err.to_string(),
                });
                break;
            }
        }
    }
    out.span.accepted = walk.len() as u64;
    out.span.head = walk.head();
    out
}

/// The route from the walk's next position, when a foreign object holds it
/// and its detour epoch is in the chain.
fn route_at(context: &Context<'_>, epoch_id: EpochId, walk: &ChainWalk) -> Option<Route> {
    let stamp = walk.next_stamp().ok()?;
    let from = (epoch_id, stamp.seq);
    if !context.foreign.contains(&from) {
        return None;
    }
    let detour = detour_epoch(epoch_id, stamp.seq, stamp.prev_head);
    (detour != epoch_id && context.epochs.contains(&detour)).then_some(Route {
        from,
        detour,
        head: stamp.prev_head,
    })
}

/// Every position of the epoch `epoch_id`.
fn epoch_range(epoch_id: EpochId) -> std::ops::RangeInclusive<Position> {
    (epoch_id, ManifestSeq(0))..=(epoch_id, ManifestSeq(u64::MAX))
}

#[cfg(test)]
pub(super) mod tests {
    use {
        super::*,
        crate::manifest::{ManifestBody, SegmentIdentity, SegmentManifest, manifest_head},
        crate::stamp::ChainStamp,
        uuid::Uuid,
    };

    /// An unsigned entry at `(epoch, seq)` on `prev`, for offsets from
    /// `start`; its head.
    pub(in crate::verify) fn entry(
        epoch: EpochId,
        seq: u64,
        prev: ChainHead,
        start: i64,
    ) -> (Entry, ChainHead) {
        let segment = SegmentIdentity {
            topic: "t".to_owned(),
            topic_id: Uuid::nil(),
            partition: 0,
            segment_id: Uuid::from_u128(start as u128),
            start_offset: start,
            end_offset: start + 9,
            max_timestamp_ms: 0,
            broker_id: 0,
            event_timestamp_ms: 0,
            segment_size_bytes: 0,
            leader_epochs: BTreeMap::new(),
            txn_index_empty: true,
        };
        let chain = ChainStamp {
            epoch_id: epoch,
            seq: ManifestSeq(seq),
            prev_head: prev,
        };
        let body = ManifestBody::new(segment, Vec::new(), chain);
        let head = manifest_head(&body);
        let manifest = SegmentManifest {
            body,
            signature: None,
        };
        let entry = Entry {
            key: format!("{epoch}/{seq}"),
            bytes: manifest.to_bytes(),
            manifest,
        };
        (entry, head)
    }

    pub(in crate::verify) fn epoch(n: u128) -> EpochId {
        EpochId(Uuid::from_u128(n))
    }

    fn walk(chain: &Chain, foreign: &[Position]) -> (PartitionVerifyReport, Vec<Route>) {
        let foreign: BTreeSet<Position> = foreign.iter().copied().collect();
        let mut report = PartitionVerifyReport::empty("d".into(), "t".into(), 0);
        let routes = walk_epochs(chain, &foreign, &mut report).routes;
        (report, routes)
    }

    #[test]
    fn a_detour_resumes_from_the_head_before_the_foreign_position() {
        let main = epoch(1);
        let mut chain = Chain::new();
        let (e0, h0) = entry(main, 0, ChainHead::GENESIS, 0);
        let (e1, h1) = entry(main, 1, h0, 10);
        chain.insert((main, ManifestSeq(0)), e0);
        chain.insert((main, ManifestSeq(1)), e1);
        let detour = detour_epoch(main, ManifestSeq(2), h1);
        let (d0, hd) = entry(detour, 0, h1, 20);
        chain.insert((detour, ManifestSeq(0)), d0);
        // Without the foreign object the detour is walked from GENESIS and
        // breaks.
        let (report, routes) = walk(&chain, &[]);
        assert!(routes.is_empty());
        assert!(matches!(
            report.findings.as_slice(),
            [VerifyBreak::ChainBroken { epoch_id, .. }] if *epoch_id == detour
        ));
        // With it, the chain is one chain ending at the detour's head.
        let (report, routes) = walk(&chain, &[(main, ManifestSeq(2))]);
        assert_eq!(report.findings, Vec::new());
        assert_eq!(report.tip, Some(hd));
        assert_eq!(
            routes,
            vec![Route {
                from: (main, ManifestSeq(2)),
                detour,
                head: h1
            }]
        );
        let span = report.epochs.iter().find(|s| s.epoch_id == detour).unwrap();
        assert_eq!(span.accepted, 1);
        assert_eq!(
            span.detour_of,
            Some(ChainPosition {
                epoch_id: main,
                seq: ManifestSeq(2)
            })
        );
    }

    #[test]
    fn nothing_of_an_epoch_may_follow_its_detour() {
        let main = epoch(1);
        let mut chain = Chain::new();
        let (e0, h0) = entry(main, 0, ChainHead::GENESIS, 0);
        chain.insert((main, ManifestSeq(0)), e0);
        let detour = detour_epoch(main, ManifestSeq(1), h0);
        chain.insert((detour, ManifestSeq(0)), entry(detour, 0, h0, 10).0);
        // A manifest at (main, 2), after the foreign (main, 1).
        let (late, _) = entry(main, 2, h0, 30);
        chain.insert((main, ManifestSeq(2)), late);
        let (report, _) = walk(&chain, &[(main, ManifestSeq(1))]);
        assert!(matches!(
            report.findings.as_slice(),
            [VerifyBreak::ChainBroken { epoch_id, detail, .. }]
                if *epoch_id == main && detail.contains("detours to epoch")
        ));
    }

    #[test]
    fn a_foreign_position_without_a_detour_changes_nothing() {
        let main = epoch(1);
        let mut chain = Chain::new();
        let (e0, h0) = entry(main, 0, ChainHead::GENESIS, 0);
        chain.insert((main, ManifestSeq(0)), e0);
        let (report, routes) = walk(
            &chain,
            &[(main, ManifestSeq(1)), (epoch(9), ManifestSeq(0))],
        );
        assert!(routes.is_empty());
        assert_eq!(report.findings, Vec::new());
        assert_eq!(report.tip, Some(h0));
        // The epoch of nothing but junk is not listed.
        assert_eq!(report.epochs.len(), 1);
    }
}
