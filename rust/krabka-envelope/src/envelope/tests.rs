use {super::*, proptest::prelude::*};

fn sample() -> SegmentEnvelope {
    SegmentEnvelope {
        segment: Uuid::from_u128(0x1234),
        cipher: Some(Cipher::Aes256Gcm),
        chunk_size: MIN_CHUNK_SIZE,
        key_id: "k1".to_owned(),
        wrapped_key: vec![7; 256],
        objects: vec![
            ObjectChunks {
                kind: ObjectKind::Log,
                original_size: u64::from(MIN_CHUNK_SIZE) * 2 + 10,
                chunks: vec![
                    StoredChunk {
                        stored_len: 100,
                        compressed: true,
                    },
                    StoredChunk {
                        stored_len: MIN_CHUNK_SIZE + 16,
                        compressed: false,
                    },
                    StoredChunk {
                        stored_len: 26,
                        compressed: false,
                    },
                ],
            },
            ObjectChunks {
                kind: ObjectKind::TransactionIndex,
                original_size: 0,
                chunks: vec![],
            },
        ],
    }
}

#[test]
fn an_envelope_round_trips_and_names_its_fields() {
    let envelope = sample();
    let bytes = envelope.encode();
    assert_eq!(&bytes[..8], b"KRBKENV\x01");
    assert_eq!(
        SegmentEnvelope::decode(&bytes, envelope.segment).unwrap(),
        envelope
    );
    assert_eq!(
        envelope.object(ObjectKind::Log).unwrap().stored_size(),
        8 + 100 + 4096 + 16 + 26
    );
    assert!(matches!(
        envelope.object(ObjectKind::OffsetIndex),
        Err(EnvelopeError::MissingObject {
            kind: ObjectKind::OffsetIndex,
            ..
        })
    ));
}

#[test]
fn spans_cover_exactly_the_chunks_of_a_range() {
    let envelope = sample();
    let log = envelope.object(ObjectKind::Log).unwrap();
    let id = envelope.segment;
    let size = u64::from(MIN_CHUNK_SIZE);
    let span = log.span(id, MIN_CHUNK_SIZE, 0, u64::MAX).unwrap();
    assert_eq!(
        (span.chunks, span.stored, span.original_start),
        (0..3, 8..8 + 100 + 4112 + 26, 0)
    );
    let span = log.span(id, MIN_CHUNK_SIZE, size + 1, size + 2).unwrap();
    assert_eq!(
        (span.chunks, span.stored, span.original_start),
        (1..2, 108..108 + 4112, size)
    );
    let span = log.span(id, MIN_CHUNK_SIZE, size - 1, size + 1).unwrap();
    assert_eq!(span.chunks, 0..2);
    let span = log
        .span(id, MIN_CHUNK_SIZE, 2 * size + 10, u64::MAX)
        .unwrap();
    assert!(span.chunks.is_empty());
    assert!(matches!(
        log.span(id, MIN_CHUNK_SIZE, 2 * size + 11, u64::MAX),
        Err(EnvelopeError::OutOfRange { .. })
    ));
    assert_eq!(log.original_len(MIN_CHUNK_SIZE, 2), 10);
}

#[test]
fn every_malformation_is_refused_with_its_reason() {
    let envelope = sample();
    let good = envelope.encode();
    let id = envelope.segment;
    let reason = |bytes: &[u8], segment: Uuid| match SegmentEnvelope::decode(bytes, segment) {
        Err(EnvelopeError::MalformedEnvelope { reason, .. }) => reason,
        other => panic!("expected a malformed envelope, got {other:?}"),
    };
    assert!(reason(&good[..good.len() - 1], id).contains("checksum"));
    assert!(reason(&good, Uuid::from_u128(9)).contains("belongs to segment"));
    assert!(reason(&[1, 2], id).contains("too short"));

    let resealed = |edit: &dyn Fn(&mut SegmentEnvelope)| {
        let mut copy = sample();
        edit(&mut copy);
        copy.encode()
    };
    assert!(reason(&resealed(&|e| e.chunk_size = 100), id).contains("chunk size"));
    assert!(reason(&resealed(&|e| e.key_id.clear()), id).contains("go with a cipher"));
    assert!(
        reason(
            &resealed(&|e| e.objects[0].original_size += u64::from(MIN_CHUNK_SIZE)),
            id
        )
        .contains("lists 3 chunks")
    );
    assert!(
        reason(&resealed(&|e| e.objects[0].chunks[2].stored_len = 27), id)
            .contains("claims 27 stored bytes")
    );
    assert!(reason(&resealed(&|e| e.objects[1].kind = ObjectKind::Log), id).contains("twice"));
    assert!(reason(&resealed(&|e| e.key_id = "x".repeat(300)), id).contains("more than 255"));

    let with_crc = |mut body: Vec<u8>| {
        let crc = crc32c::crc32c(&body);
        body.extend_from_slice(&crc.to_be_bytes());
        body
    };
    let body = &good[..good.len() - 4];
    let mut version = body.to_vec();
    version[7] = 2;
    assert!(reason(&with_crc(version), id).contains("version 2 is not supported"));
    let mut trailing = body.to_vec();
    trailing.push(0);
    assert!(reason(&with_crc(trailing), id).contains("follow the last object"));
    let mut cipher = body.to_vec();
    cipher[24] = 9;
    assert!(reason(&with_crc(cipher), id).contains("unknown cipher 9"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever the bytes, decoding answers (never panics) and anything it
    /// accepts encodes back to the same bytes.
    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..400), at in any::<usize>(), byte in any::<u8>()) {
        let good = sample().encode();
        let mut mutated = good.clone();
        let at = at % mutated.len();
        mutated[at] = byte;
        for candidate in [&bytes, &mutated] {
            if let Ok(envelope) = SegmentEnvelope::decode(candidate, Uuid::from_u128(0x1234)) {
                prop_assert_eq!(&envelope.encode(), candidate);
            }
        }
        bytes.truncate(3);
        prop_assert!(SegmentEnvelope::decode(&bytes, Uuid::nil()).is_err());
    }
}
