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
mod tree;

use {
    super::{
        Result,
        listing::archive_prefix,
        report::{ArchiveVerifyReport, LogVerifyReport, VerifyBreak},
    },
    crate::tlog::{LogLayout, NoteVerifier, note::ED25519_TYPE},
    checkpoints::Accepted,
    listing::LogListing,
    object_store::ObjectStore,
    std::collections::BTreeMap,
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
    let newest = accepted.iter().max_by_key(|c| (c.checkpoint.size, c.seq));
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
            .map(external::Held::target),
    );
    let rebuilt = tree::rebuild(
        store,
        &layout,
        request,
        tree_size,
        targets,
        &mut seals,
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
        external: external.iter().map(external::Held::summary).collect(),
        witnesses: Vec::new(),
    };
    let found_size = rebuilt.leaves;
    for held in &external {
        if held.checkpoint.size > found_size {
            findings.push(VerifyBreak::LogTruncated {
                source: held.source.clone(),
                attested_size: held.checkpoint.size,
                found_size,
            });
        }
    }
    let required = request.log.required_cosigners();
    if required > 0 {
        let witnessed = accepted
            .iter()
            .filter(|c| c.cosigners.len() >= required)
            .max_by_key(|c| (c.checkpoint.size, c.seq));
        match witnessed {
            Some(w) => {
                if w.checkpoint.size > found_size {
                    findings.push(VerifyBreak::LogTruncated {
                        source: w.key.clone(),
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
    if !request.log.ask_witnesses.is_empty() {
        log_report.witnesses =
            external::ask_witnesses(request, newest, found_size, &mut findings).await;
    }
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
