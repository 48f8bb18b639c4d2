//! A client of C2SP `tlog-witness`: `POST <witness>/add-checkpoint` with
//! the size the witness last cosigned, a consistency proof from it and the
//! new checkpoint; the answer is the witness's cosignature lines.

use {
    super::{LogHash, NoteSignature, NoteVerifier, SignedNote},
    std::time::Duration,
};

/// The largest answer read from a witness.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// What a witness said to one submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WitnessAnswer {
    /// It cosigned: the cosignature that verifies under its key, with its
    /// timestamp.
    Cosigned {
        /// The cosignature line.
        signature: NoteSignature,
        /// When the witness signed.
        timestamp: u64,
    },
    /// 409: the witness knows the log at another size than the request
    /// said; the submission is to be made again from it.
    Conflict {
        /// The size the witness last cosigned.
        known: u64,
    },
    /// Anything else: refused (403/404/422, the status and the body's
    /// first line), or an answer that is no cosignature by its key.
    Refused {
        /// What went wrong.
        detail: String,
    },
}

/// The request body of `add-checkpoint`.
#[must_use]
pub fn request_body(old_size: u64, proof: &[LogHash], note: &str) -> String {
    let mut body = format!("old {old_size}\n");
    for hash in proof {
        body.push_str(&hash.to_base64());
        body.push('\n');
    }
    body.push('\n');
    body.push_str(note);
    body
}

/// The HTTP client witnesses are asked with.
///
/// # Errors
/// The client's error when it cannot be built.
pub fn client(timeout: Duration) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .build()
}

/// Submits `note` (a signed checkpoint) to the witness at `url` (its base
/// URL, without a trailing `/`) whose cosignature key is `key`, as an
/// extension of the tree of `old_size` leaves it last cosigned with the
/// consistency `proof` from it.
///
/// # Errors
/// The HTTP client's error when the witness cannot be reached.
pub async fn submit(
    client: &reqwest::Client,
    url: &str,
    key: &NoteVerifier,
    old_size: u64,
    proof: &[LogHash],
    note: &str,
) -> reqwest::Result<WitnessAnswer> {
    let url = format!("{}/add-checkpoint", url.trim_end_matches('/'));
    let response = client
        .post(url)
        .body(request_body(old_size, proof, note))
        .send()
        .await?;
    let status = response.status().as_u16();
    let body = response.bytes().await?;
    let body = &body[..body.len().min(MAX_ANSWER_BYTES)];
    Ok(judge_answer(key, status, body, note))
}

/// What a witness said when asked for the size of the tree it last
/// cosigned ([`ask_size`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeAnswer {
    /// It has cosigned a tree of this many leaves of the log.
    Known(u64),
    /// It knew the log with an empty tree and cosigned the note it was
    /// shown.
    Empty,
    /// It refused or answered something else.
    Refused {
        /// The status and the body's first line.
        detail: String,
    },
}

/// Asks the witness at `url` which tree of `note`'s log it last cosigned,
/// with the one question `tlog-witness` answers it to: an `add-checkpoint`
/// of `note` claiming the witness has cosigned nothing (`old 0`). A witness
/// that has cosigned a larger tree answers 409 with its size; one that
/// knows the log at size 0 checks the note and cosigns it.
///
/// # Errors
/// The HTTP client's error when the witness cannot be reached.
pub async fn ask_size(
    client: &reqwest::Client,
    url: &str,
    note: &str,
) -> reqwest::Result<SizeAnswer> {
    let url = format!("{}/add-checkpoint", url.trim_end_matches('/'));
    let response = client
        .post(url)
        .body(request_body(0, &[], note))
        .send()
        .await?;
    let status = response.status().as_u16();
    let body = response.bytes().await?;
    let text = String::from_utf8_lossy(&body[..body.len().min(MAX_ANSWER_BYTES)]).into_owned();
    Ok(match status {
        200 => SizeAnswer::Empty,
        409 => match text.trim().parse::<u64>() {
            Ok(size) => SizeAnswer::Known(size),
            Err(_) => SizeAnswer::Refused {
                detail: format!("409 without a tree size: {:?}", first_line(&text)),
            },
        },
        _ => SizeAnswer::Refused {
            detail: format!("HTTP {status}: {}", first_line(&text)),
        },
    })
}

/// What the witness's answer means.
fn judge_answer(key: &NoteVerifier, status: u16, body: &[u8], note: &str) -> WitnessAnswer {
    let text = String::from_utf8_lossy(body);
    match status {
        200 => {
            let Ok(parsed) = SignedNote::parse(note.as_bytes()) else {
                return WitnessAnswer::Refused {
                    detail: "the submitted note does not parse".to_owned(),
                };
            };
            for line in text.lines() {
                let Ok(signature) = NoteSignature::parse_line(line) else {
                    continue;
                };
                if signature.name != key.name() || signature.key_hash != key.key_hash() {
                    continue;
                }
                return match key.verify(&parsed.text, &signature.signature) {
                    Ok(Some(timestamp)) => WitnessAnswer::Cosigned {
                        signature,
                        timestamp,
                    },
                    _ => WitnessAnswer::Refused {
                        detail: "its cosignature does not verify under its key".to_owned(),
                    },
                };
            }
            WitnessAnswer::Refused {
                detail: "the answer holds no cosignature by its key".to_owned(),
            }
        }
        409 => match text.trim().parse::<u64>() {
            Ok(known) => WitnessAnswer::Conflict { known },
            Err(_) => WitnessAnswer::Refused {
                detail: format!("409 without a tree size: {:?}", first_line(&text)),
            },
        },
        _ => WitnessAnswer::Refused {
            detail: format!("HTTP {status}: {}", first_line(&text)),
        },
    }
}

fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("");
    &line[..line.len().min(200)]
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::tlog::{
            NoteSigner,
            note::{COSIGNATURE_TYPE, cosignature_message},
        },
        ed25519_dalek::{Signer, SigningKey},
    };

    fn witness(key: &SigningKey) -> NoteVerifier {
        NoteVerifier::new(
            "witness.example",
            COSIGNATURE_TYPE,
            key.verifying_key().to_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn the_request_body_is_the_old_size_the_proof_a_blank_line_and_the_note() {
        let hash = LogHash::leaf(b"x");
        assert_eq!(
            request_body(3, &[hash], "o\n4\nr\n\n- sig\n"),
            format!("old 3\n{}\n\no\n4\nr\n\n- sig\n", hash.to_base64())
        );
        assert_eq!(request_body(0, &[], "n"), "old 0\n\nn");
    }

    #[test]
    fn answers_are_judged_by_status_and_by_the_witness_key() {
        let key = SigningKey::from_bytes(&[5; 32]);
        let witness = witness(&key);
        let log = SigningKey::from_bytes(&[6; 32]);
        let signer = NoteSigner::new("log.example", log).unwrap();
        let text = format!("log.example\n1\n{}\n", LogHash::leaf(b"a").to_base64());
        let note = signer.sign(&text).unwrap();
        let time = 1_700_000_000u64;
        let mut signature = time.to_be_bytes().to_vec();
        signature.extend_from_slice(&key.sign(&cosignature_message(time, &text)).to_bytes());
        let cosignature = NoteSignature {
            name: "witness.example".to_owned(),
            key_hash: witness.key_hash(),
            signature,
        };
        let line = cosignature.line();
        let mut forged = cosignature.clone();
        forged.signature[20] ^= 1;
        let forged = forged.line();
        assert!(matches!(
            judge_answer(&witness, 200, line.as_bytes(), &note),
            WitnessAnswer::Cosigned { timestamp, .. } if timestamp == time
        ));
        assert!(matches!(
            judge_answer(&witness, 200, forged.as_bytes(), &note),
            WitnessAnswer::Refused { .. }
        ));
        assert_eq!(
            judge_answer(&witness, 409, b"17\n", &note),
            WitnessAnswer::Conflict { known: 17 }
        );
        assert!(matches!(
            judge_answer(&witness, 409, b"x", &note),
            WitnessAnswer::Refused { .. }
        ));
        assert!(matches!(
            judge_answer(&witness, 422, b"bad consistency proof\n", &note),
            WitnessAnswer::Refused { detail } if detail.contains("422")
        ));
    }
}
