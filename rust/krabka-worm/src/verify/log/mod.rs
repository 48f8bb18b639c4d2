//! The archive log, checked from the bucket and what the auditor holds
//! outside it: every checkpoint ([`checkpoints`]: origin, signature by a
//! trusted key, sizes in order, the witnesses' cosignatures), the tree
//! rebuilt from the entry bundles ([`tree`]: each checkpoint's root, the
//! hash tiles, every leaf against the seal it names, every seal against
//! its leaf), and the evidence of a larger tree from outside the archive
//! ([`external`]: checkpoints held elsewhere, witnesses asked). A larger
//! witnessed or held tree than the archive's is tail truncation.
//!
//! Memory is bounded by the number of seals in scope (one digest each) and
//! a few tiles: the tree is folded leaf by leaf into its right edge.

mod checkpoints;
mod external;
mod listing;
mod proofs;
mod tree;

use {
    super::{
        Result,
        listing::archive_prefix,
        report::{ArchiveVerifyReport, InclusionProofReport, LogVerifyReport, VerifyBreak},
    },
    crate::tlog::{LogHash, LogLayout, NoteVerifier, note::ED25519_TYPE},
    checkpoints::Accepted,
    listing::LogListing,
    object_store::ObjectStore,
    std::collections::{BTreeMap, HashMap},
};

/// The most "missing object" findings one run reports about the log; the
/// first ones are the evidence, the rest would only repeat it.
const MAX_MISSING_FINDINGS: usize = 100;

/// Checks the archive log under the request's prefix, whose listed names
/// (within the log's directory) are `names`, into `report`: a
/// [`LogVerifyReport`] and findings. Nothing happens when the archive keeps
/// no log and the request asks nothing of it.
///
/// # Errors
/// [`VerifyError::Store`](super::VerifyError::Store) when an object cannot
/// be read for a reason other than its absence.
pub(super) async fn verify_log(
    store: &dyn ObjectStore,
    request: &crate::VerifyRequest,
    names: &BTreeMap<String, u64>,
    report: &mut ArchiveVerifyReport,
) -> Result<()> {
    let listing = LogListing::of(names);
    if listing.is_empty() && !request.log.is_set() {
        return Ok(());
    }
    let prefix = archive_prefix(request);
    let layout = LogLayout::new(prefix);
    let mut findings = Vec::new();
    let read =
        checkpoints::read_checkpoints(store, &layout, &listing, request, &mut findings).await?;
    let origin = read.origin.clone();
    let log_keys = origin
        .as_deref()
        .map(|o| log_keys(request, o))
        .unwrap_or_default();
    let accepted = checkpoints::judge(read, &log_keys, request, &mut findings);
    // The newest: the largest tree, the latest of equals (`max_by_key`
    // returns the last maximum; `accepted` is in number order).
    let newest = accepted.iter().max_by_key(|c| c.checkpoint.size);
    let tree_size = newest.map_or(0, |c| c.checkpoint.size);
    let external = external::read_external(request, origin.as_deref(), &log_keys, &mut findings);

    // The tree, up to the newest checkpoint, checked against every
    // checkpoint it covers and against the seals read.
    let mut seals = tree::SealIndex::new(prefix, report);
    let mut targets: Vec<tree::Target> = accepted.iter().map(Accepted::target).collect();
    targets.extend(
        external
            .iter()
            .filter(|e| e.checkpoint.size <= tree_size)
            .map(Accepted::target),
    );
    let asked = resolve_proofs(request, report);
    let mut wanted: HashMap<String, Option<(u64, LogHash)>> = asked
        .iter()
        .filter_map(|(_, seal)| seal.as_ref())
        .map(|seal| (relative(prefix, seal).to_owned(), None))
        .collect();
    let rebuilt = tree::rebuild(
        store,
        &layout,
        request,
        tree_size,
        targets,
        &mut seals,
        &mut wanted,
        &mut findings,
    )
    .await?;
    let pending = tree::claims(
        store,
        &layout,
        &listing,
        tree_size,
        &mut seals,
        &mut findings,
    )
    .await?;
    seals.report_unlogged(&mut findings);

    // What the archive's tree must at least hold.
    let mut log_report = LogVerifyReport {
        origin,
        checkpoints: listing.checkpoints.len() as u64,
        newest: newest.map(Accepted::summary),
        witnessed: None,
        quorum: request.log.required_cosigners(),
        leaves: rebuilt.leaves,
        pending,
        tiles_checked: rebuilt.tiles,
        external: external.iter().map(Accepted::summary).collect(),
        witnesses: Vec::new(),
        consistency: Vec::new(),
        inclusion: Vec::new(),
    };
    let found_size = rebuilt.leaves;
    hold_to_floors(
        &accepted,
        &external,
        request.log.required_cosigners(),
        found_size,
        &mut log_report,
        &mut findings,
    );
    if !request.log.ask_witnesses.is_empty() {
        log_report.witnesses =
            external::ask_witnesses(request, newest, found_size, &mut findings).await;
    }
    let reached = newest.filter(|n| n.checkpoint.size == found_size);
    prove(
        store,
        &layout,
        prefix,
        reached,
        asked,
        &wanted,
        &mut log_report,
        &mut findings,
    )
    .await?;
    if listing.is_empty() && request.log.is_set() {
        findings.push(VerifyBreak::LogUnattested {
            detail:
                "the archive keeps no archive log (no checkpoint, claim or tile under _krabka-log/)"
                    .to_owned(),
        });
    }
    report.findings.extend(findings);
    report.log = Some(log_report);
    Ok(())
}

/// Holds the archive's tree of `found_size` leaves to what must be in it:
/// every checkpoint held outside, and the largest checkpoint with the
/// quorum of `required` cosignatures (recorded as the witnessed one).
fn hold_to_floors(
    accepted: &[Accepted],
    external: &[Accepted],
    required: usize,
    found_size: u64,
    log_report: &mut LogVerifyReport,
    findings: &mut Vec<VerifyBreak>,
) {
    for held in external {
        if held.checkpoint.size > found_size {
            findings.push(VerifyBreak::LogTruncated {
                source: held.source.clone(),
                attested_size: held.checkpoint.size,
                found_size,
            });
        }
    }
    if required == 0 {
        return;
    }
    let witnessed = accepted
        .iter()
        .filter(|c| c.cosigners.len() >= required)
        .max_by_key(|c| c.checkpoint.size);
    match witnessed {
        Some(w) => {
            if w.checkpoint.size > found_size {
                findings.push(VerifyBreak::LogTruncated {
                    source: w.source.clone(),
                    attested_size: w.checkpoint.size,
                    found_size,
                });
            }
            log_report.witnessed = Some(w.summary());
        }
        None => findings.push(VerifyBreak::LogUnattested {
            detail: format!(
                "no checkpoint of the archive log carries {required} valid cosignature(s) of the given witnesses"
            ),
        }),
    }
}

/// The proofs, from the tiles, against the newest checkpoint when the tree
/// was read up to it (`reached`): consistency from the witnessed and the
/// held checkpoints, inclusion of the segments `asked` (whose leaves the
/// rebuild found in `wanted`).
#[allow(clippy::too_many_arguments)]
async fn prove(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    prefix: Option<&str>,
    reached: Option<&Accepted>,
    asked: Vec<(String, Option<String>)>,
    wanted: &HashMap<String, Option<(u64, LogHash)>>,
    log_report: &mut LogVerifyReport,
    findings: &mut Vec<VerifyBreak>,
) -> Result<()> {
    let Some(newest) = reached else {
        for (what, seal) in asked {
            log_report.inclusion.push(InclusionProofReport {
                segment: what,
                seal: seal.unwrap_or_default(),
                index: None,
                size: log_report.leaves,
                proof: Vec::new(),
                verified: false,
                detail: Some("the archive's tree does not reach its newest checkpoint".to_owned()),
            });
        }
        return Ok(());
    };
    let end = proofs::Newest {
        size: newest.checkpoint.size,
        root: newest.checkpoint.root,
    };
    let olders: Vec<proofs::Older> = log_report
        .witnessed
        .iter()
        .chain(log_report.external.iter())
        .filter(|c| c.size > 0 && c.size < end.size)
        .filter_map(|c| {
            Some(proofs::Older {
                source: c.source.clone(),
                size: c.size,
                root: LogHash::from_base64(&c.root, "root").ok()?,
            })
        })
        .collect();
    for older in &olders {
        let proof = proofs::consistency(store, layout, older, end).await?;
        if !proof.verified {
            findings.push(VerifyBreak::CheckpointInconsistent {
                key: older.source.clone(),
                detail: format!(
                    "no consistency proof from size {} to the newest checkpoint's {}: {}",
                    older.size,
                    end.size,
                    proof.detail.as_deref().unwrap_or("it does not verify")
                ),
                evidence: Vec::new(),
            });
        }
        log_report.consistency.push(proof);
    }
    for (what, seal) in asked {
        let found = seal
            .as_ref()
            .and_then(|s| wanted.get(relative(prefix, s)).copied().flatten());
        log_report.inclusion.push(
            proofs::inclusion(store, layout, what, seal.unwrap_or_default(), found, end).await?,
        );
    }
    Ok(())
}

/// Each segment the request asks to prove (as it was written) with the
/// seal of the accepted segment covering its offset, if any.
fn resolve_proofs(
    request: &crate::VerifyRequest,
    report: &ArchiveVerifyReport,
) -> Vec<(String, Option<String>)> {
    request
        .log
        .prove
        .iter()
        .map(|at| {
            let seal = report
                .partitions
                .iter()
                .filter(|p| p.topic == at.topic && p.partition == at.partition)
                .flat_map(|p| p.segments.iter())
                .find(|s| s.start_offset <= at.offset && at.offset <= s.end_offset)
                .map(|s| s.seal.clone());
            (at.to_string(), seal)
        })
        .collect()
}

/// `key` relative to the archive prefix.
fn relative<'k>(prefix: Option<&str>, key: &'k str) -> &'k str {
    match prefix {
        Some(prefix) => key
            .strip_prefix(prefix)
            .and_then(|k| k.strip_prefix('/'))
            .unwrap_or(key),
        None => key,
    }
}

/// The keys a checkpoint of `origin` may be signed with: every trusted
/// manifest key, under the origin's name (the writer signs checkpoints with
/// its manifest key).
fn log_keys(request: &crate::VerifyRequest, origin: &str) -> Vec<NoteVerifier> {
    let trusted = &request.trusted;
    trusted
        .key_ids()
        .filter_map(|id| trusted.public_key(id))
        .filter_map(|key| NoteVerifier::new(origin, ED25519_TYPE, key).ok())
        .collect()
}
