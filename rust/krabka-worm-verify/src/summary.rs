//! The human summary the command line prints on stdout without `--json`.

use {
    krabka_worm::{ArchiveVerifyReport, VerifyDepth, VerifyOutcome},
    std::fmt::Write as _,
};

/// A human summary of `report`: the bucket's own lock (S3), one block per
/// partition with its tip (the head to record for the next run's
/// `--expect-head`), then every finding, then the verdict.
///
/// ```text
/// krabka WORM archive: 1 partition(s), 10 object(s) listed, shallow verification
/// bucket: versioning Enabled, Object Lock enabled, default retention COMPLIANCE 1 Days
/// partition orders-0 (arch/orders-0-AAAAAAAAAAAAAAAAAAAABQ): 2 manifest(s), 8 object(s), 1 epoch(s), 0 byte(s) re-hashed
///   tip: 1f0c…
/// result: VERIFIED
/// ```
#[must_use]
pub fn summary(report: &ArchiveVerifyReport) -> String {
    let mut out = String::new();
    let depth = match report.depth {
        VerifyDepth::Shallow => "shallow",
        VerifyDepth::Deep => "deep",
    };
    let _ = writeln!(
        out,
        "krabka WORM archive: {} partition(s), {} object(s) listed, {depth} verification",
        report.partitions.len(),
        report.objects_listed
    );
    if let Some(bucket) = &report.bucket {
        let lock = if bucket.object_lock {
            format!(
                "Object Lock enabled, default retention {} {}",
                bucket.default_mode.as_deref().unwrap_or("none"),
                bucket.default_period.as_deref().unwrap_or("")
            )
        } else {
            "no Object Lock".to_owned()
        };
        let _ = writeln!(
            out,
            "bucket: versioning {}, {}",
            bucket.versioning,
            lock.trim_end()
        );
    }
    for p in &report.partitions {
        let _ = writeln!(
            out,
            "partition {}-{} ({}): {} manifest(s), {} object(s), {} epoch(s), {} byte(s) re-hashed",
            p.topic,
            p.partition,
            p.dir,
            p.manifests,
            p.objects,
            p.epochs.len(),
            p.bytes_hashed
        );
        match p.tip {
            Some(tip) => {
                let _ = writeln!(out, "  tip: {tip}");
            }
            None => {
                let _ = writeln!(out, "  tip: none");
            }
        }
        for gap in &p.gaps {
            let _ = writeln!(out, "  offset gap: {} .. {}", gap.after, gap.next);
        }
    }
    if let Some(log) = &report.log {
        let _ = writeln!(
            out,
            "archive log {}: {} checkpoint(s), {} leaf(s) checked, {} pending, {} tile(s) compared",
            log.origin.as_deref().unwrap_or("(no origin)"),
            log.checkpoints,
            log.leaves,
            log.pending,
            log.tiles_checked
        );
        let line = |c: &krabka_worm::CheckpointSummary| {
            let cosigners = if c.cosigners.is_empty() {
                "no cosignature".to_owned()
            } else {
                format!("cosigned by {}", c.cosigners.join(", "))
            };
            format!(
                "size {} root {} ({}), {cosigners}",
                c.size, c.root, c.source
            )
        };
        if let Some(newest) = &log.newest {
            let _ = writeln!(out, "  newest checkpoint: {}", line(newest));
        }
        if let Some(witnessed) = &log.witnessed {
            let _ = writeln!(
                out,
                "  witnessed checkpoint (quorum {}): {}",
                log.quorum,
                line(witnessed)
            );
        }
        for held in &log.external {
            let _ = writeln!(out, "  held checkpoint: {}", line(held));
        }
        for witness in &log.witnesses {
            let said = match (witness.size, &witness.detail) {
                (Some(size), _) => format!("cosigned size {size}"),
                (None, Some(detail)) => detail.clone(),
                (None, None) => "no answer".to_owned(),
            };
            let _ = writeln!(out, "  witness {}: {said}", witness.url);
        }
        for proof in &log.consistency {
            let _ = writeln!(
                out,
                "  consistency {} -> {} from {}: {}",
                proof.old_size,
                proof.new_size,
                proof.from,
                if proof.verified {
                    format!("verified ({} hashes)", proof.proof.len())
                } else {
                    format!("NOT verified: {}", proof.detail.as_deref().unwrap_or(""))
                }
            );
        }
        for proof in &log.inclusion {
            let said = match (proof.verified, proof.index) {
                (true, Some(index)) => format!(
                    "leaf {index} of {}, verified; audit path {}",
                    proof.size,
                    proof.proof.join(" ")
                ),
                _ => format!("NOT proved: {}", proof.detail.as_deref().unwrap_or("")),
            };
            let _ = writeln!(
                out,
                "  inclusion of {} ({}): {said}",
                proof.segment, proof.seal
            );
        }
    }
    for finding in report.all_findings() {
        let _ = writeln!(out, "{:?}: {finding:?}", finding.severity());
    }
    let verdict = match report.outcome() {
        VerifyOutcome::Verified => "VERIFIED",
        VerifyOutcome::Incomplete => "INCOMPLETE ATTESTATION",
        VerifyOutcome::Tampered => "EVIDENCE OF TAMPERING",
    };
    let _ = writeln!(out, "result: {verdict}");
    out
}
