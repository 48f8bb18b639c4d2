use {
    super::*,
    crate::{
        CustomMetadata, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentState,
        RemoteStorageError,
    },
    krabka_ids::LeaderEpoch,
    proptest::prelude::*,
    std::collections::BTreeMap,
    uuid::Uuid,
};

fn tp() -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(1), "orders", 3)
}

fn segment(id: u128, start: i64, end: i64) -> RemoteLogSegmentMetadata {
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp(), Uuid::from_u128(id)),
        start,
        end,
        11,
        1,
        12,
        RemoteLogSegmentDetails::new(
            1024,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), start), (LeaderEpoch(2), end)]),
        ),
    )
    .unwrap()
}

fn added(sequence: u64) -> MetadataRecord {
    MetadataRecord {
        partition: tp(),
        sequence,
        event: MetadataEvent::SegmentAdded(
            segment(2, 0, 99).with_custom_metadata(Some(CustomMetadata(vec![1, 2, 3]))),
        ),
    }
}

fn is_corrupt(result: Result<impl std::fmt::Debug, RemoteStorageError>) -> bool {
    matches!(result, Err(RemoteStorageError::Corrupt { .. }))
}

#[test]
fn every_kind_round_trips() {
    let update = RemoteLogSegmentMetadataUpdate::new(
        RemoteLogSegmentId::new(tp(), Uuid::from_u128(2)),
        99,
        Some(CustomMetadata(vec![9; 128])),
        RemoteLogSegmentState::CopySegmentFinished,
        4,
    );
    let delete = RemotePartitionDeleteMetadata::new(
        tp(),
        RemotePartitionDeleteState::DeletePartitionStarted,
        5,
        6,
    );
    for record in [
        added(1),
        MetadataRecord {
            partition: tp(),
            sequence: 2,
            event: MetadataEvent::SegmentUpdated(update),
        },
        MetadataRecord {
            partition: tp(),
            sequence: u64::MAX,
            event: MetadataEvent::PartitionDelete(delete),
        },
    ] {
        let bytes = encode_record(&record).unwrap();
        let decoded = decode_record(&bytes).unwrap();
        assert_eq!(decoded, record);
        assert_eq!(decoded.partition.topic, "orders");
    }
}

#[test]
fn known_answer_of_a_partition_delete_record() {
    let record = MetadataRecord {
        partition: TopicIdPartition::new(Uuid::from_u128(1), "t", 0),
        sequence: 1,
        event: MetadataEvent::PartitionDelete(RemotePartitionDeleteMetadata::new(
            TopicIdPartition::new(Uuid::from_u128(1), "t", 0),
            RemotePartitionDeleteState::DeletePartitionMarked,
            2,
            3,
        )),
    };
    let mut expected = b"KRMR\x01".to_vec();
    expected.extend_from_slice(&1u64.to_be_bytes());
    expected.extend_from_slice(&1u128.to_be_bytes());
    expected.extend_from_slice(&[0, 0, 0, 0, 1, b't', 2, 0]);
    expected.extend_from_slice(&2i64.to_be_bytes());
    expected.extend_from_slice(&3i32.to_be_bytes());
    assert_eq!(encode_record(&record).unwrap(), expected);
}

#[test]
fn snapshot_round_trips() {
    let snapshot = MetadataSnapshot {
        partition: tp(),
        through: 7,
        segments: vec![
            segment(2, 0, 99),
            segment(3, 100, 199).with_txn_index_empty(true),
        ],
        delete_state: Some(RemotePartitionDeleteState::DeletePartitionMarked),
    };
    let bytes = encode_snapshot(&snapshot).unwrap();
    assert_eq!(decode_snapshot(&bytes).unwrap(), snapshot);
    let empty = MetadataSnapshot {
        segments: Vec::new(),
        delete_state: None,
        ..snapshot
    };
    assert_eq!(
        decode_snapshot(&encode_snapshot(&empty).unwrap()).unwrap(),
        empty
    );
}

#[test]
fn the_encoder_refuses_what_the_format_cannot_hold() {
    let mut zero = added(1);
    zero.sequence = 0;
    let mut elsewhere = added(1);
    elsewhere.partition = TopicIdPartition::new(Uuid::from_u128(9), "orders", 3);
    let mut long_name = added(1);
    long_name.partition.topic = "x".repeat(250);
    let big_custom = MetadataRecord {
        event: MetadataEvent::SegmentAdded(
            segment(2, 0, 9).with_custom_metadata(Some(CustomMetadata(vec![0; 16 * 1024 + 1]))),
        ),
        ..added(1)
    };
    for record in [zero, elsewhere, long_name, big_custom] {
        assert!(matches!(
            encode_record(&record),
            Err(RemoteStorageError::InvalidArgument(_))
        ));
    }
}

#[test]
fn every_truncation_and_every_trailing_byte_is_corrupt() {
    let bytes = encode_record(&added(5)).unwrap();
    for len in 0..bytes.len() {
        assert!(is_corrupt(decode_record(&bytes[..len])), "length {len}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(is_corrupt(decode_record(&longer)));
    let snapshot = encode_snapshot(&MetadataSnapshot {
        partition: tp(),
        through: 1,
        segments: vec![segment(2, 0, 9)],
        delete_state: None,
    })
    .unwrap();
    for len in 0..snapshot.len() {
        assert!(
            is_corrupt(decode_snapshot(&snapshot[..len])),
            "length {len}"
        );
    }
}

#[test]
fn non_canonical_and_unknown_bytes_are_corrupt() {
    let bytes = encode_record(&added(5)).unwrap();
    let header = 4 + 1 + 8 + 16 + 4 + 1 + "orders".len();
    let kind = header;
    let state = kind + 1 + 16 + 8 * 3 + 4 + 8 + 4;
    let cases: [(usize, u8); 6] = [
        (0, b'X'),      // magic
        (4, 2),         // future version
        (5 + 7, 0),     // sequence 0
        (kind, 7),      // unknown kind
        (state, 9),     // unknown state
        (state + 1, 2), // non-canonical boolean
    ];
    for (at, value) in cases {
        let mut bad = bytes.clone();
        bad[at] = value;
        assert!(is_corrupt(decode_record(&bad)), "byte {at} = {value}");
    }
    // A snapshot cannot be read as a record nor the reverse.
    let snapshot = encode_snapshot(&MetadataSnapshot {
        partition: tp(),
        through: 1,
        segments: Vec::new(),
        delete_state: None,
    })
    .unwrap();
    assert!(is_corrupt(decode_record(&snapshot)));
    assert!(is_corrupt(decode_snapshot(&bytes)));
}

#[test]
fn a_huge_count_is_refused_before_allocating() {
    let mut bytes = encode_snapshot(&MetadataSnapshot {
        partition: tp(),
        through: 1,
        segments: Vec::new(),
        delete_state: None,
    })
    .unwrap();
    let len = bytes.len();
    bytes[len - 4..].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(is_corrupt(decode_snapshot(&bytes)));
    assert!(is_corrupt(decode_record(&vec![0; MAX_RECORD_BYTES + 1])));
}

fn arb_segment() -> impl Strategy<Value = RemoteLogSegmentMetadata> {
    (
        any::<u128>(),
        0..i64::MAX / 2,
        0..1_000_000i64,
        any::<i64>(),
        any::<i32>(),
        0..i32::MAX,
        0..4u8,
        any::<bool>(),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..200)),
        proptest::collection::btree_map(any::<i32>(), 0..1_000_000i64, 1..5),
    )
        .prop_map(
            |(id, start, len, ts, broker, size, state, empty, custom, epochs)| {
                let end = start + len;
                let epochs = epochs
                    .into_iter()
                    .map(|(epoch, delta)| (LeaderEpoch(epoch), start + delta.min(len)))
                    .collect();
                RemoteLogSegmentMetadata::new(
                    RemoteLogSegmentId::new(tp(), Uuid::from_u128(id)),
                    start,
                    end,
                    ts,
                    broker,
                    ts,
                    RemoteLogSegmentDetails::new(
                        size,
                        RemoteLogSegmentState::from_id(state).unwrap(),
                        epochs,
                    ),
                )
                .unwrap()
                .with_txn_index_empty(empty)
                .with_custom_metadata(custom.map(CustomMetadata))
            },
        )
}

proptest! {
    #[test]
    fn segments_and_snapshots_round_trip(
        segments in proptest::collection::vec(arb_segment(), 0..4),
        through in 1..u64::MAX,
    ) {
        for (index, segment) in segments.iter().enumerate() {
            let record = MetadataRecord {
                partition: tp(),
                sequence: through.saturating_sub(index as u64).max(1),
                event: MetadataEvent::SegmentAdded(segment.clone()),
            };
            prop_assert_eq!(decode_record(&encode_record(&record).unwrap()).unwrap(), record);
        }
        let snapshot = MetadataSnapshot { partition: tp(), through, segments, delete_state: None };
        prop_assert_eq!(decode_snapshot(&encode_snapshot(&snapshot).unwrap()).unwrap(), snapshot);
    }

    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = decode_record(&bytes);
        let _ = decode_snapshot(&bytes);
    }

    #[test]
    fn flipped_bytes_never_panic(at in 0usize..200, value in any::<u8>()) {
        let mut bytes = encode_record(&added(5)).unwrap();
        let len = bytes.len();
        bytes[at % len] = value;
        if let Ok(record) = decode_record(&bytes) {
            // Whatever still decodes encodes back to the same bytes.
            prop_assert_eq!(encode_record(&record).unwrap(), bytes);
        }
    }
}
