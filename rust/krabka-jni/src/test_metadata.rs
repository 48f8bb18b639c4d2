//! The segment metadata this crate's unit tests share.

use {
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentState, TopicIdPartition,
    },
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// Segment `2` of `orders-0` (topic id `1`): offsets `[0, 9]` in leader
/// epoch 0, a 10-byte log, copy started.
pub(crate) fn metadata() -> RemoteLogSegmentMetadata {
    let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 0);
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp, Uuid::from_u128(2)),
        0,
        9,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            10,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), 0)]),
        ),
    )
    .unwrap()
}
