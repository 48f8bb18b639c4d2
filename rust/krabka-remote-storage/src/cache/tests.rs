use {
    super::*,
    crate::{CustomMetadata, RemoteLogSegmentId, test_metadata::SegmentMetadataBuilder},
    RemoteLogSegmentState::*,
    RemotePartitionDeleteState::*,
};

fn tp() -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(0xAB), "orders", 2)
}

fn seg_id(id: u128) -> RemoteLogSegmentId {
    RemoteLogSegmentId::new(tp(), Uuid::from_u128(id))
}

fn seg(id: u128, start: i64, end: i64, epochs: &[(i32, i64)]) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::with_id(seg_id(id), start)
        .end_offset(end)
        .size(1000)
        .epochs(epochs.iter().map(|(e, o)| (LeaderEpoch(*e), *o)))
        .build()
}

fn upd(id: u128, state: RemoteLogSegmentState, ts: i64) -> RemoteLogSegmentMetadataUpdate {
    RemoteLogSegmentMetadataUpdate::new(seg_id(id), ts, None, state, 1)
}

/// A cache holding `segments`, each finished at event time 1.
fn finished(segments: &[RemoteLogSegmentMetadata]) -> RemoteLogMetadataCache {
    let mut cache = RemoteLogMetadataCache::new(tp());
    for segment in segments {
        cache.add(segment.clone()).unwrap();
        let id = segment.remote_log_segment_id().id.as_u128();
        cache.update(&upd(id, CopySegmentFinished, 1)).unwrap();
    }
    cache
}

fn served(cache: &RemoteLogMetadataCache, epoch: i32, offset: i64) -> Option<u128> {
    cache
        .segment_for(LeaderEpoch(epoch), offset)
        .map(|segment| segment.remote_log_segment_id().id.as_u128())
}

fn ids(segments: &[RemoteLogSegmentMetadata]) -> Vec<u128> {
    segments
        .iter()
        .map(|segment| segment.remote_log_segment_id().id.as_u128())
        .collect()
}

/// Segment `id` (`[0, 9]`, epoch 0) built directly in `state`.
fn in_state(id: u128, state: RemoteLogSegmentState) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::with_id(seg_id(id), 0)
        .end_offset(9)
        .state(state)
        .build()
}

/// A cache holding segment 1 (`[0, 99]`, epochs `{0: 0, 1: 50}`) moved along
/// the lifecycle to `state` (which must not be `DeleteSegmentFinished`).
fn cache_in(state: RemoteLogSegmentState) -> RemoteLogMetadataCache {
    let mut cache = RemoteLogMetadataCache::new(tp());
    cache.add(seg(1, 0, 99, &[(0, 0), (1, 50)])).unwrap();
    let path: &[RemoteLogSegmentState] = match state {
        CopySegmentStarted => &[],
        CopySegmentFinished => &[CopySegmentFinished],
        DeleteSegmentStarted => &[CopySegmentFinished, DeleteSegmentStarted],
        DeleteSegmentFinished => unreachable!("a finished delete leaves no segment"),
    };
    for step in path {
        cache.update(&upd(1, *step, 1)).unwrap();
    }
    cache
}

#[test]
fn add_requires_copy_segment_started() {
    for state in [
        CopySegmentFinished,
        DeleteSegmentStarted,
        DeleteSegmentFinished,
    ] {
        let mut cache = RemoteLogMetadataCache::new(tp());
        let wrong = in_state(1, state);
        assert!(matches!(
            cache.add(wrong),
            Err(RemoteStorageError::InvalidArgument(_))
        ));
        assert!(cache.list().is_empty(), "{state:?}");
    }
}

#[test]
fn add_refuses_a_known_id() {
    let mut cache = RemoteLogMetadataCache::new(tp());
    cache.add(seg(1, 0, 9, &[(0, 0)])).unwrap();
    assert!(matches!(
        cache.add(seg(1, 10, 19, &[(0, 10)])),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    assert_eq!(cache.list(), vec![seg(1, 0, 9, &[(0, 0)])]);
}

#[test]
fn update_of_an_unknown_segment_is_not_found() {
    let mut cache = RemoteLogMetadataCache::new(tp());
    for state in RemoteLogSegmentState::ALL {
        let err = cache.update(&upd(7, state, 0)).unwrap_err();
        assert!(
            matches!(err, RemoteStorageError::NotFound { .. }),
            "{state:?}"
        );
    }
}

#[test]
fn every_transition_row_behaves_as_the_table_says() {
    for from in [
        CopySegmentStarted,
        CopySegmentFinished,
        DeleteSegmentStarted,
    ] {
        for to in RemoteLogSegmentState::ALL {
            let mut cache = cache_in(from);
            let before = cache.list();
            let result = cache.update(&upd(1, to, 5));
            if to == CopySegmentStarted {
                assert!(
                    matches!(result, Err(RemoteStorageError::InvalidArgument(_))),
                    "{from:?} -> {to:?}"
                );
                assert_eq!(cache.list(), before);
            } else if RemoteLogSegmentState::is_valid_transition(Some(from), to) {
                result.unwrap();
                let listed = cache.list();
                if to == DeleteSegmentFinished {
                    assert!(listed.is_empty(), "{from:?} -> {to:?}");
                    assert!(cache.list_by_epoch(LeaderEpoch(0)).is_empty());
                } else {
                    assert_eq!(listed.len(), 1);
                    assert_eq!(listed[0].state(), to);
                    assert_eq!(listed[0].event_timestamp_ms(), 5);
                }
            } else {
                match result {
                    Err(RemoteStorageError::InvalidSegmentTransition {
                        id,
                        from: Some(got_from),
                        to: got_to,
                    }) => {
                        assert_eq!((id, got_from, got_to), (seg_id(1), from, to));
                    }
                    other => panic!("{from:?} -> {to:?}: {other:?}"),
                }
                assert_eq!(cache.list(), before);
            }
        }
    }
}

#[test]
fn a_segment_whose_delete_finished_is_gone_for_every_update() {
    for to in RemoteLogSegmentState::ALL {
        let mut cache = cache_in(DeleteSegmentStarted);
        cache.update(&upd(1, DeleteSegmentFinished, 2)).unwrap();
        assert!(matches!(
            cache.update(&upd(1, to, 3)),
            Err(RemoteStorageError::NotFound { .. })
        ));
    }
}

#[test]
fn a_deleted_id_may_be_added_again() {
    let mut cache = cache_in(DeleteSegmentStarted);
    cache.update(&upd(1, DeleteSegmentFinished, 2)).unwrap();
    cache.add(seg(1, 0, 9, &[(0, 0)])).unwrap();
    assert_eq!(ids(&cache.list()), vec![1]);
}

#[test]
fn self_transition_refreshes_time_broker_and_given_custom_metadata() {
    let mut cache = cache_in(CopySegmentFinished);
    let mut retry = upd(1, CopySegmentFinished, 40);
    retry.broker_id = 9;
    retry.custom_metadata = Some(CustomMetadata(vec![1, 2]));
    cache.update(&retry).unwrap();
    let segment = cache.segment_for(LeaderEpoch(0), 0).unwrap();
    assert_eq!(segment.state(), CopySegmentFinished);
    assert_eq!(segment.event_timestamp_ms(), 40);
    assert_eq!(segment.broker_id(), 9);
    assert_eq!(segment.custom_metadata(), Some(&CustomMetadata(vec![1, 2])));

    let mut again = upd(1, CopySegmentFinished, 41);
    again.custom_metadata = None;
    cache.update(&again).unwrap();
    let segment = cache.segment_for(LeaderEpoch(1), 99).unwrap();
    assert_eq!(segment.event_timestamp_ms(), 41);
    assert_eq!(segment.custom_metadata(), Some(&CustomMetadata(vec![1, 2])));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(49));
}

#[test]
fn leader_epoch_boundaries_inside_a_segment() {
    let cache = cache_in(CopySegmentFinished);
    for offset in [0, 1, 25, 49] {
        assert_eq!(
            served(&cache, 0, offset),
            Some(1),
            "epoch 0 offset {offset}"
        );
        assert_eq!(served(&cache, 1, offset), None, "epoch 1 offset {offset}");
    }
    for offset in [50, 51, 75, 99] {
        assert_eq!(served(&cache, 0, offset), None, "epoch 0 offset {offset}");
        assert_eq!(
            served(&cache, 1, offset),
            Some(1),
            "epoch 1 offset {offset}"
        );
    }
    for epoch in [0, 1, 2] {
        assert_eq!(served(&cache, epoch, -1), None);
        assert_eq!(served(&cache, epoch, 100), None);
    }
    assert_eq!(served(&cache, 2, 60), None);
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(49));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(1)), Some(99));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(2)), None);
}

#[test]
fn only_finished_segments_answer_lookups_but_all_live_ones_are_listed() {
    for state in [
        CopySegmentStarted,
        CopySegmentFinished,
        DeleteSegmentStarted,
    ] {
        let cache = cache_in(state);
        let readable = state == CopySegmentFinished;
        assert_eq!(served(&cache, 0, 10).is_some(), readable, "{state:?}");
        assert_eq!(
            cache.highest_offset_for_epoch(LeaderEpoch(1)).is_some(),
            readable
        );
        assert_eq!(
            cache
                .next_segment_with_txn_index(LeaderEpoch(0), 0)
                .is_some(),
            readable
        );
        assert_eq!(ids(&cache.list()), vec![1], "{state:?}");
        assert_eq!(ids(&cache.list_by_epoch(LeaderEpoch(0))), vec![1]);
        assert_eq!(ids(&cache.list_by_epoch(LeaderEpoch(1))), vec![1]);
        assert!(cache.list_by_epoch(LeaderEpoch(2)).is_empty());
    }
}

#[test]
fn highest_offset_follows_the_finished_segments() {
    let mut cache = finished(&[
        seg(1, 0, 9, &[(0, 0)]),
        seg(2, 10, 19, &[(0, 10)]),
        seg(3, 20, 29, &[(0, 20), (1, 25)]),
    ]);
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(24));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(1)), Some(29));
    cache.update(&upd(3, DeleteSegmentStarted, 2)).unwrap();
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(19));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(1)), None);
    // A copy in progress does not count.
    cache.add(seg(4, 20, 39, &[(0, 20)])).unwrap();
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(19));
    cache.update(&upd(4, CopySegmentFinished, 3)).unwrap();
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(39));
}

/// Kafka's case 1: L0 uploaded S0 `[0, 100]`; L1, with tier lag, uploaded
/// S1 `[0, 200]` for the same epoch. S1 serves; S0 stays listed.
#[test]
fn a_wider_upload_by_a_new_leader_replaces_the_old_one() {
    let s0 = seg(10, 0, 100, &[(0, 0)]);
    let s1 = seg(11, 0, 200, &[(0, 0), (1, 150)]);
    for order in [[&s0, &s1], [&s1, &s0]] {
        let cache = finished(&[order[0].clone(), order[1].clone()]);
        for offset in [0, 50, 100, 149] {
            assert_eq!(served(&cache, 0, offset), Some(11), "offset {offset}");
        }
        assert_eq!(served(&cache, 0, 150), None);
        assert_eq!(served(&cache, 1, 150), Some(11));
        assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(149));
        assert_eq!(ids(&cache.list()), vec![10, 11]);
        assert_eq!(ids(&cache.list_by_epoch(LeaderEpoch(0))), vec![10, 11]);
        assert_eq!(ids(&cache.list_by_epoch(LeaderEpoch(1))), vec![11]);
    }
}

/// Kafka's case 2: L0 uploaded S0 `[10, 90]`; L1 uploaded S1 `[5, 100]` and
/// S2 `[101, 200]`. Offset 95 is served by S1, not S0.
#[test]
fn overlapping_uploads_serve_the_containing_segment_whatever_the_order() {
    let s0 = seg(20, 10, 90, &[(0, 10)]);
    let s1 = seg(21, 5, 100, &[(0, 5)]);
    let s2 = seg(22, 101, 200, &[(0, 101)]);
    let orders = [
        [&s0, &s1, &s2],
        [&s1, &s0, &s2],
        [&s2, &s1, &s0],
        [&s0, &s2, &s1],
    ];
    for order in orders {
        let mut cache = finished(&order.map(Clone::clone));
        for (offset, id) in [(5, 21), (10, 21), (50, 21), (95, 21), (101, 22), (200, 22)] {
            assert_eq!(served(&cache, 0, offset), Some(id), "offset {offset}");
        }
        assert_eq!(ids(&cache.list()), vec![21, 20, 22]);

        // When the replacement goes away, the old upload serves again.
        cache.update(&upd(21, DeleteSegmentStarted, 5)).unwrap();
        assert_eq!(served(&cache, 0, 5), None);
        assert_eq!(served(&cache, 0, 50), Some(20));
        assert_eq!(served(&cache, 0, 95), None);
        assert_eq!(served(&cache, 0, 150), Some(22));
        cache.update(&upd(21, DeleteSegmentFinished, 6)).unwrap();
        assert_eq!(ids(&cache.list()), vec![20, 22]);
    }
}

#[test]
fn partially_overlapping_uploads_both_serve() {
    let cache = finished(&[seg(1, 0, 60, &[(0, 0)]), seg(2, 50, 120, &[(0, 50)])]);
    assert_eq!(served(&cache, 0, 45), Some(1));
    assert_eq!(served(&cache, 0, 55), Some(2));
    assert_eq!(served(&cache, 0, 120), Some(2));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(120));
}

#[test]
fn of_identical_uploads_the_later_event_serves_then_the_higher_id() {
    let mut cache = RemoteLogMetadataCache::new(tp());
    cache.add(seg(5, 0, 9, &[(0, 0)])).unwrap();
    cache.add(seg(6, 0, 9, &[(0, 0)])).unwrap();
    cache.update(&upd(6, CopySegmentFinished, 10)).unwrap();
    cache.update(&upd(5, CopySegmentFinished, 20)).unwrap();
    assert_eq!(served(&cache, 0, 3), Some(5));
    // A retry refreshes the event time, and with it the preference.
    cache.update(&upd(6, CopySegmentFinished, 30)).unwrap();
    assert_eq!(served(&cache, 0, 3), Some(6));
    cache.update(&upd(5, CopySegmentFinished, 30)).unwrap();
    assert_eq!(served(&cache, 0, 3), Some(6));
    cache.update(&upd(6, DeleteSegmentStarted, 31)).unwrap();
    assert_eq!(served(&cache, 0, 3), Some(5));
}

#[test]
fn listings_are_sorted_by_start_offset_then_id() {
    let mut cache = RemoteLogMetadataCache::new(tp());
    for (id, start) in [(9, 20), (3, 0), (7, 10), (2, 10), (8, 0), (1, 30)] {
        cache.add(seg(id, start, start + 9, &[(0, start)])).unwrap();
    }
    cache.add(seg(4, 15, 40, &[(1, 15)])).unwrap();
    assert_eq!(ids(&cache.list()), vec![3, 8, 2, 7, 4, 9, 1]);
    assert_eq!(
        ids(&cache.list_by_epoch(LeaderEpoch(0))),
        vec![3, 8, 2, 7, 9, 1]
    );
    assert_eq!(ids(&cache.list_by_epoch(LeaderEpoch(1))), vec![4]);
}

#[test]
fn next_segment_with_txn_index_walks_the_epoch_lineage() {
    let mut cache = finished(&[
        seg(1, 0, 9, &[(0, 0)]).with_txn_index_empty(true),
        seg(2, 10, 19, &[(0, 10)]).with_txn_index_empty(true),
        seg(3, 20, 29, &[(0, 20)]),
        seg(4, 30, 39, &[(0, 30), (1, 35)]).with_txn_index_empty(true),
        seg(5, 40, 49, &[(1, 40)]).with_txn_index_empty(true),
        seg(6, 50, 59, &[(1, 50)]),
    ]);
    let next = |cache: &RemoteLogMetadataCache, epoch: i32, offset: i64| {
        cache
            .next_segment_with_txn_index(LeaderEpoch(epoch), offset)
            .map(|segment| segment.remote_log_segment_id().id.as_u128())
    };
    assert_eq!(next(&cache, 0, 0), Some(3));
    assert_eq!(next(&cache, 0, 15), Some(3));
    assert_eq!(next(&cache, 0, 25), Some(3));
    // Epoch 0 ends inside segment 4: the lineage stops there.
    assert_eq!(next(&cache, 0, 30), None);
    assert_eq!(next(&cache, 1, 35), Some(6));
    assert_eq!(next(&cache, 1, 59), Some(6));
    assert_eq!(next(&cache, 1, 60), None);
    // An offset not served in the epoch starts no walk.
    assert_eq!(next(&cache, 1, 20), None);
    assert_eq!(next(&cache, 7, 0), None);
    // A segment that is not finished breaks the lineage.
    cache.update(&upd(2, DeleteSegmentStarted, 9)).unwrap();
    assert_eq!(next(&cache, 0, 0), None);
    assert_eq!(next(&cache, 0, 20), Some(3));
}

#[test]
fn malformed_epoch_maps_are_clamped_to_the_segment_without_panicking() {
    let cache = finished(&[
        seg(1, 10, 19, &[(0, 0)]),
        seg(2, 20, 29, &[(0, 20), (1, 20)]),
        seg(3, 30, 39, &[(2, i64::MIN), (3, i64::MIN)]),
        seg(4, 40, 49, &[(4, 45), (5, 41)]),
        seg(5, 50, i64::MAX, &[(6, 50), (i32::MAX, i64::MAX)]),
    ]);
    assert_eq!(served(&cache, 0, 5), None);
    assert_eq!(served(&cache, 0, 10), Some(1));
    assert_eq!(served(&cache, 0, 19), Some(1));
    // Epoch 0 has no records in segment 2: epoch 1 starts where it does.
    assert_eq!(served(&cache, 0, 20), None);
    assert_eq!(served(&cache, 1, 20), Some(2));
    assert_eq!(cache.highest_offset_for_epoch(LeaderEpoch(0)), Some(19));
    assert_eq!(ids(&cache.list_by_epoch(LeaderEpoch(0))), vec![1, 2]);
    assert_eq!(served(&cache, 2, 30), None);
    assert_eq!(served(&cache, 3, 30), Some(3));
    assert_eq!(served(&cache, 4, 45), None);
    assert_eq!(served(&cache, 5, 41), Some(4));
    assert_eq!(served(&cache, 6, i64::MAX - 1), Some(5));
    assert_eq!(served(&cache, i32::MAX, i64::MAX), Some(5));
    assert_eq!(
        cache.highest_offset_for_epoch(LeaderEpoch(i32::MAX)),
        Some(i64::MAX)
    );
    assert_eq!(
        cache.next_segment_with_txn_index(LeaderEpoch(i32::MAX), i64::MAX),
        cache.segments.get(&Uuid::from_u128(5))
    );
}

#[test]
fn partition_delete_follows_its_transition_table() {
    let states = [
        DeletePartitionMarked,
        DeletePartitionStarted,
        DeletePartitionFinished,
    ];
    let paths: [&[RemotePartitionDeleteState]; 4] = [
        &[],
        &[DeletePartitionMarked],
        &[DeletePartitionMarked, DeletePartitionStarted],
        &states,
    ];
    for path in paths {
        for to in states {
            let mut cache = cache_in(CopySegmentFinished);
            for step in path {
                cache.put_delete_state(*step).unwrap();
            }
            let from = path.last().copied();
            let result = cache.put_delete_state(to);
            if RemotePartitionDeleteState::is_valid_transition(from, to) {
                result.unwrap();
                assert_eq!(cache.delete_state, Some(to));
            } else {
                match result {
                    Err(RemoteStorageError::InvalidPartitionDeleteTransition {
                        partition,
                        from: got_from,
                        to: got_to,
                    }) => assert_eq!((partition, got_from, got_to), (tp(), from, to)),
                    other => panic!("{from:?} -> {to:?}: {other:?}"),
                }
                assert_eq!(cache.delete_state, from);
            }
            let finished = cache.delete_state == Some(DeletePartitionFinished);
            assert_eq!(cache.list().is_empty(), finished, "{path:?} -> {to:?}");
            assert_eq!(served(&cache, 0, 0).is_none(), finished);
        }
    }
}

#[test]
fn restore_rebuilds_the_indexes() {
    let original = finished(&[seg(20, 10, 90, &[(0, 10)]), seg(21, 5, 100, &[(0, 5)])]);
    let dump = original.dump();
    assert_eq!(ids(&dump.segments), vec![21, 20]);
    let restored = RemoteLogMetadataCache::restore(dump.clone()).unwrap();
    assert_eq!(restored.dump(), dump);
    for offset in 0..=101 {
        assert_eq!(served(&restored, 0, offset), served(&original, 0, offset));
    }
    assert_eq!(restored.highest_offset_for_epoch(LeaderEpoch(0)), Some(100));
}

#[test]
fn restore_refuses_malformed_partition_dumps() {
    let good = cache_in(CopySegmentFinished).dump();
    let foreign = TopicIdPartition::new(Uuid::from_u128(1), "x", 0);
    let deleted = in_state(2, DeleteSegmentFinished);
    let mut duplicate = good.clone();
    duplicate.segments.push(seg(1, 200, 300, &[(0, 200)]));
    let mut with_deleted = good.clone();
    with_deleted.segments.push(deleted);
    let mut misfiled = good.clone();
    misfiled.topic_id_partition = foreign;
    for dump in [duplicate, with_deleted, misfiled] {
        assert!(matches!(
            RemoteLogMetadataCache::restore(dump),
            Err(RemoteStorageError::InvalidArgument(_))
        ));
    }
}
