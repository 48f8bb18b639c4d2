//! Proofs an auditor can hand on: the inclusion of a segment's sealed
//! manifest in the newest checkpoint, and the consistency of every older
//! checkpoint that counts (witnessed, or held outside the archive) with the
//! newest; each produced from the archive's tiles (RFC 9162) and checked
//! from the proof alone against the checkpoints' roots.

use {
    super::checkpoints::store_error,
    crate::{
        tlog::{
            LogHash, LogLayout, ProofRequest,
            proof::{consistency_proof, inclusion_proof, verify_consistency, verify_inclusion},
            store::{LogReadError, tiles_for_proof},
        },
        verify::{
            Result,
            report::{ConsistencyProofReport, InclusionProofReport},
        },
    },
    object_store::ObjectStore,
};

/// A checkpoint the newest must be consistent with.
pub(super) struct Older {
    pub(super) source: String,
    pub(super) size: u64,
    pub(super) root: LogHash,
}

/// The newest checkpoint the proofs end at.
#[derive(Clone, Copy)]
pub(super) struct Newest {
    pub(super) size: u64,
    pub(super) root: LogHash,
}

fn base64(hashes: &[LogHash]) -> Vec<String> {
    hashes.iter().map(LogHash::to_base64).collect()
}

/// Why a proof could not be produced: a tile the proof needs is missing or
/// unreadable (reported as a finding by the tree check), or the range is
/// invalid.
fn unavailable(err: LogReadError) -> std::result::Result<String, crate::verify::VerifyError> {
    match err {
        LogReadError::Store { .. } => Err(store_error(err)),
        other => Ok(other.to_string()),
    }
}

/// The consistency proof from `older` to `newest`, checked.
pub(super) async fn consistency(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    older: &Older,
    newest: Newest,
) -> Result<ConsistencyProofReport> {
    let mut report = ConsistencyProofReport {
        from: older.source.clone(),
        old_size: older.size,
        new_size: newest.size,
        proof: Vec::new(),
        verified: false,
        detail: None,
    };
    let request = ProofRequest::Consistency {
        old: older.size,
        new: newest.size,
    };
    let mut tiles = match tiles_for_proof(store, layout, newest.size, request).await {
        Ok(tiles) => tiles,
        Err(err) => {
            report.detail = Some(unavailable(err)?);
            return Ok(report);
        }
    };
    match consistency_proof(&mut tiles, older.size, newest.size) {
        Ok(proof) => {
            let checked =
                verify_consistency(older.size, newest.size, &older.root, &newest.root, &proof);
            report.verified = checked.is_ok();
            report.detail = checked.err().map(|e| e.to_string());
            report.proof = base64(&proof);
        }
        Err(err) => report.detail = Some(err.to_string()),
    }
    Ok(report)
}

/// The inclusion proof of leaf `index` (whose hash is `leaf`) in `newest`,
/// checked; `what` names what was asked for.
pub(super) async fn inclusion(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    what: String,
    seal: String,
    found: Option<(u64, LogHash)>,
    newest: Newest,
) -> Result<InclusionProofReport> {
    let mut report = InclusionProofReport {
        segment: what,
        seal,
        index: None,
        size: newest.size,
        proof: Vec::new(),
        verified: false,
        detail: None,
    };
    let Some((index, leaf)) = found else {
        report.detail = Some("no leaf of the newest checkpoint names this seal".to_owned());
        return Ok(report);
    };
    report.index = Some(index);
    let request = ProofRequest::Inclusion {
        index,
        size: newest.size,
    };
    let mut tiles = match tiles_for_proof(store, layout, newest.size, request).await {
        Ok(tiles) => tiles,
        Err(err) => {
            report.detail = Some(unavailable(err)?);
            return Ok(report);
        }
    };
    match inclusion_proof(&mut tiles, index, newest.size) {
        Ok(proof) => {
            let checked = verify_inclusion(index, newest.size, &leaf, &proof, &newest.root);
            report.verified = checked.is_ok();
            report.detail = checked.err().map(|e| e.to_string());
            report.proof = base64(&proof);
        }
        Err(err) => report.detail = Some(err.to_string()),
    }
    Ok(report)
}
