//! A client of C2SP `tlog-witness`: `POST <witness>/add-checkpoint` with
//! the size the witness last cosigned, a consistency proof from it and the
//! new checkpoint; the answer is the witness's cosignature lines.

use {
    super::config::WitnessConfig,
    krabka_worm::tlog::{LogHash, NoteSignature, SignedNote},
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

/// Submits `note` (a signed checkpoint whose text is `text`) to `witness`.
///
/// # Errors
/// The HTTP client's error when the witness cannot be reached.
pub async fn submit(
    client: &reqwest::Client,
    witness: &WitnessConfig,
    old_size: u64,
    proof: &[LogHash],
    note: &str,
) -> reqwest::Result<WitnessAnswer> {
    let url = format!("{}/add-checkpoint", witness.url);
    let response = client
        .post(url)
        .body(request_body(old_size, proof, note))
        .send()
        .await?;
    let status = response.status().as_u16();
    let body = response.bytes().await?;
    let body = &body[..body.len().min(MAX_ANSWER_BYTES)];
    Ok(judge_answer(witness, status, body, note))
}

/// What the witness's answer means.
fn judge_answer(witness: &WitnessConfig, status: u16, body: &[u8], note: &str) -> WitnessAnswer {
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
                if signature.name != witness.key.name()
                    || signature.key_hash != witness.key.key_hash()
                {
                    continue;
                }
                return match witness.key.verify(&parsed.text, &signature.signature) {
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
        ed25519_dalek::{Signer, SigningKey},
        krabka_worm::tlog::note::{COSIGNATURE_TYPE, cosignature_message},
    };

    fn witness(key: &SigningKey) -> WitnessConfig {
        let verifier = krabka_worm::tlog::NoteVerifier::new(
            "witness.example",
            COSIGNATURE_TYPE,
            key.verifying_key().to_bytes(),
        )
        .unwrap();
        WitnessConfig::new("http://127.0.0.1:1/", &verifier.to_string()).unwrap()
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
        let signer = krabka_worm::tlog::NoteSigner::new("log.example", log).unwrap();
        let text = format!("log.example\n1\n{}\n", LogHash::leaf(b"a").to_base64());
        let note = signer.sign(&text).unwrap();
        let time = 1_700_000_000u64;
        let mut signature = time.to_be_bytes().to_vec();
        signature.extend_from_slice(&key.sign(&cosignature_message(time, &text)).to_bytes());
        let cosignature = NoteSignature {
            name: "witness.example".to_owned(),
            key_hash: witness.key.key_hash(),
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
