//! Many threads adding, updating, reading and exporting an
//! `InmemoryRemoteLogMetadataManager` at once.

mod support;

use {
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        InmemoryRemoteLogMetadataManager, RemoteLogMetadataManager, RemoteLogSegmentId,
        RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
        RemoteLogSegmentState::{self, *},
        RemoteStorageError, TopicIdPartition,
    },
    std::{
        collections::BTreeMap,
        sync::atomic::{AtomicBool, AtomicUsize, Ordering},
        thread,
    },
    support::SegmentMetadataBuilder,
    uuid::Uuid,
};

const PARTITIONS: i32 = 6;
const SEGMENTS: i64 = 60;
const READERS: usize = 4;

fn tp(partition: i32) -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(0x7070), "events", partition)
}

fn id(partition: i32, n: u128) -> RemoteLogSegmentId {
    RemoteLogSegmentId::new(tp(partition), Uuid::from_u128(n))
}

fn segment(
    id: RemoteLogSegmentId,
    start: i64,
    end: i64,
    epochs: BTreeMap<LeaderEpoch, i64>,
    txn_index_empty: bool,
) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::with_id(id, start)
        .end_offset(end)
        .size(10)
        .epochs(epochs)
        .txn_index_empty(txn_index_empty)
        .build()
}

fn update(id: RemoteLogSegmentId, state: RemoteLogSegmentState) -> RemoteLogSegmentMetadataUpdate {
    RemoteLogSegmentMetadataUpdate::new(id, 1, None, state, 1)
}

/// Segment `k` covers `[10k, 10k + 9]` in epoch `k / 20`; the last segment
/// of each epoch also starts the next one at `10k + 5`.
fn main_segment(partition: i32, k: i64) -> RemoteLogSegmentMetadata {
    let epoch = i32::try_from(k / 20).unwrap();
    let start = 10 * k;
    let mut epochs = BTreeMap::from([(LeaderEpoch(epoch), start)]);
    if k % 20 == 19 {
        epochs.insert(LeaderEpoch(epoch + 1), start + 5);
    }
    segment(
        id(partition, u128::try_from(k).unwrap()),
        start,
        start + 9,
        epochs,
        k % 4 != 0,
    )
}

/// An old leader's narrower upload of `[10k, 10k + 4]`, for `k % 10 == 5`.
fn old_leader_segment(partition: i32, k: i64) -> Option<RemoteLogSegmentMetadata> {
    (k % 10 == 5).then(|| {
        let epoch = i32::try_from(k / 20).unwrap();
        segment(
            id(partition, 1000 + u128::try_from(k).unwrap()),
            10 * k,
            10 * k + 4,
            BTreeMap::from([(LeaderEpoch(epoch), 10 * k)]),
            true,
        )
    })
}

/// The state segment `k` ends in (`None`: delete finished, gone).
fn final_state(k: i64) -> Option<RemoteLogSegmentState> {
    match (k % 3, k % 6) {
        (_, 0) => None,
        (0, _) => Some(DeleteSegmentStarted),
        _ => Some(CopySegmentFinished),
    }
}

fn write_partition(manager: &InmemoryRemoteLogMetadataManager, partition: i32) {
    for k in 0..SEGMENTS {
        let main = main_segment(partition, k);
        let main_id = main.remote_log_segment_id().clone();
        manager.add_remote_log_segment_metadata(main).unwrap();
        if let Some(old) = old_leader_segment(partition, k) {
            let old_id = old.remote_log_segment_id().clone();
            manager.add_remote_log_segment_metadata(old).unwrap();
            manager
                .update_remote_log_segment_metadata(update(old_id, CopySegmentFinished))
                .unwrap();
        }
        for state in [CopySegmentFinished, CopySegmentFinished] {
            manager
                .update_remote_log_segment_metadata(update(main_id.clone(), state))
                .unwrap();
        }
        let steps: &[RemoteLogSegmentState] = match final_state(k) {
            None => &[DeleteSegmentStarted, DeleteSegmentFinished],
            Some(DeleteSegmentStarted) => &[DeleteSegmentStarted, DeleteSegmentStarted],
            Some(_) => &[],
        };
        for state in steps {
            manager
                .update_remote_log_segment_metadata(update(main_id.clone(), *state))
                .unwrap();
        }
        // Give readers a chance to run between writes.
        thread::yield_now();
    }
}

/// Checks everything one read call may promise on its own.
fn check_reads(manager: &InmemoryRemoteLogMetadataManager, seed: &mut u64) -> usize {
    let mut hits = 0;
    let partition = tp(i32::try_from(next(seed) % 6).unwrap());
    let epoch = LeaderEpoch(i32::try_from(next(seed) % 4).unwrap());
    let offset = i64::try_from(next(seed) % 620).unwrap();
    if let Some(found) = manager
        .remote_log_segment_metadata(&partition, epoch, offset)
        .unwrap()
    {
        hits += 1;
        assert_eq!(found.state(), CopySegmentFinished);
        assert_eq!(found.topic_id_partition(), &partition);
        assert!(found.start_offset() <= offset && offset <= found.end_offset());
        assert!(found.segment_leader_epochs()[&epoch] <= offset);
        assert!(offset <= found.epoch_end_offset(epoch).unwrap());
    }
    if let Some(found) = manager
        .next_segment_with_txn_index(&partition, epoch, offset)
        .unwrap()
    {
        assert_eq!(found.state(), CopySegmentFinished);
        assert!(!found.txn_index_empty());
        assert!(found.end_offset() >= offset);
    }
    let listed = manager.list_remote_log_segments(&partition).unwrap();
    assert!(listed.windows(2).all(|pair| {
        (pair[0].start_offset(), pair[0].remote_log_segment_id().id)
            < (pair[1].start_offset(), pair[1].remote_log_segment_id().id)
    }));
    assert!(listed.iter().all(|s| s.state() != DeleteSegmentFinished));
    let by_epoch = manager
        .list_remote_log_segments_by_epoch(&partition, epoch)
        .unwrap();
    assert!(
        by_epoch
            .windows(2)
            .all(|pair| pair[0].start_offset() <= pair[1].start_offset())
    );
    assert!(
        by_epoch
            .iter()
            .all(|s| s.segment_leader_epochs().contains_key(&epoch))
    );
    hits
}

/// xorshift64: enough randomness for picking what to read.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn writers_and_readers_across_partitions() {
    let manager = InmemoryRemoteLogMetadataManager::new();
    let writing = AtomicBool::new(true);
    let reads = AtomicUsize::new(0);
    let reads_during_writes = AtomicUsize::new(0);
    let hits = AtomicUsize::new(0);
    thread::scope(|scope| {
        let readers: Vec<_> = (0..READERS)
            .map(|reader| {
                let (manager, writing, reads, hits) = (&manager, &writing, &reads, &hits);
                let reads_during_writes = &reads_during_writes;
                scope.spawn(move || {
                    let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (reader as u64 + 1);
                    while writing.load(Ordering::Acquire) || reads.load(Ordering::Relaxed) < 2000 {
                        hits.fetch_add(check_reads(manager, &mut seed), Ordering::Relaxed);
                        reads.fetch_add(1, Ordering::Relaxed);
                        if writing.load(Ordering::Acquire) {
                            reads_during_writes.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        let writers: Vec<_> = (0..PARTITIONS)
            .map(|partition| {
                let manager = &manager;
                scope.spawn(move || write_partition(manager, partition))
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        writing.store(false, Ordering::Release);
        for reader in readers {
            reader.join().unwrap();
        }
    });
    assert!(
        hits.load(Ordering::Relaxed) > 0,
        "readers never saw a finished segment"
    );
    assert!(
        reads_during_writes.load(Ordering::Relaxed) > 0,
        "readers never overlapped the writers"
    );

    for partition in 0..PARTITIONS {
        let tp = tp(partition);
        let mut expected: Vec<(i64, Uuid, RemoteLogSegmentState)> = Vec::new();
        for k in 0..SEGMENTS {
            let main = main_segment(partition, k);
            if let Some(state) = final_state(k) {
                expected.push((main.start_offset(), main.remote_log_segment_id().id, state));
            }
            if let Some(old) = old_leader_segment(partition, k) {
                expected.push((
                    old.start_offset(),
                    old.remote_log_segment_id().id,
                    CopySegmentFinished,
                ));
            }
            // Offset 10k + 1 is served by the main segment while it is
            // finished, else by the old leader's upload if there is one.
            let offset = 10 * k + 1;
            let epoch = LeaderEpoch(i32::try_from(k / 20).unwrap());
            let served = manager
                .remote_log_segment_metadata(&tp, epoch, offset)
                .unwrap()
                .map(|s| s.remote_log_segment_id().id);
            let want = if final_state(k) == Some(CopySegmentFinished) {
                Some(main.remote_log_segment_id().id)
            } else {
                old_leader_segment(partition, k).map(|old| old.remote_log_segment_id().id)
            };
            assert_eq!(served, want, "partition {partition} offset {offset}");
        }
        expected.sort_by_key(|(start, id, _)| (*start, *id));
        let listed: Vec<_> = manager
            .list_remote_log_segments(&tp)
            .unwrap()
            .into_iter()
            .map(|s| (s.start_offset(), s.remote_log_segment_id().id, s.state()))
            .collect();
        assert_eq!(listed, expected, "partition {partition}");
        // Segment 59 is finished: epoch 2 ends in it at 594, epoch 3 at 599.
        assert_eq!(
            manager
                .highest_offset_for_epoch(&tp, LeaderEpoch(2))
                .unwrap(),
            Some(594)
        );
        assert_eq!(
            manager
                .highest_offset_for_epoch(&tp, LeaderEpoch(3))
                .unwrap(),
            Some(599)
        );
        // Epoch 0 ends inside segment 19 (finished) at 194.
        assert_eq!(
            manager
                .highest_offset_for_epoch(&tp, LeaderEpoch(0))
                .unwrap(),
            Some(194)
        );
    }
}

#[test]
fn racing_calls_on_one_segment_resolve_like_some_serial_order() {
    const THREADS: usize = 8;
    let manager = InmemoryRemoteLogMetadataManager::new();
    let target = id(0, 77);
    let make = || {
        segment(
            target.clone(),
            0,
            9,
            BTreeMap::from([(LeaderEpoch(0), 0)]),
            false,
        )
    };
    let adds: Vec<_> = thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| scope.spawn(|| manager.add_remote_log_segment_metadata(make())))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(adds.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(
        adds.iter()
            .all(|r| r.is_ok() || matches!(r, Err(RemoteStorageError::InvalidArgument(_))))
    );

    let moves: Vec<_> = thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|n| {
                let (manager, target) = (&manager, &target);
                scope.spawn(move || {
                    let state = if n % 2 == 0 {
                        CopySegmentFinished
                    } else {
                        DeleteSegmentStarted
                    };
                    manager.update_remote_log_segment_metadata(update(target.clone(), state))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Once a delete started, a late "copy finished" is refused; nothing else is.
    assert!(moves.iter().all(|r| r.is_ok()
        || matches!(
            r,
            Err(RemoteStorageError::InvalidSegmentTransition {
                from: Some(DeleteSegmentStarted),
                to: CopySegmentFinished,
                ..
            })
        )));
    let listed = manager.list_remote_log_segments(&tp(0)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state(), DeleteSegmentStarted);

    let finishes: Vec<_> = thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                scope.spawn(|| {
                    manager.update_remote_log_segment_metadata(update(
                        target.clone(),
                        DeleteSegmentFinished,
                    ))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(finishes.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(
        finishes
            .iter()
            .all(|r| r.is_ok() || matches!(r, Err(RemoteStorageError::NotFound { .. })))
    );
    assert!(manager.list_remote_log_segments(&tp(0)).unwrap().is_empty());
}

#[test]
fn exports_taken_during_writes_are_well_formed_snapshots() {
    let manager = InmemoryRemoteLogMetadataManager::new();
    let writing = AtomicBool::new(true);
    let exports = thread::scope(|scope| {
        let exporter = scope.spawn(|| {
            let mut taken = 0;
            while writing.load(Ordering::Acquire) || taken < 20 {
                let dump = manager.export();
                let keys: Vec<_> = dump
                    .partitions
                    .iter()
                    .map(|p| p.topic_id_partition.key())
                    .collect();
                assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
                for partition in &dump.partitions {
                    assert!(partition.segments.windows(2).all(|pair| {
                        (pair[0].start_offset(), pair[0].remote_log_segment_id().id)
                            < (pair[1].start_offset(), pair[1].remote_log_segment_id().id)
                    }));
                }
                let restored = InmemoryRemoteLogMetadataManager::new();
                restored.import(dump.clone()).unwrap();
                assert_eq!(restored.export(), dump);
                taken += 1;
            }
            taken
        });
        let writers: Vec<_> = (0..3)
            .map(|partition| {
                let manager = &manager;
                scope.spawn(move || write_partition(manager, partition))
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        writing.store(false, Ordering::Release);
        exporter.join().unwrap()
    });
    assert!(exports >= 20);
    let final_dump = manager.export();
    assert_eq!(final_dump.partitions.len(), 3);
    let restored = InmemoryRemoteLogMetadataManager::new();
    restored.import(final_dump.clone()).unwrap();
    assert_eq!(restored.export(), final_dump);
}
