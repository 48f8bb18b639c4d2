use {
    super::*,
    crate::{
        RemoteStorageError,
        index::test_encode::{TestRecord, put_varint, put_varlong},
    },
};

fn context(count: u32) -> RecordContext {
    RecordContext {
        batch_position: 0,
        base_offset: 100,
        base_timestamp: 1_000,
        log_append_time: None,
        count,
    }
}

fn section(records: &[TestRecord]) -> Vec<u8> {
    records.iter().flat_map(TestRecord::encode).collect()
}

/// Every item of the iteration with the internal error kind.
fn decode_all(bytes: &[u8], ctx: RecordContext) -> Vec<Result<Record<'_>, Corruption>> {
    let records = Records::new(Cow::Borrowed(bytes), ctx);
    let mut it = RecordIter {
        cursor: Cursor::new(records_bytes(&records)),
        context: ctx,
        next_index: 0,
        done: false,
    };
    let mut out = Vec::new();
    while let Some(r) = it.next_record() {
        out.push(r);
    }
    out
}

fn records_bytes<'a>(records: &Records<'a>) -> &'a [u8] {
    match &records.bytes {
        Cow::Borrowed(b) => b,
        Cow::Owned(_) => unreachable!("tests borrow"),
    }
}

/// A record body (without its length prefix) from raw parts.
fn body(parts: &[&[u8]]) -> Vec<u8> {
    let body: Vec<u8> = parts.concat();
    let mut out = Vec::new();
    put_varint(&mut out, i32::try_from(body.len()).unwrap());
    out.extend_from_slice(&body);
    out
}

fn varint(v: i32) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, v);
    out
}

fn varlong(v: i64) -> Vec<u8> {
    let mut out = Vec::new();
    put_varlong(&mut out, v);
    out
}

#[test]
fn fields_resolve_against_the_batch() {
    let mut with_headers = TestRecord::new(2, 25, b"v2");
    with_headers.headers = vec![(b"h".to_vec(), Some(b"x".to_vec())), (b"n".to_vec(), None)];
    let records = [
        TestRecord::new(0, 0, b"v0"),
        TestRecord {
            key: None,
            value: None,
            ..TestRecord::new(1, -5, b"")
        },
        with_headers,
    ];
    let bytes = section(&records);
    let decoded: Vec<_> = decode_all(&bytes, context(3))
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(decoded.len(), 3);
    assert_eq!((decoded[0].offset(), decoded[0].timestamp()), (100, 1_000));
    assert_eq!(decoded[0].key(), Some(&b"k0"[..]));
    assert_eq!(decoded[0].value(), Some(&b"v0"[..]));
    assert_eq!(decoded[0].attributes(), 0);
    assert!(decoded[0].headers().is_empty());
    assert_eq!((decoded[1].offset(), decoded[1].timestamp()), (101, 995));
    assert_eq!((decoded[1].key(), decoded[1].value()), (None, None));
    let headers: Vec<_> = decoded[2].headers().into_iter().collect();
    assert_eq!(
        headers,
        [
            RecordHeader {
                key: b"h",
                value: Some(b"x")
            },
            RecordHeader {
                key: b"n",
                value: None
            }
        ]
    );
}

#[test]
fn log_append_time_replaces_every_timestamp() {
    let bytes = section(&[TestRecord::new(0, 5, b"a"), TestRecord::new(1, 99, b"b")]);
    let ctx = RecordContext {
        log_append_time: Some(77_777),
        ..context(2)
    };
    let stamps: Vec<_> = decode_all(&bytes, ctx)
        .into_iter()
        .map(|r| r.unwrap().timestamp())
        .collect();
    assert_eq!(stamps, [77_777, 77_777]);
}

#[test]
fn any_negative_key_or_value_length_is_null() {
    let bytes = body(&[
        &[0],
        &varlong(0),
        &varint(0),
        &varint(-7),
        &varint(-1),
        &varint(0),
    ]);
    let r = decode_all(&bytes, context(1)).remove(0).unwrap();
    assert_eq!((r.key(), r.value()), (None, None));
}

#[test]
fn negative_record_length() {
    let bytes = varint(-3);
    assert_eq!(
        decode_all(&bytes, context(1)),
        [Err(Corruption::NegativeRecordLength {
            index: 0,
            length: -3
        })]
    );
}

#[test]
fn record_longer_than_the_section() {
    let mut bytes = section(&[TestRecord::new(0, 0, b"value")]);
    bytes.pop();
    assert!(matches!(
        decode_all(&bytes, context(1))[0],
        Err(Corruption::Truncated { what: "record", .. })
    ));
}

#[test]
fn fields_shorter_than_the_declared_length() {
    let bytes = body(&[
        &[0],
        &varlong(0),
        &varint(0),
        &varint(-1),
        &varint(-1),
        &varint(0),
        &[9, 9],
    ]);
    assert_eq!(
        decode_all(&bytes, context(1)),
        [Err(Corruption::RecordSizeMismatch {
            index: 0,
            declared: 8,
            used: 6
        })]
    );
}

#[test]
fn fields_longer_than_the_declared_length() {
    // The key claims 10 bytes inside a 5-byte body.
    let bytes = body(&[&[0], &varlong(0), &varint(0), &varint(10)]);
    assert!(matches!(
        decode_all(&bytes, context(1))[0],
        Err(Corruption::Truncated {
            what: "record key",
            ..
        })
    ));
}

#[test]
fn negative_header_count() {
    let bytes = body(&[
        &[0],
        &varlong(0),
        &varint(0),
        &varint(-1),
        &varint(-1),
        &varint(-2),
    ]);
    assert_eq!(
        decode_all(&bytes, context(1)),
        [Err(Corruption::NegativeHeaderCount {
            index: 0,
            count: -2
        })]
    );
}

#[test]
fn negative_header_key_length() {
    let bytes = body(&[
        &[0],
        &varlong(0),
        &varint(0),
        &varint(-1),
        &varint(-1),
        &varint(1),
        &varint(-1),
    ]);
    assert_eq!(
        decode_all(&bytes, context(1)),
        [Err(Corruption::NegativeHeaderKeyLength {
            index: 0,
            length: -1
        })]
    );
}

#[test]
fn huge_header_count_is_bounded_by_the_bytes() {
    let bytes = body(&[
        &[0],
        &varlong(0),
        &varint(0),
        &varint(-1),
        &varint(-1),
        &varint(i32::MAX),
    ]);
    assert!(matches!(
        decode_all(&bytes, context(1))[0],
        Err(Corruption::Truncated {
            what: "header key length",
            ..
        })
    ));
}

#[test]
fn bad_varint_inside_a_record() {
    let bytes = body(&[&[0], &[0x80; 11]]);
    assert_eq!(
        decode_all(&bytes, context(1)),
        [Err(Corruption::VarintTooLong { max_bytes: 10 })]
    );
}

#[test]
fn fewer_records_than_declared() {
    let bytes = section(&[TestRecord::new(0, 0, b"a")]);
    let items = decode_all(&bytes, context(2));
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok());
    assert!(matches!(
        items[1],
        Err(Corruption::Truncated {
            what: "record length",
            ..
        })
    ));
}

#[test]
fn bytes_after_the_declared_records() {
    let bytes = section(&[TestRecord::new(0, 0, b"a"), TestRecord::new(1, 0, b"b")]);
    let items = decode_all(&bytes, context(1));
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok());
    assert!(matches!(
        items[1],
        Err(Corruption::TrailingRecordBytes { count: 1, .. })
    ));
}

#[test]
fn offset_overflow() {
    let bytes = section(&[TestRecord::new(1, 0, b"a")]);
    let ctx = RecordContext {
        base_offset: i64::MAX,
        ..context(1)
    };
    assert_eq!(
        decode_all(&bytes, ctx),
        [Err(Corruption::OffsetOverflow {
            what: "record",
            base: i64::MAX,
            delta: 1
        })]
    );
}

#[test]
fn timestamp_overflow() {
    let bytes = section(&[TestRecord::new(0, -1, b"a")]);
    let ctx = RecordContext {
        base_timestamp: i64::MIN,
        ..context(1)
    };
    assert_eq!(
        decode_all(&bytes, ctx),
        [Err(Corruption::TimestampOverflow {
            base: i64::MIN,
            delta: -1
        })]
    );
    // Under log-append time the delta is not used, as in Kafka.
    let ctx = RecordContext {
        log_append_time: Some(5),
        ..ctx
    };
    assert!(decode_all(&bytes, ctx)[0].is_ok());
}

#[test]
fn public_iterator_stops_after_an_error_with_corrupt_log() {
    let bytes = varint(-3);
    let records = Records::new(Cow::Borrowed(&bytes), context(5));
    let items: Vec<_> = records.iter().collect();
    assert_eq!(items.len(), 1);
    assert!(matches!(
        items[0],
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));
    assert_eq!(records.declared_count(), 5);
    assert_eq!(records.as_bytes(), &bytes[..]);
}

#[test]
fn control_records() {
    let abort = TestRecord {
        key: Some(vec![0, 0, 0, 0]),
        value: Some(vec![0, 0, 0, 0, 0, 12]),
        ..TestRecord::default()
    };
    let bytes = section(&[abort]);
    let r = decode_all(&bytes, context(1)).remove(0).unwrap();
    assert_eq!(r.control_type().unwrap(), ControlRecordType::Abort);
    assert_eq!(
        r.end_transaction_marker().unwrap(),
        Some(EndTransactionMarker {
            kind: ControlRecordType::Abort,
            coordinator_epoch: 12
        })
    );

    let leader_change = TestRecord {
        key: Some(vec![0, 0, 0, 2]),
        value: Some(vec![1, 2, 3]),
        ..TestRecord::default()
    };
    let bytes = section(&[leader_change]);
    let r = decode_all(&bytes, context(1)).remove(0).unwrap();
    assert_eq!(r.control_type().unwrap(), ControlRecordType::Other(2));
    assert_eq!(r.end_transaction_marker().unwrap(), None);

    let null_key = TestRecord {
        key: None,
        ..TestRecord::default()
    };
    let bytes = section(&[null_key]);
    let r = decode_all(&bytes, context(1)).remove(0).unwrap();
    assert!(matches!(
        r.control_type(),
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));

    let short_value = TestRecord {
        key: Some(vec![0, 0, 0, 1]),
        value: Some(vec![0, 0]),
        ..TestRecord::default()
    };
    let bytes = section(&[short_value]);
    let r = decode_all(&bytes, context(1)).remove(0).unwrap();
    assert!(matches!(
        r.end_transaction_marker(),
        Err(RemoteStorageError::Corrupt { format: "log", .. })
    ));
}
