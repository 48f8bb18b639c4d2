//! [`WormConfig`]: what turns an object-store tier into a write-once
//! archive, and how [`WormError`] maps onto the SPI's error.

use {
    super::{ManifestSigner, WormError},
    crate::RemoteStorageError,
    std::path::PathBuf,
};

/// The write-once archive mode of [`S3RemoteStorage`](crate::S3RemoteStorage)
/// ([`S3RemoteStorage::with_worm`](crate::S3RemoteStorage::with_worm)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WormConfig {
    /// Unencrypted PKCS#8 Ed25519 signing key, DER or PEM
    /// (`openssl genpkey -algorithm ed25519 -out key.pem`).
    pub signing_key_path: PathBuf,
    /// The id the key is published under (1–64 characters of
    /// `[A-Za-z0-9._-]`); verifiers look the public key up by it.
    pub key_id: String,
    /// Refuse every fetch before touching the store: the archive is a sink
    /// only, read back by auditors, never by consumers through this tier.
    pub write_only: bool,
}

impl WormConfig {
    /// A read-write archive signed with the key at `signing_key_path`.
    #[must_use]
    pub fn new(signing_key_path: impl Into<PathBuf>, key_id: impl Into<String>) -> Self {
        Self {
            signing_key_path: signing_key_path.into(),
            key_id: key_id.into(),
            write_only: false,
        }
    }

    /// The same configuration with [`WormConfig::write_only`] set.
    #[must_use]
    pub fn write_only(mut self, write_only: bool) -> Self {
        self.write_only = write_only;
        self
    }

    /// Loads the signing key.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] for an unreadable key file, a
    /// key that is not PKCS#8 Ed25519, or an invalid key id.
    pub fn signer(&self) -> crate::Result<ManifestSigner> {
        ManifestSigner::from_pkcs8_file(&self.signing_key_path, &self.key_id).map_err(worm_error)
    }
}

/// [`WormError`] as the SPI's error: key and configuration problems are
/// [`RemoteStorageError::InvalidArgument`], an exhausted chain is
/// [`RemoteStorageError::Refused`], and every manifest or chain-record
/// defect is [`RemoteStorageError::Corrupt`] (class `Integrity`).
#[must_use]
pub fn worm_error(err: WormError) -> RemoteStorageError {
    match err {
        WormError::SigningKeyRead { .. }
        | WormError::SigningKeyDecode { .. }
        | WormError::InvalidKeyId { .. }
        | WormError::InvalidPublicKey { .. }
        | WormError::DuplicateKeyId { .. }
        | WormError::InvalidChainHead { .. } => {
            RemoteStorageError::InvalidArgument(error_chain(&err))
        }
        WormError::ChainExhausted { .. } => RemoteStorageError::Refused(err.to_string()),
        other => RemoteStorageError::Corrupt {
            format: "WORM manifest",
            detail: error_chain(&other),
        },
    }
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut current = err.source();
    while let Some(source) = current {
        text.push_str(": ");
        text.push_str(&source.to_string());
        current = source.source();
    }
    text
}

impl From<WormError> for RemoteStorageError {
    fn from(err: WormError) -> Self {
        worm_error(err)
    }
}

#[cfg(test)]
mod tests {
    use {super::*, crate::ErrorClass};

    #[test]
    fn a_missing_key_file_is_an_invalid_argument() {
        let config = WormConfig::new("/nonexistent/key.pem", "k1");
        assert!(matches!(
            config.signer(),
            Err(RemoteStorageError::InvalidArgument(_))
        ));
    }

    #[test]
    fn error_classes() {
        assert_eq!(
            RemoteStorageError::from(WormError::Unsigned).class(),
            ErrorClass::Integrity
        );
        assert_eq!(
            RemoteStorageError::from(WormError::ChainExhausted {
                epoch_id: crate::EpochId(uuid::Uuid::nil())
            })
            .class(),
            ErrorClass::Refused
        );
    }
}
