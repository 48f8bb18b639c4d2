//! What the chain covers and leaves uncovered: the accepted segments' span,
//! data objects no manifest names, and offsets no accepted manifest covers.

use {
    super::{
        listing::is_data_object,
        partition::Entry,
        report::{OffsetGap, PartitionVerifyReport, SegmentSummary, VerifyBreak},
    },
    std::collections::{BTreeMap, HashSet},
};

/// An [`VerifyBreak::Orphan`] for every data object of the directory `dir`
/// (listed in `names`) that is not in `named`, in key order.
pub(super) fn report_strays(
    dir: &str,
    names: &BTreeMap<String, u64>,
    named: &HashSet<String>,
    findings: &mut Vec<VerifyBreak>,
) {
    for name in names.keys() {
        let key = format!("{dir}/{name}");
        if !is_data_object(name) || named.contains(&key) {
            continue;
        }
        findings.push(VerifyBreak::Orphan { key });
    }
}

/// The runs of offsets between the `accepted` manifests that none of them
/// covers, in offset order.
/// The accepted segments of `report`'s partition, in offset order, with
/// the offsets and times they span.
pub(super) fn summarize(accepted: &[&Entry], report: &mut PartitionVerifyReport) {
    let mut segments: Vec<SegmentSummary> = accepted
        .iter()
        .map(|e| {
            let segment = &e.manifest.body.segment;
            let chain = e.manifest.body.chain;
            SegmentSummary {
                seal: crate::seal::seal_key(&report.dir, chain.epoch_id, chain.seq),
                start_offset: segment.start_offset,
                end_offset: segment.end_offset,
                max_timestamp_ms: segment.max_timestamp_ms,
                size_bytes: segment.segment_size_bytes,
            }
        })
        .collect();
    segments.sort_by_key(|s| (s.start_offset, s.end_offset));
    report.offsets = segments
        .iter()
        .map(|s| s.start_offset)
        .min()
        .zip(segments.iter().map(|s| s.end_offset).max());
    report.time_span_ms = segments
        .iter()
        .map(|s| s.max_timestamp_ms)
        .min()
        .zip(segments.iter().map(|s| s.max_timestamp_ms).max());
    report.segments = segments;
}

pub(super) fn offset_gaps(accepted: &[&Entry]) -> Vec<OffsetGap> {
    let mut spans: Vec<(i64, i64)> = accepted
        .iter()
        .map(|e| {
            (
                e.manifest.body.segment.start_offset,
                e.manifest.body.segment.end_offset,
            )
        })
        .collect();
    spans.sort_unstable();
    let mut gaps = Vec::new();
    let mut covered: Option<i64> = None;
    for (start, end) in spans {
        if let Some(last) = covered {
            if start > last.saturating_add(1) {
                gaps.push(OffsetGap {
                    after: last,
                    next: start,
                });
            }
        }
        covered = Some(covered.map_or(end, |last| last.max(end)));
    }
    gaps
}
