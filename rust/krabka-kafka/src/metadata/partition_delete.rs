//! `RemotePartitionDeleteMetadata`: a step of a partition's remote deletion.

use {
    crate::{RemotePartitionDeleteState, TopicIdPartition},
    serde::{Deserialize, Serialize},
};

/// A record that a partition's remote data moved to a delete state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemotePartitionDeleteMetadata {
    /// The partition being deleted.
    pub topic_id_partition: TopicIdPartition,
    /// The state it moves to.
    pub state: RemotePartitionDeleteState,
    /// When the event happened, in milliseconds since the epoch.
    pub event_timestamp_ms: i64,
    /// The broker that recorded the event.
    pub broker_id: i32,
}

impl RemotePartitionDeleteMetadata {
    /// A delete event for `topic_id_partition`.
    #[must_use]
    pub fn new(
        topic_id_partition: TopicIdPartition,
        state: RemotePartitionDeleteState,
        event_timestamp_ms: i64,
        broker_id: i32,
    ) -> Self {
        Self {
            topic_id_partition,
            state,
            event_timestamp_ms,
            broker_id,
        }
    }
}
