//! The data model of KIP-405, mirroring Kafka's `storage-api`.

mod partition;
mod partition_delete;
mod segment;
mod state;

pub use {
    partition::TopicIdPartition,
    partition_delete::RemotePartitionDeleteMetadata,
    segment::{
        CustomMetadata, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentMetadataUpdate,
    },
    state::{RemoteLogSegmentState, RemotePartitionDeleteState},
};
