//! Key material: the signing key a writer loads from a PKCS#8 file
//! ([`ManifestSigner`]) and the public keys an auditor trusts
//! ([`TrustedManifestKeys`]).

use {
    super::{
        ManifestBody, ManifestSignature, SegmentManifest, WormError, hex, manifest_head,
        manifest_signing_bytes,
    },
    crate::HexBytes,
    ed25519_dalek::{Signer, SigningKey, VerifyingKey, pkcs8::DecodePrivateKey},
    std::{collections::BTreeMap, fmt, fs, io::Read, path::Path},
    zeroize::Zeroizing,
};

/// The longest key id, in bytes.
pub(crate) const MAX_KEY_ID_LEN: usize = 64;

/// The largest key file read; a PKCS#8 Ed25519 key is under 200 bytes even
/// as PEM, so anything bigger is not one.
const MAX_KEY_FILE_BYTES: u64 = 16 * 1024;

/// Checks that `key_id` is 1 to 64 characters of `[A-Za-z0-9._-]`.
pub(crate) fn validate_key_id(key_id: &str) -> Result<(), WormError> {
    let reason = if key_id.is_empty() {
        "a key id must not be empty"
    } else if key_id.len() > MAX_KEY_ID_LEN {
        "a key id must be at most 64 characters"
    } else if !key_id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        "a key id may only use the characters A-Z a-z 0-9 . _ -"
    } else {
        return Ok(());
    };
    Err(WormError::InvalidKeyId {
        key_id: key_id.chars().take(80).collect(),
        reason,
    })
}

/// The public keys an auditor trusts, by key id.
///
/// Several keys may be trusted at once, so a chain signed across a key
/// rotation verifies: each manifest is checked against the key registered
/// under the key id its signature names — never against the public key the
/// manifest carries.
///
/// ```
/// use krabka_worm::TrustedManifestKeys;
/// let old = [0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64,
///     0x07, 0x3a, 0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7,
///     0x07, 0x51, 0x1a];
/// let keys = TrustedManifestKeys::single("archive-2025", &old).unwrap();
/// assert!(keys.contains("archive-2025"));
/// assert!(!keys.contains("archive-2026"));
/// assert!(TrustedManifestKeys::single("archive-2025", &[0; 31]).is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TrustedManifestKeys {
    keys: BTreeMap<String, VerifyingKey>,
}

impl TrustedManifestKeys {
    /// An empty set: every signed manifest is untrusted.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A set holding one key.
    ///
    /// # Errors
    /// As [`TrustedManifestKeys::insert`].
    pub fn single(key_id: &str, public_key: &[u8]) -> Result<Self, WormError> {
        let mut keys = Self::new();
        keys.insert(key_id, public_key)?;
        Ok(keys)
    }

    /// A set holding every `(key_id, public_key)` pair.
    ///
    /// # Errors
    /// As [`TrustedManifestKeys::insert`], for the first bad pair.
    pub fn from_pairs<I, K, P>(pairs: I) -> Result<Self, WormError>
    where
        I: IntoIterator<Item = (K, P)>,
        K: AsRef<str>,
        P: AsRef<[u8]>,
    {
        let mut keys = Self::new();
        for (key_id, public_key) in pairs {
            keys.insert(key_id.as_ref(), public_key.as_ref())?;
        }
        Ok(keys)
    }

    /// Trusts the raw 32-byte Ed25519 `public_key` under `key_id`.
    ///
    /// # Errors
    /// [`WormError::InvalidKeyId`] for a bad key id,
    /// [`WormError::DuplicateKeyId`] if `key_id` is already present,
    /// [`WormError::InvalidPublicKey`] if the key is not 32 bytes, not a
    /// point of the curve, or of small order (a "weak" key any signature
    /// could match).
    pub fn insert(&mut self, key_id: &str, public_key: &[u8]) -> Result<(), WormError> {
        validate_key_id(key_id)?;
        if self.keys.contains_key(key_id) {
            return Err(WormError::DuplicateKeyId {
                key_id: key_id.to_owned(),
            });
        }
        let invalid = |reason| WormError::InvalidPublicKey {
            key_id: key_id.to_owned(),
            reason,
        };
        let bytes: &[u8; 32] = public_key
            .try_into()
            .map_err(|_| invalid("an Ed25519 public key is 32 bytes"))?;
        let key = VerifyingKey::from_bytes(bytes)
            .map_err(|_| invalid("the bytes are not an Ed25519 curve point"))?;
        if key.is_weak() {
            return Err(invalid("the key is of small order"));
        }
        self.keys.insert(key_id.to_owned(), key);
        Ok(())
    }

    /// Trusts the public key written as 64 hex characters (either case),
    /// the way operators publish it, under `key_id`.
    ///
    /// # Errors
    /// [`WormError::InvalidPublicKey`] when `hex` is not 64 hex characters;
    /// those of [`TrustedManifestKeys::insert`].
    pub fn insert_hex(&mut self, key_id: &str, hex: &str) -> Result<(), WormError> {
        let bytes = crate::hex::decode(hex, true).map_err(|_| WormError::InvalidPublicKey {
            key_id: key_id.to_owned(),
            reason: "a public key is written as 64 hex characters",
        })?;
        self.insert(key_id, &bytes)
    }

    /// Whether a key is trusted under `key_id`.
    #[must_use]
    pub fn contains(&self, key_id: &str) -> bool {
        self.keys.contains_key(key_id)
    }

    /// The raw public key trusted under `key_id`.
    #[must_use]
    pub fn public_key(&self, key_id: &str) -> Option<[u8; 32]> {
        self.keys.get(key_id).map(VerifyingKey::to_bytes)
    }

    /// The trusted key ids, in ascending order.
    pub fn key_ids(&self) -> impl Iterator<Item = &str> {
        self.keys.keys().map(String::as_str)
    }

    /// Number of trusted keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key is trusted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub(crate) fn verifying_key(&self, key_id: &str) -> Option<&VerifyingKey> {
        self.keys.get(key_id)
    }
}

impl fmt::Debug for TrustedManifestKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.keys
                    .iter()
                    .map(|(id, key)| (id, hex::encode(key.as_bytes()))),
            )
            .finish()
    }
}

/// The Ed25519 key that signs manifests, with the key id recorded in every
/// signature. `Debug` shows the key id and public key only; the secret is
/// zeroed when the signer is dropped.
pub struct ManifestSigner {
    key_id: String,
    key: SigningKey,
}

impl ManifestSigner {
    /// Loads an unencrypted PKCS#8 Ed25519 private key from `path`, DER or
    /// PEM (`-----BEGIN PRIVATE KEY-----`, as written by
    /// `openssl genpkey -algorithm ed25519`).
    ///
    /// # Errors
    /// [`WormError::InvalidKeyId`], [`WormError::SigningKeyRead`] when the file
    /// cannot be read, [`WormError::SigningKeyDecode`] when it is not such a
    /// key (or larger than any such key).
    pub fn from_pkcs8_file(path: &Path, key_id: &str) -> Result<Self, WormError> {
        validate_key_id(key_id)?;
        let read_error = |source| WormError::SigningKeyRead {
            path: path.to_owned(),
            source,
        };
        let file = fs::File::open(path).map_err(read_error)?;
        let mut bytes = Zeroizing::new(Vec::new());
        file.take(MAX_KEY_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        let origin = format!("`{}`", path.display());
        if u64::try_from(bytes.len()).map_or(true, |len| len > MAX_KEY_FILE_BYTES) {
            return Err(WormError::SigningKeyDecode {
                origin,
                reason: format!("the file is larger than {MAX_KEY_FILE_BYTES} bytes"),
                source: None,
            });
        }
        Self::decode(&bytes, key_id, origin)
    }

    /// A signer from PKCS#8 bytes, DER or PEM.
    ///
    /// # Errors
    /// [`WormError::InvalidKeyId`], [`WormError::SigningKeyDecode`].
    pub fn from_pkcs8(bytes: &[u8], key_id: &str) -> Result<Self, WormError> {
        validate_key_id(key_id)?;
        Self::decode(bytes, key_id, "bytes".to_owned())
    }

    fn decode(bytes: &[u8], key_id: &str, origin: String) -> Result<Self, WormError> {
        let decode_error = |reason: &str, source| WormError::SigningKeyDecode {
            origin: origin.clone(),
            reason: reason.to_owned(),
            source,
        };
        let key = if bytes.starts_with(b"-----BEGIN") {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| decode_error("the PEM text is not UTF-8", None))?;
            SigningKey::from_pkcs8_pem(text)
        } else {
            SigningKey::from_pkcs8_der(bytes)
        }
        .map_err(|err| decode_error("it does not decode", Some(err)))?;
        Ok(Self {
            key_id: key_id.to_owned(),
            key,
        })
    }

    /// A signer from a raw 32-byte Ed25519 secret key (RFC 8032 "seed").
    ///
    /// # Errors
    /// [`WormError::InvalidKeyId`].
    pub fn from_secret_bytes(secret: &[u8; 32], key_id: &str) -> Result<Self, WormError> {
        validate_key_id(key_id)?;
        Ok(Self {
            key_id: key_id.to_owned(),
            key: SigningKey::from_bytes(secret),
        })
    }

    /// The key id recorded in every signature.
    #[must_use]
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The raw 32-byte public key.
    #[must_use]
    pub fn public_key(&self) -> [u8; 32] {
        self.key.verifying_key().to_bytes()
    }

    /// The signature block for a manifest with `body`: an Ed25519 signature
    /// over [`manifest_signing_bytes`] of the body's chain head.
    #[must_use]
    pub fn sign_body(&self, body: &ManifestBody) -> ManifestSignature {
        let head = manifest_head(body);
        let message =
            manifest_signing_bytes(&self.key_id, body.chain.epoch_id, body.chain.seq, &head);
        ManifestSignature {
            key_id: self.key_id.clone(),
            public_key: HexBytes(self.public_key().to_vec()),
            signature: HexBytes(self.key.sign(&message).to_bytes().to_vec()),
        }
    }

    /// A signer of the archive log's checkpoints with the same key, under
    /// the note key name `name` (the log's origin).
    ///
    /// # Errors
    /// [`LogError::InvalidKey`](crate::tlog::LogError::InvalidKey) for an
    /// invalid name.
    pub fn note_signer(
        &self,
        name: &str,
    ) -> Result<crate::tlog::NoteSigner, crate::tlog::LogError> {
        crate::tlog::NoteSigner::new(name, self.key.clone())
    }

    /// `body` sealed into a signed manifest.
    #[must_use]
    pub fn seal(&self, body: ManifestBody) -> SegmentManifest {
        let signature = self.sign_body(&body);
        SegmentManifest {
            body,
            signature: Some(signature),
        }
    }
}

impl fmt::Debug for ManifestSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManifestSigner")
            .field("key_id", &self.key_id)
            .field("public_key", &hex::encode(&self.public_key()))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        ed25519_dalek::pkcs8::{EncodePrivateKey, spki::der::pem::LineEnding},
    };

    const SECRET: [u8; 32] = [7; 32];

    #[test]
    fn key_ids_are_short_and_plain() {
        for good in ["a", "archive-2026.q1_b", &"k".repeat(64)] {
            assert!(validate_key_id(good).is_ok(), "{good}");
        }
        for bad in ["", "has space", "slash/", "é", &"k".repeat(65)] {
            assert!(
                matches!(validate_key_id(bad), Err(WormError::InvalidKeyId { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn trusted_keys_refuse_duplicates_bad_lengths_and_weak_keys() {
        let public = SigningKey::from_bytes(&SECRET).verifying_key().to_bytes();
        let mut keys = TrustedManifestKeys::single("a", &public).unwrap();
        assert!(matches!(
            keys.insert("a", &public),
            Err(WormError::DuplicateKeyId { .. })
        ));
        assert!(matches!(
            keys.insert("b", &public[..31]),
            Err(WormError::InvalidPublicKey { .. })
        ));
        // The identity point encodes as 1 followed by zeros: small order.
        let mut identity = [0u8; 32];
        identity[0] = 1;
        assert!(matches!(
            keys.insert("c", &identity),
            Err(WormError::InvalidPublicKey { .. })
        ));
        keys.insert("d", &public).unwrap();
        assert_eq!(keys.key_ids().collect::<Vec<_>>(), ["a", "d"]);
        assert_eq!(keys.public_key("d"), Some(public));
        assert_eq!(keys.len(), 2);
    }

    #[test]
    fn from_pairs_builds_a_rotation_set() {
        let one = SigningKey::from_bytes(&[1; 32]).verifying_key().to_bytes();
        let two = SigningKey::from_bytes(&[2; 32]).verifying_key().to_bytes();
        let keys = TrustedManifestKeys::from_pairs([("old", one), ("new", two)]).unwrap();
        assert!(keys.contains("old") && keys.contains("new"));
        assert!(TrustedManifestKeys::new().is_empty());
    }

    #[test]
    fn signer_loads_der_and_pem_files_with_the_same_key() {
        let key = SigningKey::from_bytes(&SECRET);
        let der = key.to_pkcs8_der().unwrap();
        let pem = key.to_pkcs8_pem(LineEnding::LF).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let der_path = dir.path().join("key.der");
        let pem_path = dir.path().join("key.pem");
        fs::write(&der_path, der.as_bytes()).unwrap();
        fs::write(&pem_path, pem.as_bytes()).unwrap();
        let from_der = ManifestSigner::from_pkcs8_file(&der_path, "k1").unwrap();
        let from_pem = ManifestSigner::from_pkcs8_file(&pem_path, "k1").unwrap();
        assert_eq!(from_der.public_key(), key.verifying_key().to_bytes());
        assert_eq!(from_pem.public_key(), key.verifying_key().to_bytes());
        assert_eq!(from_der.key_id(), "k1");
    }

    #[test]
    fn signer_refuses_missing_garbage_oversized_files_and_bad_key_ids() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert!(matches!(
            ManifestSigner::from_pkcs8_file(&missing, "k"),
            Err(WormError::SigningKeyRead { .. })
        ));
        let garbage = dir.path().join("garbage");
        fs::write(&garbage, b"not a key").unwrap();
        assert!(matches!(
            ManifestSigner::from_pkcs8_file(&garbage, "k"),
            Err(WormError::SigningKeyDecode {
                source: Some(_),
                ..
            })
        ));
        let big = dir.path().join("big");
        fs::write(&big, vec![0u8; 20_000]).unwrap();
        assert!(matches!(
            ManifestSigner::from_pkcs8_file(&big, "k"),
            Err(WormError::SigningKeyDecode { source: None, .. })
        ));
        let bad_pem = b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        assert!(matches!(
            ManifestSigner::from_pkcs8(bad_pem, "k"),
            Err(WormError::SigningKeyDecode {
                source: Some(_),
                ..
            })
        ));
        assert!(matches!(
            ManifestSigner::from_pkcs8(b"", "bad id"),
            Err(WormError::InvalidKeyId { .. })
        ));
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let signer = ManifestSigner::from_secret_bytes(&SECRET, "k").unwrap();
        let debug = format!("{signer:?}");
        assert!(debug.contains("\"k\""));
        assert!(!debug.contains(&hex::encode(&SECRET)));
        assert!(!debug.contains("7, 7, 7"));
    }
}
