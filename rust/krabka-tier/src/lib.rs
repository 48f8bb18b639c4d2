//! Reads a tier without a broker: the topics, partitions and segments a
//! bucket (or a filesystem tier) holds ([`list_tier`]), and the committed
//! records of a partition ([`export_partition`]), decoded from the segment
//! files with Kafka's own formats.
//!
//! Everything is derived from the object keys (the key codec of
//! `krabka_kafka`) and the segments' own bytes: no metadata manager, no
//! broker. Segment logs are streamed: memory depends on the largest record
//! batch, not on the segment.

#![forbid(unsafe_code)]

mod authenticate;
mod batches;
mod decoding;
mod details;
mod epochs;
mod error;
mod export;
mod feed;
mod fsck;
mod listing;
mod log_file;
mod record_json;
mod rewrap;
mod source;

pub use {
    authenticate::{Authenticity, authenticate_partition, trusted_keys},
    batches::{BatchStream, RawBatch, StreamProblem},
    decoding::DecodingStore,
    details::{EpochStart, SegmentDetails, segment_details},
    epochs::{CheckpointError, EpochLineage, parse_leader_epoch_checkpoint},
    error::TierError,
    export::{
        ExportProblem, ExportRange, ExportSink, ExportSummary, ExportedBatch, ExportedRecord,
        export_partition, export_partition_batches, export_partition_observed,
    },
    feed::{CHUNK_END, CHUNK_RECORDS, FeedError, RecordFeed, ReplaySource, replay_source_help},
    fsck::{
        DeletedTopicHistory, FsckInput, FsckReport, Missing, Orphan, Unfinished, check_tier,
        parse_age, parse_live_topics,
    },
    listing::{PartitionListing, SegmentListing, add_details, list_tier},
    log_file::export_log_file,
    record_json::{ValueEncoding, record_json},
    rewrap::{ENVELOPE_SUFFIX, RewrapSummary, holds_archive, rewrap_tier},
    source::{Source, TierAccess},
};
