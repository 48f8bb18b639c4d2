//! The chunked segment format's keys: compression, encryption and the key
//! pairs, as a [`FormatConfig`] the storage manager opens its codec from.

use {
    super::{
        error::ConfigError,
        keys::{ConfigKey, KEY_FAMILIES, Plugin},
        settings::Settings,
    },
    krabka_object_store::{S3Credentials, Secret},
    krabka_remote_storage::{
        Cipher, CombinedKeyRing, Compression, KeyPairFiles, KeyRing, KmsConfig, KmsKeyRing,
        RsaKeyPairs, SegmentCodec, envelope::EnvelopeError,
    },
    std::{path::PathBuf, sync::Arc},
};

/// How the storage manager writes segments, and the key pairs it reads
/// them with: the `chunk.size`, `compression.*` and `encryption.*` keys,
/// checked but with no key file read yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatConfig {
    /// Original bytes per chunk.
    pub chunk_size: u32,
    /// Compression of new segments, if on.
    pub compression: Option<Compression>,
    /// Encryption of new segments, if on.
    pub encryption: Option<Cipher>,
    /// The active key pair's id and every configured pair's files.
    pub key_pairs: Option<(String, Vec<KeyPairFiles>)>,
    /// The AWS KMS key that makes and unwraps data keys, if any.
    pub kms: Option<KmsConfig>,
}

impl Default for FormatConfig {
    /// Plain segments, no keys.
    fn default() -> Self {
        Self {
            chunk_size: krabka_remote_storage::envelope::DEFAULT_CHUNK_SIZE,
            compression: None,
            encryption: None,
            key_pairs: None,
            kms: None,
        }
    }
}

impl FormatConfig {
    /// The codec: reads every key pair's files (once).
    ///
    /// # Errors
    /// [`EnvelopeError::KeyFile`] or [`EnvelopeError::KeyConfig`] for a key
    /// pair that cannot be used.
    pub fn codec(&self) -> Result<SegmentCodec, EnvelopeError> {
        let pairs: Option<Arc<dyn KeyRing>> = match &self.key_pairs {
            Some((active, pairs)) => Some(Arc::new(RsaKeyPairs::load(active, pairs)?)),
            None => None,
        };
        let kms: Option<Arc<dyn KeyRing>> = match &self.kms {
            Some(config) => Some(Arc::new(KmsKeyRing::new(config)?)),
            None => None,
        };
        let keys = match (kms, pairs) {
            (Some(kms), Some(pairs)) => Some(Arc::new(CombinedKeyRing::new(kms, vec![pairs])) as _),
            (kms, pairs) => kms.or(pairs),
        };
        Ok(SegmentCodec {
            chunk_size: self.chunk_size,
            compression: self.compression,
            encryption: self.encryption,
            keys,
        })
    }
}

/// Parses the format keys of the storage manager's configuration.
///
/// # Errors
/// [`ConfigError`] naming the first bad key: an unknown member of a key
/// family, a pair id not listed in `encryption.key.pairs`, a listed pair
/// without both files, or encryption without a key pair.
pub fn parse_format(entries: &[(String, String)]) -> Result<FormatConfig, ConfigError> {
    let settings = Settings::check(Plugin::StorageManager, entries)?;
    let chunk_size = settings.integer(ConfigKey::ChunkSize)?;
    let compression = settings
        .flag(ConfigKey::CompressionEnabled)
        .then(|| -> Result<_, ConfigError> {
            Ok(Compression {
                level: settings.integer(ConfigKey::CompressionZstdLevel)?,
                heuristic: settings.flag(ConfigKey::CompressionHeuristicEnabled),
            })
        })
        .transpose()?;
    let key_pairs = key_pairs(&settings)?;
    let kms = kms(&settings)?;
    let encryption = if settings.flag(ConfigKey::EncryptionEnabled) {
        if key_pairs.is_none() && kms.is_none() {
            return Err(ConfigError::refused(
                ConfigKey::EncryptionKeyPairs,
                "",
                "the ids of the key pairs (with encryption.key.pair.id among them), or encryption.kms.key.id, when encryption.enabled is true",
            ));
        }
        let name = settings
            .text(ConfigKey::EncryptionCipher)
            .unwrap_or_default();
        Some(
            Cipher::parse(name)
                .map_err(|_| ConfigError::invalid(ConfigKey::EncryptionCipher, name))?,
        )
    } else {
        None
    };
    Ok(FormatConfig {
        chunk_size,
        compression,
        encryption,
        key_pairs,
        kms,
    })
}

/// `encryption.kms.*`: the KMS key, when `encryption.kms.key.id` is set,
/// with the S3 tier's static credentials when it has them.
fn kms(settings: &Settings<'_>) -> Result<Option<KmsConfig>, ConfigError> {
    let Some(key_id) = settings.text(ConfigKey::EncryptionKmsKeyId) else {
        return Ok(None);
    };
    let region = settings
        .text(ConfigKey::EncryptionKmsRegion)
        .or_else(|| settings.text(ConfigKey::S3Region))
        .ok_or_else(|| {
            ConfigError::refused(
                ConfigKey::EncryptionKmsRegion,
                "",
                "the key's region (or s3.region) when encryption.kms.key.id is set",
            )
        })?;
    let mut config = KmsConfig::new(key_id, region);
    config.endpoint = settings
        .text(ConfigKey::EncryptionKmsEndpoint)
        .map(str::to_owned);
    if let (Some(id), Some(secret)) = (
        settings.text(ConfigKey::S3AccessKeyId),
        settings.text(ConfigKey::S3SecretAccessKey),
    ) {
        config.credentials = S3Credentials::Static {
            access_key_id: id.to_owned(),
            secret_access_key: Secret::new(secret.to_owned()),
            session_token: settings
                .text(ConfigKey::S3SessionToken)
                .map(|token| Secret::new(token.to_owned())),
        };
    }
    Ok(Some(config))
}

/// `encryption.key.pair.id`, `encryption.key.pairs` and the pairs' files;
/// `None` when no pair is listed.
fn key_pairs(settings: &Settings<'_>) -> Result<Option<(String, Vec<KeyPairFiles>)>, ConfigError> {
    let family = &KEY_FAMILIES[0];
    let listed: Vec<&str> = settings
        .text(ConfigKey::EncryptionKeyPairs)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .collect();
    for id in settings.member_ids() {
        if !listed.contains(&id) {
            return Err(ConfigError::UnlistedMember {
                key: format!("{}{id}{}", family.prefix, family.suffixes[0]),
                list: family.ids,
            });
        }
    }
    let active = settings.text(ConfigKey::EncryptionKeyPairId);
    if listed.is_empty() {
        if let Some(active) = active {
            return Err(ConfigError::refused(
                ConfigKey::EncryptionKeyPairId,
                active,
                "an id listed in encryption.key.pairs",
            ));
        }
        return Ok(None);
    }
    let Some(active) = active else {
        return Err(ConfigError::refused(
            ConfigKey::EncryptionKeyPairId,
            "",
            "the id of the active key pair when encryption.key.pairs is set",
        ));
    };
    if !listed.contains(&active) {
        return Err(ConfigError::refused(
            ConfigKey::EncryptionKeyPairId,
            active,
            "an id listed in encryption.key.pairs",
        ));
    }
    let mut pairs = Vec::with_capacity(listed.len());
    for id in listed {
        let file = |suffix: &'static str| {
            settings
                .member(id, suffix)
                .map(PathBuf::from)
                .ok_or_else(|| ConfigError::MissingMember {
                    key: format!("{}{id}{suffix}", family.prefix),
                    list: family.ids,
                })
        };
        pairs.push(KeyPairFiles {
            id: id.to_owned(),
            public_key_file: file(family.suffixes[0])?,
            private_key_file: file(family.suffixes[1])?,
        });
    }
    Ok(Some((active.to_owned(), pairs)))
}

#[cfg(test)]
mod tests;
