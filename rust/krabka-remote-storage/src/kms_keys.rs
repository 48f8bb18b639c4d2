//! [`KmsKeyRing`]: data keys made and unwrapped by AWS KMS
//! (`GenerateDataKey`, `Decrypt`; `Encrypt` to re-wrap), and
//! [`CombinedKeyRing`]: KMS and RSA key pairs side by side.
//!
//! The key ring is synchronous (the tiers call it from the broker's
//! threads); each KMS call runs on the ring's own small runtime from a
//! short-lived thread, so it may be made from any thread, inside another
//! runtime too. Unwrapped keys are remembered by the tiers per segment, so
//! a segment costs one `Decrypt` per broker however often it is read.

use {
    krabka_envelope::{DataKey, EnvelopeError, KeyRing, WrappedKey},
    krabka_object_store::kms::{KmsClient, KmsConfig, KmsError},
    std::{fmt, future::Future, sync::Arc},
    uuid::Uuid,
};

/// Data keys made under one AWS KMS key, and unwrapped by KMS whatever
/// key made them (a key rotated to another id keeps old segments readable
/// as long as the credentials may use the old key).
pub struct KmsKeyRing {
    client: KmsClient,
    runtime: tokio::runtime::Runtime,
}

impl fmt::Debug for KmsKeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KmsKeyRing")
            .field("key_id", &self.client.key_id())
            .finish_non_exhaustive()
    }
}

impl KmsKeyRing {
    /// A ring of `config`'s key.
    ///
    /// # Errors
    /// [`EnvelopeError::KeyConfig`] when the client or its runtime cannot be
    /// built.
    pub fn new(config: &KmsConfig) -> Result<Self, EnvelopeError> {
        let client =
            KmsClient::new(config).map_err(|err| EnvelopeError::KeyConfig(err.to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("krabka-kms")
            .enable_all()
            .build()
            .map_err(|err| {
                EnvelopeError::KeyConfig(format!("the KMS runtime cannot start: {err}"))
            })?;
        Ok(Self { client, runtime })
    }

    /// Runs one call to its end on the ring's runtime, from a thread of its
    /// own (so the caller may be inside any runtime).
    fn run<T: Send>(
        &self,
        call: impl Future<Output = Result<T, KmsError>> + Send,
    ) -> Result<T, EnvelopeError> {
        let handle = self.runtime.handle();
        std::thread::scope(|scope| {
            scope
                .spawn(|| handle.block_on(call))
                .join()
                .map_err(|_| EnvelopeError::KeyService("a KMS call panicked".to_owned()))?
                .map_err(|err| EnvelopeError::KeyService(err.to_string()))
        })
    }
}

impl KeyRing for KmsKeyRing {
    fn active_key_id(&self) -> &str {
        self.client.key_id()
    }

    fn key_ids(&self) -> Vec<String> {
        vec![self.client.key_id().to_owned()]
    }

    fn wrap(&self, key: &DataKey) -> krabka_envelope::Result<WrappedKey> {
        let bytes = self.run(self.client.encrypt(key.expose()))?;
        Ok(WrappedKey {
            key_id: self.client.key_id().to_owned(),
            bytes,
        })
    }

    fn generate(&self) -> krabka_envelope::Result<(DataKey, WrappedKey)> {
        let made = self.run(self.client.generate_data_key())?;
        let key = DataKey::from_bytes(&made.plaintext)?;
        Ok((
            key,
            WrappedKey {
                key_id: self.client.key_id().to_owned(),
                bytes: made.ciphertext_blob,
            },
        ))
    }

    fn unwrap(&self, segment: Uuid, wrapped: &WrappedKey) -> krabka_envelope::Result<DataKey> {
        let plaintext = self.run(self.client.decrypt(&wrapped.key_id, &wrapped.bytes)).map_err(|err| {
            tracing::warn!(%segment, key_id = %wrapped.key_id, error = %err, "KMS could not unwrap a data key");
            EnvelopeError::UnwrapFailed { segment, key_id: wrapped.key_id.clone() }
        })?;
        DataKey::from_bytes(&plaintext)
    }
}

/// An active key ring and others that unwrap the keys they know (by key
/// id); a key id none of the others knows goes to the active ring (KMS
/// unwraps blobs of any key its credentials may use).
#[derive(Debug)]
pub struct CombinedKeyRing {
    active: Arc<dyn KeyRing>,
    others: Vec<Arc<dyn KeyRing>>,
}

impl CombinedKeyRing {
    /// `active` wraps new keys; `others` unwrap their own ids.
    #[must_use]
    pub fn new(active: Arc<dyn KeyRing>, others: Vec<Arc<dyn KeyRing>>) -> Self {
        Self { active, others }
    }
}

impl KeyRing for CombinedKeyRing {
    fn active_key_id(&self) -> &str {
        self.active.active_key_id()
    }

    fn key_ids(&self) -> Vec<String> {
        let mut ids = self.active.key_ids();
        ids.extend(self.others.iter().flat_map(|ring| ring.key_ids()));
        ids
    }

    fn wrap(&self, key: &DataKey) -> krabka_envelope::Result<WrappedKey> {
        self.active.wrap(key)
    }

    fn generate(&self) -> krabka_envelope::Result<(DataKey, WrappedKey)> {
        self.active.generate()
    }

    fn unwrap(&self, segment: Uuid, wrapped: &WrappedKey) -> krabka_envelope::Result<DataKey> {
        let owner = self
            .others
            .iter()
            .find(|ring| ring.key_ids().contains(&wrapped.key_id))
            .unwrap_or(&self.active);
        owner.unwrap(segment, wrapped)
    }
}
