//! Key-encryption keys: what wraps a segment's data key, and which key
//! unwraps it again.
//!
//! [`KeyRing`] is the contract; [`RsaKeyPairs`] keeps RSA key pairs read
//! from PEM files (RSA-OAEP with SHA-256), several at once, one of them
//! active. New segments are wrapped by the active key; a segment wrapped by
//! any configured key stays readable, so rotating is: add a new pair, make
//! it active, keep the old ones until every segment has been re-wrapped.

use {
    crate::{DataKey, EnvelopeError, Result},
    aws_lc_rs::{
        encoding::AsDer,
        rsa::{
            OAEP_SHA256_MGF1SHA256, OaepPrivateDecryptingKey, OaepPublicEncryptingKey,
            PrivateDecryptingKey, PublicEncryptingKey,
        },
    },
    std::{
        collections::BTreeMap,
        fmt,
        path::{Path, PathBuf},
    },
    uuid::Uuid,
    zeroize::Zeroizing,
};

/// A data key wrapped by a key-encryption key, with that key's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrappedKey {
    /// The id of the key that wrapped it.
    pub key_id: String,
    /// The wrapped bytes.
    pub bytes: Vec<u8>,
}

/// Key-encryption keys: wrap new data keys under the active key, unwrap
/// data keys wrapped by any known key.
pub trait KeyRing: Send + Sync + fmt::Debug {
    /// The id of the key new segments are wrapped with.
    fn active_key_id(&self) -> &str;

    /// The configured key ids.
    fn key_ids(&self) -> Vec<String>;

    /// Wraps `key` under the active key.
    ///
    /// # Errors
    /// [`EnvelopeError::Crypto`] or the provider's error.
    fn wrap(&self, key: &DataKey) -> Result<WrappedKey>;

    /// A new data key for a segment, and it wrapped under the active key:
    /// by default a random key from the system's source, wrapped by
    /// [`KeyRing::wrap`]; a key service may make both in one call.
    ///
    /// # Errors
    /// As [`KeyRing::wrap`].
    fn generate(&self) -> Result<(DataKey, WrappedKey)> {
        let key = DataKey::generate()?;
        let wrapped = self.wrap(&key)?;
        Ok((key, wrapped))
    }

    /// Unwraps the data key of `segment`, wrapped by `wrapped.key_id`.
    ///
    /// # Errors
    /// [`EnvelopeError::UnknownKey`] for an id that is not configured,
    /// [`EnvelopeError::UnwrapFailed`] when the key does not unwrap it.
    fn unwrap(&self, segment: Uuid, wrapped: &WrappedKey) -> Result<DataKey>;
}

/// One RSA key pair from PEM files.
struct RsaKeyPair {
    public: OaepPublicEncryptingKey,
    private: OaepPrivateDecryptingKey,
}

/// RSA key pairs (2048 to 8192 bits) read once from PEM files, one of them
/// active; data keys are wrapped with RSA-OAEP (SHA-256, MGF1-SHA-256).
///
/// A public key is a `PUBLIC KEY` (X.509 SubjectPublicKeyInfo) PEM file, a
/// private key a `PRIVATE KEY` (PKCS #8) PEM file, as `openssl genpkey
/// -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out private.pem` and
/// `openssl pkey -in private.pem -pubout -out public.pem` write them. A
/// private key file must not be writable by its group or accessible to
/// other users (`chmod 600` or `640`).
pub struct RsaKeyPairs {
    active: String,
    pairs: BTreeMap<String, RsaKeyPair>,
}

impl fmt::Debug for RsaKeyPairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaKeyPairs")
            .field("active", &self.active)
            .field("ids", &self.pairs.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The files of one configured key pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPairFiles {
    /// The key's id, recorded in every envelope it wraps.
    pub id: String,
    /// The public key's PEM file.
    pub public_key_file: PathBuf,
    /// The private key's PEM file.
    pub private_key_file: PathBuf,
}

impl KeyPairFiles {
    /// A pair as a command line gives it: `ID=PUBLIC.pem,PRIVATE.pem`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let (id, files) = text.split_once('=')?;
        let (public, private) = files.split_once(',')?;
        Some(Self {
            id: id.to_owned(),
            public_key_file: PathBuf::from(public),
            private_key_file: PathBuf::from(private),
        })
    }
}

impl RsaKeyPairs {
    /// Reads every pair's files once; `active` names the pair new segments
    /// are wrapped with.
    ///
    /// # Errors
    /// [`EnvelopeError::KeyConfig`] when `active` is not among the pairs,
    /// an id is empty, too long or repeated;
    /// [`EnvelopeError::KeyFile`] for a file that is missing, open to other
    /// users, not a supported RSA key, or a public key that is not the
    /// private key's.
    pub fn load(active: &str, pairs: &[KeyPairFiles]) -> Result<Self> {
        let mut loaded = BTreeMap::new();
        for files in pairs {
            if files.id.is_empty() || files.id.len() > crate::envelope::MAX_KEY_ID_LEN {
                return Err(EnvelopeError::KeyConfig(format!(
                    "key pair id {:?} must be 1 to {} bytes",
                    files.id,
                    crate::envelope::MAX_KEY_ID_LEN
                )));
            }
            let pair = load_pair(files)?;
            if loaded.insert(files.id.clone(), pair).is_some() {
                return Err(EnvelopeError::KeyConfig(format!(
                    "key pair {:?} is configured twice",
                    files.id
                )));
            }
        }
        if !loaded.contains_key(active) {
            return Err(EnvelopeError::KeyConfig(format!(
                "the active key pair {active:?} is not among the configured pairs ({})",
                loaded.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(Self {
            active: active.to_owned(),
            pairs: loaded,
        })
    }
}

impl KeyRing for RsaKeyPairs {
    fn active_key_id(&self) -> &str {
        &self.active
    }

    fn key_ids(&self) -> Vec<String> {
        self.pairs.keys().cloned().collect()
    }

    fn wrap(&self, key: &DataKey) -> Result<WrappedKey> {
        let pair = &self.pairs[&self.active];
        let mut out = vec![0; pair.public.ciphertext_size()];
        let len = pair
            .public
            .encrypt(&OAEP_SHA256_MGF1SHA256, key.expose(), &mut out, None)
            .map_err(|_| EnvelopeError::Crypto("wrapping a data key with RSA-OAEP"))?
            .len();
        out.truncate(len);
        Ok(WrappedKey {
            key_id: self.active.clone(),
            bytes: out,
        })
    }

    fn unwrap(&self, segment: Uuid, wrapped: &WrappedKey) -> Result<DataKey> {
        let pair = self
            .pairs
            .get(&wrapped.key_id)
            .ok_or_else(|| EnvelopeError::UnknownKey {
                segment,
                key_id: wrapped.key_id.clone(),
                known: self.key_ids().join(", "),
            })?;
        let failed = || EnvelopeError::UnwrapFailed {
            segment,
            key_id: wrapped.key_id.clone(),
        };
        let mut out = Zeroizing::new(vec![0; pair.private.min_output_size()]);
        let key = pair
            .private
            .decrypt(&OAEP_SHA256_MGF1SHA256, &wrapped.bytes, &mut out, None)
            .map_err(|_| failed())?;
        DataKey::from_bytes(key).map_err(|_| failed())
    }
}

fn load_pair(files: &KeyPairFiles) -> Result<RsaKeyPair> {
    let private_pem = read_private_file(&files.private_key_file)?;
    let private_der = pem_der(&files.private_key_file, &private_pem, "PRIVATE KEY")?;
    let private = PrivateDecryptingKey::from_pkcs8(&private_der).map_err(|err| {
        key_file(
            &files.private_key_file,
            format!(
                "not a usable RSA private key ({err}); RSA keys of 2048 to 8192 bits are supported"
            ),
        )
    })?;
    let public_pem = std::fs::read(&files.public_key_file)
        .map_err(|err| key_file(&files.public_key_file, format!("cannot be read: {err}")))?;
    let public_der = pem_der(&files.public_key_file, &public_pem, "PUBLIC KEY")?;
    let public = PublicEncryptingKey::from_der(&public_der).map_err(|err| {
        key_file(
            &files.public_key_file,
            format!("not a usable RSA public key ({err})"),
        )
    })?;
    let derived = private
        .public_key()
        .as_der()
        .map_err(|_| EnvelopeError::Crypto("encoding a public key"))?;
    if derived.as_ref() != public_der.as_slice() {
        return Err(key_file(
            &files.public_key_file,
            format!(
                "is not the public key of {} (key pair {:?})",
                files.private_key_file.display(),
                files.id
            ),
        ));
    }
    Ok(RsaKeyPair {
        public: OaepPublicEncryptingKey::new(public)
            .map_err(|_| EnvelopeError::Crypto("loading an RSA public key"))?,
        private: OaepPrivateDecryptingKey::new(private)
            .map_err(|_| EnvelopeError::Crypto("loading an RSA private key"))?,
    })
}

/// Reads a private key file after checking that no other user can read it
/// and no group member can change it.
fn read_private_file(path: &Path) -> Result<Zeroizing<Vec<u8>>> {
    let metadata =
        std::fs::metadata(path).map_err(|err| key_file(path, format!("cannot be read: {err}")))?;
    check_private_mode(path, &metadata)?;
    std::fs::read(path)
        .map(Zeroizing::new)
        .map_err(|err| key_file(path, format!("cannot be read: {err}")))
}

#[cfg(unix)]
fn check_private_mode(path: &Path, metadata: &std::fs::Metadata) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o027 != 0 {
        return Err(key_file(
            path,
            format!(
                "its mode {mode:o} lets other users read it or its group change it; chmod 600 (or 640) it"
            ),
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private_mode(_path: &Path, _metadata: &std::fs::Metadata) -> Result<()> {
    Ok(())
}

fn pem_der(path: &Path, pem: &[u8], label: &str) -> Result<Zeroizing<Vec<u8>>> {
    let (found, der) = pem_rfc7468::decode_vec(pem)
        .map_err(|err| key_file(path, format!("not a PEM file ({err})")))?;
    if found != label {
        let hint = if found == "RSA PRIVATE KEY" {
            " (a PKCS #1 key: convert it with `openssl pkcs8 -topk8 -nocrypt -in old.pem -out new.pem`)"
        } else {
            ""
        };
        return Err(key_file(
            path,
            format!("holds a {found:?} where a {label:?} was expected{hint}"),
        ));
    }
    Ok(Zeroizing::new(der))
}

fn key_file(path: &Path, reason: String) -> EnvelopeError {
    EnvelopeError::KeyFile {
        path: path.to_path_buf(),
        reason,
    }
}

#[cfg(test)]
pub(crate) mod tests;
