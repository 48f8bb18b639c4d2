//! C2SP `signed-note`: a text signed by one or more keys, each signature on
//! a line `— <name> <base64(key hash ‖ signature)>`; and the two signature
//! types the archive log uses, Ed25519 (type `01`, the log's own) and
//! `tlog-cosignature` (type `04`, a witness's timestamped cosignature).

use {
    super::error::LogError,
    base64::{Engine as _, engine::general_purpose::STANDARD},
    ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey},
    sha2::{Digest, Sha256},
    std::fmt,
};

/// The largest signed note a reader decodes (C2SP witnesses refuse bodies
/// above 10 KiB; a checkpoint with many cosignatures stays far below).
pub const MAX_NOTE_BYTES: usize = 64 * 1024;

/// The most signature lines a reader accepts on one note (as Go's `note`).
pub const MAX_NOTE_SIGNATURES: usize = 100;

/// The signature type of a plain Ed25519 note signature.
pub const ED25519_TYPE: u8 = 0x01;

/// The signature type of a C2SP `tlog-cosignature` (`cosignature/v1`).
pub const COSIGNATURE_TYPE: u8 = 0x04;

/// The prefix of a signature line: an em dash (U+2014) and a space.
const SIGNATURE_PREFIX: &str = "\u{2014} ";

/// Whether `name` can name a note key: non-empty, no whitespace, no `+`.
#[must_use]
pub fn is_valid_key_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(char::is_whitespace) && !name.contains('+')
}

/// The 4-byte key hash of a note key: the first bytes of
/// `SHA-256(name ‖ 0A ‖ type ‖ public key)`.
#[must_use]
pub fn key_hash(name: &str, key_type: u8, public_key: &[u8; 32]) -> u32 {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update(b"\n");
    hasher.update([key_type]);
    hasher.update(public_key);
    let digest = hasher.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// A public note key: a name, a signature type (Ed25519 or cosignature) and
/// an Ed25519 public key. Its text form is the C2SP verifier key
/// `<name>+<key hash, 8 hex>+<base64(type ‖ public key)>`.
#[derive(Clone, PartialEq, Eq)]
pub struct NoteVerifier {
    name: String,
    key_type: u8,
    public_key: [u8; 32],
    hash: u32,
    key: VerifyingKey,
}

impl NoteVerifier {
    /// A verifier of `key_type` signatures by `name`'s `public_key`.
    ///
    /// # Errors
    /// [`LogError::InvalidKey`] for an invalid name, an unknown type, or a
    /// public key that is no point of Ed25519 or of small order.
    pub fn new(name: &str, key_type: u8, public_key: [u8; 32]) -> Result<Self, LogError> {
        let invalid = |reason: String| LogError::InvalidKey { reason };
        if !is_valid_key_name(name) {
            return Err(invalid(format!(
                "key name {name:?} is empty or holds whitespace or '+'"
            )));
        }
        if key_type != ED25519_TYPE && key_type != COSIGNATURE_TYPE {
            return Err(invalid(format!(
                "signature type {key_type:#04x} is neither Ed25519 (0x01) nor cosignature/v1 (0x04)"
            )));
        }
        let key = VerifyingKey::from_bytes(&public_key)
            .map_err(|_| invalid("the public key is not an Ed25519 point".to_owned()))?;
        if key.is_weak() {
            return Err(invalid("the public key is of small order".to_owned()));
        }
        Ok(Self {
            name: name.to_owned(),
            key_type,
            public_key,
            hash: key_hash(name, key_type, &public_key),
            key,
        })
    }

    /// A verifier from its C2SP text form
    /// (`name+hash+base64(type ‖ public key)`); the hash must match.
    ///
    /// # Errors
    /// [`LogError::InvalidKey`].
    pub fn parse(vkey: &str) -> Result<Self, LogError> {
        let invalid = |reason: &str| LogError::InvalidKey {
            reason: reason.to_owned(),
        };
        let mut parts = vkey.trim().splitn(3, '+');
        let (Some(name), Some(hash), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(invalid("a verifier key is name+hash+key"));
        };
        if hash.len() != 8 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid("the key hash is not 8 hex digits"));
        }
        let hash = u32::from_str_radix(hash, 16).map_err(|_| invalid("the key hash is not hex"))?;
        let bytes = STANDARD
            .decode(key)
            .map_err(|_| invalid("the key is not base64"))?;
        let [key_type, public_key @ ..] = bytes.as_slice() else {
            return Err(invalid("the key is empty"));
        };
        let public_key: [u8; 32] = public_key
            .try_into()
            .map_err(|_| invalid("the public key is not 32 bytes"))?;
        let verifier = Self::new(name, *key_type, public_key)?;
        if verifier.hash != hash {
            return Err(invalid("the key hash does not match the name and key"));
        }
        Ok(verifier)
    }

    /// Parses a witness's verifier key: [`NoteVerifier::parse`], and the
    /// key must be of the `cosignature/v1` type (0x04).
    ///
    /// # Errors
    /// [`LogError::InvalidKey`] for a key that does not parse or is of
    /// another type.
    pub fn parse_cosignature(vkey: &str) -> Result<Self, LogError> {
        let key = Self::parse(vkey)?;
        if key.key_type != COSIGNATURE_TYPE {
            return Err(LogError::InvalidKey {
                reason: format!(
                    "witness key {} is not a cosignature/v1 key (type 0x04)",
                    key.name
                ),
            });
        }
        Ok(key)
    }

    /// The key's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key hash that prefixes its signatures.
    #[must_use]
    pub fn key_hash(&self) -> u32 {
        self.hash
    }

    /// The signature type.
    #[must_use]
    pub fn key_type(&self) -> u8 {
        self.key_type
    }

    /// The raw public key.
    #[must_use]
    pub fn public_key(&self) -> [u8; 32] {
        self.public_key
    }

    /// Checks `signature` (the bytes after the key hash) over `text`; for a
    /// cosignature, returns its timestamp.
    ///
    /// # Errors
    /// [`LogError::SignatureInvalid`].
    pub fn verify(&self, text: &str, signature: &[u8]) -> Result<Option<u64>, LogError> {
        let invalid = || LogError::SignatureInvalid {
            name: self.name.clone(),
        };
        let (timestamp, message, signature) = match self.key_type {
            COSIGNATURE_TYPE => {
                let Some((time, signature)) = signature.split_first_chunk::<8>() else {
                    return Err(invalid());
                };
                let time = u64::from_be_bytes(*time);
                (Some(time), cosignature_message(time, text), signature)
            }
            _ => (None, text.as_bytes().to_vec(), signature),
        };
        let signature = Signature::from_slice(signature).map_err(|_| invalid())?;
        self.key
            .verify_strict(&message, &signature)
            .map_err(|_| invalid())?;
        Ok(timestamp)
    }
}

impl fmt::Display for NoteVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut key = vec![self.key_type];
        key.extend_from_slice(&self.public_key);
        write!(
            f,
            "{}+{:08x}+{}",
            self.name,
            self.hash,
            STANDARD.encode(key)
        )
    }
}

impl fmt::Debug for NoteVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NoteVerifier({self})")
    }
}

/// The message a `cosignature/v1` signs: `cosignature/v1\ntime <T>\n` and
/// the checkpoint's text.
#[must_use]
pub fn cosignature_message(timestamp: u64, text: &str) -> Vec<u8> {
    format!("cosignature/v1\ntime {timestamp}\n{text}").into_bytes()
}

/// A note signing key: an Ed25519 key under a name (for the archive log,
/// the log's origin). `Debug` never shows the secret.
pub struct NoteSigner {
    name: String,
    key: SigningKey,
    verifier: NoteVerifier,
}

impl NoteSigner {
    /// A signer of plain Ed25519 note signatures named `name`.
    ///
    /// # Errors
    /// [`LogError::InvalidKey`] for an invalid name.
    pub fn new(name: &str, key: SigningKey) -> Result<Self, LogError> {
        let verifier = NoteVerifier::new(name, ED25519_TYPE, key.verifying_key().to_bytes())?;
        Ok(Self {
            name: name.to_owned(),
            key,
            verifier,
        })
    }

    /// The signer's public key as a verifier.
    #[must_use]
    pub fn verifier(&self) -> &NoteVerifier {
        &self.verifier
    }

    /// The signature line of `text`: `— <name> <base64(hash ‖ sig)>\n`.
    #[must_use]
    pub fn signature_line(&self, text: &str) -> String {
        let mut bytes = self.verifier.hash.to_be_bytes().to_vec();
        bytes.extend_from_slice(&self.key.sign(text.as_bytes()).to_bytes());
        format!(
            "{SIGNATURE_PREFIX}{} {}\n",
            self.name,
            STANDARD.encode(bytes)
        )
    }

    /// `text` signed: the text, a blank line, the signature line.
    ///
    /// # Errors
    /// [`LogError::Malformed`] when `text` is not a valid note text.
    pub fn sign(&self, text: &str) -> Result<String, LogError> {
        check_text(text)?;
        Ok(format!("{text}\n{}", self.signature_line(text)))
    }
}

impl fmt::Debug for NoteSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NoteSigner")
            .field("verifier", &self.verifier.to_string())
            .finish_non_exhaustive()
    }
}

/// One signature line of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    /// The key name.
    pub name: String,
    /// The key hash.
    pub key_hash: u32,
    /// The signature bytes after the key hash.
    pub signature: Vec<u8>,
}

impl NoteSignature {
    /// The line as a note carries it, newline included.
    #[must_use]
    pub fn line(&self) -> String {
        let mut bytes = self.key_hash.to_be_bytes().to_vec();
        bytes.extend_from_slice(&self.signature);
        format!(
            "{SIGNATURE_PREFIX}{} {}\n",
            self.name,
            STANDARD.encode(bytes)
        )
    }

    /// Parses one signature line (without its newline).
    ///
    /// # Errors
    /// [`LogError::Malformed`].
    pub fn parse_line(line: &str) -> Result<Self, LogError> {
        let malformed = |reason: &str| LogError::Malformed {
            what: "signature line",
            reason: reason.to_owned(),
        };
        let rest = line
            .strip_prefix(SIGNATURE_PREFIX)
            .ok_or_else(|| malformed("it does not start with an em dash and a space"))?;
        let (name, encoded) = rest
            .split_once(' ')
            .ok_or_else(|| malformed("no space between name and signature"))?;
        if !is_valid_key_name(name) {
            return Err(malformed("invalid key name"));
        }
        let bytes = STANDARD
            .decode(encoded)
            .map_err(|_| malformed("the signature is not base64"))?;
        if bytes.len() < 5 {
            return Err(malformed(
                "the signature is shorter than a key hash and one byte",
            ));
        }
        let (hash, signature) = bytes.split_at(4);
        Ok(Self {
            name: name.to_owned(),
            key_hash: u32::from_be_bytes([hash[0], hash[1], hash[2], hash[3]]),
            signature: signature.to_vec(),
        })
    }
}

/// A signed note split into its text and signature lines, nothing verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedNote {
    /// The text, ending in a newline.
    pub text: String,
    /// The signatures, in order.
    pub signatures: Vec<NoteSignature>,
}

/// A note text: UTF-8 ending in a newline, no control characters but
/// newlines, no blank line.
fn check_text(text: &str) -> Result<(), LogError> {
    let malformed = |reason: &str| LogError::Malformed {
        what: "note text",
        reason: reason.to_owned(),
    };
    if !text.ends_with('\n') {
        return Err(malformed("it does not end in a newline"));
    }
    if text.chars().any(|c| c != '\n' && c.is_control()) {
        return Err(malformed("it holds a control character"));
    }
    if text.starts_with('\n') || text.contains("\n\n") {
        return Err(malformed("it holds a blank line"));
    }
    Ok(())
}

impl SignedNote {
    /// Splits `bytes` into the text and its signature lines.
    ///
    /// # Errors
    /// [`LogError::TooLarge`] above [`MAX_NOTE_BYTES`];
    /// [`LogError::Malformed`] for anything that is not a signed note.
    pub fn parse(bytes: &[u8]) -> Result<Self, LogError> {
        if bytes.len() > MAX_NOTE_BYTES {
            return Err(LogError::TooLarge {
                what: "signed note",
                size: bytes.len(),
                max: MAX_NOTE_BYTES,
            });
        }
        let malformed = |reason: &str| LogError::Malformed {
            what: "signed note",
            reason: reason.to_owned(),
        };
        let all = std::str::from_utf8(bytes).map_err(|_| malformed("it is not UTF-8"))?;
        let split = all
            .rfind("\n\n")
            .ok_or_else(|| malformed("no blank line before the signatures"))?;
        let text = &all[..=split];
        check_text(text)?;
        let block = &all[split + 2..];
        if !block.ends_with('\n') {
            return Err(malformed("the signatures do not end in a newline"));
        }
        let lines: Vec<&str> = block[..block.len() - 1].split('\n').collect();
        if lines.len() > MAX_NOTE_SIGNATURES {
            return Err(malformed("more than 100 signatures"));
        }
        let signatures = lines
            .into_iter()
            .map(NoteSignature::parse_line)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            text: text.to_owned(),
            signatures,
        })
    }

    /// The note as bytes: text, blank line, signature lines.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = self.text.clone();
        out.push('\n');
        for signature in &self.signatures {
            out.push_str(&signature.line());
        }
        out
    }

    /// The signatures by `verifier` (same name and key hash) that verify,
    /// with their timestamps (for cosignatures). A line of the verifier's
    /// name and hash that does not verify is an error, not skipped.
    ///
    /// # Errors
    /// [`LogError::SignatureInvalid`].
    pub fn verified_by(&self, verifier: &NoteVerifier) -> Result<Option<Option<u64>>, LogError> {
        let mut found = None;
        for signature in &self.signatures {
            if signature.name == verifier.name() && signature.key_hash == verifier.key_hash() {
                found = Some(verifier.verify(&self.text, &signature.signature)?);
            }
        }
        Ok(found)
    }

    /// Whether a signature of the note by one of `verifiers` verifies (and
    /// none of theirs fails).
    #[must_use]
    pub fn is_signed_by_any(&self, verifiers: &[NoteVerifier]) -> bool {
        verifiers
            .iter()
            .any(|verifier| matches!(self.verified_by(verifier), Ok(Some(_))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> NoteSigner {
        NoteSigner::new("example.com/log", SigningKey::from_bytes(&[7; 32])).unwrap()
    }

    #[test]
    fn a_signed_note_verifies_and_round_trips() {
        let signer = signer();
        let note = signer.sign("example.com/log\n3\nabc\n").unwrap();
        let parsed = SignedNote::parse(note.as_bytes()).unwrap();
        assert_eq!(parsed.to_text(), note);
        assert_eq!(parsed.verified_by(signer.verifier()).unwrap(), Some(None));
        let vkey = signer.verifier().to_string();
        assert_eq!(NoteVerifier::parse(&vkey).unwrap(), *signer.verifier());
    }

    #[test]
    fn a_changed_text_or_signature_does_not_verify() {
        let signer = signer();
        let note = signer.sign("example.com/log\n3\nabc\n").unwrap();
        let changed = note.replacen("3\n", "4\n", 1);
        let parsed = SignedNote::parse(changed.as_bytes()).unwrap();
        assert!(matches!(
            parsed.verified_by(signer.verifier()),
            Err(LogError::SignatureInvalid { .. })
        ));
        let other = NoteSigner::new("example.com/log", SigningKey::from_bytes(&[8; 32])).unwrap();
        let parsed = SignedNote::parse(note.as_bytes()).unwrap();
        assert_eq!(parsed.verified_by(other.verifier()).unwrap(), None);
    }

    #[test]
    fn malformed_notes_and_keys_are_refused() {
        for bad in [
            &b"no blank line\n"[..],
            b"text\n\n",
            b"text\n\nnot a signature\n",
            b"text\n\n\xe2\x80\x94 name AAAA\n",
            b"te\x01xt\n\n\xe2\x80\x94 name AAAAAAAA\n",
            b"\xff\n\n",
        ] {
            assert!(SignedNote::parse(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            SignedNote::parse(&vec![b'a'; MAX_NOTE_BYTES + 1]),
            Err(LogError::TooLarge { .. })
        ));
        let vkey = signer().verifier().to_string();
        let wrong_hash = format!(
            "{}+00000000+{}",
            "example.com/log",
            vkey.rsplit('+').next().unwrap()
        );
        assert!(NoteVerifier::parse(&wrong_hash).is_err());
        assert!(NoteVerifier::parse("name+1234").is_err());
        assert!(NoteVerifier::new("a b", ED25519_TYPE, [1; 32]).is_err());
        assert!(NoteVerifier::new("ab", 0x02, signer().verifier().public_key()).is_err());
        assert!(signer().sign("no newline").is_err());
        assert!(signer().sign("blank\n\nline\n").is_err());
    }

    #[test]
    fn a_cosignature_carries_its_timestamp() {
        let key = SigningKey::from_bytes(&[9; 32]);
        let witness = NoteVerifier::new(
            "witness.example",
            COSIGNATURE_TYPE,
            key.verifying_key().to_bytes(),
        )
        .unwrap();
        let text = "example.com/log\n3\nabc\n";
        let time = 1_700_000_000u64;
        let mut signature = time.to_be_bytes().to_vec();
        signature.extend_from_slice(&key.sign(&cosignature_message(time, text)).to_bytes());
        assert_eq!(witness.verify(text, &signature).unwrap(), Some(time));
        signature[7] ^= 1;
        assert!(witness.verify(text, &signature).is_err());
    }
}
