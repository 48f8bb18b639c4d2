//! Kafka's side of tiered storage, with no I/O dependency: the two KIP-405
//! plugin SPIs and the data model they exchange, the remote-tier key codec
//! and the decoders of Kafka's index and log formats.
//!
//! - [`RemoteStorageManager`] copies, fetches and deletes segment data and
//!   indexes; [`RemoteLogMetadataManager`] stores and queries remote-segment
//!   metadata with Kafka's lifecycle state machine. Both mirror Apache
//!   Kafka's `org.apache.kafka.server.log.remote.storage` interfaces.
//! - The data model: [`TopicIdPartition`], [`RemoteLogSegmentId`],
//!   [`RemoteLogSegmentMetadata`] / [`RemoteLogSegmentMetadataUpdate`],
//!   [`RemoteLogSegmentState`], [`LogSegmentData`], [`IndexType`],
//!   [`CustomMetadata`], [`DeleteOutcome`], [`CancellationToken`] and the
//!   partition-delete lifecycle ([`RemotePartitionDeleteMetadata`] /
//!   [`RemotePartitionDeleteState`]).
//! - One error type for both SPIs, [`RemoteStorageError`], classified by
//!   what a caller does about it ([`ErrorClass`]).
//! - The key codec ([`partition_dir_name`], [`segment_file_name`] and their
//!   parsers, [`kafka_uuid`]): the layout of Kafka's own `LocalTieredStorage`.
//! - The byte format of a durable metadata manager's history
//!   ([`MetadataRecord`], [`MetadataSnapshot`], [`encode_record`],
//!   [`decode_record`] and the snapshot pair): small, versioned, capped.
//! - [`index`]: zero-copy decoders of offset, time and transaction indexes
//!   and of v2 record batches, for bytes nobody vouches for.
//!
//! Everything here is pure computation over bytes and values; the tiers that
//! move bytes live in `krabka-remote-storage`, which re-exports this crate.

#![forbid(unsafe_code)]

mod cancel;
mod codec;
mod error;
pub mod index;
mod metadata;
mod metadata_log;
mod metadata_manager;
mod storage_manager;

pub use {
    cancel::CancellationToken,
    error::{ErrorClass, RemoteStorageError, Result, corrupt_log},
    index::{
        AbortedTxnIndexEntry, BytePosition, LogOffset, OffsetIndexEntry, RelativeOffset,
        TimeIndexEntry, TimestampMs, end_position_for, first_batch_at_or_after,
        first_record_at_or_after_timestamp, parse_offset_index, parse_time_index, parse_txn_index,
        position_for_relative_offset, relative_offset_floor_for_timestamp, txn_overlaps,
    },
    metadata::{
        CustomMetadata, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState, RemotePartitionDeleteMetadata,
        RemotePartitionDeleteState, TopicIdPartition,
    },
    metadata_log::{
        MAX_CUSTOM_METADATA_BYTES, MAX_EPOCHS_PER_SEGMENT, MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES,
        METADATA_LOG_VERSION, MetadataEvent, MetadataRecord, MetadataSnapshot, decode_record,
        decode_snapshot, encode_record, encode_snapshot,
    },
    metadata_manager::{HistoryErasure, RemoteLogMetadataManager},
    storage_manager::{
        DeleteOutcome, IndexType, LOG_FILE_SUFFIX, LogSegmentData, PartitionDirName,
        RemoteStorageManager, SegmentFileName, SegmentReader, decode_kafka_uuid, kafka_uuid,
        parse_partition_dir_name, parse_segment_file_name, partition_dir_name, segment_file_name,
    },
};
