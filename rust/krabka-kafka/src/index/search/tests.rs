use {
    super::*,
    crate::{
        RemoteStorageError,
        index::{
            Compression,
            test_encode::{TestBatch, TestRecord},
        },
    },
    proptest::prelude::*,
};

/// Batches at offsets 10..=12, 13..=14 (gap to) 20..=22, timestamps 1_000 + 10·i.
fn log() -> Vec<u8> {
    [
        TestBatch {
            base_timestamp: 1_000,
            ..TestBatch::with_records(10, 3)
        }
        .encode(),
        TestBatch {
            base_timestamp: 2_000,
            compression: Compression::Lz4,
            ..TestBatch::with_records(13, 2)
        }
        .encode(),
        TestBatch {
            base_timestamp: 3_000,
            compression: Compression::Zstd,
            ..TestBatch::with_records(20, 3)
        }
        .encode(),
    ]
    .concat()
}

#[test]
fn batch_holding_or_after_an_offset() {
    let data = log();
    let base = |offset| {
        first_batch_at_or_after(&data, offset)
            .unwrap()
            .map(|b| b.base_offset())
    };
    assert_eq!(base(i64::MIN), Some(10));
    assert_eq!(base(10), Some(10));
    assert_eq!(base(12), Some(10));
    assert_eq!(base(13), Some(13));
    assert_eq!(base(15), Some(20)); // in the gap
    assert_eq!(base(22), Some(20));
    assert_eq!(base(23), None);
    assert_eq!(base(i64::MAX), None);
    assert!(first_batch_at_or_after(&[], 0).unwrap().is_none());
}

#[test]
fn batch_search_reports_corruption_before_the_answer() {
    let mut data = log();
    data[70] ^= 0xff; // inside the first batch
    assert!(matches!(
        first_batch_at_or_after(&data, 20),
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));
}

#[test]
fn batch_search_ignores_corruption_after_the_answer() {
    let mut data = log();
    data.truncate(data.len() - 5); // the last batch is cut short
    assert_eq!(
        first_batch_at_or_after(&data, 11)
            .unwrap()
            .map(|b| b.base_offset()),
        Some(10)
    );
    assert!(first_batch_at_or_after(&data, 21).is_err());
}

#[test]
fn first_record_by_timestamp() {
    let data = log();
    let find = |floor, ts| first_record_at_or_after_timestamp(&data, floor, ts).unwrap();
    assert_eq!(find(0, i64::MIN), Some((10, 1_000)));
    assert_eq!(find(0, 1_000), Some((10, 1_000)));
    assert_eq!(find(0, 1_001), Some((11, 1_010)));
    assert_eq!(find(0, 1_021), Some((13, 2_000)));
    assert_eq!(find(0, 2_011), Some((20, 3_000)));
    assert_eq!(find(0, 3_020), Some((22, 3_020)));
    assert_eq!(find(0, 3_021), None);
    // The floor offset skips earlier records even when they match the time.
    assert_eq!(find(12, 0), Some((12, 1_020)));
    assert_eq!(find(15, 0), Some((20, 3_000)));
    assert_eq!(find(23, 0), None);
    assert_eq!(first_record_at_or_after_timestamp(&[], 0, 0).unwrap(), None);
}

#[test]
fn timestamps_need_not_be_monotonic() {
    let batch = TestBatch {
        base_offset: 0,
        base_timestamp: 1_000,
        records: vec![
            TestRecord::new(0, 50, b"a"),
            TestRecord::new(1, 10, b"b"),
            TestRecord::new(2, 30, b"c"),
        ],
        ..TestBatch::default()
    }
    .encode();
    let find = |ts| first_record_at_or_after_timestamp(&batch, 0, ts).unwrap();
    assert_eq!(find(1_020), Some((0, 1_050)));
    assert_eq!(
        first_record_at_or_after_timestamp(&batch, 1, 1_020).unwrap(),
        Some((2, 1_030))
    );
}

#[test]
fn log_append_time_uses_the_batch_max_timestamp() {
    let batch = TestBatch {
        flags: 1 << 3,
        base_timestamp: 1_000,
        max_timestamp: Some(9_000),
        ..TestBatch::with_records(0, 3)
    }
    .encode();
    assert_eq!(
        first_record_at_or_after_timestamp(&batch, 0, 5_000).unwrap(),
        Some((0, 9_000))
    );
    assert_eq!(
        first_record_at_or_after_timestamp(&batch, 0, 9_001).unwrap(),
        None
    );
}

#[test]
fn batches_below_the_target_are_not_decoded() {
    // The first batch declares a third record it does not hold, but its max
    // timestamp is below the target, so it is skipped like Kafka skips it.
    let first = TestBatch {
        base_timestamp: 1_000,
        max_timestamp: Some(1_020),
        count: Some(3),
        ..TestBatch::with_records(0, 2)
    };
    let second = TestBatch {
        base_timestamp: 5_000,
        ..TestBatch::with_records(2, 1)
    };
    let data = [first.encode(), second.encode()].concat();
    assert_eq!(
        first_record_at_or_after_timestamp(&data, 0, 4_000).unwrap(),
        Some((2, 5_000))
    );
    // Found before the missing record: no error.
    assert_eq!(
        first_record_at_or_after_timestamp(&data, 0, 1_005).unwrap(),
        Some((1, 1_010))
    );
    // Needs the missing record: the truncation is reported.
    assert!(matches!(
        first_record_at_or_after_timestamp(&data, 0, 1_015),
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));
}

#[test]
fn record_overflow_is_an_error() {
    let batch = TestBatch {
        base_timestamp: i64::MAX - 5,
        max_timestamp: Some(i64::MAX),
        records: vec![TestRecord::new(0, 10, b"a")],
        ..TestBatch::default()
    }
    .encode();
    assert!(matches!(
        first_record_at_or_after_timestamp(&batch, 0, 0),
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));
}

proptest! {
    #[test]
    fn searches_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512), offset in any::<i64>(), ts in any::<i64>()) {
        let _ = first_batch_at_or_after(&bytes, offset);
        let _ = first_record_at_or_after_timestamp(&bytes, offset, ts);
    }

    #[test]
    fn timestamp_search_matches_a_linear_scan(floor in 0i64..30, ts in 900i64..3_100) {
        let data = log();
        let mut expected = None;
        'outer: for batch in crate::index::record_batches(&data) {
            let batch = batch.unwrap();
            for record in &batch.records().unwrap() {
                let record = record.unwrap();
                if record.offset() >= floor && record.timestamp() >= ts {
                    expected = Some((record.offset(), record.timestamp()));
                    break 'outer;
                }
            }
        }
        prop_assert_eq!(first_record_at_or_after_timestamp(&data, floor, ts).unwrap(), expected);
    }
}
