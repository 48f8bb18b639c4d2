//! The archive's checkpoints: read in number order with their
//! cosignatures, then judged: of the log's origin, signed by a trusted key
//! under it, sizes never shrinking, cosignatures verified against the
//! witnesses' keys.

use {
    super::{MAX_MISSING_FINDINGS, listing::LogListing, tree::Target},
    crate::{
        tlog::{
            Checkpoint, LogLayout, NoteSignature, NoteVerifier, SignedNote,
            store::{LogReadError, read_bounded, read_checkpoint},
        },
        verify::{
            Result,
            report::{CheckpointSummary, VerifyBreak, VerifyRequest},
        },
    },
    futures_util::{StreamExt, TryStreamExt, stream},
    krabka_object_store::store::errors::to_store_error,
    object_store::ObjectStore,
};

/// The largest cosignature object read (one signature line).
const MAX_COSIGNATURE_BYTES: usize = 1024;

/// Checkpoints (and cosignatures) read at once.
const READ_AHEAD: usize = 16;

/// A checkpoint as read, nothing judged.
pub(super) struct Found {
    key: String,
    note: SignedNote,
    checkpoint: Checkpoint,
    /// Its cosignature objects: key and bytes (`None`: gone since listed).
    cosignatures: Vec<(String, Option<Vec<u8>>)>,
}

/// The checkpoints read and the origin they are judged against.
pub(super) struct Read {
    /// The request's origin, else the newest checkpoint's.
    pub(super) origin: Option<String>,
    found: Vec<Found>,
}

/// A checkpoint of the log, signed by a trusted key: one of the archive's
/// (in number order) or one held outside it.
pub(super) struct Accepted {
    /// Its key in the archive, or where it came from.
    pub(super) source: String,
    /// The signed note as stored or given.
    pub(super) note: String,
    pub(super) checkpoint: Checkpoint,
    /// Names of the configured witnesses whose cosignatures verify.
    pub(super) cosigners: Vec<String>,
}

impl Accepted {
    /// What the tree must give at this checkpoint's size.
    pub(super) fn target(&self) -> Target {
        Target {
            size: self.checkpoint.size,
            root: self.checkpoint.root,
            source: self.source.clone(),
            note: self.note.clone(),
        }
    }

    /// Its line in the report.
    pub(super) fn summary(&self) -> CheckpointSummary {
        CheckpointSummary {
            source: self.source.clone(),
            size: self.checkpoint.size,
            root: self.checkpoint.root.to_base64(),
            cosigners: self.cosigners.clone(),
        }
    }
}

/// A failed read as the verifier's error. Callers turn absent objects and
/// bad bytes into findings first; were one to reach here, it is named as
/// what it is rather than dropped.
pub(super) fn store_error(err: LogReadError) -> crate::verify::VerifyError {
    match err {
        LogReadError::Store { key, source } => to_store_error(source, "read of", &key).into(),
        other => krabka_object_store::StoreError::InvalidArgument(other.to_string()).into(),
    }
}

/// Reads every listed checkpoint and its cosignatures; findings for
/// checkpoint numbers missing from the sequence and checkpoints that do
/// not decode.
pub(super) async fn read_checkpoints(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    listing: &LogListing,
    request: &VerifyRequest,
    findings: &mut Vec<VerifyBreak>,
) -> Result<Read> {
    // Every number below the highest listed (a checkpoint's or a
    // cosignature's) must hold a checkpoint: they are created in order and
    // never deleted.
    let highest = listing
        .checkpoints
        .iter()
        .chain(listing.cosignatures.keys())
        .max()
        .copied();
    if let Some(highest) = highest {
        let missing = (0..=highest)
            .filter(|seq| !listing.checkpoints.contains(seq))
            .take(MAX_MISSING_FINDINGS);
        for seq in missing {
            findings.push(VerifyBreak::LogObjectMissing {
                key: layout.checkpoint(seq),
            });
        }
    }
    let read: Vec<ReadOne> = stream::iter(listing.checkpoints.iter().copied())
        .map(|seq| read_one(store, layout, listing, seq))
        .buffered(READ_AHEAD)
        .try_collect()
        .await?;
    let mut found = Vec::new();
    for one in read {
        match one {
            ReadOne::Found(checkpoint) => found.push(checkpoint),
            ReadOne::Finding(finding) => findings.push(finding),
        }
    }
    // `found` is in number order: the last is the newest.
    let origin = request
        .log
        .origin
        .clone()
        .or_else(|| found.last().map(|f: &Found| f.checkpoint.origin.clone()));
    Ok(Read { origin, found })
}

enum ReadOne {
    Found(Found),
    Finding(VerifyBreak),
}

async fn read_one(
    store: &dyn ObjectStore,
    layout: &LogLayout,
    listing: &LogListing,
    seq: u64,
) -> Result<ReadOne> {
    let key = layout.checkpoint(seq);
    let stored = match read_checkpoint(store, layout, seq).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return Ok(ReadOne::Finding(VerifyBreak::LogObjectMissing { key })),
        Err(LogReadError::Invalid { key, source }) => {
            return Ok(ReadOne::Finding(VerifyBreak::LogObjectUnreadable {
                key,
                detail: source.to_string(),
            }));
        }
        Err(err) => return Err(store_error(err)),
    };
    let mut cosignatures = Vec::new();
    for name in listing.cosignatures.get(&seq).into_iter().flatten() {
        let key = format!("{}/{name}", layout.cosignatures(seq));
        let bytes = match read_bounded(store, &key, MAX_COSIGNATURE_BYTES).await {
            Ok(bytes) => bytes.map(|b| b.to_vec()),
            // Oversized: no signature line; judged as unreadable.
            Err(LogReadError::Invalid { .. }) => Some(Vec::new()),
            Err(err) => return Err(store_error(err)),
        };
        cosignatures.push((key, bytes));
    }
    Ok(ReadOne::Found(Found {
        key,
        note: stored.note,
        checkpoint: stored.checkpoint,
        cosignatures,
    }))
}

/// Why `checkpoint` (signed `note`) is not a checkpoint of the log, if it
/// is not.
pub(super) fn refusal(
    checkpoint: &Checkpoint,
    note: &SignedNote,
    origin: Option<&str>,
    log_keys: &[NoteVerifier],
) -> Option<String> {
    match origin {
        Some(origin) if checkpoint.origin != origin => Some(format!(
            "of origin {:?}, the archive log is {origin:?}",
            checkpoint.origin
        )),
        None => Some("no origin to check it against".to_owned()),
        Some(_) if !note.is_signed_by_any(log_keys) => {
            Some("no valid signature by a trusted key under the log's origin".to_owned())
        }
        Some(_) => None,
    }
}

/// Judges the checkpoints read: the accepted ones, in number order, with
/// their verified cosigners.
pub(super) fn judge(
    read: Read,
    log_keys: &[NoteVerifier],
    request: &VerifyRequest,
    findings: &mut Vec<VerifyBreak>,
) -> Vec<Accepted> {
    let mut accepted: Vec<Accepted> = Vec::new();
    for found in read.found {
        if let Some(detail) = refusal(
            &found.checkpoint,
            &found.note,
            read.origin.as_deref(),
            log_keys,
        ) {
            findings.push(VerifyBreak::CheckpointUnsigned {
                key: found.key,
                detail,
            });
            continue;
        }
        let cosigners = cosigners(&found, &request.log.witnesses, findings);
        let note = found.note.to_text();
        if let Some(previous) = accepted.last() {
            if found.checkpoint.size < previous.checkpoint.size {
                findings.push(VerifyBreak::CheckpointInconsistent {
                    key: found.key.clone(),
                    detail: format!(
                        "size {} after {} of size {}: a log never shrinks",
                        found.checkpoint.size, previous.source, previous.checkpoint.size
                    ),
                    evidence: vec![previous.note.clone(), note.clone()],
                });
            }
        }
        accepted.push(Accepted {
            source: found.key,
            note,
            checkpoint: found.checkpoint,
            cosigners,
        });
    }
    accepted
}

/// The configured witnesses whose stored cosignatures of `found` verify;
/// findings for the others.
fn cosigners(
    found: &Found,
    witnesses: &[NoteVerifier],
    findings: &mut Vec<VerifyBreak>,
) -> Vec<String> {
    let mut cosigners: Vec<String> = Vec::new();
    for (key, bytes) in &found.cosignatures {
        let Some(bytes) = bytes else {
            findings.push(VerifyBreak::LogObjectMissing { key: key.clone() });
            continue;
        };
        let line = std::str::from_utf8(bytes)
            .ok()
            .map(|text| text.strip_suffix('\n').unwrap_or(text))
            .ok_or_else(|| "not UTF-8".to_owned())
            .and_then(|line| NoteSignature::parse_line(line).map_err(|e| e.to_string()));
        let signature = match line {
            Ok(signature) => signature,
            Err(detail) => {
                findings.push(VerifyBreak::LogObjectUnreadable {
                    key: key.clone(),
                    detail,
                });
                continue;
            }
        };
        let stored_as = key.rsplit('/').next().unwrap_or_default();
        let witness = witnesses
            .iter()
            .find(|w| w.name() == signature.name && w.key_hash() == signature.key_hash);
        let Some(witness) = witness else {
            findings.push(VerifyBreak::CosignatureUnknown {
                key: key.clone(),
                name: signature.name,
            });
            continue;
        };
        let valid = stored_as == format!("{:08x}", witness.key_hash())
            && witness
                .verify(&found.note.text, &signature.signature)
                .is_ok();
        if !valid {
            findings.push(VerifyBreak::CosignatureInvalid {
                key: key.clone(),
                witness: witness.name().to_owned(),
            });
        } else if !cosigners.iter().any(|c| c == witness.name()) {
            cosigners.push(witness.name().to_owned());
        }
    }
    cosigners
}
