//! Capture documents: every validation rule, sealing and authentication
//! with the WORM manifest machinery, and the projection reducer.

use {
    krabka_remote_storage::{
        ChainHead, ManifestBody, ManifestSigner, ObjectEntry, Sha256Digest, TrustedManifestKeys,
        WormError,
        diskless::{
            CAPTURE_HEAD_NAME, CaptureTopic, CaptureViolation, CapturedWalRange, DisklessError,
            DisklessPartitionCapture, DisklessWalCapture, REPLAY_FENCE_KEY, WalCaptureProjection,
            WalDeleteFloorKey, WalDeleteFloorRecord, WalFlushRecord, WalIndexEntry, keyed_entry,
        },
        manifest_head,
    },
    proptest::prelude::*,
    std::collections::BTreeMap,
    uuid::Uuid,
};

const TOPIC: u128 = 0x0011_2233_4455_6677_8899_aabb_ccdd_eeff;

fn signer(seed: u8, key_id: &str) -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[seed; 32], key_id).unwrap()
}

fn trusted() -> TrustedManifestKeys {
    TrustedManifestKeys::single("capture-key", &signer(1, "capture-key").public_key()).unwrap()
}

fn entry(partition: i32, first: i64, last: i64, start: u64, len: u32) -> WalIndexEntry {
    WalIndexEntry {
        topic_id: Uuid::from_u128(TOPIC),
        partition,
        first_offset: first,
        last_offset: last,
        byte_start: start,
        byte_len: len,
        max_timestamp_ms: 1_700_000_000_000 + first,
    }
}

fn range(key: &str, entry: WalIndexEntry) -> CapturedWalRange {
    CapturedWalRange {
        object_key: key.to_owned(),
        entry,
    }
}

/// `orders`-3: floor 10, ranges 10..=12 in wal/a and 13..=20 in wal/b.
fn capture() -> DisklessWalCapture {
    DisklessWalCapture {
        format_version: 1,
        captured_at_ms: 1_700_000_000_000,
        source_cutoffs: vec![5, 7],
        partitions: vec![DisklessPartitionCapture {
            topic: "orders".to_owned(),
            topic_id: Uuid::from_u128(TOPIC),
            partition: 3,
            delete_floor: 10,
            recovery_cutoff: 21,
            ranges: vec![
                range("wal/a", entry(3, 10, 12, 6, 64)),
                range("wal/b", entry(3, 13, 20, 6, 32)),
            ],
        }],
        metadata_snapshot_sha256: Some(Sha256Digest::of(b"metadata")),
        rlmm_snapshot_sha256: None,
        group_offsets_sha256: None,
        authentication: None,
    }
}

fn wal_object(key: &str) -> ObjectEntry {
    ObjectEntry {
        suffix: ".wal".to_owned(),
        key: key.to_owned(),
        size_bytes: 1000,
        sha256: Sha256Digest::of(key.as_bytes()),
        e_tag: None,
        version_id: None,
        create_precondition: true,
    }
}

fn sealed() -> (DisklessWalCapture, ChainHead) {
    let mut capture = capture();
    let head = capture
        .seal(
            vec![wal_object("wal/b"), wal_object("wal/a")],
            &signer(1, "capture-key"),
        )
        .unwrap();
    (capture, head)
}

fn violation(capture: &DisklessWalCapture) -> CaptureViolation {
    capture.validate().unwrap_err()
}

// ---- validation ----

#[test]
fn valid_capture_passes_and_round_trips_through_json() {
    let capture = capture();
    capture.validate().unwrap();
    let bytes = capture.to_vec().unwrap();
    assert_eq!(DisklessWalCapture::from_slice(&bytes).unwrap(), capture);
}

#[test]
fn path_escaping_and_invalid_topic_names_are_refused() {
    for bad in [
        "../escape",
        "orders/escape",
        "",
        ".",
        "..",
        "a b",
        &"t".repeat(250),
    ] {
        let mut capture = capture();
        capture.partitions[0].topic = bad.to_owned();
        assert!(
            matches!(
                violation(&capture),
                CaptureViolation::InvalidTopicName { .. }
            ),
            "{bad:?}"
        );
    }
    let mut capture = capture();
    capture.partitions[0].topic = "a.b_c-D9".to_owned();
    capture.validate().unwrap();
}

#[test]
fn each_validation_rule_has_its_refusal() {
    type Case = (
        &'static str,
        fn(&mut DisklessWalCapture),
        fn(&CaptureViolation) -> bool,
    );
    let cases: Vec<Case> = vec![
        (
            "format version",
            |c| c.format_version = 2,
            |v| matches!(v, CaptureViolation::FormatVersion { found: 2 }),
        ),
        (
            "negative source cutoff",
            |c| c.source_cutoffs[1] = -1,
            |v| {
                matches!(
                    v,
                    CaptureViolation::NegativeSourceCutoff {
                        index: 1,
                        value: -1
                    }
                )
            },
        ),
        (
            "negative partition",
            |c| {
                c.partitions[0].partition = -1;
                for r in &mut c.partitions[0].ranges {
                    r.entry.partition = -1;
                }
            },
            |v| matches!(v, CaptureViolation::NegativePartition { .. }),
        ),
        (
            "negative floor",
            |c| c.partitions[0].delete_floor = -1,
            |v| matches!(v, CaptureViolation::NegativeDeleteFloor { .. }),
        ),
        (
            "duplicate partition",
            |c| {
                let copy = c.partitions[0].clone();
                c.partitions.push(copy);
            },
            |v| matches!(v, CaptureViolation::DuplicatePartition { partition: 3, .. }),
        ),
        (
            "empty object key",
            |c| c.partitions[0].ranges[0].object_key.clear(),
            |v| matches!(v, CaptureViolation::InvalidObjectKey { .. }),
        ),
        (
            "reserved object key",
            |c| {
                c.partitions[0].ranges[0].object_key = "__krabka_diskless_capture_state".to_owned();
            },
            |v| matches!(v, CaptureViolation::InvalidObjectKey { .. }),
        ),
        (
            "foreign partition",
            |c| c.partitions[0].ranges[1].entry.partition = 4,
            |v| {
                matches!(
                    v,
                    CaptureViolation::ForeignRange {
                        entry_partition: 4,
                        ..
                    }
                )
            },
        ),
        (
            "foreign topic",
            |c| c.partitions[0].ranges[1].entry.topic_id = Uuid::nil(),
            |v| matches!(v, CaptureViolation::ForeignRange { .. }),
        ),
        (
            "inverted range",
            |c| c.partitions[0].ranges[1].entry.last_offset = 12,
            |v| matches!(v, CaptureViolation::InvalidRange { .. }),
        ),
        (
            "negative first offset",
            |c| {
                c.partitions[0].delete_floor = 0;
                c.partitions[0].ranges[0].entry.first_offset = -1;
            },
            |v| matches!(v, CaptureViolation::InvalidRange { .. }),
        ),
        (
            "empty run",
            |c| c.partitions[0].ranges[1].entry.byte_len = 0,
            |v| matches!(v, CaptureViolation::InvalidRange { byte_len: 0, .. }),
        ),
        (
            "overlap",
            |c| c.partitions[0].ranges[1].entry.first_offset = 12,
            |v| {
                matches!(
                    v,
                    CaptureViolation::RangesNotIncreasing {
                        previous_last: 12,
                        first_offset: 12,
                        ..
                    }
                )
            },
        ),
        (
            "out of order",
            |c| {
                c.partitions[0].ranges.swap(0, 1);
                c.partitions[0].delete_floor = 13;
            },
            |v| matches!(v, CaptureViolation::RangesNotIncreasing { .. }),
        ),
        (
            "gap between ranges",
            |c| c.partitions[0].ranges[1].entry.first_offset = 14,
            |v| matches!(v, CaptureViolation::Gap { at: 13, .. }),
        ),
        (
            "gap above the floor",
            |c| c.partitions[0].delete_floor = 9,
            |v| matches!(v, CaptureViolation::Gap { at: 9, .. }),
        ),
        (
            "recovery cutoff",
            |c| c.partitions[0].recovery_cutoff = 20,
            |v| {
                matches!(
                    v,
                    CaptureViolation::RecoveryCutoffMismatch {
                        expected: 21,
                        declared: 20,
                        ..
                    }
                )
            },
        ),
        (
            "offset overflow",
            |c| c.partitions[0].ranges[1].entry.last_offset = i64::MAX,
            |v| matches!(v, CaptureViolation::OffsetOverflow { .. }),
        ),
    ];
    for (name, mutate, expect) in cases {
        let mut capture = capture();
        mutate(&mut capture);
        let found = violation(&capture);
        assert!(expect(&found), "{name}: {found:?}");
    }
}

#[test]
fn ranges_below_the_floor_need_no_contiguity() {
    let mut capture = capture();
    capture.partitions[0]
        .ranges
        .insert(0, range("wal/old", entry(3, 0, 3, 6, 8)));
    capture.validate().unwrap();
    let mut straddling = capture.clone();
    straddling.partitions[0].delete_floor = 11;
    straddling.validate().unwrap();
    let mut empty = capture.clone();
    empty.partitions[0].ranges.clear();
    empty.partitions[0].recovery_cutoff = 10;
    empty.validate().unwrap();
}

#[test]
fn from_slice_probes_the_version_first() {
    let legacy = br#"{"captured_at_ms":1,"source_cutoffs":[],"partitions":[]}"#;
    let err = DisklessWalCapture::from_slice(legacy).unwrap_err();
    assert!(matches!(err, DisklessError::CaptureMissingFormatVersion));
    assert!(err.to_string().contains("predates krabka 1.0"));
    let future = br#"{"format_version":2,"new_shape":true}"#;
    assert!(matches!(
        DisklessWalCapture::from_slice(future),
        Err(DisklessError::UnsupportedCaptureVersion { found: 2 })
    ));
    for bad in [
        &b""[..],
        b"[]",
        b"{\"format_version\":\"1\"}",
        b"{\"format_version\":1}",
    ] {
        assert!(
            matches!(
                DisklessWalCapture::from_slice(bad),
                Err(DisklessError::CaptureDecode { .. })
            ),
            "{bad:?}"
        );
    }
    let mut bytes = capture().to_vec().unwrap();
    bytes.pop();
    bytes.extend_from_slice(b",\"extra\":1}");
    assert!(matches!(
        DisklessWalCapture::from_slice(&bytes),
        Err(DisklessError::CaptureDecode { .. })
    ));
    let mut invalid = capture();
    invalid.partitions[0].topic = "../x".to_owned();
    assert!(matches!(
        DisklessWalCapture::from_slice(&invalid.to_vec().unwrap()),
        Err(DisklessError::InvalidCapture(
            CaptureViolation::InvalidTopicName { .. }
        ))
    ));
}

// ---- sealing and authentication ----

#[test]
fn sealed_capture_authenticates_and_survives_json() {
    let (capture, head) = sealed();
    let manifest = capture.authentication.as_ref().unwrap();
    assert_eq!(manifest.body.segment.topic, CAPTURE_HEAD_NAME);
    assert_eq!(manifest_head(&manifest.body), head);
    let reread = DisklessWalCapture::from_slice(&capture.to_vec().unwrap()).unwrap();
    let authenticated = reread.authenticate(&trusted(), &head).unwrap();
    assert_eq!(authenticated.head(), head);
    assert_eq!(authenticated.key_id(), "capture-key");
    assert_eq!(
        authenticated.claims().keys().collect::<Vec<_>>(),
        ["wal/a", "wal/b"]
    );
    assert_eq!(authenticated.claims()["wal/b"], wal_object("wal/b"));
}

#[test]
fn seal_requires_exactly_the_capture_objects() {
    let signer = signer(1, "capture-key");
    for (objects, reason) in [
        (vec![wal_object("wal/a")], "missing"),
        (
            vec![
                wal_object("wal/a"),
                wal_object("wal/b"),
                wal_object("wal/c"),
            ],
            "unexpected",
        ),
        (
            vec![
                wal_object("wal/a"),
                wal_object("wal/a"),
                wal_object("wal/b"),
            ],
            "duplicate",
        ),
    ] {
        let mut capture = capture();
        let err = capture.seal(objects, &signer).unwrap_err();
        assert!(
            matches!(err, DisklessError::SealObjectsMismatch { reason: r, .. } if r == reason),
            "{reason}: {err:?}"
        );
        assert!(capture.authentication.is_none());
    }
}

#[test]
fn seal_refuses_invalid_captures_and_out_of_range_numbers() {
    let signer = signer(1, "capture-key");
    let mut invalid = capture();
    invalid.partitions[0].recovery_cutoff = 0;
    assert!(matches!(
        invalid.seal(vec![wal_object("wal/a"), wal_object("wal/b")], &signer),
        Err(DisklessError::InvalidCapture(_))
    ));
    let mut late = capture();
    late.captured_at_ms = u64::MAX;
    assert!(matches!(
        late.seal(vec![wal_object("wal/a"), wal_object("wal/b")], &signer),
        Err(DisklessError::SealOutOfRange(_))
    ));
    let mut huge = capture();
    let mut big = wal_object("wal/a");
    big.size_bytes = u64::MAX;
    assert!(matches!(
        huge.seal(vec![big, wal_object("wal/b")], &signer),
        Err(DisklessError::SealOutOfRange(_))
    ));
}

#[test]
fn unsealed_capture_is_refused() {
    assert!(matches!(
        capture().authenticate(&trusted(), &ChainHead::GENESIS),
        Err(DisklessError::CaptureNotSealed)
    ));
}

#[test]
fn capture_signed_by_an_untrusted_key_is_refused() {
    let mut capture = capture();
    let head = capture
        .seal(
            vec![wal_object("wal/a"), wal_object("wal/b")],
            &signer(2, "other-key"),
        )
        .unwrap();
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureSignature(
            WormError::UntrustedKey { .. }
        ))
    ));
}

#[test]
fn capture_signed_by_another_key_under_the_trusted_id_is_refused() {
    let mut capture = capture();
    let head = capture
        .seal(
            vec![wal_object("wal/a"), wal_object("wal/b")],
            &signer(2, "capture-key"),
        )
        .unwrap();
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureSignature(
            WormError::SignatureInvalid { .. }
        ))
    ));
}

#[test]
fn unsigned_seal_is_refused() {
    let (mut capture, head) = sealed();
    if let Some(manifest) = &mut capture.authentication {
        manifest.signature = None;
    }
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureSignature(WormError::Unsigned))
    ));
}

#[test]
fn tampered_claim_breaks_the_signature() {
    let (mut capture, head) = sealed();
    if let Some(manifest) = &mut capture.authentication {
        manifest.body.objects[0].sha256 = Sha256Digest::of(b"other bytes");
    }
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureSignature(
            WormError::SignatureInvalid { .. }
        ))
    ));
}

#[test]
fn head_must_match_the_pinned_one() {
    let (capture, head) = sealed();
    let mut other = head;
    other.0[0] ^= 1;
    assert!(matches!(
        capture.authenticate(&trusted(), &other),
        Err(DisklessError::CaptureHeadMismatch { expected, found }) if expected == other && found == head
    ));
}

#[test]
fn capture_changed_after_signing_is_refused() {
    let changes: Vec<fn(&mut DisklessWalCapture)> = vec![
        |c| c.partitions[0].ranges[1].entry.max_timestamp_ms += 1,
        |c| c.source_cutoffs[0] = 6,
        |c| c.metadata_snapshot_sha256 = None,
        |c| c.captured_at_ms += 1,
    ];
    for change in changes {
        let (mut capture, head) = sealed();
        change(&mut capture);
        capture.validate().unwrap();
        assert!(matches!(
            capture.authenticate(&trusted(), &head),
            Err(DisklessError::CaptureStateChanged)
        ));
    }
}

/// Re-signs the capture's seal after `change`, with the trusted key, and
/// returns the new head: a validly signed but malformed seal.
fn resigned(capture: &mut DisklessWalCapture, change: impl FnOnce(&mut ManifestBody)) -> ChainHead {
    let manifest = capture.authentication.take().unwrap();
    let mut body = manifest.body;
    change(&mut body);
    let head = manifest_head(&body);
    capture.authentication = Some(signer(1, "capture-key").seal(body));
    head
}

#[test]
fn seal_that_is_not_a_capture_boundary_is_refused() {
    let (mut capture, _) = sealed();
    let head = resigned(&mut capture, |body| {
        body.segment.topic = "orders".to_owned()
    });
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureBoundaryMismatch)
    ));
    let (mut capture, _) = sealed();
    let head = resigned(&mut capture, |body| body.chain.seq.0 = 1);
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureBoundaryMismatch)
    ));
}

#[test]
fn state_claim_must_appear_exactly_once() {
    let (mut capture, _) = sealed();
    let head = resigned(&mut capture, |body| {
        body.objects.pop();
    });
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureStateClaimCount { count: 0 })
    ));
    let (mut capture, _) = sealed();
    let head = resigned(&mut capture, |body| {
        let claim = body.objects.last().unwrap().clone();
        body.objects.push(claim);
    });
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::CaptureStateClaimCount { count: 2 })
    ));
}

#[test]
fn wal_claims_must_cover_the_ranges_exactly() {
    type Change = fn(&mut ManifestBody);
    let cases: Vec<(Change, &str)> = vec![
        (
            |body| {
                body.objects.remove(0);
            },
            "missing",
        ),
        (
            |body| body.objects.insert(0, wal_object("wal/z")),
            "unexpected",
        ),
        (
            |body| {
                let copy = body.objects[0].clone();
                body.objects.insert(0, copy);
            },
            "duplicate",
        ),
    ];
    for (change, reason) in cases {
        let (mut capture, _) = sealed();
        let head = resigned(&mut capture, change);
        let err = capture.authenticate(&trusted(), &head).unwrap_err();
        assert!(
            matches!(&err, DisklessError::CaptureClaimsMismatch { reason: r, .. } if *r == reason),
            "{reason}: {err:?}"
        );
    }
}

#[test]
fn invalid_capture_is_refused_before_authentication() {
    let (mut capture, head) = sealed();
    capture.partitions[0].topic = "../escape".to_owned();
    assert!(matches!(
        capture.authenticate(&trusted(), &head),
        Err(DisklessError::InvalidCapture(_))
    ));
}

// ---- projection ----

fn topics(partitions: i32) -> BTreeMap<Uuid, CaptureTopic> {
    BTreeMap::from([(
        Uuid::from_u128(TOPIC),
        CaptureTopic {
            name: "orders".to_owned(),
            partitions,
        },
    )])
}

fn apply_range(projection: &mut WalCaptureProjection, key: &str, entry: WalIndexEntry) {
    let (k, v) = keyed_entry(key, entry);
    projection.apply(Some(&k), Some(&v)).unwrap();
}

fn floor_record(partition: i32, floor: i64) -> (Vec<u8>, Vec<u8>) {
    let key = WalDeleteFloorKey {
        topic_id: Uuid::from_u128(TOPIC),
        partition,
    };
    let value = WalDeleteFloorRecord {
        topic_id: Uuid::from_u128(TOPIC),
        partition,
        floor,
    };
    (key.encode().to_vec(), value.encode())
}

#[test]
fn projection_reproduces_the_capture() {
    let mut projection = WalCaptureProjection::new();
    apply_range(&mut projection, "wal/b", entry(3, 13, 20, 6, 32));
    apply_range(&mut projection, "wal/a", entry(3, 10, 12, 6, 64));
    let (k, v) = floor_record(3, 10);
    projection.apply(Some(&k), Some(&v)).unwrap();
    projection.apply(Some(REPLAY_FENCE_KEY), Some(b"")).unwrap();
    projection.apply(Some(REPLAY_FENCE_KEY), None).unwrap();
    let built = projection
        .capture(&topics(4), vec![5, 7], 1_700_000_000_000)
        .unwrap();
    assert_eq!(built.partitions.len(), 4, "empty partitions are kept");
    for (p, partition) in built.partitions.iter().enumerate() {
        assert_eq!(partition.partition, i32::try_from(p).unwrap());
    }
    assert!(built.partitions[0].ranges.is_empty());
    assert_eq!(built.partitions[0].recovery_cutoff, 0);
    let expected = capture();
    assert_eq!(built.partitions[3], expected.partitions[0]);
}

#[test]
fn floors_take_the_maximum_and_tombstones_remove() {
    let mut projection = WalCaptureProjection::new();
    for floor in [5, 9, 7] {
        let (k, v) = floor_record(0, floor);
        projection.apply(Some(&k), Some(&v)).unwrap();
    }
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    assert_eq!(built.partitions[0].delete_floor, 9);
    assert_eq!(built.partitions[0].recovery_cutoff, 9);
    let (k, _) = floor_record(0, 0);
    projection.apply(Some(&k), None).unwrap();
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    assert_eq!(built.partitions[0].delete_floor, 0);
}

#[test]
fn range_tombstones_and_replacements_apply() {
    let mut projection = WalCaptureProjection::new();
    apply_range(&mut projection, "wal/a", entry(0, 0, 4, 6, 10));
    apply_range(&mut projection, "wal/b", entry(0, 5, 9, 6, 10));
    apply_range(&mut projection, "wal/c", entry(0, 5, 9, 16, 10));
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    assert_eq!(built.partitions[0].ranges[1].object_key, "wal/c");
    let (k, _) = keyed_entry("wal/c", entry(0, 5, 9, 16, 10));
    projection.apply(Some(&k), None).unwrap();
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    assert_eq!(built.partitions[0].ranges.len(), 1);
    assert_eq!(built.partitions[0].recovery_cutoff, 5);
}

#[test]
fn adjacent_ranges_of_one_object_merge() {
    let mut projection = WalCaptureProjection::new();
    apply_range(&mut projection, "wal/a", entry(0, 0, 4, 6, 10));
    apply_range(&mut projection, "wal/a", entry(0, 5, 9, 16, 20));
    apply_range(&mut projection, "wal/a", entry(0, 10, 12, 40, 5)); // bytes not contiguous
    apply_range(&mut projection, "wal/b", entry(0, 13, 14, 45, 5)); // another object
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    let ranges = &built.partitions[0].ranges;
    assert_eq!(ranges.len(), 3);
    assert_eq!(
        (ranges[0].entry.first_offset, ranges[0].entry.last_offset),
        (0, 9)
    );
    assert_eq!(
        (ranges[0].entry.byte_start, ranges[0].entry.byte_len),
        (6, 30)
    );
    assert_eq!(
        ranges[0].entry.max_timestamp_ms,
        entry(0, 5, 9, 0, 1).max_timestamp_ms
    );
    assert_eq!(built.partitions[0].recovery_cutoff, 15);
}

#[test]
fn merging_stops_at_4_gib() {
    let mut projection = WalCaptureProjection::new();
    apply_range(&mut projection, "wal/a", entry(0, 0, 4, 6, u32::MAX));
    apply_range(
        &mut projection,
        "wal/a",
        entry(0, 5, 9, 6 + u64::from(u32::MAX), 1),
    );
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    assert_eq!(built.partitions[0].ranges.len(), 2);
}

#[test]
fn topics_outside_the_authorised_set_are_ignored() {
    let mut projection = WalCaptureProjection::new();
    let mut foreign = entry(0, 0, 4, 6, 10);
    foreign.topic_id = Uuid::from_u128(99);
    apply_range(&mut projection, "wal/x", foreign);
    let built = projection.capture(&topics(1), vec![], 0).unwrap();
    assert!(built.partitions[0].ranges.is_empty());
    let none = projection.capture(&BTreeMap::new(), vec![], 0).unwrap();
    assert!(none.partitions.is_empty());
}

#[test]
fn projection_refusals_are_typed() {
    let mut projection = WalCaptureProjection::new();
    assert!(matches!(
        projection.apply(None, Some(b"x")),
        Err(DisklessError::UnkeyedIndexRecord)
    ));
    let (k, _) = floor_record(0, 1);
    let (_, other_partition) = floor_record(1, 1);
    assert!(matches!(
        projection.apply(Some(&k), Some(&other_partition)),
        Err(DisklessError::FloorKeyMismatch {
            key_partition: 0,
            record_partition: 1,
            ..
        })
    ));
    let (k, negative) = floor_record(0, -1);
    assert!(matches!(
        projection.apply(Some(&k), Some(&negative)),
        Err(DisklessError::NegativeFloor { floor: -1 })
    ));
    let (key, _) = keyed_entry("wal/a", entry(0, 0, 4, 6, 10));
    let (_, value) = keyed_entry("wal/a", entry(0, 1, 4, 6, 10));
    assert!(matches!(
        projection.apply(Some(&key), Some(&value)),
        Err(DisklessError::RangeKeyMismatch {
            first_offset: 0,
            ..
        })
    ));
    for (bad, what) in [
        (entry(0, 0, -1, 6, 10), "inverted"),
        (entry(0, 0, 4, 6, 0), "empty"),
    ] {
        let (k, v) = keyed_entry("wal/a", bad);
        assert!(
            matches!(
                projection.apply(Some(&k), Some(&v)),
                Err(DisklessError::InvalidIndexEntry { .. })
            ),
            "{what}"
        );
    }
    let (k, v) = keyed_entry("", entry(0, 0, 4, 6, 10));
    assert!(matches!(
        projection.apply(Some(&k), Some(&v)),
        Err(DisklessError::InvalidIndexEntry { .. })
    ));
    let (k, _) = keyed_entry("wal/a", entry(0, 0, 4, 6, 10));
    assert!(matches!(
        projection.apply(Some(&k), Some(b"\x00\x01")),
        Err(DisklessError::UnsupportedFlushRecordVersion { found: 1 })
    ));
    assert!(matches!(
        projection.apply(Some(b"\x00\x07"), None),
        Err(DisklessError::UnknownIndexKeyVersion { version: 7 })
    ));
    assert_eq!(
        projection,
        WalCaptureProjection::new(),
        "refusals changed the state"
    );
}

#[test]
fn capture_refusals_are_typed() {
    let mut overlapping = WalCaptureProjection::new();
    apply_range(&mut overlapping, "wal/a", entry(0, 0, 4, 6, 10));
    apply_range(&mut overlapping, "wal/b", entry(0, 3, 9, 6, 10));
    assert!(matches!(
        overlapping.capture(&topics(1), vec![], 0),
        Err(DisklessError::OverlappingRanges { partition: 0, .. })
    ));
    let mut gap = WalCaptureProjection::new();
    apply_range(&mut gap, "wal/a", entry(0, 0, 4, 6, 10));
    apply_range(&mut gap, "wal/b", entry(0, 6, 9, 6, 10));
    assert!(matches!(
        gap.capture(&topics(1), vec![], 0),
        Err(DisklessError::InvalidCapture(CaptureViolation::Gap {
            at: 5,
            ..
        }))
    ));
    let mut outside = WalCaptureProjection::new();
    apply_range(&mut outside, "wal/a", entry(5, 0, 4, 6, 10));
    assert!(matches!(
        outside.capture(&topics(2), vec![], 0),
        Err(DisklessError::PartitionOutsideTopic {
            partition: 5,
            count: 2,
            ..
        })
    ));
    let (k, v) = floor_record(7, 1);
    let mut floor_outside = WalCaptureProjection::new();
    floor_outside.apply(Some(&k), Some(&v)).unwrap();
    assert!(matches!(
        floor_outside.capture(&topics(2), vec![], 0),
        Err(DisklessError::PartitionOutsideTopic { partition: 7, .. })
    ));
    assert!(matches!(
        WalCaptureProjection::new().capture(&topics(-1), vec![], 0),
        Err(DisklessError::InvalidPartitionCount { count: -1, .. })
    ));
    let mut bad_name = topics(1);
    if let Some(topic) = bad_name.values_mut().next() {
        topic.name = "../escape".to_owned();
    }
    assert!(matches!(
        WalCaptureProjection::new().capture(&bad_name, vec![], 0),
        Err(DisklessError::InvalidCapture(
            CaptureViolation::InvalidTopicName { .. }
        ))
    ));
    assert!(matches!(
        WalCaptureProjection::new().capture(&topics(1), vec![-5], 0),
        Err(DisklessError::InvalidCapture(
            CaptureViolation::NegativeSourceCutoff { .. }
        ))
    ));
}

#[test]
fn flush_records_with_several_entries_contribute_the_keyed_one() {
    let record = WalFlushRecord {
        object_key: "wal/a".to_owned(),
        entries: vec![entry(0, 0, 4, 6, 10), entry(1, 0, 2, 16, 5)],
    };
    let mut projection = WalCaptureProjection::new();
    let key = entry(1, 0, 2, 16, 5).key().encode();
    projection
        .apply(Some(&key), Some(&record.encode()))
        .unwrap();
    let built = projection.capture(&topics(2), vec![], 0).unwrap();
    assert!(built.partitions[0].ranges.is_empty());
    assert_eq!(built.partitions[1].ranges[0].entry, entry(1, 0, 2, 16, 5));
}

proptest! {
    /// Contiguous runs of random objects always project into a valid capture
    /// whose ranges cover exactly the applied offsets.
    #[test]
    fn projection_of_contiguous_runs_is_valid(
        spans in proptest::collection::vec((1i64..20, 0u8..3, 1u32..100), 1..20),
        floor in 0i64..50,
    ) {
        let mut projection = WalCaptureProjection::new();
        let mut first = 0i64;
        let mut byte_start = [6u64; 3];
        for (len, object, bytes) in &spans {
            let o = usize::from(*object);
            apply_range(
                &mut projection,
                &format!("wal/{object}"),
                entry(0, first, first + len - 1, byte_start[o], *bytes),
            );
            byte_start[o] += u64::from(*bytes);
            first += len;
        }
        let (k, v) = floor_record(0, floor);
        projection.apply(Some(&k), Some(&v)).unwrap();
        let built = projection.capture(&topics(1), vec![], 0).unwrap();
        let partition = &built.partitions[0];
        prop_assert_eq!(partition.recovery_cutoff, floor.max(first));
        prop_assert_eq!(partition.ranges.first().map(|r| r.entry.first_offset), Some(0));
        prop_assert_eq!(partition.ranges.last().map(|r| r.entry.last_offset), Some(first - 1));
        let bytes: u64 = partition.ranges.iter().map(|r| u64::from(r.entry.byte_len)).sum();
        prop_assert_eq!(bytes, spans.iter().map(|s| u64::from(s.2)).sum::<u64>());
    }
}
