use {
    super::*,
    crate::{
        PartitionDump, RemoteLogSegmentId, RemoteLogSegmentState, RemotePartitionDeleteState,
        test_metadata::SegmentMetadataBuilder,
    },
    RemoteLogSegmentState::*,
    RemotePartitionDeleteState::*,
    uuid::Uuid,
};

fn tp(topic: u128, partition: i32) -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(topic), format!("topic-{topic}"), partition)
}

fn seg(
    partition: &TopicIdPartition,
    id: u128,
    start: i64,
    end: i64,
    epochs: &[(i32, i64)],
) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::new(partition, start)
        .segment_id(Uuid::from_u128(id))
        .end_offset(end)
        .size(100)
        .epochs(epochs.iter().map(|(e, o)| (LeaderEpoch(*e), *o)))
        .build()
}

fn upd(
    partition: &TopicIdPartition,
    id: u128,
    state: RemoteLogSegmentState,
) -> RemoteLogSegmentMetadataUpdate {
    RemoteLogSegmentMetadataUpdate::new(
        RemoteLogSegmentId::new(partition.clone(), Uuid::from_u128(id)),
        7,
        None,
        state,
        2,
    )
}

fn delete(
    partition: &TopicIdPartition,
    state: RemotePartitionDeleteState,
) -> RemotePartitionDeleteMetadata {
    RemotePartitionDeleteMetadata::new(partition.clone(), state, 1, 1)
}

/// A manager with two partitions: `tp(1, 0)` holding a finished, a started
/// and a deleting segment, and `tp(2, 5)` marked for deletion.
fn populated() -> InmemoryRemoteLogMetadataManager {
    let manager = InmemoryRemoteLogMetadataManager::new();
    let a = tp(1, 0);
    manager
        .add_remote_log_segment_metadata(seg(&a, 3, 100, 199, &[(1, 100)]))
        .unwrap();
    manager
        .add_remote_log_segment_metadata(seg(&a, 1, 0, 99, &[(0, 0), (1, 50)]))
        .unwrap();
    manager
        .add_remote_log_segment_metadata(seg(&a, 2, 0, 49, &[(0, 0)]))
        .unwrap();
    manager
        .update_remote_log_segment_metadata(upd(&a, 1, CopySegmentFinished))
        .unwrap();
    manager
        .update_remote_log_segment_metadata(upd(&a, 2, DeleteSegmentStarted))
        .unwrap();
    manager
        .put_remote_partition_delete_metadata(delete(&tp(2, 5), DeletePartitionMarked))
        .unwrap();
    manager
}

fn ids(segments: &[RemoteLogSegmentMetadata]) -> Vec<u128> {
    segments
        .iter()
        .map(|segment| segment.remote_log_segment_id().id.as_u128())
        .collect()
}

#[test]
fn an_unknown_partition_is_a_miss_not_an_error() {
    let manager = populated();
    let unknown = tp(9, 9);
    let epoch = LeaderEpoch(0);
    assert_eq!(
        manager
            .remote_log_segment_metadata(&unknown, epoch, 0)
            .unwrap(),
        None
    );
    assert_eq!(
        manager.highest_offset_for_epoch(&unknown, epoch).unwrap(),
        None
    );
    assert!(
        manager
            .list_remote_log_segments(&unknown)
            .unwrap()
            .is_empty()
    );
    assert!(
        manager
            .list_remote_log_segments_by_epoch(&unknown, epoch)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        manager
            .next_segment_with_txn_index(&unknown, epoch, 0)
            .unwrap(),
        None
    );
    assert_eq!(manager.remote_log_size(&unknown, epoch).unwrap(), 0);
    let err = manager
        .update_remote_log_segment_metadata(upd(&unknown, 1, CopySegmentFinished))
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::NotFound { .. }));
}

#[test]
fn partitions_are_independent_and_named_by_id_only() {
    let manager = populated();
    let a = tp(1, 0);
    let renamed = TopicIdPartition::new(a.topic_id, "renamed", 0);
    let found = manager
        .remote_log_segment_metadata(&renamed, LeaderEpoch(0), 10)
        .unwrap()
        .unwrap();
    assert_eq!(found.remote_log_segment_id().id, Uuid::from_u128(1));
    // The same segment uuid in another partition is another segment.
    let b = tp(1, 1);
    manager
        .add_remote_log_segment_metadata(seg(&b, 1, 0, 9, &[(0, 0)]))
        .unwrap();
    assert!(
        manager
            .remote_log_segment_metadata(&b, LeaderEpoch(0), 5)
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        manager.update_remote_log_segment_metadata(upd(&b, 3, CopySegmentFinished)),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert_eq!(
        ids(&manager.list_remote_log_segments(&a).unwrap()),
        vec![1, 2, 3]
    );
    assert_eq!(ids(&manager.list_remote_log_segments(&b).unwrap()), vec![1]);
}

#[test]
fn spi_answers_follow_the_segment_states() {
    let manager = populated();
    let a = tp(1, 0);
    let lookup = |epoch: i32, offset: i64| {
        manager
            .remote_log_segment_metadata(&a, LeaderEpoch(epoch), offset)
            .unwrap()
            .map(|segment| segment.remote_log_segment_id().id.as_u128())
    };
    assert_eq!(lookup(0, 10), Some(1));
    assert_eq!(lookup(0, 50), None);
    assert_eq!(lookup(1, 50), Some(1));
    assert_eq!(lookup(1, 150), None, "segment 3 is still being copied");
    assert_eq!(
        manager
            .highest_offset_for_epoch(&a, LeaderEpoch(1))
            .unwrap(),
        Some(99)
    );
    assert_eq!(
        ids(&manager
            .list_remote_log_segments_by_epoch(&a, LeaderEpoch(1))
            .unwrap()),
        vec![1, 3]
    );
    assert_eq!(
        ids(&manager
            .list_remote_log_segments_by_epoch(&a, LeaderEpoch(0))
            .unwrap()),
        vec![1, 2]
    );
    assert_eq!(manager.remote_log_size(&a, LeaderEpoch(0)).unwrap(), 200);
    assert_eq!(
        manager
            .next_segment_with_txn_index(&a, LeaderEpoch(1), 60)
            .unwrap()
            .map(|segment| segment.remote_log_segment_id().id.as_u128()),
        Some(1)
    );
    manager
        .update_remote_log_segment_metadata(upd(&a, 3, CopySegmentFinished))
        .unwrap();
    assert_eq!(lookup(1, 150), Some(3));
    assert_eq!(
        manager
            .highest_offset_for_epoch(&a, LeaderEpoch(1))
            .unwrap(),
        Some(199)
    );
    manager
        .update_remote_log_segment_metadata(upd(&a, 2, DeleteSegmentFinished))
        .unwrap();
    assert_eq!(
        ids(&manager.list_remote_log_segments(&a).unwrap()),
        vec![1, 3]
    );
}

#[test]
fn add_and_update_errors_are_typed() {
    let manager = populated();
    let a = tp(1, 0);
    assert!(matches!(
        manager.add_remote_log_segment_metadata(seg(&a, 1, 500, 599, &[(2, 500)])),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    assert!(matches!(
        manager.update_remote_log_segment_metadata(upd(&a, 1, CopySegmentStarted)),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    assert!(matches!(
        manager.update_remote_log_segment_metadata(upd(&a, 2, CopySegmentFinished)),
        Err(RemoteStorageError::InvalidSegmentTransition {
            from: Some(DeleteSegmentStarted),
            to: CopySegmentFinished,
            ..
        })
    ));
    assert!(matches!(
        manager.update_remote_log_segment_metadata(upd(&a, 42, DeleteSegmentStarted)),
        Err(RemoteStorageError::NotFound { .. })
    ));
}

#[test]
fn partition_delete_lifecycle() {
    let manager = populated();
    let a = tp(1, 0);
    let fresh = tp(3, 0);
    for (partition, state) in [
        (&a, DeletePartitionStarted),
        (&fresh, DeletePartitionFinished),
    ] {
        assert!(matches!(
            manager.put_remote_partition_delete_metadata(delete(partition, state)),
            Err(RemoteStorageError::InvalidPartitionDeleteTransition { from: None, .. })
        ));
    }
    for state in [
        DeletePartitionMarked,
        DeletePartitionMarked,
        DeletePartitionStarted,
        DeletePartitionStarted,
    ] {
        manager
            .put_remote_partition_delete_metadata(delete(&a, state))
            .unwrap();
        assert_eq!(manager.list_remote_log_segments(&a).unwrap().len(), 3);
    }
    assert!(matches!(
        manager.put_remote_partition_delete_metadata(delete(&a, DeletePartitionMarked)),
        Err(RemoteStorageError::InvalidPartitionDeleteTransition {
            from: Some(DeletePartitionStarted),
            to: DeletePartitionMarked,
            ..
        })
    ));
    manager
        .put_remote_partition_delete_metadata(delete(&a, DeletePartitionFinished))
        .unwrap();
    assert!(manager.list_remote_log_segments(&a).unwrap().is_empty());
    assert_eq!(
        manager
            .highest_offset_for_epoch(&a, LeaderEpoch(0))
            .unwrap(),
        None
    );
    // A retried finish is harmless; going back is not.
    manager
        .put_remote_partition_delete_metadata(delete(&a, DeletePartitionFinished))
        .unwrap();
    for state in [DeletePartitionMarked, DeletePartitionStarted] {
        assert!(matches!(
            manager.put_remote_partition_delete_metadata(delete(&a, state)),
            Err(RemoteStorageError::InvalidPartitionDeleteTransition {
                from: Some(DeletePartitionFinished),
                ..
            })
        ));
    }
    // Segment updates of the dropped segments are now unknown.
    assert!(matches!(
        manager.update_remote_log_segment_metadata(upd(&a, 1, DeleteSegmentStarted)),
        Err(RemoteStorageError::NotFound { .. })
    ));
    let exported = manager.export();
    assert_eq!(exported.partitions[0].topic_id_partition, a);
    assert_eq!(
        exported.partitions[0].delete_state,
        Some(DeletePartitionFinished)
    );
    assert!(exported.partitions[0].segments.is_empty());
}

#[test]
fn export_is_sorted_and_round_trips() {
    let manager = populated();
    let dump = manager.export();
    let partitions: Vec<_> = dump
        .partitions
        .iter()
        .map(|partition| partition.topic_id_partition.clone())
        .collect();
    assert_eq!(partitions, vec![tp(1, 0), tp(2, 5)]);
    assert_eq!(ids(&dump.partitions[0].segments), vec![1, 2, 3]);
    assert_eq!(dump.partitions[1].delete_state, Some(DeletePartitionMarked));

    let restored = InmemoryRemoteLogMetadataManager::new();
    restored
        .import(RlmmCacheDump::from_json(&dump.to_json().unwrap()).unwrap())
        .unwrap();
    assert_eq!(restored.export(), dump);
    assert_eq!(
        restored.export().to_json().unwrap(),
        dump.to_json().unwrap()
    );
    let a = tp(1, 0);
    for epoch in 0..3 {
        for offset in -1..=200 {
            assert_eq!(
                restored
                    .remote_log_segment_metadata(&a, LeaderEpoch(epoch), offset)
                    .unwrap(),
                manager
                    .remote_log_segment_metadata(&a, LeaderEpoch(epoch), offset)
                    .unwrap()
            );
        }
    }
    // The restored state machine carries on where the original was.
    restored
        .put_remote_partition_delete_metadata(delete(&tp(2, 5), DeletePartitionStarted))
        .unwrap();
    assert!(matches!(
        restored.update_remote_log_segment_metadata(upd(&a, 2, CopySegmentFinished)),
        Err(RemoteStorageError::InvalidSegmentTransition { .. })
    ));
}

#[test]
fn export_orders_partitions_by_topic_id_then_partition() {
    let manager = InmemoryRemoteLogMetadataManager::new();
    let partitions = [tp(5, 1), tp(2, 7), tp(5, 0), tp(2, 3)];
    for (n, partition) in (0_u128..).zip(&partitions) {
        manager
            .add_remote_log_segment_metadata(seg(partition, n, 0, 9, &[(0, 0)]))
            .unwrap();
    }
    let order: Vec<_> = manager
        .export()
        .partitions
        .into_iter()
        .map(|partition| partition.topic_id_partition)
        .collect();
    assert_eq!(order, vec![tp(2, 3), tp(2, 7), tp(5, 0), tp(5, 1)]);
}

#[test]
fn import_replaces_named_partitions_only() {
    let manager = populated();
    let c = tp(4, 0);
    manager
        .add_remote_log_segment_metadata(seg(&c, 1, 0, 9, &[(0, 0)]))
        .unwrap();
    let mut dump = populated().export();
    dump.partitions[0]
        .segments
        .retain(|segment| segment.start_offset() == 100);
    dump.partitions[1] = PartitionDump {
        topic_id_partition: tp(2, 5),
        segments: Vec::new(),
        delete_state: None,
    };
    manager.import(dump).unwrap();
    let exported = manager.export();
    let partitions: Vec<_> = exported
        .partitions
        .iter()
        .map(|partition| partition.topic_id_partition.clone())
        .collect();
    assert_eq!(partitions, vec![tp(1, 0), c.clone()]);
    assert_eq!(ids(&exported.partitions[0].segments), vec![3]);
    assert_eq!(ids(&manager.list_remote_log_segments(&c).unwrap()), vec![1]);
}

#[test]
fn a_malformed_import_is_refused_whole() {
    let manager = populated();
    let before = manager.export();
    let good = before.clone();

    let mut twice = good.clone();
    twice.partitions.push(good.partitions[0].clone());
    let mut duplicate_id = good.clone();
    let copy = duplicate_id.partitions[0].segments[0].clone();
    duplicate_id.partitions[0].segments.push(copy);
    let mut misfiled = good.clone();
    misfiled.partitions[1].segments = good.partitions[0].segments.clone();
    let mut gone = good.clone();
    let finished = gone.partitions[0].segments[1]
        .with_update(&upd(&tp(1, 0), 2, DeleteSegmentFinished))
        .unwrap();
    gone.partitions[0].segments[1] = finished;
    // The valid first partition of each dump must not be applied either.
    for mut dump in [twice, duplicate_id, misfiled, gone] {
        dump.partitions.insert(
            0,
            PartitionDump {
                topic_id_partition: tp(0, 0),
                segments: Vec::new(),
                delete_state: Some(DeletePartitionMarked),
            },
        );
        assert!(matches!(
            manager.import(dump),
            Err(RemoteStorageError::InvalidArgument(_))
        ));
        assert_eq!(manager.export(), before);
    }
}

#[test]
fn a_poisoned_lock_is_recovered() {
    let manager = Arc::new(populated());
    let a = tp(1, 0);
    let cache = manager.cache(&a).unwrap();
    let poisoner = {
        let manager = Arc::clone(&manager);
        std::thread::spawn(move || {
            let _map = manager.partitions.write().unwrap();
            let _partition = cache.write().unwrap();
            panic!("poison both locks");
        })
    };
    assert!(poisoner.join().is_err());
    assert!(manager.partitions.is_poisoned());
    assert_eq!(
        manager
            .remote_log_segment_metadata(&a, LeaderEpoch(0), 0)
            .unwrap()
            .map(|segment| segment.remote_log_segment_id().id.as_u128()),
        Some(1)
    );
    manager
        .update_remote_log_segment_metadata(upd(&a, 3, CopySegmentFinished))
        .unwrap();
    assert_eq!(
        manager
            .highest_offset_for_epoch(&a, LeaderEpoch(1))
            .unwrap(),
        Some(199)
    );
    assert_eq!(manager.export().partitions.len(), 2);
}

#[test]
fn debug_shows_the_partition_count() {
    assert_eq!(
        format!("{:?}", populated()),
        "InmemoryRemoteLogMetadataManager { partitions: 2 }"
    );
}

#[test]
fn unknown_partitions_are_warned_about_once_each_when_asked_to() {
    let quiet = populated();
    quiet.list_remote_log_segments(&tp(9, 9)).unwrap();
    assert!(quiet.warned.is_none());
    let manager = InmemoryRemoteLogMetadataManager::new().warning_on_unknown_partitions();
    manager
        .add_remote_log_segment_metadata(seg(&tp(1, 0), 3, 100, 199, &[(1, 100)]))
        .unwrap();
    manager.list_remote_log_segments(&tp(1, 0)).unwrap();
    for _ in 0..3 {
        assert!(
            manager
                .list_remote_log_segments(&tp(7, 1))
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            manager
                .highest_offset_for_epoch(&tp(7, 2), LeaderEpoch(0))
                .unwrap(),
            None
        );
    }
    let warned = manager.warned.as_ref().unwrap().lock().unwrap();
    assert_eq!(
        warned.iter().cloned().collect::<Vec<_>>(),
        vec![tp(7, 1), tp(7, 2)]
    );
}
