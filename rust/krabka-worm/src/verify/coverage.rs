//! What the chain leaves uncovered: data objects no manifest names, and
//! offsets no accepted manifest covers.

use {
    super::{
        listing::is_data_object,
        partition::Entry,
        report::{OffsetGap, VerifyBreak},
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
