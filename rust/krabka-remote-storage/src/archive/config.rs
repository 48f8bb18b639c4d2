//! [`WormConfig`]: what a write-once archive tier needs beyond its bucket.

use {
    super::log::ArchiveLogConfig,
    krabka_kafka::RemoteStorageError,
    krabka_worm::{ManifestSigner, TrustedManifestKeys},
    std::{collections::BTreeMap, path::PathBuf},
};

/// The configuration of a [`WormRemoteStorage`](super::WormRemoteStorage)
/// ([`WormRemoteStorage::open`](super::WormRemoteStorage::open), or
/// [`S3RemoteStorage::with_worm`](crate::S3RemoteStorage::with_worm)).
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
    /// Other writers' Ed25519 public keys by key id: their seals count
    /// toward a partition's chain tip, so brokers signing with different
    /// keys share one chain. The signer's own key is always trusted; a seal
    /// signed by any other key is a foreign object the chain routes around.
    pub trusted_keys: BTreeMap<String, [u8; 32]>,
    /// The archive log (Merkle tree, signed checkpoints, witnesses); `None`
    /// keeps none.
    pub log: Option<ArchiveLogConfig>,
}

impl WormConfig {
    /// A read-write archive signed with the key at `signing_key_path`.
    #[must_use]
    pub fn new(signing_key_path: impl Into<PathBuf>, key_id: impl Into<String>) -> Self {
        Self {
            signing_key_path: signing_key_path.into(),
            key_id: key_id.into(),
            write_only: false,
            trusted_keys: BTreeMap::new(),
            log: None,
        }
    }

    /// The same configuration keeping the archive log `log`.
    #[must_use]
    pub fn with_log(mut self, log: ArchiveLogConfig) -> Self {
        self.log = Some(log);
        self
    }

    /// The same configuration also trusting the seals of `key_id`'s
    /// `public_key`.
    #[must_use]
    pub fn with_trusted_key(mut self, key_id: impl Into<String>, public_key: [u8; 32]) -> Self {
        self.trusted_keys.insert(key_id.into(), public_key);
        self
    }

    /// The other writers' keys as a trusted key set.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] for an invalid key id or public key.
    pub fn trusted(&self) -> krabka_kafka::Result<TrustedManifestKeys> {
        TrustedManifestKeys::from_pairs(
            self.trusted_keys
                .iter()
                .map(|(key_id, public_key)| (key_id.as_str(), public_key.as_slice())),
        )
        .map_err(|err| RemoteStorageError::Config {
            what: "archive trusted keys",
            source: Box::new(err),
        })
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
    /// [`RemoteStorageError::Config`] (class `InvalidInput`) for an
    /// unreadable key file, a key that is not PKCS#8 Ed25519, or an invalid
    /// key id; the [`WormError`](krabka_worm::WormError) is its source.
    pub fn signer(&self) -> krabka_kafka::Result<ManifestSigner> {
        ManifestSigner::from_pkcs8_file(&self.signing_key_path, &self.key_id).map_err(|err| {
            RemoteStorageError::Config {
                what: "archive signing key",
                source: Box::new(err),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use {super::*, krabka_kafka::ErrorClass, krabka_worm::WormError};

    #[test]
    fn a_missing_key_file_is_a_configuration_error_with_its_cause() {
        let config = WormConfig::new("/nonexistent/key.pem", "k1");
        let Err(err) = config.signer() else {
            panic!("a missing key file loaded");
        };
        assert_eq!(err.class(), ErrorClass::InvalidInput);
        let RemoteStorageError::Config { what, source } = err else {
            panic!("not a configuration error: {err:?}");
        };
        assert_eq!(what, "archive signing key");
        assert!(matches!(
            source.downcast_ref::<WormError>(),
            Some(WormError::SigningKeyRead { .. })
        ));
    }
}
