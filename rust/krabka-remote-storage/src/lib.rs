//! Tiered storage for Apache Kafka (KIP-405): the facade of the
//! krabka-remote-storage crates, and the remote tiers themselves.
//!
//! Every type of the stack is reachable from this crate's root, whichever
//! crate defines it. The crates below it, one job each, arrows only downward:
//!
//! | Layer | Crate | What it holds |
//! |---|---|---|
//! | Kafka's side | `krabka-kafka` | The SPIs [`RemoteStorageManager`] and [`RemoteLogMetadataManager`], the data model ([`RemoteLogSegmentMetadata`], [`LogSegmentData`], [`DeleteOutcome`], [`CancellationToken`], …), [`RemoteStorageError`], the key codec ([`partition_dir_name`], [`segment_file_name`], [`kafka_uuid`]) and the decoders of Kafka's index and log formats ([`index`]). Pure: no I/O dependency. |
//! | Store layer | `krabka-object-store` | Typed S3 / GCS / Azure / local configuration ([`S3Config`], [`GcsConfig`], [`AzureConfig`], [`ObjectStoreConfig`]) and [`store`]: the runtime, streaming uploads (single PUT or multipart, create-only, hashed in the same pass), ranged readers, deletes, error classes and bucket probes. Knows neither the SPI nor the archive. |
//! | Archive format | `krabka-worm` | Signed, hash-chained segment manifests ([`SegmentManifest`], [`ManifestSigner`], [`ChainWalk`]), chain seals ([`seal_key`]) and the offline verifier ([`verify_archive`]). |
//! | Diskless | `krabka-diskless` | Codecs of diskless topics: WAL objects, WAL index records, captures ([`diskless`]). |
//! | Tiers | this crate | [`LocalTieredStorage`] (filesystem), [`S3RemoteStorage`] (plain object-store tier), [`WormRemoteStorage`] (the write-once archive), [`InmemoryRemoteLogMetadataManager`] (with snapshots in [`dump`]), [`StoreRemoteLogMetadataManager`] (durable, in the tier's store), [`RemoteIndexCache`]. |
//!
//! ## Modules
//!
//! - [`index`]: zero-copy decoders of offset, time and transaction indexes
//!   and of v2 record batches (all compression codecs).
//! - [`store`]: the store layer both object-store tiers are built on.
//! - [`diskless`]: WAL objects, WAL index keys and values, captures, sealing
//!   and the projection reducer.
//! - [`dump`]: the in-memory metadata manager's snapshots.
//! - [`metrics`]: counters of what a tier does ([`MeteredStorage`] wraps any
//!   tier and counts into [`TierMetrics`]), for the plugin's Kafka metrics.
//! - The write-once archive: [`WormRemoteStorage`] (the tier; also reached
//!   as [`S3RemoteStorage::with_worm`]), [`WormArchiver`] (its write path),
//!   [`WormConfig`], the manifest format ([`SegmentManifest`],
//!   [`ManifestBody`], [`WormChainRecord`]) and [`verify_archive`] /
//!   [`authenticate_archive`] with their [`ArchiveVerifyReport`].
//!
//! The tiers never import each other: the plain object-store tier and the
//! archive share only the store layer, the key layout and two read helpers.
//! What a refused delete means is the archive tier's answer
//! ([`DeleteOutcome::RetainedByArchive`]), not its caller's guess.
//!
//! ## Boundary with the broker
//!
//! The SPIs are intentionally **synchronous**: they mirror Kafka's blocking
//! `RemoteStorageManager` / `RemoteLogMetadataManager`, which the broker
//! drives from thread pools. Segment data is streamed, never buffered whole:
//! [`RemoteStorageManager::fetch_log_segment`] returns a reader.
//!
//! ## Filesystem-backed remote tier
//!
//! ```no_run
//! use {
//!     bytes::Bytes,
//!     krabka_ids::LeaderEpoch,
//!     krabka_remote_storage::{
//!         IndexType, LocalTieredStorage, LogSegmentData, RemoteLogSegmentDetails,
//!         RemoteLogSegmentId, RemoteLogSegmentMetadata, RemoteLogSegmentState,
//!         RemoteStorageManager, TopicIdPartition,
//!     },
//!     std::{collections::BTreeMap, path::PathBuf},
//!     uuid::Uuid,
//! };
//!
//! # fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let storage = LocalTieredStorage::new(PathBuf::from("/var/lib/krabka-remote"));
//! let topic_partition = TopicIdPartition::new(Uuid::new_v4(), "orders", 0);
//! let segment_id = RemoteLogSegmentId::new(topic_partition, Uuid::new_v4());
//! let mut leader_epochs = BTreeMap::new();
//! leader_epochs.insert(LeaderEpoch(0), 0);
//! let metadata = RemoteLogSegmentMetadata::new(
//!     segment_id,
//!     0,
//!     999,
//!     1_713_000_000_000,
//!     1,
//!     1_713_000_000_000,
//!     RemoteLogSegmentDetails::new(
//!         1_048_576,
//!         RemoteLogSegmentState::CopySegmentStarted,
//!         leader_epochs,
//!     ),
//! )?;
//!
//! // The broker fills these paths from a closed local log segment.
//! let segment = LogSegmentData {
//!     log_segment: PathBuf::from("/var/lib/krabka/orders-0/00000000000000000000.log"),
//!     offset_index: PathBuf::from("/var/lib/krabka/orders-0/00000000000000000000.index"),
//!     time_index: PathBuf::from("/var/lib/krabka/orders-0/00000000000000000000.timeindex"),
//!     transaction_index: None,
//!     producer_snapshot_index: None,
//!     leader_epoch_index: Bytes::new(),
//! };
//! let _custom_metadata = storage.copy_log_segment_data(&metadata, &segment)?;
//! let bytes = storage.fetch_index(&metadata, IndexType::Offset)?;
//! # let _ = bytes;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod archive;
mod cache;
mod chunked;
pub mod dump;
mod fs_publish;
mod index_cache;
mod inmemory;
mod kms_keys;
mod local;
pub mod metrics;
mod next_segment;
mod object_reads;
mod object_tier;
mod seed_entry_points;
mod segment_keys;
mod store_bridge;
mod store_rlmm;
#[cfg(test)]
#[allow(dead_code)] // shared with the integration tests; each uses a part
#[path = "../tests/support/metadata.rs"]
mod test_metadata;
#[cfg(test)]
mod test_store;

/// Codecs of the diskless mode: WAL objects, WAL index records, captures
/// (the `krabka-diskless` crate).
pub use krabka_diskless as diskless;
/// The chunked segment format: zstd compression and envelope encryption
/// of tiered segments (the `krabka-envelope` crate). A tier writes it when
/// given a [`SegmentCodec`] that compresses or encrypts
/// ([`LocalTieredStorage::with_codec`], [`S3RemoteStorage::with_codec`]).
pub use krabka_envelope as envelope;
/// Decoders of Kafka's index and log formats (from `krabka-kafka`).
pub use krabka_kafka::index;
/// The store layer every object-store tier is built on (from
/// `krabka-object-store`).
pub use krabka_object_store::store;
/// The archive log's open formats: RFC 6962 hashes, proofs, C2SP tiles,
/// signed notes, checkpoints and the `tlog-witness` client (from
/// `krabka-worm`).
pub use krabka_worm::tlog;
pub use {
    archive::{
        DerivedTip, ForeignObject, SealedManifest, TipSeal, WormArchiver, WormConfig,
        WormRemoteStorage, derive_tip,
        log::{ArchiveLog, ArchiveLogConfig, DEFAULT_CHECKPOINT_INTERVAL, LogTask, WitnessConfig},
    },
    chunked::ENVELOPE_SUFFIX,
    dump::{PartitionDump, RlmmCacheDump},
    index_cache::{
        DEFAULT_INDEX_CACHE_TOTAL_SIZE_BYTES, IndexCacheOutcome, IndexCacheStats,
        REMOTE_INDEX_CACHE_DIR, RemoteIndexCache,
    },
    inmemory::InmemoryRemoteLogMetadataManager,
    kms_keys::{CombinedKeyRing, KmsKeyRing},
    krabka_envelope::{Cipher, Compression, KeyPairFiles, KeyRing, RsaKeyPairs, SegmentCodec},
    krabka_kafka::{
        AbortedTxnIndexEntry, BytePosition, CancellationToken, CustomMetadata, DeleteOutcome,
        ErrorClass, HistoryErasure, IndexType, LOG_FILE_SUFFIX, LogOffset, LogSegmentData,
        OffsetIndexEntry, PartitionDirName, RelativeOffset, RemoteLogMetadataManager,
        RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState, RemotePartitionDeleteMetadata,
        RemotePartitionDeleteState, RemoteStorageError, RemoteStorageManager, Result,
        SegmentFileName, SegmentReader, TimeIndexEntry, TimestampMs, TopicIdPartition, corrupt_log,
        decode_kafka_uuid, end_position_for, first_batch_at_or_after,
        first_record_at_or_after_timestamp, kafka_uuid, parse_offset_index,
        parse_partition_dir_name, parse_segment_file_name, parse_time_index, parse_txn_index,
        partition_dir_name, position_for_relative_offset, relative_offset_floor_for_timestamp,
        segment_file_name, txn_overlaps,
    },
    krabka_object_store::kms::KmsConfig,
    krabka_object_store::{
        AzureConfig, DEFAULT_MULTIPART_CHUNK_SIZE, DEFAULT_MULTIPART_THRESHOLD, GcsConfig,
        ObjectStoreConfig, S3Config,
    },
    krabka_worm::{
        ArchiveVerifyReport, AuthenticatedArchive, BucketProtectionReport, CHAIN_DIR, ChainHead,
        ChainPosition, ChainStamp, ChainWalk, CheckpointSummary, DeepProgress, EpochId, EpochSpan,
        ForeignSeal, HexBytes, LogVerifyReport, LogVerifyRequest, MANIFEST_BODY_DOMAIN,
        MANIFEST_DOMAIN, MANIFEST_FORMAT_VERSION, MANIFEST_SUFFIX, MAX_MANIFEST_BYTES,
        ManifestBody, ManifestSeq, ManifestSignature, ManifestSigner, NoProgress, ObjectEntry,
        ObjectProtectionReport, OffsetGap, PartitionVerifyReport, SEAL_SUFFIX, SegmentIdentity,
        SegmentManifest, Severity, Sha256Digest, TrustedManifestKeys, VerifiedManifest,
        VerifyBreak, VerifyDepth, VerifyError, VerifyObserver, VerifyOutcome, VerifyRequest,
        WORM_CHAIN_RECORD_VERSION, WORM_PROBE_DIR, WitnessSummary, WormChainRecord, WormError,
        authenticate_archive, canonical_manifest_bytes, check_seal_size, detour_epoch,
        genesis_epoch, judge_seal, manifest_head, manifest_key, manifest_signing_bytes,
        next_chain_stamp, parse_seal_name, seal_key, verify_archive, verify_archive_config,
        verify_archive_config_observed, verify_archive_observed, verify_manifest_bytes,
        verify_manifest_signature,
    },
    local::LocalTieredStorage,
    metrics::{MeteredStorage, TierMetrics},
    object_tier::S3RemoteStorage,
    store_rlmm::{
        DEFAULT_LOAD_CONCURRENCY, DEFAULT_POLL_INTERVAL, DEFAULT_RLMM_ROOT, DEFAULT_SNAPSHOT_EVERY,
        HistoryView, StoreRemoteLogMetadataManager, StoreRlmmConfig, UnreadableHistory,
        read_histories,
    },
};
