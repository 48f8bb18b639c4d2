//! Golden vectors of the diskless codecs (`tests/fixtures/diskless/`,
//! derivations in its README) round-trip exactly, and every key and value
//! refusal is typed.

use {
    krabka_remote_storage::diskless::{
        DisklessError, DisklessWalCapture, REPLAY_FENCE_KEY, WalDeleteFloorKey,
        WalDeleteFloorRecord, WalFlushRecord, WalIndexEntry, WalIndexKey, WalIndexRecordKey,
        WincodeError, keyed_entry, parse_wal_object, wal_index_key_version,
    },
    proptest::prelude::*,
    std::{fs, path::Path},
    uuid::Uuid,
};

const TOPIC: &str = "00112233445566778899aabbccddeeff";

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/diskless")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn unhex(text: &str) -> Vec<u8> {
    let text: String = text.split_whitespace().collect();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn topic_id() -> Uuid {
    Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff)
}

fn golden_entry() -> WalIndexEntry {
    WalIndexEntry {
        topic_id: topic_id(),
        partition: 3,
        first_offset: 10,
        last_offset: 12,
        byte_start: 6,
        byte_len: 64,
        max_timestamp_ms: 1_700_000_000_000,
    }
}

#[test]
fn fixtures_hold_the_reference_bytes() {
    let cases = [
        (
            "golden_range_key.bin",
            format!("0000 {TOPIC} 00000003 000000000000000a"),
        ),
        ("golden_floor_key.bin", format!("0001 {TOPIC} 00000003")),
        (
            "golden_floor_record.bin",
            format!("0000 1000000000000000 {TOPIC} 03000000 2a00000000000000"),
        ),
        (
            "golden_flush_record.bin",
            format!(
                "0002 0500000000000000 77616c2f61 0100000000000000 1000000000000000 {TOPIC} \
                 03000000 0a00000000000000 0c00000000000000 0600000000000000 40000000 \
                 0068e5cf8b010000"
            ),
        ),
    ];
    for (name, hex) in cases {
        assert_eq!(fixture(name), unhex(&hex), "{name}");
    }
    let run: String = (0u8..64).map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        fixture("golden_wal_object.bin"),
        unhex(&format!(
            "434b574c0100 {run} {TOPIC} 03000000 0a00000000000000 0c00000000000000 \
             0600000000000000 40000000 30000000 434b574c"
        ))
    );
}

#[test]
fn golden_range_key_round_trips() {
    let key = WalIndexKey {
        topic_id: topic_id(),
        partition: 3,
        first_offset: 10,
    };
    let bytes = fixture("golden_range_key.bin");
    assert_eq!(WalIndexKey::decode(&bytes).unwrap(), key);
    assert_eq!(key.encode().as_slice(), bytes.as_slice());
    assert_eq!(wal_index_key_version(&bytes), Some(0));
    assert_eq!(
        WalIndexRecordKey::decode(&bytes).unwrap(),
        WalIndexRecordKey::Range(key)
    );
}

#[test]
fn golden_floor_key_round_trips() {
    let key = WalDeleteFloorKey {
        topic_id: topic_id(),
        partition: 3,
    };
    let bytes = fixture("golden_floor_key.bin");
    assert_eq!(WalDeleteFloorKey::decode(&bytes).unwrap(), key);
    assert_eq!(key.encode().as_slice(), bytes.as_slice());
    assert_eq!(
        WalIndexRecordKey::decode(&bytes).unwrap(),
        WalIndexRecordKey::DeleteFloor(key)
    );
}

#[test]
fn golden_floor_record_round_trips() {
    let record = WalDeleteFloorRecord {
        topic_id: topic_id(),
        partition: 3,
        floor: 42,
    };
    let bytes = fixture("golden_floor_record.bin");
    assert_eq!(WalDeleteFloorRecord::decode(&bytes).unwrap(), record);
    assert_eq!(record.encode(), bytes);
}

#[test]
fn golden_flush_record_round_trips() {
    let record = WalFlushRecord {
        object_key: "wal/a".to_owned(),
        entries: vec![golden_entry()],
    };
    let bytes = fixture("golden_flush_record.bin");
    assert_eq!(WalFlushRecord::decode(&bytes).unwrap(), record);
    assert_eq!(record.encode(), bytes);
    let (key, value) = keyed_entry("wal/a", golden_entry());
    assert_eq!(key.as_slice(), fixture("golden_range_key.bin").as_slice());
    assert_eq!(value, bytes);
}

#[test]
fn golden_capture_round_trips() {
    let bytes = fixture("golden_capture.json");
    let capture = DisklessWalCapture::from_slice(&bytes).unwrap();
    assert_eq!(capture.captured_at_ms, 1_700_000_000_000);
    assert_eq!(capture.source_cutoffs, vec![5]);
    let partition = &capture.partitions[0];
    assert_eq!(
        (partition.topic.as_str(), partition.partition),
        ("orders", 3)
    );
    assert_eq!(
        (partition.delete_floor, partition.recovery_cutoff),
        (10, 13)
    );
    assert_eq!(partition.ranges[0].object_key, "wal/a");
    assert_eq!(partition.ranges[0].entry, golden_entry());
    assert_eq!(capture.to_vec().unwrap(), bytes);
}

#[test]
fn golden_wal_object_holds_the_golden_range() {
    let bytes = fixture("golden_wal_object.bin");
    let object = parse_wal_object(&bytes).unwrap();
    let entries: Vec<_> = object.entries().collect();
    assert_eq!(entries.len(), 1);
    let entry = entries[0];
    assert_eq!(
        (
            entry.topic_id,
            entry.partition,
            entry.first_offset,
            entry.last_offset
        ),
        (topic_id(), 3, 10, 12)
    );
    assert_eq!((entry.byte_start, entry.byte_len), (6, 64));
    assert_eq!(object.run(&entry).unwrap(), (0u8..64).collect::<Vec<_>>());
    let mut builder = krabka_remote_storage::diskless::WalObjectBuilder::new();
    builder
        .append_run(topic_id(), 3, 10, 12, &(0u8..64).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(builder.finish().to_vec(), bytes);
}

#[test]
fn neither_key_kind_decodes_as_the_other_and_the_fence_as_neither() {
    let range = fixture("golden_range_key.bin");
    let floor = fixture("golden_floor_key.bin");
    assert!(matches!(
        WalDeleteFloorKey::decode(&range),
        Err(DisklessError::IndexKeyKindMismatch {
            expected: 1,
            found: 0,
            ..
        })
    ));
    assert!(matches!(
        WalIndexKey::decode(&floor),
        Err(DisklessError::IndexKeyKindMismatch {
            expected: 0,
            found: 1,
            ..
        })
    ));
    assert_eq!(REPLAY_FENCE_KEY.len(), WalIndexKey::LEN);
    assert!(WalIndexKey::decode(REPLAY_FENCE_KEY).is_err());
    assert!(WalDeleteFloorKey::decode(REPLAY_FENCE_KEY).is_err());
    assert_eq!(
        WalIndexRecordKey::decode(REPLAY_FENCE_KEY).unwrap(),
        WalIndexRecordKey::ReplayFence
    );
}

#[test]
fn key_refusals_are_typed() {
    let range = fixture("golden_range_key.bin");
    for short in [&b""[..], b"\x00"] {
        assert!(matches!(
            WalIndexRecordKey::decode(short),
            Err(DisklessError::IndexKeyTooShort { .. })
        ));
        assert!(matches!(
            WalIndexKey::decode(short),
            Err(DisklessError::IndexKeyTooShort { .. })
        ));
    }
    assert!(matches!(
        WalIndexRecordKey::decode(&range[..29]),
        Err(DisklessError::IndexKeyLength {
            len: 29,
            expected: 30,
            ..
        })
    ));
    let mut long_floor = fixture("golden_floor_key.bin");
    long_floor.push(0);
    assert!(matches!(
        WalIndexRecordKey::decode(&long_floor),
        Err(DisklessError::IndexKeyLength {
            len: 23,
            expected: 22,
            ..
        })
    ));
    let mut unknown = range.clone();
    unknown[..2].copy_from_slice(&7i16.to_be_bytes());
    assert!(matches!(
        WalIndexRecordKey::decode(&unknown),
        Err(DisklessError::UnknownIndexKeyVersion { version: 7 })
    ));
    // The previous revision's 21-byte floor key tagged 0xf0 is refused.
    let mut legacy = vec![0xf0];
    legacy.extend_from_slice(&unhex(TOPIC));
    legacy.extend_from_slice(&3i32.to_be_bytes());
    assert!(WalIndexRecordKey::decode(&legacy).is_err());
}

#[test]
fn unsupported_value_versions_say_what_to_do() {
    let mut flush = fixture("golden_flush_record.bin");
    flush[..2].copy_from_slice(&1i16.to_be_bytes());
    let err = WalFlushRecord::decode(&flush).unwrap_err();
    assert!(matches!(
        err,
        DisklessError::UnsupportedFlushRecordVersion { found: 1 }
    ));
    assert!(err.to_string().contains("reformat the cluster"));
    let mut floor = fixture("golden_floor_record.bin");
    floor[..2].copy_from_slice(&3i16.to_be_bytes());
    let err = WalDeleteFloorRecord::decode(&floor).unwrap_err();
    assert!(matches!(
        err,
        DisklessError::UnsupportedFloorRecordVersion { found: 3 }
    ));
    assert!(err.to_string().contains("reformat the cluster"));
}

#[test]
fn truncated_and_malformed_values_are_typed() {
    for value in [&b""[..], b"\x00"] {
        assert!(matches!(
            WalDeleteFloorRecord::decode(value),
            Err(DisklessError::RecordTooShort { .. })
        ));
        assert!(matches!(
            WalFlushRecord::decode(value),
            Err(DisklessError::RecordTooShort { .. })
        ));
    }
    let flush = fixture("golden_flush_record.bin");
    for len in 2..flush.len() {
        assert!(
            matches!(
                WalFlushRecord::decode(&flush[..len]),
                Err(DisklessError::MalformedRecord {
                    source: WincodeError::Truncated { .. },
                    ..
                })
            ),
            "flush record truncated to {len}"
        );
    }
    let floor = fixture("golden_floor_record.bin");
    for len in 2..floor.len() {
        assert!(matches!(
            WalDeleteFloorRecord::decode(&floor[..len]),
            Err(DisklessError::MalformedRecord { .. })
        ));
    }
    let mut trailing = floor.clone();
    trailing.push(0);
    assert!(matches!(
        WalDeleteFloorRecord::decode(&trailing),
        Err(DisklessError::MalformedRecord {
            source: WincodeError::TrailingBytes { extra: 1 },
            ..
        })
    ));
    let mut bad_uuid = floor.clone();
    bad_uuid[2] = 15;
    assert!(matches!(
        WalDeleteFloorRecord::decode(&bad_uuid),
        Err(DisklessError::MalformedRecord {
            source: WincodeError::UuidLength { found: 15 },
            ..
        })
    ));
    let mut bad_utf8 = flush.clone();
    bad_utf8[10] = 0xff;
    assert!(matches!(
        WalFlushRecord::decode(&bad_utf8),
        Err(DisklessError::MalformedRecord {
            source: WincodeError::InvalidUtf8,
            ..
        })
    ));
    let mut huge_count = flush.clone();
    huge_count[15..23].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        WalFlushRecord::decode(&huge_count),
        Err(DisklessError::MalformedRecord {
            source: WincodeError::Truncated { .. },
            ..
        })
    ));
}

fn arb_entry() -> impl Strategy<Value = WalIndexEntry> {
    (
        any::<u128>(),
        any::<i32>(),
        any::<i64>(),
        any::<i64>(),
        any::<u64>(),
        any::<u32>(),
        any::<i64>(),
    )
        .prop_map(|(t, p, f, l, s, n, m)| WalIndexEntry {
            topic_id: Uuid::from_u128(t),
            partition: p,
            first_offset: f,
            last_offset: l,
            byte_start: s,
            byte_len: n,
            max_timestamp_ms: m,
        })
}

proptest! {
    #[test]
    fn flush_records_round_trip(key in ".{0,20}", entries in proptest::collection::vec(arb_entry(), 0..5)) {
        let record = WalFlushRecord { object_key: key, entries };
        prop_assert_eq!(WalFlushRecord::decode(&record.encode()).unwrap(), record);
    }

    #[test]
    fn keys_and_floor_records_round_trip(t in any::<u128>(), p in any::<i32>(), o in any::<i64>()) {
        let range = WalIndexKey { topic_id: Uuid::from_u128(t), partition: p, first_offset: o };
        prop_assert_eq!(WalIndexKey::decode(&range.encode()).unwrap(), range);
        let floor = WalDeleteFloorKey { topic_id: Uuid::from_u128(t), partition: p };
        prop_assert_eq!(WalDeleteFloorKey::decode(&floor.encode()).unwrap(), floor);
        let record = WalDeleteFloorRecord { topic_id: Uuid::from_u128(t), partition: p, floor: o };
        prop_assert_eq!(WalDeleteFloorRecord::decode(&record.encode()).unwrap(), record);
    }

    #[test]
    fn arbitrary_keys_and_values_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..128)) {
        let _ = WalIndexRecordKey::decode(&bytes);
        let _ = WalFlushRecord::decode(&bytes);
        let _ = WalDeleteFloorRecord::decode(&bytes);
        let _ = DisklessWalCapture::from_slice(&bytes);
    }
}
