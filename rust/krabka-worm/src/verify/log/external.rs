//! Evidence of the log's size from outside the archive: checkpoints the
//! auditor holds (an earlier audit's, a witness's copy) and witnesses
//! asked over C2SP `tlog-witness` which tree they last cosigned.

use {
    super::checkpoints::{Accepted, refusal},
    crate::{
        tlog::{
            Checkpoint, NoteVerifier, SignedNote,
            witness::{SizeAnswer, ask_size, client},
        },
        verify::report::{VerifyBreak, VerifyRequest, WitnessSummary},
    },
    std::time::Duration,
};

/// How long one witness may take to answer.
const WITNESS_TIMEOUT: Duration = Duration::from_secs(10);

/// The checkpoints of the request that are checkpoints of the log; a
/// finding for each other.
pub(super) fn read_external(
    request: &VerifyRequest,
    origin: Option<&str>,
    log_keys: &[NoteVerifier],
    findings: &mut Vec<VerifyBreak>,
) -> Vec<Accepted> {
    let mut held = Vec::new();
    for (source, bytes) in &request.log.checkpoints {
        let parsed = SignedNote::parse(bytes).and_then(|note| {
            let checkpoint = Checkpoint::parse(&note.text)?;
            Ok((note, checkpoint))
        });
        let (note, checkpoint) = match parsed {
            Ok(parsed) => parsed,
            Err(err) => {
                findings.push(VerifyBreak::LogObjectUnreadable {
                    key: source.clone(),
                    detail: err.to_string(),
                });
                continue;
            }
        };
        if let Some(detail) = refusal(&checkpoint, &note, origin, log_keys) {
            findings.push(VerifyBreak::CheckpointUnsigned {
                key: source.clone(),
                detail,
            });
            continue;
        }
        let cosigners = request
            .log
            .witnesses
            .iter()
            .filter(|w| matches!(note.verified_by(w), Ok(Some(_))))
            .map(|w| w.name().to_owned())
            .collect();
        held.push(Accepted {
            source: source.clone(),
            note: note.to_text(),
            checkpoint,
            cosigners,
        });
    }
    held
}

/// Asks every witness of the request which tree of the log it last
/// cosigned, showing it the archive's `newest` checkpoint; a witness ahead
/// of the archive's tree of `found_size` leaves is tail truncation, one
/// that cannot be asked leaves the log unattested.
pub(super) async fn ask_witnesses(
    request: &VerifyRequest,
    newest: Option<&Accepted>,
    found_size: u64,
    findings: &mut Vec<VerifyBreak>,
) -> Vec<WitnessSummary> {
    let mut asked = Vec::new();
    let unattested = |url: &str, detail: &str| VerifyBreak::LogUnattested {
        detail: format!("witness {url} could not be asked: {detail}"),
    };
    let Some(newest) = newest else {
        for url in &request.log.ask_witnesses {
            let detail = "the archive holds no checkpoint to show it".to_owned();
            findings.push(unattested(url, &detail));
            asked.push(WitnessSummary {
                url: url.clone(),
                size: None,
                detail: Some(detail),
            });
        }
        return asked;
    };
    let client = match client(WITNESS_TIMEOUT) {
        Ok(client) => client,
        Err(err) => {
            findings.push(VerifyBreak::LogUnattested {
                detail: format!("no HTTP client for the witnesses: {err}"),
            });
            return asked;
        }
    };
    for url in &request.log.ask_witnesses {
        let (size, detail) = match ask_size(&client, url, &newest.note).await {
            Ok(SizeAnswer::Known(size)) => (Some(size), None),
            Ok(SizeAnswer::Empty) => (
                Some(0),
                Some("it knew no tree of the log and cosigned the newest checkpoint".to_owned()),
            ),
            Ok(SizeAnswer::Refused { detail }) => (None, Some(detail)),
            Err(err) => (None, Some(format!("unreachable: {err}"))),
        };
        match (size, &detail) {
            (Some(size), _) if size > found_size => findings.push(VerifyBreak::LogTruncated {
                source: url.clone(),
                attested_size: size,
                found_size,
            }),
            (None, Some(detail)) => findings.push(unattested(url, detail)),
            _ => {}
        }
        asked.push(WitnessSummary {
            url: url.clone(),
            size,
            detail,
        });
    }
    asked
}
