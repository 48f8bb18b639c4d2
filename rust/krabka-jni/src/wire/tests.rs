use {super::*, proptest::prelude::*};

/// The metadata whose encoding is pinned in [`GOLDEN_METADATA_HEX`]; the Java
/// test `WireTest` encodes the same values and expects the same bytes.
fn golden_metadata() -> RemoteLogSegmentMetadata {
    let tp = TopicIdPartition::new(
        Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10),
        "t",
        3,
    );
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp, Uuid::from_u128(2)),
        10,
        20,
        30,
        1,
        40,
        RemoteLogSegmentDetails::new(
            50,
            RemoteLogSegmentState::CopySegmentFinished,
            BTreeMap::from([(LeaderEpoch(0), 10), (LeaderEpoch(2), 15)]),
        ),
    )
    .unwrap()
    .with_custom_metadata(Some(CustomMetadata(vec![9, 8])))
    .with_txn_index_empty(true)
}

const GOLDEN_METADATA_HEX: &str = concat!(
    "0102030405060708090a0b0c0d0e0f10", // topic id
    "0000000174",                       // topic "t"
    "00000003",                         // partition
    "00000000000000000000000000000002", // segment id
    "000000000000000a",                 // start offset
    "0000000000000014",                 // end offset
    "000000000000001e",                 // max timestamp
    "00000001",                         // broker id
    "0000000000000028",                 // event timestamp
    "00000032",                         // size
    "01",                               // state COPY_SEGMENT_FINISHED
    "01",                               // txn index empty
    "000000020908",                     // custom metadata
    "00000002",                         // two epochs
    "00000000000000000000000a",         // epoch 0 at 10
    "00000002000000000000000f",         // epoch 2 at 15
);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn encode(metadata: &RemoteLogSegmentMetadata) -> Vec<u8> {
    let mut writer = Writer::default();
    writer.metadata(metadata);
    writer.into_bytes()
}

fn encode_config(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut writer = Writer::default();
    writer.count(entries.len());
    for (k, v) in entries {
        writer.string(k);
        writer.string(v);
    }
    writer.into_bytes()
}

#[test]
fn the_golden_encoding_is_stable_and_decodes_back() {
    let bytes = encode(&golden_metadata());
    assert_eq!(hex(&bytes), GOLDEN_METADATA_HEX);
    assert_eq!(decode_metadata(&bytes).unwrap(), golden_metadata());
}

#[test]
fn every_truncation_is_a_typed_error() {
    let bytes = encode(&golden_metadata());
    for len in 0..bytes.len() {
        let err = decode_metadata(&bytes[..len]).unwrap_err();
        assert!(
            matches!(
                err,
                WireError::Truncated { .. } | WireError::BadLength { .. }
            ),
            "prefix of {len} bytes gave {err:?}"
        );
    }
}

#[test]
fn trailing_bytes_are_refused() {
    let mut bytes = encode(&golden_metadata());
    bytes.push(0);
    assert_eq!(
        decode_metadata(&bytes),
        Err(WireError::Trailing {
            what: "segment metadata",
            count: 1
        })
    );
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let mut bytes = encode(&golden_metadata());
    let epochs_at = bytes.len() - 4 - 2 * EPOCH_ENTRY_LEN;
    bytes[epochs_at..epochs_at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
    assert!(matches!(
        decode_metadata(&bytes),
        Err(WireError::BadLength {
            field: "leader epoch count",
            ..
        })
    ));
    let mut config = encode_config(&[("a", "b")]);
    config[..4].copy_from_slice(&(-5_i32).to_be_bytes());
    assert!(matches!(
        decode_config(&config),
        Err(WireError::BadLength { value: -5, .. })
    ));
}

#[test]
fn unknown_states_and_flags_are_refused() {
    let bytes = encode(&golden_metadata());
    let state_at = 16 + 5 + 4 + 16 + 8 * 3 + 4 + 8 + 4;
    assert_eq!(bytes[state_at], 1);
    let mut bad_state = bytes.clone();
    bad_state[state_at] = 9;
    assert!(matches!(
        decode_metadata(&bad_state),
        Err(WireError::UnknownId {
            field: "segment state",
            value: 9
        })
    ));
    let mut bad_flag = bytes;
    bad_flag[state_at + 1] = 2;
    assert!(matches!(
        decode_metadata(&bad_flag),
        Err(WireError::UnknownId {
            field: "txn index empty",
            ..
        })
    ));
}

#[test]
fn metadata_kafka_would_refuse_is_invalid() {
    let mut bytes = encode(&golden_metadata());
    // end offset 20 -> 5, below the start offset 10.
    let end_at = 16 + 5 + 4 + 16 + 8;
    bytes[end_at..end_at + 8].copy_from_slice(&5_i64.to_be_bytes());
    assert!(matches!(
        decode_metadata(&bytes),
        Err(WireError::Invalid { .. })
    ));
}

#[test]
fn non_utf8_topic_names_are_refused() {
    let mut bytes = encode(&golden_metadata());
    bytes[16 + 4] = 0xff;
    assert!(matches!(
        decode_metadata(&bytes),
        Err(WireError::BadUtf8 {
            field: "topic name"
        })
    ));
}

#[test]
fn updates_deletes_partitions_and_config_decode() {
    let id = golden_metadata().remote_log_segment_id().clone();
    let mut writer = Writer::default();
    writer.partition(&id.topic_id_partition);
    writer.bytes.extend_from_slice(id.id.as_bytes());
    writer.i64(77);
    writer.i32(-1);
    writer.bytes.push(2);
    writer.i32(5);
    let update = decode_update(&writer.into_bytes()).unwrap();
    assert_eq!(
        update,
        RemoteLogSegmentMetadataUpdate::new(
            id.clone(),
            77,
            None,
            RemoteLogSegmentState::DeleteSegmentStarted,
            5
        )
    );

    let mut writer = Writer::default();
    writer.partition(&id.topic_id_partition);
    writer.bytes.push(1);
    writer.i64(8);
    writer.i32(2);
    let delete = decode_partition_delete(&writer.into_bytes()).unwrap();
    assert_eq!(
        delete.state,
        RemotePartitionDeleteState::DeletePartitionStarted
    );
    assert_eq!(delete.broker_id, 2);

    let mut writer = Writer::default();
    writer.count(2);
    writer.partition(&id.topic_id_partition);
    writer.partition(&TopicIdPartition::new(Uuid::from_u128(5), "u", 1));
    assert_eq!(decode_partitions(&writer.into_bytes()).unwrap().len(), 2);

    let config = decode_config(&encode_config(&[("backend", "filesystem"), ("k", "")])).unwrap();
    assert_eq!(
        config,
        vec![
            ("backend".to_owned(), "filesystem".to_owned()),
            ("k".to_owned(), String::new())
        ]
    );
}

#[test]
fn optional_and_list_encodings_have_a_presence_byte_and_a_count() {
    assert_eq!(encode_optional_metadata(None), vec![0]);
    let some = encode_optional_metadata(Some(&golden_metadata()));
    assert_eq!(some[0], 1);
    assert_eq!(hex(&some[1..]), GOLDEN_METADATA_HEX);
    let list = encode_metadata_list(&[golden_metadata(), golden_metadata()]);
    assert_eq!(&list[..4], &2_i32.to_be_bytes());
}

fn arb_metadata() -> impl Strategy<Value = RemoteLogSegmentMetadata> {
    (
        any::<u128>(),
        "[a-z._-]{0,20}",
        any::<i32>(),
        any::<u128>(),
        0..i64::MAX / 2,
        0..1_000_000_i64,
        proptest::collection::btree_map(any::<i32>(), 0..1_000_000_i64, 1..6),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
        (
            0..4_u8,
            any::<bool>(),
            0..i32::MAX,
            any::<i64>(),
            any::<i32>(),
        ),
    )
        .prop_map(
            |(topic_id, topic, partition, segment, start, span, epochs, custom, rest)| {
                let (state, txn_empty, size, ts, broker) = rest;
                let end = start + span;
                let epochs = epochs
                    .into_iter()
                    .map(|(epoch, offset)| (LeaderEpoch(epoch), start + offset % (span + 1)))
                    .collect();
                let tp = TopicIdPartition::new(Uuid::from_u128(topic_id), topic, partition);
                RemoteLogSegmentMetadata::new(
                    RemoteLogSegmentId::new(tp, Uuid::from_u128(segment)),
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
                .with_custom_metadata(custom.map(CustomMetadata))
                .with_txn_index_empty(txn_empty)
            },
        )
}

proptest! {
    #[test]
    fn metadata_round_trips(metadata in arb_metadata()) {
        prop_assert_eq!(decode_metadata(&encode(&metadata)).unwrap(), metadata);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode_metadata(&bytes);
        let _ = decode_update(&bytes);
        let _ = decode_partition_delete(&bytes);
        let _ = decode_partitions(&bytes);
        let _ = decode_config(&bytes);
    }
}
