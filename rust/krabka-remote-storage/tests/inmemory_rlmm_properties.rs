//! Random sequences of adds, updates and partition-delete steps against an
//! `InmemoryRemoteLogMetadataManager`, checked after every step against a
//! brute-force model of Kafka's rules.

mod support;

use {
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        InmemoryRemoteLogMetadataManager, RemoteLogMetadataManager, RemoteLogSegmentId,
        RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate,
        RemoteLogSegmentState::{self, *},
        RemotePartitionDeleteMetadata, RemotePartitionDeleteState, RemoteStorageError,
        TopicIdPartition,
    },
    proptest::prelude::*,
    std::collections::{BTreeMap, HashMap},
    support::SegmentMetadataBuilder,
    uuid::Uuid,
};

const EPOCHS: i32 = 4;
const MAX_OFFSET: i64 = 60;

#[derive(Debug, Clone)]
enum Op {
    Add {
        id: u8,
        start: i64,
        len: i64,
        epochs: Vec<(i32, i64)>,
        txn_index_empty: bool,
        state: u8,
    },
    Update {
        id: u8,
        state: u8,
        timestamp: i64,
    },
    DeletePartition(u8),
}

fn op() -> impl Strategy<Value = Op> {
    // Aligned starts and lengths make identical and nested spans common.
    let start = prop_oneof![3 => (0_i64..9).prop_map(|n| n * 5), 1 => 0_i64..45];
    let len = prop_oneof![3 => (0_i64..3).prop_map(|n| n * 5 + 4), 1 => 0_i64..16];
    let delta = prop_oneof![2 => Just(0_i64), 1 => 0_i64..16];
    let add = (
        0_u8..8,
        start,
        len,
        prop::collection::vec((0..EPOCHS, delta), 1..4),
        any::<bool>(),
        // Mostly CopySegmentStarted (0); sometimes another state, which is refused.
        prop_oneof![8 => Just(0_u8), 1 => 1_u8..4],
    )
        .prop_map(|(id, start, len, epochs, txn_index_empty, state)| Op::Add {
            id,
            start,
            len,
            epochs,
            txn_index_empty,
            state,
        });
    // Mostly CopySegmentFinished, so that many segments become readable.
    let to = prop_oneof![4 => Just(1_u8), 1 => 0_u8..4];
    let update = (0_u8..8, to, 0_i64..5).prop_map(|(id, state, timestamp)| Op::Update {
        id,
        state,
        timestamp,
    });
    prop_oneof![
        10 => add,
        14 => update,
        1 => (0_u8..3).prop_map(Op::DeletePartition),
    ]
}

fn tp() -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(5), "props", 0)
}

fn segment_id(id: u8) -> RemoteLogSegmentId {
    RemoteLogSegmentId::new(tp(), Uuid::from_u128(u128::from(id)))
}

/// The span of `epoch` in `segment`, computed independently of the crate.
fn span(segment: &RemoteLogSegmentMetadata, epoch: i32) -> Option<(i64, i64)> {
    let epochs = segment.segment_leader_epochs();
    let first = *epochs.get(&LeaderEpoch(epoch))?;
    let next = epochs
        .iter()
        .find(|(other, _)| other.0 > epoch)
        .map(|(_, offset)| *offset);
    let start = first.max(segment.start_offset());
    let end = next.map_or(segment.end_offset(), |next| next - 1);
    (start <= end).then_some((start, end))
}

/// `(span, rank)` of every finished segment of `epoch`.
fn finished_spans(
    model: &BTreeMap<u8, RemoteLogSegmentMetadata>,
    epoch: i32,
) -> Vec<((i64, i64), (i64, Uuid))> {
    model
        .values()
        .filter(|segment| segment.state() == CopySegmentFinished)
        .filter_map(|segment| {
            let rank = (
                segment.event_timestamp_ms(),
                segment.remote_log_segment_id().id,
            );
            span(segment, epoch).map(|span| (span, rank))
        })
        .collect()
}

/// The segment that must serve `offset` in `epoch`: of the finished spans
/// holding it that no other finished span shadows (contains and is wider,
/// or is identical and ranks higher), the one starting last.
fn oracle_lookup(
    model: &BTreeMap<u8, RemoteLogSegmentMetadata>,
    epoch: i32,
    offset: i64,
) -> Option<Uuid> {
    let spans = finished_spans(model, epoch);
    let shadowed = |(s, rank): &((i64, i64), (i64, Uuid))| {
        spans
            .iter()
            .any(|(t, other)| t.0 <= s.0 && t.1 >= s.1 && (t != s || other > rank))
    };
    spans
        .iter()
        .filter(|(s, _)| s.0 <= offset && offset <= s.1)
        .filter(|candidate| !shadowed(candidate))
        .max_by_key(|(s, _)| s.0)
        .map(|(_, rank)| rank.1)
}

fn oracle_next_txn(
    model: &BTreeMap<u8, RemoteLogSegmentMetadata>,
    epoch: i32,
    offset: i64,
) -> Option<Uuid> {
    let by_id: HashMap<Uuid, &RemoteLogSegmentMetadata> = model
        .values()
        .map(|segment| (segment.remote_log_segment_id().id, segment))
        .collect();
    let mut current = by_id[&oracle_lookup(model, epoch, offset)?];
    while current.txn_index_empty() {
        current = by_id[&oracle_lookup(model, epoch, current.end_offset() + 1)?];
    }
    Some(current.remote_log_segment_id().id)
}

fn id_of(segment: Option<RemoteLogSegmentMetadata>) -> Option<Uuid> {
    segment.map(|segment| segment.remote_log_segment_id().id)
}

fn check(
    manager: &InmemoryRemoteLogMetadataManager,
    model: &BTreeMap<u8, RemoteLogSegmentMetadata>,
) -> Result<(), TestCaseError> {
    let partition = tp();
    let listed = manager.list_remote_log_segments(&partition).unwrap();
    let mut expected: Vec<_> = model.values().cloned().collect();
    expected.sort_by_key(|s| (s.start_offset(), s.remote_log_segment_id().id));
    prop_assert_eq!(&listed, &expected);
    let sorted = listed.windows(2).all(|pair| {
        (pair[0].start_offset(), pair[0].remote_log_segment_id().id)
            < (pair[1].start_offset(), pair[1].remote_log_segment_id().id)
    });
    prop_assert!(sorted, "listing not sorted");
    prop_assert!(listed.iter().all(|s| s.state() != DeleteSegmentFinished));

    for epoch in 0..EPOCHS {
        let leader_epoch = LeaderEpoch(epoch);
        let by_epoch = manager
            .list_remote_log_segments_by_epoch(&partition, leader_epoch)
            .unwrap();
        let want: Vec<_> = listed
            .iter()
            .filter(|s| s.segment_leader_epochs().contains_key(&leader_epoch))
            .cloned()
            .collect();
        prop_assert_eq!(by_epoch, want);

        let highest = finished_spans(model, epoch).iter().map(|(s, _)| s.1).max();
        prop_assert_eq!(
            manager
                .highest_offset_for_epoch(&partition, leader_epoch)
                .unwrap(),
            highest
        );

        for offset in -1..=MAX_OFFSET + 1 {
            let found = manager
                .remote_log_segment_metadata(&partition, leader_epoch, offset)
                .unwrap();
            if let Some(segment) = &found {
                prop_assert_eq!(segment.state(), CopySegmentFinished);
                let (start, end) = span(segment, epoch).unwrap();
                prop_assert!(start <= offset && offset <= end);
            }
            prop_assert_eq!(
                id_of(found),
                oracle_lookup(model, epoch, offset),
                "epoch {} offset {}",
                epoch,
                offset
            );
            let next = manager
                .next_segment_with_txn_index(&partition, leader_epoch, offset)
                .unwrap();
            if let Some(segment) = &next {
                prop_assert_eq!(segment.state(), CopySegmentFinished);
                prop_assert!(!segment.txn_index_empty());
            }
            prop_assert_eq!(id_of(next), oracle_next_txn(model, epoch, offset));
        }
    }
    Ok(())
}

fn apply(
    manager: &InmemoryRemoteLogMetadataManager,
    model: &mut BTreeMap<u8, RemoteLogSegmentMetadata>,
    delete_state: &mut Option<RemotePartitionDeleteState>,
    op: Op,
) -> Result<(), TestCaseError> {
    match op {
        Op::Add {
            id,
            start,
            len,
            epochs,
            txn_index_empty,
            state,
        } => {
            let state = RemoteLogSegmentState::from_id(state).unwrap();
            let end = start + len;
            let epochs = epochs
                .into_iter()
                .map(|(epoch, delta)| (LeaderEpoch(epoch), start + delta.min(len)));
            let segment = SegmentMetadataBuilder::with_id(segment_id(id), start)
                .end_offset(end)
                .state(state)
                .epochs(epochs)
                .txn_index_empty(txn_index_empty)
                .build();
            let result = manager.add_remote_log_segment_metadata(segment.clone());
            if state != CopySegmentStarted || model.contains_key(&id) {
                prop_assert!(
                    matches!(result, Err(RemoteStorageError::InvalidArgument(_))),
                    "{:?}",
                    result
                );
            } else {
                prop_assert!(result.is_ok(), "{:?}", result);
                model.insert(id, segment);
            }
        }
        Op::Update {
            id,
            state,
            timestamp,
        } => {
            let to = RemoteLogSegmentState::from_id(state).unwrap();
            let update =
                RemoteLogSegmentMetadataUpdate::new(segment_id(id), timestamp, None, to, 3);
            let result = manager.update_remote_log_segment_metadata(update.clone());
            match model.get(&id) {
                None => prop_assert!(
                    matches!(result, Err(RemoteStorageError::NotFound { .. })),
                    "{:?}",
                    result
                ),
                Some(_) if to == CopySegmentStarted => prop_assert!(
                    matches!(result, Err(RemoteStorageError::InvalidArgument(_))),
                    "{:?}",
                    result
                ),
                Some(current)
                    if !RemoteLogSegmentState::is_valid_transition(Some(current.state()), to) =>
                {
                    prop_assert!(
                        matches!(
                            result,
                            Err(RemoteStorageError::InvalidSegmentTransition { .. })
                        ),
                        "{:?}",
                        result
                    );
                }
                Some(current) => {
                    prop_assert!(result.is_ok(), "{:?}", result);
                    let updated = current.with_update(&update).unwrap();
                    if to == DeleteSegmentFinished {
                        model.remove(&id);
                    } else {
                        model.insert(id, updated);
                    }
                }
            }
        }
        Op::DeletePartition(state) => {
            let to = RemotePartitionDeleteState::from_id(state).unwrap();
            let result = manager.put_remote_partition_delete_metadata(
                RemotePartitionDeleteMetadata::new(tp(), to, 0, 0),
            );
            if RemotePartitionDeleteState::is_valid_transition(*delete_state, to) {
                prop_assert!(result.is_ok(), "{:?}", result);
                *delete_state = Some(to);
                if to == RemotePartitionDeleteState::DeletePartitionFinished {
                    model.clear();
                }
            } else {
                prop_assert!(
                    matches!(
                        result,
                        Err(RemoteStorageError::InvalidPartitionDeleteTransition { .. })
                    ),
                    "{:?}",
                    result
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_sequences_keep_the_invariants(ops in prop::collection::vec(op(), 1..50)) {
        let manager = InmemoryRemoteLogMetadataManager::new();
        let mut model = BTreeMap::new();
        let mut delete_state = None;
        for op in ops {
            apply(&manager, &mut model, &mut delete_state, op)?;
            check(&manager, &model)?;
        }
        // A restored dump answers every query as the original does.
        let dump = manager.export();
        let restored = InmemoryRemoteLogMetadataManager::new();
        restored.import(dump.clone()).unwrap();
        prop_assert_eq!(restored.export(), dump);
        check(&restored, &model)?;
    }
}
