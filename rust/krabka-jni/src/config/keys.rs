//! The one table of the plugins' configuration keys.
//!
//! Every `rsm.config.*` and `rlmm.config.*` key is a [`ConfigKey`]; its
//! [`KeySpec`] holds its canonical name, its kind (type, default and valid
//! values), its importance, which plugin reads it, whether it reaches the
//! native library, and its documentation. Nothing else in the project lists
//! keys:
//!
//! - the Rust parser (`super::parse_backend`) checks values by this table and
//!   takes its defaults from it;
//! - `java/…/ConfigKeys.java` (the Java constants, the `ConfigDef`s and the
//!   list of keys passed to the native library) and the tables of
//!   `docs/configuration.md` are rendered from it by [`super::render`], and a
//!   test fails when the committed files differ;
//! - the Java tests compare the adapters' `ConfigDef`s with this table, read
//!   through `NativeBridge.configTable()`, key by key.
//!
//! Defaults of the object-store keys are `krabka-object-store`'s own
//! constants, so the Java side cannot default to something else.

use {
    krabka_object_store::{
        DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_MULTIPART_CHUNK_SIZE,
        DEFAULT_MULTIPART_THRESHOLD, DEFAULT_REQUEST_TIMEOUT, DEFAULT_RETRY_TIMEOUT,
        MAX_PARTS_IN_FLIGHT, store::DEFAULT_PARTS_IN_FLIGHT, store::cache,
    },
    krabka_remote_storage::DEFAULT_CHECKPOINT_INTERVAL,
    std::{fmt, time::Duration},
};

/// A key's kind, importance and doc: the variable part of its table row.
type Row = (Kind, Importance, &'static str);

/// A configuration key of the plugins (`rsm.config.<key>`, `rlmm.config.<key>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConfigKey {
    /// `backend`.
    Backend,
    /// `filesystem.root`.
    FilesystemRoot,
    /// `prefix`.
    Prefix,
    /// `s3.bucket`.
    S3Bucket,
    /// `s3.region`.
    S3Region,
    /// `s3.endpoint`.
    S3Endpoint,
    /// `s3.path.style`.
    S3PathStyle,
    /// `s3.allow.http`.
    S3AllowHttp,
    /// `s3.access.key.id`.
    S3AccessKeyId,
    /// `s3.secret.access.key`.
    S3SecretAccessKey,
    /// `s3.session.token`.
    S3SessionToken,
    /// `s3.storage.class`.
    S3StorageClass,
    /// `s3.server.side.encryption`.
    S3ServerSideEncryption,
    /// `s3.sse.kms.key.id`.
    S3SseKmsKeyId,
    /// `s3.tls.ca.certificates.path`.
    S3TlsCaCertificatesPath,
    /// `gcs.bucket`.
    GcsBucket,
    /// `gcs.endpoint`.
    GcsEndpoint,
    /// `gcs.allow.http`.
    GcsAllowHttp,
    /// `gcs.service.account.path`.
    GcsServiceAccountPath,
    /// `gcs.service.account.key`.
    GcsServiceAccountKey,
    /// `gcs.application.credentials.path`.
    GcsApplicationCredentialsPath,
    /// `azure.account`.
    AzureAccount,
    /// `azure.container`.
    AzureContainer,
    /// `azure.endpoint`.
    AzureEndpoint,
    /// `azure.allow.http`.
    AzureAllowHttp,
    /// `azure.access.key`.
    AzureAccessKey,
    /// `azure.sas.token`.
    AzureSasToken,
    /// `multipart.threshold.bytes`.
    MultipartThresholdBytes,
    /// `multipart.chunk.size.bytes`.
    MultipartChunkSizeBytes,
    /// `multipart.parts.in.flight`.
    MultipartPartsInFlight,
    /// `max.retries`.
    MaxRetries,
    /// `retry.timeout.ms`.
    RetryTimeoutMs,
    /// `request.timeout.ms`.
    RequestTimeoutMs,
    /// `connect.timeout.ms`.
    ConnectTimeoutMs,
    /// `fetch.cache.size.bytes`.
    FetchCacheSizeBytes,
    /// `fetch.cache.chunk.size.bytes`.
    FetchCacheChunkSizeBytes,
    /// `fetch.prefetch.chunks`.
    FetchPrefetchChunks,
    /// `fetch.cache.disk.path`.
    FetchCacheDiskPath,
    /// `fetch.cache.disk.size.bytes`.
    FetchCacheDiskSizeBytes,
    /// `worm.enabled`.
    WormEnabled,
    /// `worm.signing.key.path`.
    WormSigningKeyPath,
    /// `worm.key.id`.
    WormKeyId,
    /// `worm.write.only`.
    WormWriteOnly,
    /// `worm.trusted.keys`.
    WormTrustedKeys,
    /// `worm.allow.plain.on.archive`.
    WormAllowPlainOnArchive,
    /// `worm.log.origin`.
    WormLogOrigin,
    /// `worm.log.checkpoint.interval.ms`.
    WormLogCheckpointIntervalMs,
    /// `worm.log.witnesses`.
    WormLogWitnesses,
    /// `chunk.size`.
    ChunkSize,
    /// `compression.enabled`.
    CompressionEnabled,
    /// `compression.heuristic.enabled`.
    CompressionHeuristicEnabled,
    /// `compression.zstd.level`.
    CompressionZstdLevel,
    /// `encryption.enabled`.
    EncryptionEnabled,
    /// `encryption.cipher`.
    EncryptionCipher,
    /// `encryption.key.pair.id`.
    EncryptionKeyPairId,
    /// `encryption.key.pairs`.
    EncryptionKeyPairs,
    /// `encryption.kms.key.id`.
    EncryptionKmsKeyId,
    /// `encryption.kms.region`.
    EncryptionKmsRegion,
    /// `encryption.kms.endpoint`.
    EncryptionKmsEndpoint,
    /// `native.library.path`.
    NativeLibraryPath,
    /// `metadata.manager`.
    MetadataManager,
    /// `metadata.memory.loss.on.restart.accepted`.
    MetadataMemoryLossOnRestartAccepted,
    /// `metadata.snapshot.every.records`.
    MetadataSnapshotEveryRecords,
    /// `metadata.poll.interval.ms`.
    MetadataPollIntervalMs,
    /// `metadata.history.keep`.
    MetadataHistoryKeep,
    /// `metadata.load.concurrency`.
    MetadataLoadConcurrency,
}

/// Everything the table says about one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// The canonical name, without the `rsm.config.` / `rlmm.config.` prefix.
    pub name: &'static str,
    /// Type, default and valid values.
    pub kind: Kind,
    /// Kafka's `ConfigDef.Importance`.
    pub importance: Importance,
    /// Which plugins accept the key.
    pub scope: Scope,
    /// Who reads the value.
    pub reader: Reader,
    /// The documentation: one line of plain text (HTML `<code>` allowed), no
    /// `|`, tab or newline, ASCII only.
    pub doc: &'static str,
}

/// A key's type, with its default and valid values; each variant is one of
/// Kafka's `ConfigDef.Type`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `STRING`: text, unset by default unless `default` says otherwise.
    Text {
        /// The default, `None` for unset.
        default: Option<&'static str>,
        /// What text is valid.
        rule: TextRule,
    },
    /// `PASSWORD`: a secret, unset by default, any text, hidden in logs.
    Secret,
    /// `BOOLEAN`: `true` or `false`, any case.
    Boolean {
        /// The default.
        default: bool,
    },
    /// `INT`: a 32-bit integer.
    Int {
        /// The default.
        default: i32,
        /// The valid values.
        range: Range,
    },
    /// `LONG`: a 64-bit integer.
    Long {
        /// The default.
        default: i64,
        /// The valid values.
        range: Range,
    },
}

/// The text a [`Kind::Text`] key accepts (besides unset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextRule {
    /// Any text.
    Any,
    /// Exactly one of these (case-sensitive).
    OneOf(&'static [&'static str]),
    /// `min_len` to `max_len` characters of ASCII letters, digits and
    /// `punctuation`.
    Token {
        /// The fewest characters.
        min_len: usize,
        /// The most characters.
        max_len: usize,
        /// The characters allowed besides ASCII letters and digits.
        punctuation: &'static str,
    },
}

/// Inclusive bounds of an integer key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The smallest valid value.
    pub min: i64,
    /// The largest valid value; `None` is the type's maximum.
    pub max: Option<i64>,
}

/// Kafka's `ConfigDef.Importance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Importance {
    /// `HIGH`.
    High,
    /// `MEDIUM`.
    Medium,
    /// `LOW`.
    Low,
}

/// Which plugins accept a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Only the storage manager (`rsm.config.*`).
    StorageManager,
    /// The storage manager and the metadata manager (`rlmm.config.*`).
    BothPlugins,
    /// Only the metadata manager (`rlmm.config.*`).
    MetadataManager,
}

/// Who reads a key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The native library: the Java adapter passes the value to
    /// `rsmOpen`, defaults included.
    Native,
    /// The Java loader, before the native library exists; never passed on.
    Loader,
}

/// A plugin whose keys the table lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    /// `KrabkaRemoteStorageManager`, `rsm.config.*`.
    StorageManager,
    /// `KrabkaRemoteLogMetadataManager`, `rlmm.config.*`.
    MetadataManager,
}

/// A family of keys named `<prefix><id><suffix>`, one per id of a list key
/// (the files of each configured key pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFamily {
    /// What comes before the id.
    pub prefix: &'static str,
    /// The key that lists the ids.
    pub ids: ConfigKey,
    /// What may follow the id, each a key of its own.
    pub suffixes: &'static [&'static str],
    /// The documentation of each suffix, in the same order.
    pub docs: &'static [&'static str],
}

/// The key families: the storage manager's key-pair files.
pub const KEY_FAMILIES: [KeyFamily; 1] = [KeyFamily {
    prefix: "encryption.key.pairs.",
    ids: ConfigKey::EncryptionKeyPairs,
    suffixes: &[".public.key.file", ".private.key.file"],
    docs: &[
        "PEM file of the public key of key pair ID (X.509 SubjectPublicKeyInfo, as openssl          pkey -pubout writes it).",
        "PEM file of the private key of key pair ID (PKCS #8, as openssl genpkey writes it);          read once at start-up, and refused when other users may read it or its group may          change it.",
    ],
}];

impl KeyFamily {
    /// The id and suffix of `name` when it belongs to a family.
    #[must_use]
    pub fn parse(name: &str) -> Option<(&'static Self, &str, &'static str)> {
        KEY_FAMILIES.iter().find_map(|family| {
            let rest = name.strip_prefix(family.prefix)?;
            family.suffixes.iter().find_map(|suffix| {
                let id = rest.strip_suffix(suffix)?;
                (!id.is_empty()).then_some((family, id, *suffix))
            })
        })
    }

    /// Whether `name` starts like a member of the family (so a mistyped
    /// suffix is reported as such).
    #[must_use]
    pub fn claims(&self, name: &str) -> bool {
        name.starts_with(self.prefix)
    }
}

/// A value checked against its key's kind and rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// A [`Kind::Text`] or [`Kind::Secret`] value, trimmed.
    Text(&'a str),
    /// A [`Kind::Boolean`] value.
    Boolean(bool),
    /// A [`Kind::Int`] or [`Kind::Long`] value.
    Integer(i64),
}

const MIB: i64 = 1024 * 1024;
/// The largest object S3 accepts in one PUT, and the largest part (5 GiB);
/// `krabka-object-store` refuses larger thresholds and parts too (a test
/// checks the bounds agree).
const MAX_SINGLE_PUT: i64 = 5 * 1024 * MIB;
/// The smallest part S3 accepts for every part but the last (5 MiB).
const MIN_PART: i64 = 5 * MIB;

const DEFAULT_THRESHOLD: i64 = unsigned(DEFAULT_MULTIPART_THRESHOLD);
const DEFAULT_CHUNK_SIZE: i64 = unsigned(DEFAULT_MULTIPART_CHUNK_SIZE as u64);
const DEFAULT_RETRIES: i32 = int(DEFAULT_MAX_RETRIES);
const DEFAULT_RETRY_TIMEOUT_MS: i64 = millis(DEFAULT_RETRY_TIMEOUT);
const DEFAULT_REQUEST_TIMEOUT_MS: i64 = millis(DEFAULT_REQUEST_TIMEOUT);
const DEFAULT_CONNECT_TIMEOUT_MS: i64 = millis(DEFAULT_CONNECT_TIMEOUT);
const DEFAULT_READ_CACHE_BYTES: i64 = unsigned(cache::DEFAULT_CACHE_BYTES);
const DEFAULT_READ_CACHE_CHUNK: i64 = unsigned(cache::DEFAULT_CHUNK_BYTES);
const MIN_READ_CACHE_CHUNK: i64 = unsigned(cache::MIN_CHUNK_BYTES);
const DEFAULT_READ_AHEAD_CHUNKS: i32 = int(cache::DEFAULT_PREFETCH_CHUNKS);
const DEFAULT_READ_CACHE_DISK_BYTES: i64 = unsigned(cache::DEFAULT_DISK_CACHE_BYTES);
const DEFAULT_LOG_CHECKPOINT_INTERVAL_MS: i64 = millis(DEFAULT_CHECKPOINT_INTERVAL);
const DEFAULT_FORMAT_CHUNK: i32 = int(krabka_remote_storage::envelope::DEFAULT_CHUNK_SIZE as usize);
const MIN_FORMAT_CHUNK: i64 = krabka_remote_storage::envelope::envelope::MIN_CHUNK_SIZE as i64;
const MAX_FORMAT_CHUNK: i64 = krabka_remote_storage::envelope::envelope::MAX_CHUNK_SIZE as i64;
const DEFAULT_ZSTD_LEVEL: i32 = krabka_remote_storage::envelope::DEFAULT_ZSTD_LEVEL;

/// `value` as a Java `long`; evaluated at compile time, so too large a
/// default does not build.
const fn unsigned(value: u64) -> i64 {
    assert!(value <= i64::MAX as u64, "default out of the range of long");
    value as i64
}

/// `value` as a Java `int`, checked at compile time.
const fn int(value: usize) -> i32 {
    assert!(
        value <= i32::MAX as usize,
        "default out of the range of int"
    );
    value as i32
}

/// `duration` in milliseconds as a Java `long`, checked at compile time.
const fn millis(duration: Duration) -> i64 {
    let ms = duration.as_millis();
    assert!(ms <= i64::MAX as u128, "default out of the range of long");
    ms as i64
}

const AT_LEAST_ONE: Range = Range { min: 1, max: None };

const fn text(importance: Importance, doc: &'static str) -> (Kind, Importance, &'static str) {
    (
        Kind::Text {
            default: None,
            rule: TextRule::Any,
        },
        importance,
        doc,
    )
}

const fn boolean(importance: Importance, doc: &'static str) -> (Kind, Importance, &'static str) {
    (Kind::Boolean { default: false }, importance, doc)
}

const fn long(
    default: i64,
    range: Range,
    importance: Importance,
    doc: &'static str,
) -> (Kind, Importance, &'static str) {
    (Kind::Long { default, range }, importance, doc)
}

impl ConfigKey {
    /// Every key, in table order (the order of the Java `ConfigDef`s).
    pub const ALL: [Self; 66] = [
        Self::Backend,
        Self::FilesystemRoot,
        Self::Prefix,
        Self::S3Bucket,
        Self::S3Region,
        Self::S3Endpoint,
        Self::S3PathStyle,
        Self::S3AllowHttp,
        Self::S3AccessKeyId,
        Self::S3SecretAccessKey,
        Self::S3SessionToken,
        Self::S3StorageClass,
        Self::S3ServerSideEncryption,
        Self::S3SseKmsKeyId,
        Self::S3TlsCaCertificatesPath,
        Self::GcsBucket,
        Self::GcsEndpoint,
        Self::GcsAllowHttp,
        Self::GcsServiceAccountPath,
        Self::GcsServiceAccountKey,
        Self::GcsApplicationCredentialsPath,
        Self::AzureAccount,
        Self::AzureContainer,
        Self::AzureEndpoint,
        Self::AzureAllowHttp,
        Self::AzureAccessKey,
        Self::AzureSasToken,
        Self::MultipartThresholdBytes,
        Self::MultipartChunkSizeBytes,
        Self::MultipartPartsInFlight,
        Self::MaxRetries,
        Self::RetryTimeoutMs,
        Self::RequestTimeoutMs,
        Self::ConnectTimeoutMs,
        Self::FetchCacheSizeBytes,
        Self::FetchCacheChunkSizeBytes,
        Self::FetchPrefetchChunks,
        Self::FetchCacheDiskPath,
        Self::FetchCacheDiskSizeBytes,
        Self::WormEnabled,
        Self::WormSigningKeyPath,
        Self::WormKeyId,
        Self::WormWriteOnly,
        Self::WormTrustedKeys,
        Self::WormAllowPlainOnArchive,
        Self::WormLogOrigin,
        Self::WormLogCheckpointIntervalMs,
        Self::WormLogWitnesses,
        Self::ChunkSize,
        Self::CompressionEnabled,
        Self::CompressionHeuristicEnabled,
        Self::CompressionZstdLevel,
        Self::EncryptionEnabled,
        Self::EncryptionCipher,
        Self::EncryptionKeyPairId,
        Self::EncryptionKeyPairs,
        Self::EncryptionKmsKeyId,
        Self::EncryptionKmsRegion,
        Self::EncryptionKmsEndpoint,
        Self::NativeLibraryPath,
        Self::MetadataManager,
        Self::MetadataMemoryLossOnRestartAccepted,
        Self::MetadataSnapshotEveryRecords,
        Self::MetadataPollIntervalMs,
        Self::MetadataHistoryKeep,
        Self::MetadataLoadConcurrency,
    ];

    /// The table row of this key.
    ///
    #[must_use]
    pub const fn spec(self) -> KeySpec {
        let (kind, importance, doc) = self.row();
        let (scope, reader) = match self {
            Self::NativeLibraryPath => (Scope::BothPlugins, Reader::Loader),
            // Where the store is: the metadata manager keeps its history in
            // the same store as the tier, so it takes the same keys.
            Self::Backend
            | Self::FilesystemRoot
            | Self::Prefix
            | Self::S3Bucket
            | Self::S3Region
            | Self::S3Endpoint
            | Self::S3PathStyle
            | Self::S3AllowHttp
            | Self::S3AccessKeyId
            | Self::S3SecretAccessKey
            | Self::S3SessionToken
            | Self::S3StorageClass
            | Self::S3ServerSideEncryption
            | Self::S3SseKmsKeyId
            | Self::S3TlsCaCertificatesPath
            | Self::GcsBucket
            | Self::GcsEndpoint
            | Self::GcsAllowHttp
            | Self::GcsServiceAccountPath
            | Self::GcsServiceAccountKey
            | Self::GcsApplicationCredentialsPath
            | Self::AzureAccount
            | Self::AzureContainer
            | Self::AzureEndpoint
            | Self::AzureAllowHttp
            | Self::AzureAccessKey
            | Self::AzureSasToken
            | Self::MaxRetries
            | Self::RetryTimeoutMs
            | Self::RequestTimeoutMs
            | Self::ConnectTimeoutMs => (Scope::BothPlugins, Reader::Native),
            Self::MetadataManager
            | Self::MetadataMemoryLossOnRestartAccepted
            | Self::MetadataSnapshotEveryRecords
            | Self::MetadataPollIntervalMs
            | Self::MetadataHistoryKeep
            | Self::MetadataLoadConcurrency => (Scope::MetadataManager, Reader::Native),
            _ => (Scope::StorageManager, Reader::Native),
        };
        KeySpec {
            name: self.name(),
            kind,
            importance,
            scope,
            reader,
            doc,
        }
    }

    /// The row of this key: its kind, importance and doc, one arm per key in
    /// the group functions below (together they are the table).
    const fn row(self) -> Row {
        match self {
            Self::Backend | Self::FilesystemRoot | Self::Prefix | Self::NativeLibraryPath => {
                self.general_row()
            }
            Self::S3Bucket
            | Self::S3Region
            | Self::S3Endpoint
            | Self::S3PathStyle
            | Self::S3AllowHttp
            | Self::S3AccessKeyId
            | Self::S3SecretAccessKey
            | Self::S3SessionToken
            | Self::S3StorageClass
            | Self::S3ServerSideEncryption
            | Self::S3SseKmsKeyId
            | Self::S3TlsCaCertificatesPath => self.s3_row(),
            Self::GcsBucket
            | Self::GcsEndpoint
            | Self::GcsAllowHttp
            | Self::GcsServiceAccountPath
            | Self::GcsServiceAccountKey
            | Self::GcsApplicationCredentialsPath => self.gcs_row(),
            Self::AzureAccount
            | Self::AzureContainer
            | Self::AzureEndpoint
            | Self::AzureAllowHttp
            | Self::AzureAccessKey
            | Self::AzureSasToken => self.azure_row(),
            Self::MultipartThresholdBytes
            | Self::MultipartChunkSizeBytes
            | Self::MultipartPartsInFlight
            | Self::MaxRetries
            | Self::RetryTimeoutMs
            | Self::RequestTimeoutMs
            | Self::ConnectTimeoutMs => self.transfer_row(),
            Self::FetchCacheSizeBytes
            | Self::FetchCacheChunkSizeBytes
            | Self::FetchPrefetchChunks
            | Self::FetchCacheDiskPath
            | Self::FetchCacheDiskSizeBytes => self.read_cache_row(),
            Self::WormEnabled
            | Self::WormSigningKeyPath
            | Self::WormKeyId
            | Self::WormWriteOnly
            | Self::WormTrustedKeys
            | Self::WormAllowPlainOnArchive
            | Self::WormLogOrigin
            | Self::WormLogCheckpointIntervalMs
            | Self::WormLogWitnesses => self.worm_row(),
            Self::ChunkSize
            | Self::CompressionEnabled
            | Self::CompressionHeuristicEnabled
            | Self::CompressionZstdLevel
            | Self::EncryptionEnabled
            | Self::EncryptionCipher
            | Self::EncryptionKeyPairId
            | Self::EncryptionKeyPairs
            | Self::EncryptionKmsKeyId
            | Self::EncryptionKmsRegion
            | Self::EncryptionKmsEndpoint => self.format_row(),
            Self::MetadataManager
            | Self::MetadataMemoryLossOnRestartAccepted
            | Self::MetadataSnapshotEveryRecords
            | Self::MetadataPollIntervalMs
            | Self::MetadataHistoryKeep
            | Self::MetadataLoadConcurrency => self.metadata_row(),
        }
    }

    /// Rows of the chunked segment format: compression and encryption.
    const fn format_row(self) -> Row {
        use Importance::{High, Low, Medium};
        match self {
            Self::ChunkSize => (
                Kind::Int {
                    default: DEFAULT_FORMAT_CHUNK,
                    range: Range {
                        min: MIN_FORMAT_CHUNK,
                        max: Some(MAX_FORMAT_CHUNK),
                    },
                },
                Low,
                "Original bytes per chunk of a segment written compressed or encrypted: a fetch                  reads (and decrypts) whole chunks. Used when compression.enabled or                  encryption.enabled is true.",
            ),
            Self::CompressionEnabled => boolean(
                Medium,
                "Write new segments in the chunked format with each chunk zstd-compressed (kept                  as it is when that does not make it smaller). Segments already in the tier stay                  readable whatever this says; Apache Kafka's LocalTieredStorage cannot read                  chunked segments (see docs/chunked-format.md).",
            ),
            Self::CompressionHeuristicEnabled => (
                Kind::Boolean { default: true },
                Low,
                "Store a segment's log without compressing it when most of its first chunk's                  record batches are already compressed by their producers.",
            ),
            Self::CompressionZstdLevel => (
                Kind::Int {
                    default: DEFAULT_ZSTD_LEVEL,
                    range: Range {
                        min: 1,
                        max: Some(19),
                    },
                },
                Low,
                "zstd level of compressed chunks.",
            ),
            Self::EncryptionEnabled => boolean(
                High,
                "Write new segments in the chunked format with each chunk encrypted under a                  fresh data key per segment, wrapped by the active key pair                  (encryption.key.pair.id). Needs encryption.key.pairs and each pair's files.",
            ),
            Self::EncryptionCipher => (
                Kind::Text {
                    default: Some("aes-256-gcm"),
                    rule: TextRule::OneOf(&["aes-256-gcm", "chacha20-poly1305"]),
                },
                Low,
                "The AEAD that encrypts chunks: aes-256-gcm or chacha20-poly1305.",
            ),
            Self::EncryptionKeyPairId => (
                Kind::Text {
                    default: None,
                    rule: TextRule::Token {
                        min_len: 1,
                        max_len: 64,
                        punctuation: "._-",
                    },
                },
                High,
                "The id of the active key pair: new segments' data keys are wrapped by its                  public key. Must be one of encryption.key.pairs.",
            ),
            Self::EncryptionKeyPairs => text(
                High,
                "Ids of every configured RSA key pair, comma-separated; each needs                  encryption.key.pairs.ID.public.key.file and                  encryption.key.pairs.ID.private.key.file. Segments wrapped by any of them stay                  readable, also with encryption.enabled false.",
            ),
            Self::EncryptionKmsKeyId => text(
                High,
                "An AWS KMS key (id, ARN or alias/NAME) that makes each new segment's data key \
                 (GenerateDataKey) and unwraps it (Decrypt), with the S3 tier's credentials \
                 (s3.access.key.id, else the ambient AWS chain). With key pairs configured too, \
                 KMS wraps new segments and the pairs still unwrap their own.",
            ),
            Self::EncryptionKmsRegion => text(
                Medium,
                "Region of encryption.kms.key.id; unset means s3.region.",
            ),
            Self::EncryptionKmsEndpoint => text(
                Low,
                "Endpoint URL of KMS (a VPC endpoint, a local KMS-compatible server); unset means \
                 https://kms.REGION.amazonaws.com.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the metadata manager's own keys.
    const fn metadata_row(self) -> Row {
        use Importance::{High, Low, Medium};
        match self {
            Self::MetadataManager => (
                Kind::Text {
                    default: Some("store"),
                    rule: TextRule::OneOf(&["store", "memory"]),
                },
                High,
                "Where remote log metadata lives: <code>store</code> (durable, in the store the \
                 backend keys name, beside the tier's data; see docs/metadata.md) or \
                 <code>memory</code> (broker memory only, for tests: after a restart tiered data \
                 is unreadable; refused unless metadata.memory.loss.on.restart.accepted is true).",
            ),
            Self::MetadataMemoryLossOnRestartAccepted => boolean(
                Medium,
                "Accept that metadata.manager=memory loses every tiered segment's metadata on a \
                 broker restart (tests only).",
            ),
            Self::MetadataSnapshotEveryRecords => long(
                32,
                AT_LEAST_ONE,
                Low,
                "Metadata records between two snapshots of a partition: the longest tail a \
                 restarted broker replays.",
            ),
            Self::MetadataPollIntervalMs => long(
                1000,
                Range { min: 0, max: None },
                Low,
                "The longest a follower waits before it reads what a leader wrote, in milliseconds; a \
                 question it cannot answer reads the store at once.",
            ),
            Self::MetadataHistoryKeep => boolean(
                Low,
                "Keep every metadata record and snapshot, and the histories of deleted topics. \
                 By default a new snapshot deletes what the snapshot before it covers, and a \
                 deleted topic's histories are erased once its segments are gone (with \
                 remote.log.metadata.manager.listener.name set). A store that holds a \
                 write-once archive's probes under the same prefix is kept whole whatever this \
                 says; set it for a history on a write-once bucket under another prefix.",
            ),
            Self::MetadataLoadConcurrency => (
                Kind::Int {
                    default: int(krabka_remote_storage::DEFAULT_LOAD_CONCURRENCY),
                    range: Range {
                        min: 1,
                        max: Some(1024),
                    },
                },
                Low,
                "Partitions whose metadata a broker loads at once when it becomes their leader \
                 or follower (and writes up to a snapshot at once when it stops), each on a \
                 thread: a load waits on the store (a listing and a read after a clean \
                 shutdown), so a broker of thousands of partitions on an object store needs \
                 many at once to be ready soon (see docs/metadata.md).",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the tier, its location and the native library.
    const fn general_row(self) -> Row {
        use Importance::{High, Low, Medium};
        match self {
            Self::Backend => (
                Kind::Text {
                    default: Some("filesystem"),
                    rule: TextRule::OneOf(&["filesystem", "s3", "gcs", "azure"]),
                },
                High,
                "The remote tier: <code>filesystem</code> (a directory, byte-compatible with Apache \
                 Kafka's LocalTieredStorage), <code>s3</code> (Amazon S3 or an S3-compatible server), \
                 <code>gcs</code> (Google Cloud Storage) or <code>azure</code> (Azure Blob Storage).",
            ),
            Self::FilesystemRoot => text(
                High,
                "Directory of the filesystem tier; required when backend is filesystem. Every \
                 broker must see the same directory (a shared mount).",
            ),
            Self::Prefix => text(
                Medium,
                "Key prefix inside the S3 or GCS bucket or the Azure container, without a leading \
                 or trailing '/'.",
            ),
            Self::NativeLibraryPath => text(
                Low,
                "Absolute path of a libkrabka_jni.so to load instead of the one bundled in the jar \
                 (for platforms other than linux/x86_64, or a custom build). The system property \
                 krabka.native.library.path does the same for every plugin.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the S3 backend.
    const fn s3_row(self) -> Row {
        use Importance::{High, Low, Medium};
        match self {
            Self::S3Bucket => text(High, "S3 bucket; required when backend is s3."),
            Self::S3Region => text(
                High,
                "S3 region (any non-empty value for S3-compatible servers); required when backend \
                 is s3.",
            ),
            Self::S3Endpoint => text(
                Medium,
                "Endpoint URL of an S3-compatible server; unset means AWS.",
            ),
            Self::S3PathStyle => boolean(
                Low,
                "Path-style addressing (endpoint/bucket/key) instead of virtual-hosted buckets.",
            ),
            Self::S3AllowHttp => boolean(Low, "Allow a plain http:// endpoint."),
            Self::S3AccessKeyId => text(
                Medium,
                "Static access key id; unset means the ambient AWS credential chain (environment, \
                 web identity, instance metadata).",
            ),
            Self::S3SecretAccessKey => (
                Kind::Secret,
                Medium,
                "Secret access key for s3.access.key.id.",
            ),
            Self::S3StorageClass => (
                Kind::Text {
                    default: None,
                    rule: TextRule::Token {
                        min_len: 1,
                        max_len: 64,
                        punctuation: "_",
                    },
                },
                Low,
                "Storage class of every object written (x-amz-storage-class: STANDARD_IA, \
                 INTELLIGENT_TIERING, GLACIER_IR, ...); unset leaves the bucket's default. A class \
                 whose reads need a restore (GLACIER, DEEP_ARCHIVE) makes tiered data unreadable by \
                 consumers.",
            ),
            Self::S3ServerSideEncryption => (
                Kind::Text {
                    default: Some("none"),
                    rule: TextRule::OneOf(&["none", "AES256", "aws:kms"]),
                },
                Low,
                "Server-side encryption requested on every object written: none (the bucket's \
                 default encryption applies), AES256 (SSE-S3) or aws:kms (SSE-KMS, with \
                 s3.sse.kms.key.id or the account's AWS managed key).",
            ),
            Self::S3SseKmsKeyId => text(
                Low,
                "KMS key id or ARN for s3.server.side.encryption=aws:kms.",
            ),
            Self::S3SessionToken => (
                Kind::Secret,
                Low,
                "Session token for temporary static credentials.",
            ),
            Self::S3TlsCaCertificatesPath => text(
                Low,
                "PEM file of root certificates trusted besides the system's, for the S3 endpoint and \
                 the credential endpoints (STS of web identity): the private CA of an on-premises \
                 S3 server or of a TLS-inspecting proxy.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the GCS backend.
    const fn gcs_row(self) -> Row {
        use Importance::{High, Low, Medium};
        match self {
            Self::GcsBucket => text(High, "GCS bucket; required when backend is gcs."),
            Self::GcsEndpoint => text(
                Medium,
                "Base URL of a GCS-compatible endpoint (an emulator); unset means Google.",
            ),
            Self::GcsAllowHttp => boolean(Low, "Allow a plain http:// endpoint."),
            Self::GcsServiceAccountPath => text(Medium, "Path to a service-account JSON key file."),
            Self::GcsServiceAccountKey => (
                Kind::Secret,
                Medium,
                "A service-account JSON key given inline (not together with \
                 gcs.service.account.path).",
            ),
            Self::GcsApplicationCredentialsPath => {
                text(Low, "Path to application-default credentials.")
            }
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the Azure backend.
    const fn azure_row(self) -> Row {
        use Importance::{High, Low, Medium};
        match self {
            Self::AzureAccount => text(
                High,
                "Azure storage account name; required when backend is azure.",
            ),
            Self::AzureContainer => text(High, "Blob container; required when backend is azure."),
            Self::AzureEndpoint => text(
                Medium,
                "Blob endpoint of the account, containers directly under it, for emulators and \
                 private endpoints (http://127.0.0.1:10000/devstoreaccount1 for Azurite); unset \
                 means https://ACCOUNT.blob.core.windows.net.",
            ),
            Self::AzureAllowHttp => boolean(Low, "Allow a plain http:// endpoint."),
            Self::AzureAccessKey => (
                Kind::Secret,
                Medium,
                "The storage account's shared key (base64, as the portal shows it); set this or \
                 azure.sas.token.",
            ),
            Self::AzureSasToken => (
                Kind::Secret,
                Medium,
                "A shared access signature (the query string sv=...&sig=..., a leading ? \
                 allowed) with read, write, delete and list rights on the container; set this or \
                 azure.access.key.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of multipart uploads, retries and timeouts of the object-store backends.
    const fn transfer_row(self) -> Row {
        use Importance::Low;
        match self {
            Self::MultipartThresholdBytes => long(
                DEFAULT_THRESHOLD,
                Range {
                    min: 1,
                    max: Some(MAX_SINGLE_PUT),
                },
                Low,
                "Objects of at least this many bytes are uploaded in parts. A smaller object \
                 goes in one PUT whose whole body is held in native memory, so a threshold above \
                 multipart.parts.in.flight x multipart.chunk.size.bytes raises the memory a copy \
                 needs (see docs/object-store.md); the default is below it, and saves the \
                 requests of a multipart upload for objects of a few parts.",
            ),
            Self::MultipartChunkSizeBytes => long(
                DEFAULT_CHUNK_SIZE,
                Range {
                    min: MIN_PART,
                    max: Some(MAX_SINGLE_PUT),
                },
                Low,
                "Bytes per part of a multipart upload (S3 needs at least 5 MiB); a copy holds up \
                 to multipart.parts.in.flight parts in native memory at once (see \
                 docs/object-store.md). Larger parts mean fewer PUT requests and, within the \
                 same memory, fewer parts in flight.",
            ),
            Self::MultipartPartsInFlight => (
                Kind::Int {
                    default: int(DEFAULT_PARTS_IN_FLIGHT),
                    range: Range {
                        min: 1,
                        max: Some(MAX_PARTS_IN_FLIGHT as i64),
                    },
                },
                Low,
                "Parts of one multipart upload sent at once, each on its own connection. A store \
                 serves each connection at a bounded rate (Amazon S3 about 85-90 MB/s), so a \
                 copy goes as fast as its parts in flight allow; each holds one part in native \
                 memory, so a copy needs up to multipart.parts.in.flight x \
                 multipart.chunk.size.bytes (80 MiB by default).",
            ),
            Self::MaxRetries => (
                Kind::Int {
                    default: DEFAULT_RETRIES,
                    range: Range { min: 0, max: None },
                },
                Low,
                "Retries of a transient object-store failure.",
            ),
            Self::RetryTimeoutMs => long(
                DEFAULT_RETRY_TIMEOUT_MS,
                AT_LEAST_ONE,
                Low,
                "Total time budget for retrying one request.",
            ),
            Self::RequestTimeoutMs => long(
                DEFAULT_REQUEST_TIMEOUT_MS,
                AT_LEAST_ONE,
                Low,
                "Time budget of one object-store request.",
            ),
            Self::ConnectTimeoutMs => long(
                DEFAULT_CONNECT_TIMEOUT_MS,
                AT_LEAST_ONE,
                Low,
                "Time budget of one connection attempt.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the read cache of the object-store backends.
    const fn read_cache_row(self) -> Row {
        use Importance::{Low, Medium};
        match self {
            Self::FetchCacheSizeBytes => long(
                DEFAULT_READ_CACHE_BYTES,
                Range { min: 0, max: None },
                Medium,
                "Native memory of the read cache of the s3, gcs and azure backends: segment bytes \
                 of remote fetches in aligned chunks, shared by every partition of the broker, \
                 with read-ahead for consumers catching up (see docs/object-store.md); 0 turns \
                 the cache off. It must hold fetch.prefetch.chunks + 2 chunks.",
            ),
            Self::FetchCacheChunkSizeBytes => long(
                DEFAULT_READ_CACHE_CHUNK,
                Range {
                    min: MIN_READ_CACHE_CHUNK,
                    max: Some(64 * MIB),
                },
                Low,
                "Bytes per cached chunk and per ranged GET of the read cache.",
            ),
            Self::FetchPrefetchChunks => (
                Kind::Int {
                    default: DEFAULT_READ_AHEAD_CHUNKS,
                    range: Range {
                        min: 0,
                        max: Some(1024),
                    },
                },
                Low,
                "Chunks the read cache fetches ahead of a fetch that continues the previous one \
                 of its segment; it grows while the reader keeps up, up to eight times this and \
                 to a quarter of the cache shared among the partitions read sequentially at \
                 once. 0 turns read-ahead off.",
            ),
            Self::FetchCacheDiskPath => text(
                Medium,
                "Directory of the read cache's optional disk tier (off when unset): chunks \
                 evicted from memory are kept there as files, within \
                 fetch.cache.disk.size.bytes, and read back instead of fetched again. The cache \
                 keeps its files in a subdirectory krabka-read-cache it empties of them at \
                 start (nothing survives a restart); a disk that fails is only logged and \
                 counted, never fails a fetch. Use a directory of its own on a local disk, one \
                 per broker.",
            ),
            Self::FetchCacheDiskSizeBytes => long(
                DEFAULT_READ_CACHE_DISK_BYTES,
                Range { min: 0, max: None },
                Low,
                "Bytes of chunk files the read cache's disk tier holds at most (each file is \
                 a chunk and a 4-byte checksum); 0 turns the disk tier off. With \
                 fetch.cache.disk.path set it must hold two chunks.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// Rows of the write-once archive.
    const fn worm_row(self) -> Row {
        use Importance::{Low, Medium};
        match self {
            Self::WormEnabled => boolean(
                Medium,
                "Write-once (WORM) archive mode of the s3 and gcs backends (see docs/worm.md): \
                 start-up refuses unless the bucket proves it is locked (S3 Object Lock in \
                 COMPLIANCE mode with a default retention, or a locked GCS retention policy); \
                 every copy is sealed by a signed manifest on a per-partition hash chain; deletes \
                 are refused, and Kafka's deletes of a segment only log a warning. Needs \
                 worm.signing.key.path and worm.key.id; refused with backend filesystem and with \
                 backend azure (no Azure immutability policy is proven). While \
                 false, the other worm.* keys are accepted and ignored.",
            ),
            Self::WormSigningKeyPath => text(
                Medium,
                "Unencrypted PKCS#8 Ed25519 private key file, DER or PEM (openssl genpkey \
                 -algorithm ed25519), that signs the manifests; required when worm.enabled is \
                 true.",
            ),
            Self::WormKeyId => (
                Kind::Text {
                    default: None,
                    rule: TextRule::Token {
                        min_len: 1,
                        max_len: 64,
                        punctuation: "._-",
                    },
                },
                Medium,
                "The id written into every manifest, under which auditors look up the public key; \
                 required when worm.enabled is true.",
            ),
            Self::WormWriteOnly => boolean(
                Low,
                "Refuse every fetch: the archive is a sink that only auditors read, and consumers \
                 cannot read tiered data through this broker.",
            ),
            Self::WormTrustedKeys => text(
                Low,
                "Other brokers' manifest keys whose seals continue the same chains, as \
                 comma-separated key-id=public-key pairs (the public key as 64 hex characters, \
                 as krabka-worm-verify takes it); for clusters whose brokers sign with different \
                 keys. The broker's own key is always trusted. A seal signed by any other key is \
                 a foreign object: the chain routes around it and the verifier reports it.",
            ),
            Self::WormAllowPlainOnArchive => boolean(
                Low,
                "With worm.enabled false, start the plain tier even on a bucket (and prefix) that \
                 holds a write-once archive. Without it such a start-up is refused, so that \
                 switching the archive mode off by mistake cannot start writing beside an archive \
                 as if it were a plain tier.",
            ),
            Self::WormLogOrigin => text(
                Medium,
                "Keep the archive log (see docs/worm.md): a Merkle tree over every sealed \
                 manifest, C2SP tlog-tiles in the bucket, and checkpoints in the C2SP \
                 tlog-checkpoint format signed by the manifest key under this origin, a \
                 schema-less URL naming the archive (e.g. archive.example.com/orders). Every \
                 broker of one archive must use the same origin. Empty: no log.",
            ),
            Self::WormLogCheckpointIntervalMs => long(
                DEFAULT_LOG_CHECKPOINT_INTERVAL_MS,
                AT_LEAST_ONE,
                Low,
                "A checkpoint of the archive log is published at most this often (and after the \
                 last seal before the broker stops); copies never wait for it.",
            ),
            Self::WormLogWitnesses => text(
                Low,
                "Witnesses (C2SP tlog-witness, e.g. litewitness) that cosign every new \
                 checkpoint, comma-separated, each its base URL and its verifier key separated \
                 by a space (http://witness.example:7380 witness.example+1a2b3c4d+BA...). Their \
                 cosignatures are stored beside the checkpoint; a witness that is down only \
                 delays its cosignature. Needs worm.log.origin.",
            ),
            // `row` sends no other key here.
            _ => panic!("a key outside its group"),
        }
    }

    /// The canonical name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Backend => "backend",
            Self::FilesystemRoot => "filesystem.root",
            Self::Prefix => "prefix",
            Self::S3Bucket => "s3.bucket",
            Self::S3Region => "s3.region",
            Self::S3Endpoint => "s3.endpoint",
            Self::S3PathStyle => "s3.path.style",
            Self::S3AllowHttp => "s3.allow.http",
            Self::S3AccessKeyId => "s3.access.key.id",
            Self::S3SecretAccessKey => "s3.secret.access.key",
            Self::S3SessionToken => "s3.session.token",
            Self::S3StorageClass => "s3.storage.class",
            Self::S3ServerSideEncryption => "s3.server.side.encryption",
            Self::S3SseKmsKeyId => "s3.sse.kms.key.id",
            Self::S3TlsCaCertificatesPath => "s3.tls.ca.certificates.path",
            Self::GcsBucket => "gcs.bucket",
            Self::GcsEndpoint => "gcs.endpoint",
            Self::GcsAllowHttp => "gcs.allow.http",
            Self::GcsServiceAccountPath => "gcs.service.account.path",
            Self::GcsServiceAccountKey => "gcs.service.account.key",
            Self::GcsApplicationCredentialsPath => "gcs.application.credentials.path",
            Self::AzureAccount => "azure.account",
            Self::AzureContainer => "azure.container",
            Self::AzureEndpoint => "azure.endpoint",
            Self::AzureAllowHttp => "azure.allow.http",
            Self::AzureAccessKey => "azure.access.key",
            Self::AzureSasToken => "azure.sas.token",
            Self::MultipartThresholdBytes => "multipart.threshold.bytes",
            Self::MultipartChunkSizeBytes => "multipart.chunk.size.bytes",
            Self::MultipartPartsInFlight => "multipart.parts.in.flight",
            Self::MaxRetries => "max.retries",
            Self::RetryTimeoutMs => "retry.timeout.ms",
            Self::RequestTimeoutMs => "request.timeout.ms",
            Self::ConnectTimeoutMs => "connect.timeout.ms",
            Self::FetchCacheSizeBytes => "fetch.cache.size.bytes",
            Self::FetchCacheChunkSizeBytes => "fetch.cache.chunk.size.bytes",
            Self::FetchPrefetchChunks => "fetch.prefetch.chunks",
            Self::FetchCacheDiskPath => "fetch.cache.disk.path",
            Self::FetchCacheDiskSizeBytes => "fetch.cache.disk.size.bytes",
            Self::WormEnabled => "worm.enabled",
            Self::WormSigningKeyPath => "worm.signing.key.path",
            Self::WormKeyId => "worm.key.id",
            Self::WormWriteOnly => "worm.write.only",
            Self::WormTrustedKeys => "worm.trusted.keys",
            Self::WormAllowPlainOnArchive => "worm.allow.plain.on.archive",
            Self::WormLogOrigin => "worm.log.origin",
            Self::WormLogCheckpointIntervalMs => "worm.log.checkpoint.interval.ms",
            Self::WormLogWitnesses => "worm.log.witnesses",
            Self::ChunkSize => "chunk.size",
            Self::CompressionEnabled => "compression.enabled",
            Self::CompressionHeuristicEnabled => "compression.heuristic.enabled",
            Self::CompressionZstdLevel => "compression.zstd.level",
            Self::EncryptionEnabled => "encryption.enabled",
            Self::EncryptionCipher => "encryption.cipher",
            Self::EncryptionKeyPairId => "encryption.key.pair.id",
            Self::EncryptionKeyPairs => "encryption.key.pairs",
            Self::EncryptionKmsKeyId => "encryption.kms.key.id",
            Self::EncryptionKmsRegion => "encryption.kms.region",
            Self::EncryptionKmsEndpoint => "encryption.kms.endpoint",
            Self::NativeLibraryPath => "native.library.path",
            Self::MetadataManager => "metadata.manager",
            Self::MetadataMemoryLossOnRestartAccepted => "metadata.memory.loss.on.restart.accepted",
            Self::MetadataSnapshotEveryRecords => "metadata.snapshot.every.records",
            Self::MetadataPollIntervalMs => "metadata.poll.interval.ms",
            Self::MetadataHistoryKeep => "metadata.history.keep",
            Self::MetadataLoadConcurrency => "metadata.load.concurrency",
        }
    }

    /// The key named `name` that `plugin` accepts.
    #[must_use]
    pub fn of_plugin(plugin: Plugin, name: &str) -> Option<Self> {
        Self::of(plugin).find(|key| key.name() == name)
    }

    /// The keys `plugin` accepts, in table order.
    pub fn of(plugin: Plugin) -> impl Iterator<Item = Self> {
        Self::ALL
            .into_iter()
            .filter(move |key| key.spec().scope.includes(plugin))
    }

    /// Whether the value is a secret (Kafka `PASSWORD`): never logged, never
    /// echoed in an error.
    #[must_use]
    pub const fn is_secret(self) -> bool {
        matches!(self.spec().kind, Kind::Secret)
    }

    /// Checks `text` (already trimmed, not empty) against the key's kind and
    /// rule; `None` when it is not a valid value of this key.
    #[must_use]
    pub fn parse(self, text: &str) -> Option<Value<'_>> {
        match self.spec().kind {
            Kind::Text { rule, .. } => rule.accepts(text).then_some(Value::Text(text)),
            Kind::Secret => Some(Value::Text(text)),
            Kind::Boolean { .. } => {
                if text.eq_ignore_ascii_case("true") {
                    Some(Value::Boolean(true))
                } else if text.eq_ignore_ascii_case("false") {
                    Some(Value::Boolean(false))
                } else {
                    None
                }
            }
            Kind::Int { range, .. } => text
                .parse::<i32>()
                .ok()
                .map(i64::from)
                .filter(|n| range.contains(*n))
                .map(Value::Integer),
            Kind::Long { range, .. } => text
                .parse::<i64>()
                .ok()
                .filter(|n| range.contains(*n))
                .map(Value::Integer),
        }
    }

    /// The value of an unset key: its default, `None` for an unset text.
    #[must_use]
    pub const fn default_value(self) -> Option<Value<'static>> {
        match self.spec().kind {
            Kind::Text { default, .. } => match default {
                Some(text) => Some(Value::Text(text)),
                None => None,
            },
            Kind::Secret => None,
            Kind::Boolean { default } => Some(Value::Boolean(default)),
            Kind::Int { default, .. } => Some(Value::Integer(default as i64)),
            Kind::Long { default, .. } => Some(Value::Integer(default)),
        }
    }

    /// What a valid value looks like, for error messages.
    #[must_use]
    pub const fn expected(self) -> Expected {
        Expected(self)
    }
}

impl fmt::Display for ConfigKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key's valid values in words ("true or false", "an integer from 1 to
/// 5368709120"), as [`ConfigKey::expected`] returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected(ConfigKey);

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.spec().kind {
            Kind::Text { rule, .. } => match rule {
                TextRule::Any => f.write_str("any text"),
                TextRule::OneOf(values) => write!(f, "one of {}", values.join(", ")),
                TextRule::Token { .. } => f.write_str(&rule.describe().unwrap_or_default()),
            },
            Kind::Secret => f.write_str("any text"),
            Kind::Boolean { .. } => f.write_str("true or false"),
            Kind::Int { range, .. } => range.describe(f, i64::from(i32::MAX)),
            Kind::Long { range, .. } => range.describe(f, i64::MAX),
        }
    }
}

impl TextRule {
    /// Whether `text` is valid.
    #[must_use]
    pub fn accepts(self, text: &str) -> bool {
        match self {
            Self::Any => true,
            Self::OneOf(values) => values.contains(&text),
            Self::Token {
                min_len,
                max_len,
                punctuation,
            } => {
                (min_len..=max_len).contains(&text.len())
                    && text
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || punctuation.contains(c))
            }
        }
    }

    /// The rule in words, as Kafka's `ConfigDef` validator prints it: `[a, b]`
    /// for [`TextRule::OneOf`], `1 to 64 characters of [A-Za-z0-9._-]` for a
    /// [`TextRule::Token`]; `None` for [`TextRule::Any`] (no validator).
    #[must_use]
    pub fn describe(self) -> Option<String> {
        match self {
            Self::Any => None,
            Self::OneOf(values) => Some(format!("[{}]", values.join(", "))),
            Self::Token {
                min_len,
                max_len,
                punctuation,
            } => Some(format!(
                "{min_len} to {max_len} characters of [A-Za-z0-9{punctuation}]"
            )),
        }
    }
}

impl Range {
    /// Whether `n` is within the bounds.
    #[must_use]
    pub fn contains(self, n: i64) -> bool {
        n >= self.min && self.max.is_none_or(|max| n <= max)
    }

    fn describe(self, f: &mut fmt::Formatter<'_>, type_max: i64) -> fmt::Result {
        write!(
            f,
            "an integer from {} to {}",
            self.min,
            self.max.unwrap_or(type_max)
        )
    }
}

impl Scope {
    /// Whether `plugin` accepts keys of this scope.
    #[must_use]
    pub const fn includes(self, plugin: Plugin) -> bool {
        matches!(
            (self, plugin),
            (Self::BothPlugins, _)
                | (Self::StorageManager, Plugin::StorageManager)
                | (Self::MetadataManager, Plugin::MetadataManager)
        )
    }
}

#[cfg(test)]
mod tests;
