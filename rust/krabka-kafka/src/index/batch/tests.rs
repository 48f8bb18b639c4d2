use {
    super::*,
    crate::{
        RemoteStorageError,
        index::test_encode::{TestBatch, TestRecord, fix_crc},
    },
    proptest::prelude::*,
};

fn decode(bytes: &[u8]) -> Result<RecordBatch<'_>, Corruption> {
    RecordBatch::decode(bytes, 0)
}

#[test]
fn header_fields_are_read_in_place() {
    let batch = TestBatch {
        base_offset: 1234,
        partition_leader_epoch: 7,
        flags: TRANSACTIONAL_BIT,
        base_timestamp: 1_000,
        max_timestamp: Some(5_000),
        producer_id: 4001,
        producer_epoch: 3,
        base_sequence: 17,
        last_offset_delta: Some(9),
        ..TestBatch::with_records(1234, 4)
    };
    let bytes = batch.encode();
    let mut data = bytes.clone();
    data.extend_from_slice(&[0xee; 5]); // bytes after the batch are not its concern
    let b = decode(&data).unwrap();
    assert_eq!(b.base_offset(), 1234);
    assert_eq!(b.last_offset_delta(), 9);
    assert_eq!(b.last_offset(), 1243);
    assert_eq!(b.next_offset(), 1244);
    assert_eq!(b.partition_leader_epoch(), 7);
    assert_eq!(b.magic(), 2);
    assert_eq!(
        b.crc(),
        u32::from_be_bytes(bytes[17..21].try_into().unwrap())
    );
    assert_eq!(b.compression(), Compression::None);
    assert_eq!(b.timestamp_type(), TimestampType::CreateTime);
    assert!(b.is_transactional());
    assert!(!b.is_control());
    assert!(!b.has_delete_horizon());
    assert_eq!(b.base_timestamp(), 1_000);
    assert_eq!(b.max_timestamp(), 5_000);
    assert_eq!(b.producer_id(), 4001);
    assert_eq!(b.producer_epoch(), 3);
    assert_eq!(b.base_sequence(), 17);
    assert_eq!(b.records_count(), 4);
    assert_eq!(b.size_in_bytes(), bytes.len());
    assert_eq!(b.as_bytes(), &bytes[..]);
    assert_eq!(b.records_bytes(), &bytes[61..]);
    assert_eq!(b.position(), 0);
    assert_eq!(b.attributes(), TRANSACTIONAL_BIT);
}

#[test]
fn attribute_flags() {
    for (flags, control, append, horizon) in [
        (CONTROL_BIT, true, false, false),
        (TIMESTAMP_TYPE_BIT, false, true, false),
        (DELETE_HORIZON_BIT, false, false, true),
    ] {
        let bytes = TestBatch {
            flags,
            ..TestBatch::with_records(0, 1)
        }
        .encode();
        let b = decode(&bytes).unwrap();
        assert_eq!(b.is_control(), control);
        assert_eq!(b.timestamp_type() == TimestampType::LogAppendTime, append);
        assert_eq!(b.has_delete_horizon(), horizon);
    }
}

#[test]
fn truncated_before_magic() {
    for len in [0, 1, 12, 16] {
        assert!(matches!(
            decode(&vec![0; len]),
            Err(Corruption::Truncated {
                what: "batch header",
                ..
            })
        ));
    }
}

#[test]
fn truncated_header() {
    let bytes = TestBatch::with_records(0, 1).encode();
    for len in [17, 30, 60] {
        assert!(matches!(
            decode(&bytes[..len]),
            Err(Corruption::Truncated {
                what: "batch header",
                needed: 61,
                ..
            })
        ));
    }
}

#[test]
fn truncated_batch() {
    let bytes = TestBatch::with_records(0, 3).encode();
    for len in [61, bytes.len() - 1] {
        assert!(matches!(
            decode(&bytes[..len]),
            Err(Corruption::Truncated { what: "batch", .. })
        ));
    }
}

#[test]
fn legacy_and_unknown_magic_are_refused() {
    for magic in [0, 1, 3, -1] {
        let bytes = TestBatch {
            magic,
            ..TestBatch::with_records(0, 1)
        }
        .encode();
        assert_eq!(
            decode(&bytes).unwrap_err(),
            Corruption::UnsupportedMagic { magic }
        );
    }
    // 17 bytes are enough to name the magic.
    let mut short = vec![0; 17];
    short[16] = 1;
    assert_eq!(
        decode(&short).unwrap_err(),
        Corruption::UnsupportedMagic { magic: 1 }
    );
}

#[test]
fn batch_length_below_header_is_refused() {
    let mut bytes = TestBatch::with_records(0, 1).encode();
    for length in [48_i32, 0, -1, i32::MIN] {
        bytes[8..12].copy_from_slice(&length.to_be_bytes());
        assert_eq!(
            decode(&bytes).unwrap_err(),
            Corruption::BatchLengthTooSmall { length, min: 49 }
        );
    }
}

#[test]
fn huge_batch_length_is_truncation_not_allocation() {
    let mut bytes = TestBatch::with_records(0, 1).encode();
    bytes[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    assert!(matches!(
        decode(&bytes),
        Err(Corruption::Truncated { what: "batch", .. })
    ));
}

#[test]
fn crc_mismatch_is_refused() {
    let good = TestBatch::with_records(0, 2).encode();
    for flip in [21, 30, 61, good.len() - 1] {
        let mut bytes = good.clone();
        bytes[flip] ^= 0x01;
        assert!(
            matches!(decode(&bytes), Err(Corruption::CrcMismatch { .. })),
            "{flip}"
        );
    }
    let mut bytes = good.clone();
    bytes[17] ^= 0x80; // the stored CRC itself
    assert!(matches!(
        decode(&bytes),
        Err(Corruption::CrcMismatch { .. })
    ));
    // Bytes before the CRC range are not covered (as in Kafka).
    let mut bytes = good;
    bytes[12] ^= 0x01;
    assert!(decode(&bytes).is_ok());
}

#[test]
fn unknown_codec_is_refused() {
    for id in [5_u8, 6, 7] {
        let mut bytes = TestBatch::with_records(0, 1).encode();
        bytes[22] = id;
        fix_crc(&mut bytes);
        assert_eq!(
            decode(&bytes).unwrap_err(),
            Corruption::UnknownCompression { id }
        );
    }
}

#[test]
fn negative_count_and_delta_are_refused() {
    let bytes = TestBatch {
        count: Some(-1),
        ..TestBatch::with_records(0, 1)
    }
    .encode();
    assert_eq!(
        decode(&bytes).unwrap_err(),
        Corruption::NegativeRecordCount { count: -1 }
    );
    let bytes = TestBatch {
        last_offset_delta: Some(-2),
        ..TestBatch::with_records(0, 1)
    }
    .encode();
    assert_eq!(
        decode(&bytes).unwrap_err(),
        Corruption::NegativeLastOffsetDelta { delta: -2 }
    );
}

#[test]
fn last_offset_overflow_is_refused() {
    let bytes = TestBatch {
        base_offset: i64::MAX,
        last_offset_delta: Some(1),
        ..TestBatch::with_records(0, 1)
    }
    .encode();
    assert!(matches!(
        decode(&bytes).unwrap_err(),
        Corruption::OffsetOverflow {
            what: "batch last",
            ..
        }
    ));
}

#[test]
fn public_parse_reports_corrupt_log() {
    let err = RecordBatch::parse(&[0; 20], 40).unwrap_err();
    assert!(matches!(
        err,
        RemoteStorageError::Corrupt { format: "log", .. }
    ));
}

#[test]
fn batches_iterate_in_order_with_positions() {
    let a = TestBatch::with_records(0, 2).encode();
    let b = TestBatch::with_records(2, 3).encode();
    let c = TestBatch::with_records(5, 1).encode();
    let data = [a.clone(), b.clone(), c].concat();
    let batches: Vec<_> = record_batches(&data).map(|b| b.unwrap()).collect();
    assert_eq!(batches.len(), 3);
    assert_eq!(
        batches.iter().map(|b| b.position()).collect::<Vec<_>>(),
        [0, a.len(), a.len() + b.len()]
    );
    assert_eq!(
        batches.iter().map(|b| b.base_offset()).collect::<Vec<_>>(),
        [0, 2, 5]
    );
}

#[test]
fn iteration_ends_at_the_first_error() {
    let a = TestBatch::with_records(0, 2).encode();
    let b = TestBatch::with_records(2, 3).encode();
    let data = [a.clone(), b[..b.len() - 3].to_vec()].concat();
    let mut it = record_batches(&data);
    assert!(it.next().unwrap().is_ok());
    match it.next_batch() {
        Some(Err((position, Corruption::Truncated { what: "batch", .. }))) => {
            assert_eq!(position, a.len());
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(it.next().is_none());
    let mut it = record_batches(&data);
    it.next();
    assert!(matches!(
        it.next(),
        Some(Err(RemoteStorageError::Corrupt { format: "log", .. }))
    ));
    assert!(it.next().is_none());
}

#[test]
fn records_of_compressed_batches_decode() {
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let batch = TestBatch {
            compression: codec,
            ..TestBatch::with_records(100, 5)
        };
        let bytes = batch.encode();
        let b = decode(&bytes).unwrap();
        assert_eq!(b.compression(), codec);
        let records = b.records().unwrap();
        let offsets: Vec<i64> = records.iter().map(|r| r.unwrap().offset()).collect();
        assert_eq!(offsets, [100, 101, 102, 103, 104], "{codec}");
    }
}

#[test]
fn corrupt_compressed_records_are_an_error() {
    let mut bytes = TestBatch {
        compression: Compression::Gzip,
        ..TestBatch::with_records(0, 3)
    }
    .encode();
    let len = bytes.len();
    bytes[len - 12..].fill(0x5a);
    fix_crc(&mut bytes);
    let b = decode(&bytes).unwrap();
    assert!(matches!(
        b.decode_records(1 << 20),
        Err(Corruption::Decompression { .. })
    ));
    assert!(matches!(
        b.records(),
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));
}

#[test]
fn decompression_limit_is_enforced() {
    let batch = TestBatch {
        compression: Compression::Zstd,
        records: vec![TestRecord::new(0, 0, &[7; 100_000])],
        ..TestBatch::default()
    };
    let bytes = batch.encode();
    let b = decode(&bytes).unwrap();
    assert!(matches!(
        b.decode_records(50_000),
        Err(Corruption::DecompressedTooLarge { limit: 50_000, .. })
    ));
    assert!(b.records_with_limit(200_000).is_ok());
}

fn codec() -> impl Strategy<Value = Compression> {
    prop_oneof![
        Just(Compression::None),
        Just(Compression::Gzip),
        Just(Compression::Snappy),
        Just(Compression::Lz4),
        Just(Compression::Zstd),
    ]
}

fn record() -> impl Strategy<Value = TestRecord> {
    (
        0..1000_i32,
        -1000..1000_i64,
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20)),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..64)),
        proptest::collection::vec(
            (
                proptest::collection::vec(any::<u8>(), 0..8),
                proptest::option::of(proptest::collection::vec(any::<u8>(), 0..8)),
            ),
            0..3,
        ),
    )
        .prop_map(
            |(offset_delta, timestamp_delta, key, value, headers)| TestRecord {
                offset_delta,
                timestamp_delta,
                key,
                value,
                headers,
            },
        )
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        for batch in record_batches(&bytes) {
            let Ok(batch) = batch else { break };
            if let Ok(records) = batch.records_with_limit(1 << 16) {
                for record in &records {
                    let Ok(record) = record else { break };
                    let _ = record.headers().iter().count();
                    let _ = record.end_transaction_marker();
                }
            }
        }
    }

    #[test]
    fn never_panics_on_mutated_batches(
        records in proptest::collection::vec(record(), 0..5),
        codec in codec(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        recrc in any::<bool>(),
    ) {
        let mut bytes = TestBatch { compression: codec, records, ..TestBatch::default() }.encode();
        let len = bytes.len();
        for (at, xor) in flips {
            bytes[at % len] ^= xor;
        }
        if recrc && bytes.len() >= 21 {
            fix_crc(&mut bytes);
        }
        if let Ok(batch) = decode(&bytes) {
            if let Ok(records) = batch.decode_records(1 << 16) {
                let mut it = records.iter();
                while let Some(r) = it.next_record() {
                    if r.is_err() { break; }
                }
            }
        }
    }

    #[test]
    fn round_trips_records_in_every_codec(
        base_offset in 0..i64::MAX / 2,
        base_timestamp in -1_000_000_000_000_i64..4_000_000_000_000,
        records in proptest::collection::vec(record(), 0..8),
        codec in codec(),
    ) {
        let batch = TestBatch { base_offset, base_timestamp, compression: codec, records: records.clone(), ..TestBatch::default() };
        let bytes = batch.encode();
        let b = decode(&bytes).unwrap();
        prop_assert_eq!(b.compression(), codec);
        let decoded = b.records().unwrap();
        let decoded: Vec<_> = decoded.iter().map(|r| r.unwrap()).collect();
        prop_assert_eq!(decoded.len(), records.len());
        for (got, want) in decoded.iter().zip(&records) {
            prop_assert_eq!(got.offset(), base_offset + i64::from(want.offset_delta));
            prop_assert_eq!(got.timestamp(), base_timestamp + want.timestamp_delta);
            prop_assert_eq!(got.key(), want.key.as_deref());
            prop_assert_eq!(got.value(), want.value.as_deref());
            let headers: Vec<_> = got.headers().iter().map(|h| (h.key.to_vec(), h.value.map(<[u8]>::to_vec))).collect();
            prop_assert_eq!(&headers, &want.headers);
            prop_assert_eq!(got.headers().len(), want.headers.len());
        }
    }
}
