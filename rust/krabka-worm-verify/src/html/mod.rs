//! `--report FILE.html`: the verification as one self-contained HTML page
//! for people (an auditor, a regulator): no script, no font, no request
//! when it is opened; styles and charts (SVG) inline. In this order: the
//! verdict and exit code; the command that reproduces the run; what was
//! checked and the bucket's own lock; the archive log and its witnesses;
//! every finding with its evidence; per partition its chain (segments,
//! offsets, time span, protection) and a chart of its segments over time;
//! the retention timeline (when archived objects become deletable).

mod charts;
mod escape;
mod time;

use {
    crate::exit,
    charts::{retention_chart, segments_chart},
    escape::Html,
    krabka_worm::{ArchiveVerifyReport, Severity, VerifyBreak, VerifyDepth, VerifyOutcome},
    std::fmt::Write as _,
};

/// The most findings listed on the page; the JSON report has them all.
const MAX_FINDINGS: usize = 2000;

/// What the page says about the run besides the report.
#[derive(Debug)]
pub struct RunContext<'a> {
    /// The command line that reproduces the run (program name included).
    pub command: &'a str,
    /// Where the archive was read from, as the arguments name it.
    pub source: &'a str,
    /// When the run finished, in milliseconds since the Unix epoch.
    pub finished_ms: i64,
}

const STYLE: &str = "
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}
.verdict{border-radius:8px;padding:18px 22px;margin:12px 0;color:#fff}
.verdict .big{font-size:28px;font-weight:700}.verdict p{margin:4px 0 0}
.verified{background:#1e7d43}.incomplete{background:#a66a00}.tampered{background:#b42318}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}
th,td{border:1px solid #d5d9e0;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eef0f4}
code,pre{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre{background:#fff;border:1px solid #d5d9e0;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.sev{font-weight:700;border-radius:4px;padding:1px 6px;color:#fff;font-size:12px}
.sev-tampering{background:#b42318}.sev-incomplete{background:#a66a00}.sev-notice{background:#51607a}
.muted{color:#5b6577}.ok{color:#1e7d43;font-weight:600}.bad{color:#b42318;font-weight:600}
svg{background:#fff;border:1px solid #d5d9e0;max-width:100%;height:auto}
td code{word-break:break-all}
";

/// The page for `report`.
#[must_use]
pub fn render(report: &ArchiveVerifyReport, run: &RunContext<'_>) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let outcome = report.outcome();
    let code = exit::exit_code(outcome);
    let (class, verdict, meaning) = match outcome {
        VerifyOutcome::Verified => (
            "verified",
            "VERIFIED",
            "Every manifest is signed by a trusted key, every chain and object checks out.",
        ),
        VerifyOutcome::Incomplete => (
            "incomplete",
            "INCOMPLETE ATTESTATION",
            "No evidence of tampering, but not everything could be attested (see the findings).",
        ),
        VerifyOutcome::Tampered => (
            "tampered",
            "EVIDENCE OF TAMPERING",
            "The archive was changed after it was written (see the findings and their evidence).",
        ),
    };
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Krabka archive audit: {verdict}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n\
         <h1>Krabka write-once archive audit</h1>\n\
         <p class=\"muted\">{} · finished {} UTC · krabka-worm-verify {}</p>\n\
         <section class=\"verdict {class}\" id=\"verdict\"><div class=\"big\">{verdict}</div>\
         <p>Exit code {code}. {meaning}</p><p>{} finding(s): {} tampering, {} incomplete, {} notice.</p></section>",
        Html(run.source),
        time::utc(run.finished_ms),
        env!("CARGO_PKG_VERSION"),
        report.all_findings().count(),
        count(report, Severity::Tampering),
        count(report, Severity::Incomplete),
        count(report, Severity::Notice),
    );
    let _ = writeln!(
        out,
        "<h2>Reproduce this run</h2>\n<pre id=\"command\">{}</pre>",
        Html(run.command)
    );
    checks(&mut out, report);
    log_section(&mut out, report);
    findings(&mut out, report);
    partitions(&mut out, report);
    retention(&mut out, report);
    out.push_str(
        "<p class=\"muted\">Exit codes: 0 verified, 1 evidence of tampering, 2 incomplete attestation, \
         3 the archive could not be read, 64 usage error. The machine-readable report is \
         <code>--json</code>.</p>\n</main>\n</body>\n</html>\n",
    );
    out
}

fn count(report: &ArchiveVerifyReport, severity: Severity) -> usize {
    report
        .all_findings()
        .filter(|f| f.severity() == severity)
        .count()
}

/// What was checked, and the bucket's own lock as found.
fn checks(out: &mut String, report: &ArchiveVerifyReport) {
    let depth = match report.depth {
        VerifyDepth::Shallow => "present with the recorded size (shallow run)",
        VerifyDepth::Deep => {
            "re-hashed by streaming and compared with the recorded SHA-256 (deep run)"
        }
    };
    let segments: usize = report.partitions.iter().map(|p| p.manifests).sum();
    let _ = writeln!(
        out,
        "<h2>What was checked</h2>\n<ul>\n<li>{} object(s) listed, {} partition(s), {segments} manifest(s).</li>\n\
         <li>Every manifest and chain seal decoded, signed by a trusted key (never the key a manifest carries), \
         and every partition's hash chain walked epoch by epoch.</li>\n\
         <li>Every object a manifest names: {depth}.</li>",
        report.objects_listed,
        report.partitions.len(),
    );
    match &report.bucket {
        Some(bucket) => {
            let _ = writeln!(
                out,
                "<li>The bucket's versioning and Object Lock configuration, every object version under the \
                 prefix (delete markers, shadowed and missing pinned versions), and the retention of every \
                 archived version.</li>\n</ul>\n<table id=\"bucket\"><tr><th>Versioning</th><th>Object Lock</th>\
                 <th>Default retention</th></tr><tr><td>{}</td><td>{}</td><td>{} {}</td></tr></table>",
                Html(&bucket.versioning),
                if bucket.object_lock { "enabled" } else { "<span class=\"bad\">not enabled</span>" },
                Html(bucket.default_mode.as_deref().unwrap_or("none")),
                Html(bucket.default_period.as_deref().unwrap_or("")),
            );
        }
        None => out.push_str(
            "<li class=\"muted\">The bucket's own lock was not read: this source is not S3 (a GCS bucket \
             or a local copy).</li>\n</ul>\n",
        ),
    }
}

/// The archive log: checkpoints, witnesses, checkpoints held outside.
fn log_section(out: &mut String, report: &ArchiveVerifyReport) {
    out.push_str("<h2>Archive log and witnesses</h2>\n");
    let Some(log) = &report.log else {
        out.push_str(
            "<p class=\"muted\">The archive keeps no archive log, and none was asked for: tail truncation \
             is detectable only with a tip recorded outside the archive (<code>--expect-head</code>).</p>\n",
        );
        return;
    };
    let _ = writeln!(
        out,
        "<p>Origin <code>{}</code>: {} checkpoint(s); {} leaf(s) read back and checked against the seals, \
         {} pending the next checkpoint, {} hash tile(s) compared. A checkpoint counts as witnessed with \
         {} cosignature(s).</p>\n<table id=\"checkpoints\"><tr><th>Checkpoint</th><th>Tree size</th>\
         <th>Root</th><th>Cosigned by</th></tr>",
        Html(log.origin.as_deref().unwrap_or("(none)")),
        log.checkpoints,
        log.leaves,
        log.pending,
        log.tiles_checked,
        log.quorum,
    );
    let rows = [("newest", &log.newest), ("witnessed", &log.witnessed)];
    for (what, checkpoint) in rows {
        match checkpoint {
            Some(c) => {
                let _ = writeln!(
                    out,
                    "<tr><td>{what}<br><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                    Html(&c.source),
                    c.size,
                    Html(&c.root),
                    cosigners(&c.cosigners),
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "<tr><td>{what}</td><td colspan=\"3\" class=\"muted\">none</td></tr>"
                );
            }
        }
    }
    for held in &log.external {
        let _ = writeln!(
            out,
            "<tr><td>held outside<br><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            Html(&held.source),
            held.size,
            Html(&held.root),
            cosigners(&held.cosigners),
        );
    }
    out.push_str("</table>\n");
    if !log.consistency.is_empty() || !log.inclusion.is_empty() {
        out.push_str(
            "<table id=\"proofs\"><tr><th>Proof (RFC 9162)</th><th>Of</th><th>Result</th><th>Hashes (base64)</th></tr>\n",
        );
        for p in &log.consistency {
            let _ = writeln!(
                out,
                "<tr><td>consistency {} → {}</td><td><code>{}</code></td><td>{}</td><td><pre>{}</pre></td></tr>",
                p.old_size,
                p.new_size,
                Html(&p.from),
                verdict(p.verified, p.detail.as_deref()),
                Html(&p.proof.join("\n")),
            );
        }
        for p in &log.inclusion {
            let leaf = p
                .index
                .map_or_else(String::new, |i| format!(", leaf {i} of {}", p.size));
            let _ = writeln!(
                out,
                "<tr><td>inclusion{leaf}</td><td>{}<br><code>{}</code></td><td>{}</td><td><pre>{}</pre></td></tr>",
                Html(&p.segment),
                Html(&p.seal),
                verdict(p.verified, p.detail.as_deref()),
                Html(&p.proof.join("\n")),
            );
        }
        out.push_str("</table>\n");
    }
    if !log.witnesses.is_empty() {
        out.push_str(
            "<table id=\"witnesses\"><tr><th>Witness asked</th><th>Tree it cosigned</th></tr>\n",
        );
        for w in &log.witnesses {
            let said = match (w.size, &w.detail) {
                (Some(size), _) => format!("size {size}"),
                (None, Some(detail)) => format!("<span class=\"bad\">{}</span>", Html(detail)),
                (None, None) => "no answer".to_owned(),
            };
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td>{said}</td></tr>",
                Html(&w.url)
            );
        }
        out.push_str("</table>\n");
    }
}

fn verdict(verified: bool, detail: Option<&str>) -> String {
    if verified {
        "<span class=\"ok\">verified</span>".to_owned()
    } else {
        format!(
            "<span class=\"bad\">not verified</span> {}",
            Html(detail.unwrap_or_default())
        )
    }
}

fn cosigners(names: &[String]) -> String {
    if names.is_empty() {
        "<span class=\"muted\">no cosignature</span>".to_owned()
    } else {
        names
            .iter()
            .map(|n| format!("<code>{}</code>", Html(n)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every finding, gravest first, with its fields and evidence.
fn findings(out: &mut String, report: &ArchiveVerifyReport) {
    let mut all: Vec<(&str, &VerifyBreak)> = report
        .findings
        .iter()
        .map(|f| ("archive", f))
        .chain(
            report
                .partitions
                .iter()
                .flat_map(|p| p.findings.iter().map(move |f| (p.dir.as_str(), f))),
        )
        .collect();
    all.sort_by_key(|(_, f)| std::cmp::Reverse(f.severity()));
    let _ = writeln!(out, "<h2>Findings ({})</h2>", all.len());
    if all.is_empty() {
        out.push_str("<p class=\"ok\" id=\"findings\">None.</p>\n");
        return;
    }
    out.push_str(
        "<table id=\"findings\"><tr><th>Severity</th><th>Finding</th><th>Where</th><th>Evidence</th></tr>\n",
    );
    for (dir, finding) in all.iter().take(MAX_FINDINGS) {
        let (severity, class) = match finding.severity() {
            Severity::Tampering => ("tampering", "sev-tampering"),
            Severity::Incomplete => ("incomplete", "sev-incomplete"),
            Severity::Notice => ("notice", "sev-notice"),
        };
        let value = serde_json::to_value(finding).unwrap_or_default();
        let kind = value["kind"].as_str().unwrap_or("finding").to_owned();
        let mut evidence = String::new();
        if let Some(fields) = value.as_object() {
            for (name, field) in fields.iter().filter(|(n, _)| *n != "kind") {
                let text = match field {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Array(items) => items
                        .iter()
                        .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                    other => other.to_string(),
                };
                if text.contains('\n') {
                    let _ = write!(
                        evidence,
                        "<div>{}:</div><pre>{}</pre>",
                        Html(name),
                        Html(&text)
                    );
                } else {
                    let _ = write!(
                        evidence,
                        "<div>{}: <code>{}</code></div>",
                        Html(name),
                        Html(&text)
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "<tr><td><span class=\"sev {class}\">{severity}</span></td><td>{}</td><td><code>{}</code></td><td>{evidence}</td></tr>",
            Html(&kind),
            Html(dir),
        );
    }
    out.push_str("</table>\n");
    if all.len() > MAX_FINDINGS {
        let _ = writeln!(
            out,
            "<p class=\"muted\">{} more finding(s) in the JSON report (<code>--json</code>).</p>",
            all.len() - MAX_FINDINGS
        );
    }
}

/// Per partition: its chain, and its segments over time.
fn partitions(out: &mut String, report: &ArchiveVerifyReport) {
    let _ = writeln!(out, "<h2>Partitions ({})</h2>", report.partitions.len());
    if report.partitions.is_empty() {
        out.push_str("<p class=\"muted\">No partition in scope.</p>\n");
        return;
    }
    out.push_str(
        "<table id=\"partitions\"><tr><th>Partition</th><th>Segments</th><th>Offsets</th><th>Time span (UTC)</th>\
         <th>Chain</th><th>Protection</th><th>Findings</th></tr>\n",
    );
    for p in &report.partitions {
        let offsets = p
            .offsets
            .map_or_else(|| "none".to_owned(), |(a, b)| format!("{a} – {b}"));
        let span = p.time_span_ms.map_or_else(
            || "none".to_owned(),
            |(a, b)| format!("{} – {}", time::utc(a), time::utc(b)),
        );
        let tip = p
            .tip
            .map_or_else(|| "no tip".to_owned(), |t| format!("tip <code>{t}</code>"));
        let gaps = if p.gaps.is_empty() {
            String::new()
        } else {
            format!("<br>{} offset gap(s)", p.gaps.len())
        };
        let modes = protection_summary(p);
        let grave = p
            .findings
            .iter()
            .filter(|f| f.severity() > Severity::Notice)
            .count();
        let findings = if grave > 0 {
            format!("<span class=\"bad\">{grave}</span> of {}", p.findings.len())
        } else {
            p.findings.len().to_string()
        };
        let _ = writeln!(
            out,
            "<tr><td>{}-{}<br><code class=\"muted\">{}</code></td><td>{}</td><td>{offsets}{gaps}</td><td>{span}</td>\
             <td>{} epoch(s), {tip}</td><td>{modes}</td><td>{findings}</td></tr>",
            Html(&p.topic),
            p.partition,
            Html(&p.dir),
            p.segments.len(),
            p.epochs.len(),
        );
    }
    out.push_str("</table>\n<h3>Segments over time</h3>\n");
    out.push_str(&segments_chart(&report.partitions));
}

/// The Object Lock modes of a partition's archived versions.
fn protection_summary(p: &krabka_worm::PartitionVerifyReport) -> String {
    if p.protection.is_empty() {
        return "<span class=\"muted\">not read</span>".to_owned();
    }
    let mut modes: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for object in &p.protection {
        *modes
            .entry(object.mode.as_deref().unwrap_or("none"))
            .or_default() += 1;
    }
    modes
        .iter()
        .map(|(mode, n)| format!("{} × {n}", Html(mode)))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// When archived objects become deletable.
fn retention(out: &mut String, report: &ArchiveVerifyReport) {
    out.push_str("<h2>Retention timeline</h2>\n");
    let dates: Vec<&str> = report
        .partitions
        .iter()
        .flat_map(|p| p.protection.iter())
        .filter_map(|o| o.retain_until.as_deref())
        .collect();
    if dates.is_empty() {
        out.push_str(
            "<p class=\"muted\">No retain-until date was read (the source is not S3, or no archived version \
             carries one).</p>\n",
        );
        return;
    }
    let first = dates.iter().min().copied().unwrap_or_default();
    let last = dates.iter().max().copied().unwrap_or_default();
    let _ = writeln!(
        out,
        "<p id=\"retention\">{} archived object version(s) carry a retain-until date: the first become \
         deletable on <b>{}</b>, the last on <b>{}</b>. Versions without one are listed under Protection.</p>",
        dates.len(),
        Html(first),
        Html(last),
    );
    out.push_str(&retention_chart(&dates));
}
