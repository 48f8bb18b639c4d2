//! CKWL WAL objects: every malformed object is a typed refusal, and
//! building then parsing is the identity for arbitrary runs.

use {
    bytes::Bytes,
    krabka_remote_storage::diskless::{
        DisklessError, WAL_FOOTER_ENTRY_LEN, WalObjectBuilder, WalObjectEntry, parse_wal_object,
        run_bytes,
    },
    proptest::prelude::*,
    uuid::Uuid,
};

fn object(runs: &[&[u8]]) -> Vec<u8> {
    let mut builder = WalObjectBuilder::new();
    for (i, run) in runs.iter().enumerate() {
        let offset = i64::try_from(i).unwrap() * 10;
        builder
            .append_run(Uuid::from_u128(1), 0, offset, offset + 9, run)
            .unwrap();
    }
    builder.finish().to_vec()
}

/// Rewrites the `byte_start`/`byte_len` of the footer entry `index`.
fn with_entry(mut bytes: Vec<u8>, index: usize, start: u64, len: u32) -> Vec<u8> {
    let footer_len =
        u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    let footer_start = bytes.len() - 8 - usize::try_from(footer_len).unwrap();
    let entry = footer_start + index * WAL_FOOTER_ENTRY_LEN;
    bytes[entry + 36..entry + 44].copy_from_slice(&start.to_le_bytes());
    bytes[entry + 44..entry + 48].copy_from_slice(&len.to_le_bytes());
    bytes
}

fn with_footer_len(mut bytes: Vec<u8>, footer_len: u32) -> Vec<u8> {
    let at = bytes.len() - 8;
    bytes[at..at + 4].copy_from_slice(&footer_len.to_le_bytes());
    bytes
}

#[test]
fn too_short_objects_are_refused() {
    let empty = object(&[]);
    for len in 0..empty.len() {
        assert!(matches!(
            parse_wal_object(&empty[..len]),
            Err(DisklessError::WalObjectTooShort { .. })
        ));
    }
}

#[test]
fn bad_magic_at_either_end_is_refused() {
    let good = object(&[b"abc"]);
    let mut header = good.clone();
    header[0] = b'X';
    assert!(matches!(
        parse_wal_object(&header),
        Err(DisklessError::WalBadMagic { at: "header" })
    ));
    let mut trailer = good.clone();
    let last = trailer.len() - 1;
    trailer[last] = b'X';
    assert!(matches!(
        parse_wal_object(&trailer),
        Err(DisklessError::WalBadMagic { at: "trailer" })
    ));
}

#[test]
fn other_versions_are_refused() {
    let mut bytes = object(&[b"abc"]);
    bytes[4..6].copy_from_slice(&2u16.to_le_bytes());
    assert!(matches!(
        parse_wal_object(&bytes),
        Err(DisklessError::WalUnsupportedVersion { found: 2 })
    ));
}

#[test]
fn footer_that_is_not_whole_entries_is_refused() {
    let bytes = with_footer_len(object(&[b"abc"]), 47);
    assert!(matches!(
        parse_wal_object(&bytes),
        Err(DisklessError::WalFooterMisaligned { footer_len: 47 })
    ));
}

#[test]
fn footer_reaching_into_the_header_is_refused() {
    let bytes = with_footer_len(object(&[b"abc"]), 96);
    assert!(matches!(
        parse_wal_object(&bytes),
        Err(DisklessError::WalFooterOutOfBounds { footer_len: 96, .. })
    ));
    let huge = with_footer_len(object(&[b"abc"]), u32::MAX - 15);
    assert!(matches!(
        parse_wal_object(&huge),
        Err(DisklessError::WalFooterOutOfBounds { .. })
    ));
}

#[test]
fn runs_outside_the_body_are_refused() {
    let good = object(&[b"abcd", b"ef"]);
    // body is [6, 12)
    for (start, len) in [
        (5, 1),
        (0, 0),
        (11, 2),
        (12, 1),
        (u64::MAX, 1),
        (6, u32::MAX),
    ] {
        let bytes = with_entry(good.clone(), 1, start, len);
        assert!(
            matches!(
                parse_wal_object(&bytes),
                Err(DisklessError::WalRunOutOfBounds { index: 1, .. })
            ),
            "run at {start}+{len}"
        );
    }
    // A zero-length run inside the body, or one reaching exactly the footer, is within bounds.
    assert!(parse_wal_object(&with_entry(good.clone(), 1, 12, 0)).is_ok());
    assert!(parse_wal_object(&with_entry(good, 1, 6, 6)).is_ok());
}

#[test]
fn run_bytes_is_a_zero_copy_slice() {
    let bytes = Bytes::from(object(&[b"abcd", b"ef"]));
    let parsed = parse_wal_object(&bytes).unwrap();
    let entries: Vec<WalObjectEntry> = parsed.entries().collect();
    let run = run_bytes(&bytes, &entries[1]).unwrap();
    assert_eq!(&run[..], b"ef");
    assert_eq!(run.as_ptr(), bytes[10..].as_ptr());
    assert!(matches!(
        run_bytes(&Bytes::from_static(b"short"), &entries[1]),
        Err(DisklessError::WalObjectTooShort { len: 5 })
    ));
}

fn arb_runs() -> impl Strategy<Value = Vec<(u128, i32, i64, i64, Vec<u8>)>> {
    proptest::collection::vec(
        (
            any::<u128>(),
            any::<i32>(),
            0i64..i64::MAX / 2,
            0i64..1000,
            proptest::collection::vec(any::<u8>(), 1..64),
        )
            .prop_map(|(t, p, first, span, run)| (t, p, first, first + span, run)),
        0..12,
    )
}

proptest! {
    #[test]
    fn build_then_parse_is_the_identity(runs in arb_runs()) {
        let mut builder = WalObjectBuilder::new();
        let mut expected = Vec::new();
        for (topic, partition, first, last, run) in &runs {
            let entry = builder
                .append_run(Uuid::from_u128(*topic), *partition, *first, *last, run)
                .unwrap();
            prop_assert_eq!(
                (entry.topic_id, entry.partition, entry.first_offset, entry.last_offset),
                (Uuid::from_u128(*topic), *partition, *first, *last)
            );
            expected.push((entry, run.clone()));
        }
        let body: usize = runs.iter().map(|r| r.4.len()).sum();
        prop_assert_eq!(builder.body_len(), u64::try_from(body).unwrap());
        let object = builder.finish();
        let parsed = parse_wal_object(&object).unwrap();
        prop_assert_eq!(parsed.len(), runs.len());
        let got: Vec<(WalObjectEntry, Vec<u8>)> =
            parsed.runs().map(|(entry, run)| (entry, run.to_vec())).collect();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_parser(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(parsed) = parse_wal_object(&bytes) {
            for (entry, run) in parsed.runs() {
                prop_assert_eq!(run.len(), usize::try_from(entry.byte_len).unwrap());
            }
        }
    }

    #[test]
    fn mutated_objects_never_panic_the_parser(runs in arb_runs(), at in any::<usize>(), value in any::<u8>()) {
        let mut builder = WalObjectBuilder::new();
        for (topic, partition, first, last, run) in &runs {
            builder.append_run(Uuid::from_u128(*topic), *partition, *first, *last, run).unwrap();
        }
        let mut bytes = builder.finish().to_vec();
        let at = at % bytes.len();
        bytes[at] = value;
        if let Ok(parsed) = parse_wal_object(&bytes) {
            prop_assert_eq!(parsed.runs().count(), parsed.len());
        }
    }
}
