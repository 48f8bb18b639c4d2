use {
    super::*,
    crate::metrics::MetadataMetrics,
    crate::{
        InmemoryRemoteLogMetadataManager, RemoteLogSegmentId, RemoteLogSegmentState,
        RemotePartitionDeleteState, test_metadata::SegmentMetadataBuilder,
    },
    RemoteLogSegmentState::*,
    futures_util::TryStreamExt,
    krabka_object_store::{
        ObjectStoreConfig,
        store::metered::{Operation, Outcome},
    },
    object_store::{ObjectStore, ObjectStoreExt, memory::InMemory, path::Path},
    std::time::Instant,
    uuid::Uuid,
};

fn tp(partition: i32) -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(1), "orders", partition)
}

fn seg(id: u128, start: i64, end: i64, epochs: &[(i32, i64)]) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::new(&tp(0), start)
        .segment_id(Uuid::from_u128(id))
        .end_offset(end)
        .size(100)
        .epochs(epochs.iter().map(|(e, o)| (LeaderEpoch(*e), *o)))
        .build()
}

fn upd(id: u128, state: RemoteLogSegmentState) -> RemoteLogSegmentMetadataUpdate {
    RemoteLogSegmentMetadataUpdate::new(
        RemoteLogSegmentId::new(tp(0), Uuid::from_u128(id)),
        7,
        None,
        state,
        2,
    )
}

/// A shared bucket and managers over it, as brokers over one store.
struct Bucket(Arc<InMemory>);

impl Bucket {
    fn new() -> Self {
        Self(Arc::new(InMemory::new()))
    }

    fn manager(&self, config: StoreRlmmConfig) -> StoreRemoteLogMetadataManager {
        let store = StoreHandle::new(self.0.clone(), Some("tier".to_owned())).unwrap();
        StoreRemoteLogMetadataManager::new(store, config)
    }

    fn broker(&self) -> StoreRemoteLogMetadataManager {
        self.manager(StoreRlmmConfig::default())
    }

    fn keys(&self) -> Vec<String> {
        let store = self.0.clone();
        let runtime = krabka_object_store::store::StoreRuntime::new(1).unwrap();
        runtime
            .block_on(async move {
                let listed: Vec<_> = store.list(None).try_collect().await.unwrap();
                Ok(listed
                    .into_iter()
                    .map(|meta| meta.location.to_string())
                    .collect())
            })
            .unwrap()
    }

    fn delete(&self, key: &str) {
        let store = self.0.clone();
        let key = Path::from(key);
        let runtime = krabka_object_store::store::StoreRuntime::new(1).unwrap();
        runtime
            .block_on(async move {
                store.delete(&key).await.unwrap();
                Ok(())
            })
            .unwrap();
    }
}

/// The same events to `manager` and to an in-memory manager, then every
/// query compared.
fn same_answers(manager: &dyn RemoteLogMetadataManager, events: &[MetadataEvent]) {
    let reference = InmemoryRemoteLogMetadataManager::new();
    for event in events {
        let (ours, theirs) = match event.clone() {
            MetadataEvent::SegmentAdded(segment) => (
                manager.add_remote_log_segment_metadata(segment.clone()),
                reference.add_remote_log_segment_metadata(segment),
            ),
            MetadataEvent::SegmentUpdated(update) => (
                manager.update_remote_log_segment_metadata(update.clone()),
                reference.update_remote_log_segment_metadata(update),
            ),
            MetadataEvent::PartitionDelete(delete) => (
                manager.put_remote_partition_delete_metadata(delete.clone()),
                reference.put_remote_partition_delete_metadata(delete),
            ),
        };
        // One deliberate difference: a delete of a segment already deleted
        // is accepted (see `PartitionState::append`).
        let retried_delete = matches!(
            event,
            MetadataEvent::SegmentUpdated(update)
                if matches!(update.state, DeleteSegmentStarted | DeleteSegmentFinished)
        ) && matches!(theirs, Err(RemoteStorageError::NotFound { .. }));
        if retried_delete {
            assert!(ours.is_ok(), "{event:?}: {ours:?}");
            continue;
        }
        assert_eq!(
            ours.as_ref().map_err(RemoteStorageError::class),
            theirs.as_ref().map_err(RemoteStorageError::class),
            "{event:?}"
        );
    }
    let p = tp(0);
    assert_eq!(
        manager.list_remote_log_segments(&p).unwrap(),
        reference.list_remote_log_segments(&p).unwrap()
    );
    for epoch in 0..4 {
        let epoch = LeaderEpoch(epoch);
        assert_eq!(
            manager
                .list_remote_log_segments_by_epoch(&p, epoch)
                .unwrap(),
            reference
                .list_remote_log_segments_by_epoch(&p, epoch)
                .unwrap()
        );
        assert_eq!(
            manager.highest_offset_for_epoch(&p, epoch).unwrap(),
            reference.highest_offset_for_epoch(&p, epoch).unwrap()
        );
        assert_eq!(
            manager.remote_log_size(&p, epoch).unwrap(),
            reference.remote_log_size(&p, epoch).unwrap()
        );
        for offset in [0, 49, 50, 99, 100, 150, 199, 250] {
            assert_eq!(
                manager
                    .remote_log_segment_metadata(&p, epoch, offset)
                    .unwrap(),
                reference
                    .remote_log_segment_metadata(&p, epoch, offset)
                    .unwrap()
            );
            assert_eq!(
                manager
                    .next_segment_with_txn_index(&p, epoch, offset)
                    .unwrap(),
                reference
                    .next_segment_with_txn_index(&p, epoch, offset)
                    .unwrap()
            );
        }
    }
}

fn lifecycle() -> Vec<MetadataEvent> {
    use MetadataEvent::*;
    vec![
        SegmentAdded(seg(1, 0, 99, &[(0, 0), (1, 50)])),
        SegmentUpdated(upd(1, CopySegmentFinished)),
        SegmentUpdated(upd(1, CopySegmentFinished)),
        SegmentAdded(seg(2, 100, 199, &[(1, 100)])),
        // Refused: a segment cannot go back, or be added twice.
        SegmentUpdated(upd(2, CopySegmentStarted)),
        SegmentAdded(seg(2, 100, 199, &[(1, 100)])),
        SegmentUpdated(upd(2, DeleteSegmentFinished)),
        SegmentUpdated(upd(2, CopySegmentFinished)),
        SegmentAdded(seg(3, 200, 299, &[(2, 200)]).with_txn_index_empty(true)),
        SegmentUpdated(upd(3, DeleteSegmentStarted)),
        SegmentUpdated(upd(3, DeleteSegmentFinished)),
        SegmentUpdated(upd(3, DeleteSegmentFinished)),
        SegmentUpdated(upd(9, CopySegmentFinished)),
        PartitionDelete(RemotePartitionDeleteMetadata::new(
            tp(0),
            RemotePartitionDeleteState::DeletePartitionStarted,
            1,
            1,
        )),
        PartitionDelete(RemotePartitionDeleteMetadata::new(
            tp(0),
            RemotePartitionDeleteState::DeletePartitionMarked,
            1,
            1,
        )),
    ]
}

#[test]
fn answers_like_the_in_memory_manager_and_after_a_restart() {
    let bucket = Bucket::new();
    let config = StoreRlmmConfig {
        snapshot_every: 3,
        ..StoreRlmmConfig::default()
    };
    same_answers(&bucket.manager(config.clone()), &lifecycle());
    // A restarted broker answers the same from the store alone.
    let restarted = bucket.manager(config);
    let reference = InmemoryRemoteLogMetadataManager::new();
    for event in lifecycle() {
        let _ = match event {
            MetadataEvent::SegmentAdded(s) => reference.add_remote_log_segment_metadata(s),
            MetadataEvent::SegmentUpdated(u) => reference.update_remote_log_segment_metadata(u),
            MetadataEvent::PartitionDelete(d) => reference.put_remote_partition_delete_metadata(d),
        };
    }
    assert_eq!(
        restarted.list_remote_log_segments(&tp(0)).unwrap(),
        reference.list_remote_log_segments(&tp(0)).unwrap()
    );
    assert_eq!(
        restarted
            .remote_log_segment_metadata(&tp(0), LeaderEpoch(1), 99)
            .unwrap()
            .map(|s| s.remote_log_segment_id().id),
        Some(Uuid::from_u128(1))
    );
    // Only accepted events became records: 9 of 15.
    assert_eq!(restarted.applied(&tp(0)).unwrap(), 9);
}

#[test]
fn a_reader_replays_only_the_tail_after_the_newest_snapshot() {
    let bucket = Bucket::new();
    let config = StoreRlmmConfig {
        snapshot_every: 4,
        ..StoreRlmmConfig::default()
    };
    let leader = bucket.manager(config.clone());
    for id in 0..5u128 {
        let start = i64::try_from(id).unwrap() * 100;
        leader
            .add_remote_log_segment_metadata(seg(id + 1, start, start + 99, &[(0, start)]))
            .unwrap();
        leader
            .update_remote_log_segment_metadata(upd(id + 1, CopySegmentFinished))
            .unwrap();
    }
    let keys = bucket.keys();
    let snapshots: Vec<_> = keys.iter().filter(|k| k.contains("/snapshot/")).collect();
    assert_eq!(snapshots.len(), 2, "{keys:?}");
    let counted = leader.metrics();
    assert_eq!(counted.records_written(), 10);
    assert_eq!(counted.snapshots_written(), 2);
    assert_eq!(counted.fenced_writes(), 0);
    assert_eq!(counted.loads().count(), 1);
    // Its own records are not read back, and the load (one listing of an
    // empty directory) read none one by one.
    assert_eq!(counted.records_read(), 0);
    assert_eq!(counted.catch_ups(), 0);
    // Every record and snapshot is one create-only PUT of the store.
    let requests = leader.store_requests();
    assert_eq!(requests.count(Operation::Put, Outcome::Ok), 12);
    // Records the snapshots include are not read: without them the state
    // is the same.
    for key in keys.iter().filter(|k| k.contains("/log/")) {
        if !key.ends_with("09") && !key.ends_with("10") {
            bucket.delete(key);
        }
    }
    let shared = Arc::new(MetadataMetrics::new());
    let restarted = bucket.manager(config).with_metrics(Arc::clone(&shared));
    assert_eq!(restarted.list_remote_log_segments(&tp(0)).unwrap().len(), 5);
    // A load from the snapshot through 8, then records 9 and 10.
    assert_eq!(shared.loads().count(), 1);
    assert_eq!(shared.records_read(), 2);
    assert_eq!(shared.records_written(), 0);
    assert_eq!(
        restarted
            .highest_offset_for_epoch(&tp(0), LeaderEpoch(0))
            .unwrap(),
        Some(499)
    );
    assert_eq!(restarted.applied(&tp(0)).unwrap(), 10);
}

#[test]
fn two_leaders_cannot_both_extend_a_history() {
    let bucket = Bucket::new();
    let (a, b) = (bucket.broker(), bucket.broker());
    let both = HashSet::from([tp(0)]);
    a.on_partition_leadership_changes(&both, &HashSet::new());
    b.on_partition_leadership_changes(&both, &HashSet::new());
    assert!(a.list_remote_log_segments(&tp(0)).unwrap().is_empty());
    assert!(b.list_remote_log_segments(&tp(0)).unwrap().is_empty());
    a.add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    // B still believes the history is empty: its write loses the race for
    // position 1, and it reads the history again.
    let fenced = b.add_remote_log_segment_metadata(seg(2, 0, 99, &[(1, 0)]));
    assert!(
        matches!(fenced, Err(RemoteStorageError::Fenced { sequence: 1, .. })),
        "{fenced:?}"
    );
    assert_eq!(b.metrics().fenced_writes(), 1);
    assert_eq!(b.metrics().records_written(), 0);
    // Loaded at leadership, then again after losing the race.
    assert_eq!(b.metrics().loads().count(), 2);
    assert_eq!(a.metrics().fenced_writes(), 0);
    assert_eq!(
        b.store_requests().count(Operation::Put, Outcome::Conflict),
        1
    );
    assert_eq!(b.list_remote_log_segments(&tp(0)).unwrap().len(), 1);
    // The record B meant to write is nowhere.
    assert_eq!(a.applied(&tp(0)).unwrap(), 1);
    // Deciding again against the new state succeeds, and A sees it once it
    // reads (it led, so it reads on a miss or a refused write).
    b.add_remote_log_segment_metadata(seg(2, 0, 99, &[(1, 0)]))
        .unwrap();
    a.update_remote_log_segment_metadata(upd(2, CopySegmentFinished))
        .unwrap();
    assert_eq!(a.applied(&tp(0)).unwrap(), 3);
    assert_eq!(
        a.remote_log_segment_metadata(&tp(0), LeaderEpoch(1), 5)
            .unwrap()
            .map(|s| s.state()),
        Some(CopySegmentFinished)
    );
}

#[test]
fn racing_threads_of_two_brokers_keep_one_linear_history() {
    let bucket = Bucket::new();
    let brokers = [bucket.broker(), bucket.broker()];
    std::thread::scope(|scope| {
        for (index, broker) in brokers.iter().enumerate() {
            scope.spawn(move || {
                for n in 0..20u128 {
                    let id = 1000 * (index as u128 + 1) + n;
                    let start = i64::try_from(id).unwrap() * 1000;
                    let segment = seg(id, start, start + 9, &[(0, start)]);
                    // Retry on fencing, as the broker's next task run does.
                    loop {
                        match broker.add_remote_log_segment_metadata(segment.clone()) {
                            Ok(()) => break,
                            Err(RemoteStorageError::Fenced { .. }) => {}
                            Err(other) => panic!("{other}"),
                        }
                    }
                }
            });
        }
    });
    let reader = bucket.broker();
    assert_eq!(reader.list_remote_log_segments(&tp(0)).unwrap().len(), 40);
    assert_eq!(reader.applied(&tp(0)).unwrap(), 40);
}

#[test]
fn a_follower_sees_the_leaders_writes_by_reading_through_and_polling() {
    let bucket = Bucket::new();
    let leader = bucket.broker();
    let follower = bucket.manager(StoreRlmmConfig {
        poll_interval: Duration::ZERO,
        ..StoreRlmmConfig::default()
    });
    follower.on_partition_leadership_changes(&HashSet::new(), &HashSet::from([tp(0)]));
    assert_eq!(
        follower
            .highest_offset_for_epoch(&tp(0), LeaderEpoch(0))
            .unwrap(),
        None
    );
    leader
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    leader
        .update_remote_log_segment_metadata(upd(1, CopySegmentFinished))
        .unwrap();
    let polls = follower.metrics().catch_ups();
    // A poll interval of zero: the next question reads the new records.
    assert_eq!(
        follower
            .highest_offset_for_epoch(&tp(0), LeaderEpoch(0))
            .unwrap(),
        Some(99)
    );
    assert!(follower.metrics().catch_ups() > polls);
    assert_eq!(follower.metrics().records_read(), 2);
    // A follower that becomes leader continues the history.
    follower.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    follower
        .update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted))
        .unwrap();
    assert_eq!(follower.applied(&tp(0)).unwrap(), 3);
}

#[test]
fn an_update_of_a_segment_another_broker_added_reads_through() {
    let bucket = Bucket::new();
    let (old, new) = (bucket.broker(), bucket.broker());
    new.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    assert!(new.list_remote_log_segments(&tp(0)).unwrap().is_empty());
    old.add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    // `new` never saw the add, yet the update is not a miss.
    new.update_remote_log_segment_metadata(upd(1, CopySegmentFinished))
        .unwrap();
    assert!(matches!(
        new.update_remote_log_segment_metadata(upd(7, CopySegmentFinished)),
        Err(RemoteStorageError::NotFound { .. })
    ));
}

#[test]
fn a_delete_retried_after_another_broker_finished_it_succeeds_without_a_record() {
    let bucket = Bucket::new();
    let (old, new) = (bucket.broker(), bucket.broker());
    old.add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    old.update_remote_log_segment_metadata(upd(1, CopySegmentFinished))
        .unwrap();
    old.update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted))
        .unwrap();
    // `new` took over while the delete ran and finished it.
    new.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    new.update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted))
        .unwrap();
    new.update_remote_log_segment_metadata(upd(1, DeleteSegmentFinished))
        .unwrap();
    let written = new.applied(&tp(0)).unwrap();
    // The old leader's delete, still running, ends; so does a retry on
    // either broker: no error, no record, counted.
    old.update_remote_log_segment_metadata(upd(1, DeleteSegmentFinished))
        .unwrap();
    new.update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted))
        .unwrap();
    assert_eq!(old.applied(&tp(0)).unwrap(), written);
    assert_eq!(new.applied(&tp(0)).unwrap(), written);
    assert_eq!(old.metrics().deletes_of_absent_segments(), 1);
    assert_eq!(new.metrics().deletes_of_absent_segments(), 1);
    assert!(new.list_remote_log_segments(&tp(0)).unwrap().is_empty());
    // A copy finished for a segment the history does not hold is still a
    // miss: it must not look tiered.
    assert!(matches!(
        old.update_remote_log_segment_metadata(upd(1, CopySegmentFinished)),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert!(matches!(
        new.update_remote_log_segment_metadata(upd(9, CopySegmentFinished)),
        Err(RemoteStorageError::NotFound { .. })
    ));
}

#[test]
fn readiness_follows_loading_and_a_stop_forgets_only_memory() {
    let bucket = Bucket::new();
    let broker = bucket.broker();
    broker
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    let other = bucket.broker();
    // Loading for readiness happens on the asking thread when nobody else
    // is loading.
    assert!(other.is_ready(&tp(0)));
    other.on_stop_partitions(&HashSet::from([tp(0)]));
    assert_eq!(other.list_remote_log_segments(&tp(0)).unwrap().len(), 1);
}

#[test]
fn a_leadership_change_loads_partitions_concurrently() {
    use std::sync::atomic::Ordering::SeqCst;
    let store = crate::test_store::instrumented();
    let handle = || StoreHandle::new(store.clone(), None).unwrap();
    let writer = StoreRemoteLogMetadataManager::new(handle(), StoreRlmmConfig::default());
    let partitions: HashSet<_> = (0..4).map(tp).collect();
    for partition in &partitions {
        let segment = SegmentMetadataBuilder::new(partition, 0)
            .segment_id(Uuid::from_u128(
                10 + u128::from(partition.partition.unsigned_abs()),
            ))
            .end_offset(99)
            .size(100)
            .epochs([(LeaderEpoch(0), 0)])
            .build();
        writer.add_remote_log_segment_metadata(segment).unwrap();
    }
    // A restarted broker whose store answers a read only once two reads
    // were in flight together: loading one partition after the other never
    // gets past its first read (for a minute).
    store.stats.max_gets_in_flight.store(0, SeqCst);
    store.stats.get_rendezvous.store(2, SeqCst);
    let restarted = StoreRemoteLogMetadataManager::new(handle(), StoreRlmmConfig::default());
    restarted.on_partition_leadership_changes(&partitions, &HashSet::new());
    let deadline = Instant::now() + Duration::from_secs(90);
    while store.stats.max_gets_in_flight.load(SeqCst) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        store.stats.max_gets_in_flight.load(SeqCst) >= 2,
        "the partitions were loaded one after the other"
    );
    store.stats.get_rendezvous.store(0, SeqCst);
    for partition in &partitions {
        let listed = restarted.list_remote_log_segments(partition).unwrap();
        assert_eq!(listed.len(), 1, "{partition}");
        assert_eq!(listed[0].topic_id_partition(), partition);
    }
}

#[test]
fn the_partitions_loaded_at_once_are_as_many_as_the_load_concurrency() {
    use std::sync::atomic::Ordering::SeqCst;
    let store = crate::test_store::instrumented();
    let handle = || StoreHandle::new(store.clone(), None).unwrap();
    let writer = StoreRemoteLogMetadataManager::new(handle(), StoreRlmmConfig::default());
    let partitions: HashSet<_> = (0..12).map(tp).collect();
    for partition in &partitions {
        let segment = SegmentMetadataBuilder::new(partition, 0)
            .segment_id(Uuid::from_u128(
                10 + u128::from(partition.partition.unsigned_abs()),
            ))
            .end_offset(99)
            .size(100)
            .epochs([(LeaderEpoch(0), 0)])
            .build();
        writer.add_remote_log_segment_metadata(segment).unwrap();
    }
    // Each load lists the partition and reads its one record, one GET at a
    // time; the first GETs wait until three are in flight together, and
    // every GET then takes a while, so loads beyond the bound would overlap.
    store.stats.max_gets_in_flight.store(0, SeqCst);
    store.stats.get_rendezvous.store(3, SeqCst);
    store.stats.get_delay_ms.store(20, SeqCst);
    let restarted = StoreRemoteLogMetadataManager::new(
        handle(),
        StoreRlmmConfig {
            load_concurrency: 3,
            ..StoreRlmmConfig::default()
        },
    );
    restarted.on_partition_leadership_changes(&partitions, &HashSet::new());
    let deadline = Instant::now() + Duration::from_secs(90);
    while !partitions.iter().all(|p| restarted.is_ready(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(partitions.iter().all(|p| restarted.is_ready(p)));
    assert_eq!(store.stats.max_gets_in_flight.load(SeqCst), 3);
    store.stats.get_rendezvous.store(0, SeqCst);
    store.stats.get_delay_ms.store(0, SeqCst);
}

#[test]
fn a_restart_reads_the_listed_tail_together_and_then_what_came_after() {
    use std::sync::atomic::Ordering::SeqCst;
    let store = crate::test_store::instrumented();
    let handle = || StoreHandle::new(store.clone(), None).unwrap();
    let leader = StoreRemoteLogMetadataManager::new(handle(), StoreRlmmConfig::default());
    for id in 0..3u128 {
        let start = i64::try_from(id).unwrap() * 100;
        leader
            .add_remote_log_segment_metadata(seg(id + 1, start, start + 99, &[(0, start)]))
            .unwrap();
        leader
            .update_remote_log_segment_metadata(upd(id + 1, CopySegmentFinished))
            .unwrap();
    }
    // Every read waits until two were in flight together: reading the six
    // records one after the other never gets past the first (for a minute).
    store.stats.max_gets_in_flight.store(0, SeqCst);
    store.stats.get_rendezvous.store(2, SeqCst);
    let follower = StoreRlmmConfig {
        poll_interval: Duration::ZERO,
        ..StoreRlmmConfig::default()
    };
    let restarted = StoreRemoteLogMetadataManager::new(handle(), follower);
    assert_eq!(restarted.applied(&tp(0)).unwrap(), 6);
    assert!(store.stats.max_gets_in_flight.load(SeqCst) >= 2);
    store.stats.get_rendezvous.store(0, SeqCst);
    // A record written after the listing is read one by one, as by a
    // follower.
    leader
        .add_remote_log_segment_metadata(seg(4, 300, 399, &[(0, 300)]))
        .unwrap();
    assert_eq!(restarted.list_remote_log_segments(&tp(0)).unwrap().len(), 4);
    assert_eq!(restarted.applied(&tp(0)).unwrap(), 7);
}

#[test]
fn deletes_are_records_and_nothing_is_erased() {
    let bucket = Bucket::new();
    let broker = bucket.broker();
    broker
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    for state in [DeleteSegmentStarted, DeleteSegmentFinished] {
        broker
            .update_remote_log_segment_metadata(upd(1, state))
            .unwrap();
    }
    assert!(broker.list_remote_log_segments(&tp(0)).unwrap().is_empty());
    let keys = bucket.keys();
    assert_eq!(
        keys.iter().filter(|k| k.contains("/log/")).count(),
        3,
        "{keys:?}"
    );
}

#[test]
fn a_corrupt_record_is_an_error_not_a_panic() {
    let bucket = Bucket::new();
    let broker = bucket.broker();
    broker
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    let store = bucket.0.clone();
    let runtime = krabka_object_store::store::StoreRuntime::new(1).unwrap();
    let key =
        Path::from("tier/remote-log-metadata/AAAAAAAAAAAAAAAAAAAAAQ-0/log/00000000000000000002");
    runtime
        .block_on(async move {
            store
                .put(&key, b"KRMR\x01garbage".to_vec().into())
                .await
                .unwrap();
            Ok(())
        })
        .unwrap();
    let restarted = bucket.broker();
    assert!(matches!(
        restarted.list_remote_log_segments(&tp(0)),
        Err(RemoteStorageError::Corrupt { .. })
    ));
}

#[test]
fn on_the_filesystem_a_staged_file_is_never_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let config = ObjectStoreConfig::Local {
        root: dir.path().to_owned(),
    };
    let manager = || {
        StoreRemoteLogMetadataManager::new(
            StoreHandle::from_config(&config).unwrap(),
            StoreRlmmConfig::default(),
        )
    };
    manager()
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    // What a writer killed mid-write leaves: a staging file beside the key
    // of the next record, with a partial record in it.
    let log = dir
        .path()
        .join("remote-log-metadata/AAAAAAAAAAAAAAAAAAAAAQ-0/log");
    let whole = std::fs::read(log.join("00000000000000000001")).unwrap();
    std::fs::write(
        log.join("00000000000000000002#1"),
        &whole[..whole.len() / 2],
    )
    .unwrap();
    let restarted = manager();
    assert_eq!(restarted.applied(&tp(0)).unwrap(), 1);
    restarted
        .update_remote_log_segment_metadata(upd(1, CopySegmentFinished))
        .unwrap();
    assert_eq!(manager().applied(&tp(0)).unwrap(), 2);
}

/// `events` lifecycle events on partition 0: segments added and finished.
fn write_segments(manager: &StoreRemoteLogMetadataManager, segments: u128) {
    for id in 0..segments {
        let start = i64::try_from(id).unwrap() * 100;
        manager
            .add_remote_log_segment_metadata(seg(id + 1, start, start + 99, &[(0, start)]))
            .unwrap();
        manager
            .update_remote_log_segment_metadata(upd(id + 1, CopySegmentFinished))
            .unwrap();
    }
}

/// The record and snapshot positions of partition 0 in `keys`.
fn positions(keys: &[String]) -> (Vec<u64>, Vec<u64>) {
    let of = |dir: &str| {
        let mut found: Vec<u64> = keys
            .iter()
            .filter(|k| k.contains(&format!("-0/{dir}/")))
            .map(|k| k.rsplit('/').next().unwrap().parse().unwrap())
            .collect();
        found.sort_unstable();
        found
    };
    (of("log"), of("snapshot"))
}

#[test]
fn snapshots_compact_the_history_keeping_one_snapshot_of_records_behind() {
    let bucket = Bucket::new();
    let config = StoreRlmmConfig {
        snapshot_every: 4,
        ..StoreRlmmConfig::default()
    };
    let leader = bucket.manager(config.clone());
    write_segments(&leader, 10);
    // Records 1..=20, snapshots at 4, 8, 12, 16, 20; each new snapshot
    // deleted what the one before it covers.
    let (records, snapshots) = positions(&bucket.keys());
    assert_eq!(records, (17..=20).collect::<Vec<_>>());
    assert_eq!(snapshots, vec![16, 20]);
    // Records 1..=16 and snapshots 4, 8, 12.
    assert_eq!(leader.metrics().objects_compacted(), 19);
    // Another broker reads the same state from what is left.
    let other = bucket.manager(config);
    same_listing(&other, &leader);
    assert_eq!(other.applied(&tp(0)).unwrap(), 20);
}

fn same_listing(a: &StoreRemoteLogMetadataManager, b: &StoreRemoteLogMetadataManager) {
    assert_eq!(
        a.list_remote_log_segments(&tp(0)).unwrap(),
        b.list_remote_log_segments(&tp(0)).unwrap()
    );
    for offset in [0, 250, 999] {
        assert_eq!(
            a.remote_log_segment_metadata(&tp(0), LeaderEpoch(0), offset)
                .unwrap(),
            b.remote_log_segment_metadata(&tp(0), LeaderEpoch(0), offset)
                .unwrap()
        );
    }
}

#[test]
fn an_archive_or_an_operator_keeps_the_whole_history() {
    for keep in [false, true] {
        let bucket = Bucket::new();
        if !keep {
            // What a write-once archive leaves under the same prefix.
            let store = bucket.0.clone();
            let runtime = krabka_object_store::store::StoreRuntime::new(1).unwrap();
            runtime
                .block_on(async move {
                    store
                        .put(
                            &Path::from("tier/_krabka-worm-probe/p"),
                            b"probe".to_vec().into(),
                        )
                        .await
                        .unwrap();
                    Ok(())
                })
                .unwrap();
        }
        let manager = bucket.manager(StoreRlmmConfig {
            snapshot_every: 4,
            keep_history: keep,
            ..StoreRlmmConfig::default()
        });
        write_segments(&manager, 10);
        let (records, snapshots) = positions(&bucket.keys());
        assert_eq!(records, (1..=20).collect::<Vec<_>>(), "keep={keep}");
        assert_eq!(snapshots, vec![4, 8, 12, 16, 20]);
        assert_eq!(manager.metrics().objects_compacted(), 0);
        // A deleted topic's history stays too.
        for id in 1..=10u128 {
            for state in [DeleteSegmentStarted, DeleteSegmentFinished] {
                manager
                    .update_remote_log_segment_metadata(upd(id, state))
                    .unwrap();
            }
        }
        assert!(matches!(
            manager.erase_deleted_partition(&tp(0)).unwrap(),
            HistoryErasure::Kept(_)
        ));
        assert_eq!(positions(&bucket.keys()).0.len(), 40);
    }
}

#[test]
fn a_restart_after_a_hand_over_is_one_listing_and_one_read() {
    let bucket = Bucket::new();
    let leader = bucket.broker();
    leader.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    assert!(wait_ready(&leader, &tp(0)));
    write_segments(&leader, 5);
    // Ten records, no snapshot yet (one every 32).
    assert_eq!(positions(&bucket.keys()).1, Vec::<u64>::new());
    leader.close();
    // Closing leaves the partition at a snapshot and compacted to it: the
    // snapshot and its last record.
    assert_eq!(positions(&bucket.keys()), (vec![10], vec![10]));

    let restarted = bucket.broker();
    assert_eq!(restarted.list_remote_log_segments(&tp(0)).unwrap().len(), 5);
    let requests = restarted.store_requests();
    assert_eq!(
        requests.count(Operation::List, Outcome::Ok),
        2,
        "the listing, and the archive probe check"
    );
    assert_eq!(requests.count(Operation::Get, Outcome::Ok), 1);
    assert_eq!(requests.count(Operation::Get, Outcome::NotFound), 0);
    assert_eq!(restarted.metrics().records_read(), 0);

    // A partition stopped (moved away) is also left at a snapshot, and
    // compacted to it.
    let mover = bucket.broker();
    mover.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    assert!(wait_ready(&mover, &tp(0)));
    mover
        .add_remote_log_segment_metadata(seg(6, 500, 599, &[(0, 500)]))
        .unwrap();
    mover.on_stop_partitions(&HashSet::from([tp(0)]));
    let deadline = Instant::now() + Duration::from_secs(30);
    while positions(&bucket.keys()) != (vec![11], vec![11]) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(positions(&bucket.keys()), (vec![11], vec![11]));
    // The next leader finds the record before its own and writes on.
    let next = bucket.broker();
    next.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    assert!(wait_ready(&next, &tp(0)));
    next.update_remote_log_segment_metadata(upd(6, CopySegmentFinished))
        .unwrap();
    assert_eq!(next.applied(&tp(0)).unwrap(), 12);
    assert_eq!(next.list_remote_log_segments(&tp(0)).unwrap().len(), 6);
}

fn wait_ready(manager: &StoreRemoteLogMetadataManager, partition: &TopicIdPartition) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !manager.is_ready(partition) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

#[test]
fn a_deleted_partitions_history_is_erased_once_no_segment_is_left() {
    let bucket = Bucket::new();
    let broker = bucket.manager(StoreRlmmConfig {
        snapshot_every: 4,
        ..StoreRlmmConfig::default()
    });
    assert_eq!(
        broker.erase_deleted_partition(&tp(0)).unwrap(),
        HistoryErasure::Absent
    );
    write_segments(&broker, 3);
    // Another partition of the same store is not touched.
    let other = TopicIdPartition::new(Uuid::from_u128(9), "other", 0);
    let other_segment = SegmentMetadataBuilder::new(&other, 0)
        .segment_id(Uuid::from_u128(99))
        .end_offset(9)
        .size(10)
        .epochs([(LeaderEpoch(0), 0)])
        .build();
    broker
        .add_remote_log_segment_metadata(other_segment)
        .unwrap();
    // Segments 1 and 2 deleted, 3 not yet: the leader is still at it.
    for id in [1u128, 2] {
        for state in [DeleteSegmentStarted, DeleteSegmentFinished] {
            broker
                .update_remote_log_segment_metadata(upd(id, state))
                .unwrap();
        }
    }
    let kept = broker.erase_deleted_partition(&tp(0)).unwrap();
    assert!(
        matches!(&kept, HistoryErasure::Pending(reason) if reason.starts_with("1 of its segments")),
        "{kept:?}"
    );
    for state in [DeleteSegmentStarted, DeleteSegmentFinished] {
        broker
            .update_remote_log_segment_metadata(upd(3, state))
            .unwrap();
    }
    let erased = broker.erase_deleted_partition(&tp(0)).unwrap();
    assert!(
        matches!(erased, HistoryErasure::Erased(n) if n > 0),
        "{erased:?}"
    );
    let keys = bucket.keys();
    assert!(
        keys.iter().all(|k| !k.contains("AAAAAAAAAAAAAAAAAAAAAQ-0")),
        "{keys:?}"
    );
    assert_eq!(
        keys.iter()
            .filter(|k| k.contains("AAAAAAAAAAAAAAAAAAAACQ-0/log/"))
            .count(),
        1,
        "{keys:?}"
    );
    assert_eq!(broker.metrics().histories_erased(), 1);
    // Erasing again finds nothing.
    assert_eq!(
        broker.erase_deleted_partition(&tp(0)).unwrap(),
        HistoryErasure::Absent
    );
}

#[test]
fn a_writer_behind_a_compaction_is_fenced_not_written_below_it() {
    let bucket = Bucket::new();
    let config = StoreRlmmConfig {
        snapshot_every: 4,
        ..StoreRlmmConfig::default()
    };
    let stale = bucket.manager(config.clone());
    stale
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    // Another broker writes on, snapshots and compacts records 1..=12.
    let other = bucket.manager(config.clone());
    other
        .update_remote_log_segment_metadata(upd(1, CopySegmentFinished))
        .unwrap();
    for id in 2..=10u128 {
        let start = i64::try_from(id).unwrap() * 100;
        other
            .add_remote_log_segment_metadata(seg(id, start, start + 99, &[(0, start)]))
            .unwrap();
        other
            .update_remote_log_segment_metadata(upd(id, CopySegmentFinished))
            .unwrap();
    }
    assert!(!positions(&bucket.keys()).0.contains(&2));
    // The stale broker's next position (2) is free again: creating it must
    // not count as extending the history.
    assert!(matches!(
        stale.update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted)),
        Err(RemoteStorageError::Fenced { .. })
    ));
    stale
        .update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted))
        .unwrap();
    let reader = bucket.manager(config);
    assert_eq!(reader.applied(&tp(0)).unwrap(), 21);
    let listed = reader.list_remote_log_segments(&tp(0)).unwrap();
    assert_eq!(listed.len(), 10);
    assert_eq!(listed[0].start_offset(), 0);
    assert_eq!(listed[0].state(), DeleteSegmentStarted);
}

#[test]
fn a_writer_behind_a_close_is_fenced_not_written_below_it() {
    let bucket = Bucket::new();
    let stale = bucket.broker();
    stale
        .add_remote_log_segment_metadata(seg(1, 0, 99, &[(0, 0)]))
        .unwrap();
    // The leader writes on to record 10 and closes: a snapshot through 10,
    // and only it and record 10 stay.
    let leader = bucket.broker();
    leader.on_partition_leadership_changes(&HashSet::from([tp(0)]), &HashSet::new());
    assert!(wait_ready(&leader, &tp(0)));
    leader
        .update_remote_log_segment_metadata(upd(1, CopySegmentFinished))
        .unwrap();
    write_more(&leader, 2..=5);
    leader.close();
    assert_eq!(positions(&bucket.keys()), (vec![10], vec![10]));
    // The stale broker's next position (2) is free again: creating it must
    // not count as extending the history.
    assert!(matches!(
        stale.update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted)),
        Err(RemoteStorageError::Fenced { .. })
    ));
    stale
        .update_remote_log_segment_metadata(upd(1, DeleteSegmentStarted))
        .unwrap();
    let reader = bucket.broker();
    assert_eq!(reader.applied(&tp(0)).unwrap(), 11);
    assert_eq!(
        reader.list_remote_log_segments(&tp(0)).unwrap()[0].state(),
        DeleteSegmentStarted
    );
}

/// Copied segments `ids` of partition 0, 100 offsets each.
fn write_more(manager: &StoreRemoteLogMetadataManager, ids: std::ops::RangeInclusive<u128>) {
    for id in ids {
        let start = i64::try_from(id).unwrap() * 100;
        manager
            .add_remote_log_segment_metadata(seg(id, start, start + 99, &[(0, start)]))
            .unwrap();
        manager
            .update_remote_log_segment_metadata(upd(id, CopySegmentFinished))
            .unwrap();
    }
}

/// `count` copied segments of partition `partition`.
fn write_partition(manager: &StoreRemoteLogMetadataManager, partition: i32, count: u128) {
    for id in 0..count {
        let start = i64::try_from(id).unwrap() * 100;
        let segment_id = u128::try_from(partition).unwrap() * 1_000 + id + 1;
        manager
            .add_remote_log_segment_metadata(
                SegmentMetadataBuilder::new(&tp(partition), start)
                    .segment_id(Uuid::from_u128(segment_id))
                    .end_offset(start + 99)
                    .size(100)
                    .epochs([(LeaderEpoch(0), start)])
                    .build(),
            )
            .unwrap();
        manager
            .update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate::new(
                RemoteLogSegmentId::new(tp(partition), Uuid::from_u128(segment_id)),
                7,
                None,
                CopySegmentFinished,
                2,
            ))
            .unwrap();
    }
}

/// A broker with id `id` over `bucket`, listing partitions in ranges.
fn numbered(bucket: &Bucket, id: i32) -> StoreRemoteLogMetadataManager {
    bucket
        .manager(StoreRlmmConfig {
            broker_id: Some(id),
            snapshot_every: 8,
            ..StoreRlmmConfig::default()
        })
        .listing_ranges()
}

/// Leadership of `partitions` reported to `manager`, then every one ready.
fn lead(manager: &StoreRemoteLogMetadataManager, partitions: &[TopicIdPartition]) {
    manager.on_partition_leadership_changes(&partitions.iter().cloned().collect(), &HashSet::new());
    for partition in partitions {
        assert!(wait_ready(manager, partition), "{partition}");
    }
}

#[test]
fn a_restart_from_a_checkpoint_reads_a_few_objects_for_every_partition() {
    let bucket = Bucket::new();
    let partitions: Vec<_> = (0..100).map(tp).collect();
    let broker = numbered(&bucket, 1);
    lead(&broker, &partitions);
    for partition in 0..100 {
        // 3 segments: 6 records, below a snapshot (every 8).
        write_partition(&broker, partition, 3);
    }
    broker.close();
    assert_eq!(broker.metrics().checkpoints_written(), 1);
    assert!(
        bucket
            .keys()
            .iter()
            .any(|key| key.starts_with("tier/remote-log-metadata/_checkpoints/1/")),
        "{:?}",
        bucket.keys()
    );

    let restarted = numbered(&bucket, 1);
    lead(&restarted, &partitions);
    for partition in &partitions {
        let listed = restarted.list_remote_log_segments(partition).unwrap();
        assert_eq!(listed.len(), 3, "{partition}");
        assert!(listed.iter().all(|s| s.state() == CopySegmentFinished));
    }
    assert_eq!(restarted.metrics().checkpoint_loads(), 100);
    assert_eq!(restarted.metrics().records_read(), 0);
    let requests = restarted.store_requests();
    assert_eq!(
        requests.count(Operation::Get, Outcome::Ok),
        1,
        "the checkpoint's one part, and no snapshot"
    );
    // The archive probe check, the checkpoint's listing, and 64 ranges at
    // most: never one a partition.
    let lists = requests.count(Operation::List, Outcome::Ok);
    assert!(lists <= 2 + 64, "{lists} listings");

    // Without ranges (a filesystem), one listing a partition and still no
    // snapshot read.
    restarted.close();
    let alone = bucket.manager(StoreRlmmConfig {
        broker_id: Some(1),
        snapshot_every: 8,
        ..StoreRlmmConfig::default()
    });
    lead(&alone, &partitions);
    assert_eq!(alone.list_remote_log_segments(&tp(42)).unwrap().len(), 3);
    assert_eq!(alone.metrics().checkpoint_loads(), 100);
    assert_eq!(alone.store_requests().count(Operation::Get, Outcome::Ok), 1);
}

#[test]
fn a_checkpoint_behind_the_history_gives_way_to_what_was_written_since() {
    let bucket = Bucket::new();
    let partitions: Vec<_> = (0..4).map(tp).collect();
    let first = numbered(&bucket, 1);
    lead(&first, &partitions);
    for partition in 0..4 {
        write_partition(&first, partition, 2);
    }
    first.close();

    // While broker 1 is down, broker 2 leads: partition 1 gets one more
    // segment (a record after the checkpoint), partition 2 ten more (a newer
    // snapshot, the checkpoint's records compacted away), partition 3's
    // history is erased by hand (shorter than the checkpoint says).
    let second = numbered(&bucket, 2);
    lead(&second, &partitions);
    let more = |partition: i32, count: u128| {
        for id in 0..count {
            let start = 1_000 + i64::try_from(id).unwrap() * 100;
            let segment_id = 900_000 + u128::try_from(partition).unwrap() * 1_000 + id;
            second
                .add_remote_log_segment_metadata(
                    SegmentMetadataBuilder::new(&tp(partition), start)
                        .segment_id(Uuid::from_u128(segment_id))
                        .end_offset(start + 99)
                        .size(100)
                        .epochs([(LeaderEpoch(1), start)])
                        .build(),
                )
                .unwrap();
        }
    };
    more(1, 1);
    more(2, 10);
    // Broker 2 dies: no snapshot on its way out.
    drop(second);
    for key in bucket.keys() {
        if key.contains(&format!(
            "{}-3/",
            krabka_kafka::kafka_uuid(Uuid::from_u128(1))
        )) {
            bucket.delete(&key);
        }
    }

    let restarted = numbered(&bucket, 1);
    lead(&restarted, &partitions);
    let count = |partition: i32| {
        restarted
            .list_remote_log_segments(&tp(partition))
            .unwrap()
            .len()
    };
    assert_eq!(count(0), 2);
    assert_eq!(count(1), 3);
    assert_eq!(count(2), 12);
    assert_eq!(
        count(3),
        0,
        "the history is gone: the checkpoint must not bring it back"
    );
    // Partitions 0 and 1 start from the checkpoint; 2 and 3 from their
    // histories.
    assert_eq!(restarted.metrics().checkpoint_loads(), 2);
}

#[test]
fn an_unreadable_checkpoint_leaves_every_partition_to_its_history() {
    let bucket = Bucket::new();
    let partitions: Vec<_> = (0..3).map(tp).collect();
    let broker = numbered(&bucket, 1);
    lead(&broker, &partitions);
    for partition in 0..3 {
        write_partition(&broker, partition, 2);
    }
    broker.close();
    let part = bucket
        .keys()
        .into_iter()
        .find(|key| key.contains("/_checkpoints/1/"))
        .unwrap();
    let store = bucket.0.clone();
    krabka_object_store::store::StoreRuntime::new(1)
        .unwrap()
        .block_on(async move {
            store
                .put(
                    &Path::from(part),
                    b"KRMC\x01\0\0\0\x09garbage".to_vec().into(),
                )
                .await
                .unwrap();
            Ok(())
        })
        .unwrap();
    let restarted = numbered(&bucket, 1);
    lead(&restarted, &partitions);
    for partition in &partitions {
        assert_eq!(
            restarted.list_remote_log_segments(partition).unwrap().len(),
            2
        );
    }
    assert_eq!(restarted.metrics().checkpoint_loads(), 0);
}
