//! Cases about fetches: whole and ranged logs at every edge of the
//! inclusive-end contract, indexes byte for byte, what is `NotFound`, and a
//! reader dropped early. On a tier without fetches each read is `Refused`.

use {
    super::{Outcome, Subject, case_dir},
    crate::support::{
        SegmentSpec, new_partition, segment_metadata, write_segment, write_segment_with_log,
    },
    krabka_remote_storage::IndexType,
    std::{io::Read, path::Path},
};

/// Copy, then fetch the whole segment, open-ended and with an explicit
/// inclusive end.
pub fn copy_and_full_fetch(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: 1024 * 1024 + 17,
        ..SegmentSpec::seeded(11)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-full", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    s.copy(&metadata, &segment, "copy");
    let len = u64::try_from(segment.log.len()).unwrap();
    s.expect_log(&metadata, 0, None, &segment.log, "open-ended fetch");
    s.expect_log(&metadata, 0, Some(len - 1), &segment.log, "[0, len-1]");
    Outcome::Ran
}

/// Ranged fetches at every edge of the inclusive-end contract.
pub fn ranged_fetch_edges(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: 1000,
        ..SegmentSpec::seeded(12)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-ranges", 3);
    let metadata = segment_metadata(&partition, 500, segment.log.len());
    s.copy(&metadata, &segment, "copy");
    let log = &segment.log;
    let len = 1000_u64;
    let md = &metadata;

    s.expect_log(md, 0, Some(0), &log[..1], "first byte");
    s.expect_log(md, 999, Some(999), &log[999..], "last byte");
    s.expect_log(md, 999, None, &log[999..], "last byte, open-ended");
    s.expect_log(md, 421, Some(421), &log[421..422], "single byte");
    s.expect_log(md, 100, Some(199), &log[100..200], "inner range");
    s.expect_log(md, 700, None, &log[700..], "open-ended tail");
    s.expect_log(md, 900, Some(len), &log[900..], "end == length clamped");
    s.expect_log(
        md,
        900,
        Some(u64::MAX),
        &log[900..],
        "end far past length clamped",
    );
    s.expect_log(md, len, None, &[], "start == length");
    s.expect_log(md, len, Some(len), &[], "start == end == length");
    s.expect_log(md, len, Some(len + 50), &[], "start == length, end past");

    let tier = s.tier;
    s.expect_invalid_argument(tier.fetch_log_segment(md, len + 1, None), "start > length");
    s.expect_invalid_argument(
        tier.fetch_log_segment(md, len + 1, Some(len + 5)),
        "start > length with end",
    );
    s.expect_invalid_argument(tier.fetch_log_segment(md, 10, Some(9)), "end < start");
    s.expect_invalid_argument(
        tier.fetch_log_segment(md, len, Some(len - 1)),
        "end < start == length",
    );
    Outcome::Ran
}

/// The reference vectors on a 10-byte body `0123456789`.
pub fn ranged_fetch_reference_vectors(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let segment =
        write_segment_with_log(dir.path(), &SegmentSpec::seeded(13), b"0123456789".to_vec());
    let partition = new_partition("conformance-vectors", 0);
    let metadata = segment_metadata(&partition, 0, 10);
    s.copy(&metadata, &segment, "copy");
    for (start, end, expected) in [
        (2, Some(5), &b"2345"[..]),
        (7, None, b"789"),
        (8, Some(99), b"89"),
        (10, None, b""),
        (3, Some(3), b"3"),
        (0, None, b"0123456789"),
    ] {
        s.expect_log(
            &metadata,
            start,
            end,
            expected,
            &format!("[{start}, {end:?}]"),
        );
    }
    Outcome::Ran
}

/// A segment whose `.log` is empty: position 0 is the end.
pub fn empty_segment(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let segment = write_segment_with_log(dir.path(), &SegmentSpec::seeded(14), Vec::new());
    let partition = new_partition("conformance-empty", 0);
    let metadata = segment_metadata(&partition, 0, 0);
    s.copy(&metadata, &segment, "copy");
    s.expect_log(&metadata, 0, None, &[], "open-ended");
    s.expect_log(&metadata, 0, Some(0), &[], "[0, 0]");
    s.expect_invalid_argument(
        s.tier.fetch_log_segment(&metadata, 1, None),
        "start past an empty log",
    );
    s.expect_index(
        &metadata,
        IndexType::Offset,
        &segment.offset_index,
        "offset index",
    );
    Outcome::Ran
}

/// Every index type comes back byte for byte.
pub fn every_index_is_byte_exact(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        index_entries: 1000,
        ..SegmentSpec::seeded(15)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-indexes", 1);
    let metadata = segment_metadata(&partition, 1000, segment.log.len());
    s.copy(&metadata, &segment, "copy");
    for index in IndexType::ALL {
        let expected = segment.index(index).unwrap();
        s.expect_index(&metadata, index, expected, index.kafka_name());
    }
    Outcome::Ran
}

/// Without a `.txnindex` or a producer snapshot, fetching them is NotFound
/// (never an empty success), and the other indexes are still there.
pub fn missing_optional_indexes_are_not_found(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        transaction_index: false,
        producer_snapshot: false,
        ..SegmentSpec::seeded(16)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-optional", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    s.copy(&metadata, &segment, "copy");
    s.expect_not_found(
        s.tier.fetch_index(&metadata, IndexType::Transaction),
        "transaction index",
    );
    s.expect_not_found(
        s.tier.fetch_index(&metadata, IndexType::ProducerSnapshot),
        "producer snapshot",
    );
    for index in [
        IndexType::Offset,
        IndexType::Timestamp,
        IndexType::LeaderEpoch,
    ] {
        let expected = segment.index(index).unwrap();
        s.expect_index(&metadata, index, expected, index.kafka_name());
    }
    s.expect_log(&metadata, 0, None, &segment.log, "log");
    Outcome::Ran
}

/// A segment that was never copied is NotFound for every fetch, in an
/// unknown partition as well as beside other segments.
pub fn unknown_segment_is_not_found(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-unknown", 0);
    let never = segment_metadata(&partition, 0, 100);
    s.expect_unknown(&never, "unknown partition");

    let segment = write_segment(dir.path(), &SegmentSpec::seeded(17));
    let copied = segment_metadata(&partition, 0, segment.log.len());
    s.copy(&copied, &segment, "copy");
    // Same partition and start offset, another segment id.
    let sibling = segment_metadata(&partition, 0, segment.log.len());
    s.expect_unknown(&sibling, "sibling id");
    Outcome::Ran
}

/// A reader dropped after a prefix releases the segment: it can be fetched
/// again and deleted.
pub fn partial_read_then_drop(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: 256 * 1024,
        ..SegmentSpec::seeded(26)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-partial", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    s.copy(&metadata, &segment, "copy");
    if let Some(mut reader) = s.open_log(&metadata, 1000, None, "fetch") {
        let mut prefix = [0_u8; 100];
        reader.read_exact(&mut prefix).unwrap();
        assert_eq!(&prefix[..], &segment.log[1000..1100]);
        drop(reader);
    }
    s.expect_log(
        &metadata,
        0,
        Some(99),
        &segment.log[..100],
        "fetch after the drop",
    );
    s.delete(&metadata, "delete");
    s.expect_deleted(&metadata, &segment, "after delete");
    Outcome::Ran
}
