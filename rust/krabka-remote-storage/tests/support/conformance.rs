//! The `RemoteStorageManager` conformance suite: every tier (filesystem, S3,
//! GCS) runs these same cases against the trait's `# Contract`.
//!
//! Each case is a `pub fn(tier, scratch)`: it makes its own topic and segment
//! ids, so cases can share one tier, and writes its local segment files in a
//! fresh directory under `scratch`. [`CASES`] lists them all by name, and
//! [`run_rsm_conformance`] runs them in order.

use {
    super::{
        SegmentSpec, assert_invalid_argument, assert_not_found, new_partition, ok, read_all,
        segment_metadata, write_segment, write_segment_with_log,
    },
    krabka_remote_storage::{IndexType, RemoteLogSegmentMetadata, RemoteStorageManager},
    std::{io::Read, path::Path},
};

/// A conformance case.
pub type Case = fn(&dyn RemoteStorageManager, &Path);

/// Every case, by name.
pub const CASES: &[(&str, Case)] = &[
    ("copy_and_full_fetch", copy_and_full_fetch),
    ("ranged_fetch_edges", ranged_fetch_edges),
    (
        "ranged_fetch_reference_vectors",
        ranged_fetch_reference_vectors,
    ),
    ("empty_segment", empty_segment),
    ("every_index_is_byte_exact", every_index_is_byte_exact),
    (
        "missing_optional_indexes_are_not_found",
        missing_optional_indexes_are_not_found,
    ),
    ("unknown_segment_is_not_found", unknown_segment_is_not_found),
    ("delete_is_idempotent", delete_is_idempotent),
    ("delete_keeps_other_segments", delete_keeps_other_segments),
    ("recopy_overwrites", recopy_overwrites),
    (
        "recopy_drops_absent_optional_indexes",
        recopy_drops_absent_optional_indexes,
    ),
    ("failed_copy_is_not_visible", failed_copy_is_not_visible),
    ("partial_read_then_drop", partial_read_then_drop),
    (
        "concurrent_copies_and_fetches",
        concurrent_copies_and_fetches,
    ),
];

/// Runs every case of [`CASES`] against `tier`.
pub fn run_rsm_conformance(tier: &dyn RemoteStorageManager, scratch: &Path) {
    for (name, case) in CASES {
        eprintln!("rsm conformance: {name}");
        case(tier, scratch);
    }
}

fn case_dir(scratch: &Path) -> tempfile::TempDir {
    std::fs::create_dir_all(scratch).unwrap();
    tempfile::tempdir_in(scratch).unwrap()
}

fn fetch(
    tier: &dyn RemoteStorageManager,
    metadata: &RemoteLogSegmentMetadata,
    start: u64,
    end: Option<u64>,
) -> Vec<u8> {
    read_all(ok(
        tier.fetch_log_segment(metadata, start, end),
        &format!("fetch [{start}, {end:?}]"),
    ))
}

/// Copy, then fetch the whole segment, open-ended and with an explicit
/// inclusive end.
pub fn copy_and_full_fetch(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: 1024 * 1024 + 17,
        ..SegmentSpec::seeded(11)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-full", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    let len = u64::try_from(segment.log.len()).unwrap();
    assert!(
        fetch(tier, &metadata, 0, None) == segment.log,
        "open-ended fetch differs"
    );
    assert!(
        fetch(tier, &metadata, 0, Some(len - 1)) == segment.log,
        "[0, len-1] differs"
    );
}

/// Ranged fetches at every edge of the inclusive-end contract.
pub fn ranged_fetch_edges(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: 1000,
        ..SegmentSpec::seeded(12)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-ranges", 3);
    let metadata = segment_metadata(&partition, 500, segment.log.len());
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    let log = &segment.log;
    let len = 1000_u64;

    assert_eq!(fetch(tier, &metadata, 0, Some(0)), &log[..1], "first byte");
    assert_eq!(
        fetch(tier, &metadata, 999, Some(999)),
        &log[999..],
        "last byte"
    );
    assert_eq!(
        fetch(tier, &metadata, 999, None),
        &log[999..],
        "last byte, open-ended"
    );
    assert_eq!(
        fetch(tier, &metadata, 421, Some(421)),
        &log[421..422],
        "single byte"
    );
    assert_eq!(
        fetch(tier, &metadata, 100, Some(199)),
        &log[100..200],
        "inner range"
    );
    assert_eq!(
        fetch(tier, &metadata, 700, None),
        &log[700..],
        "open-ended tail"
    );
    assert_eq!(
        fetch(tier, &metadata, 900, Some(len)),
        &log[900..],
        "end == length clamped"
    );
    assert_eq!(
        fetch(tier, &metadata, 900, Some(u64::MAX)),
        &log[900..],
        "end far past length clamped"
    );
    assert!(
        fetch(tier, &metadata, len, None).is_empty(),
        "start == length"
    );
    assert!(
        fetch(tier, &metadata, len, Some(len)).is_empty(),
        "start == end == length"
    );
    assert!(
        fetch(tier, &metadata, len, Some(len + 50)).is_empty(),
        "start == length, end past"
    );

    assert_invalid_argument(
        tier.fetch_log_segment(&metadata, len + 1, None),
        "start > length",
    );
    assert_invalid_argument(
        tier.fetch_log_segment(&metadata, len + 1, Some(len + 5)),
        "start > length with end",
    );
    assert_invalid_argument(
        tier.fetch_log_segment(&metadata, 10, Some(9)),
        "end < start",
    );
    assert_invalid_argument(
        tier.fetch_log_segment(&metadata, len, Some(len - 1)),
        "end < start == length",
    );
}

/// The reference vectors on a 10-byte body `0123456789`.
pub fn ranged_fetch_reference_vectors(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let segment =
        write_segment_with_log(dir.path(), &SegmentSpec::seeded(13), b"0123456789".to_vec());
    let partition = new_partition("conformance-vectors", 0);
    let metadata = segment_metadata(&partition, 0, 10);
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    for (start, end, expected) in [
        (2, Some(5), &b"2345"[..]),
        (7, None, b"789"),
        (8, Some(99), b"89"),
        (10, None, b""),
        (3, Some(3), b"3"),
        (0, None, b"0123456789"),
    ] {
        assert_eq!(
            fetch(tier, &metadata, start, end),
            expected,
            "[{start}, {end:?}]"
        );
    }
}

/// A segment whose `.log` is empty: position 0 is the end.
pub fn empty_segment(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let segment = write_segment_with_log(dir.path(), &SegmentSpec::seeded(14), Vec::new());
    let partition = new_partition("conformance-empty", 0);
    let metadata = segment_metadata(&partition, 0, 0);
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    assert!(fetch(tier, &metadata, 0, None).is_empty());
    assert!(fetch(tier, &metadata, 0, Some(0)).is_empty());
    assert_invalid_argument(
        tier.fetch_log_segment(&metadata, 1, None),
        "start past an empty log",
    );
    assert_eq!(
        ok(
            tier.fetch_index(&metadata, IndexType::Offset),
            "offset index"
        ),
        segment.offset_index
    );
}

/// Every index type comes back byte for byte.
pub fn every_index_is_byte_exact(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        index_entries: 1000,
        ..SegmentSpec::seeded(15)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-indexes", 1);
    let metadata = segment_metadata(&partition, 1000, segment.log.len());
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    for index in IndexType::ALL {
        let expected = segment.index(index).unwrap();
        let fetched = ok(tier.fetch_index(&metadata, index), index.kafka_name());
        assert!(fetched == expected, "{index:?} differs");
    }
}

/// Without a `.txnindex` or a producer snapshot, fetching them is NotFound
/// (never an empty success), and the other indexes are still there.
pub fn missing_optional_indexes_are_not_found(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        transaction_index: false,
        producer_snapshot: false,
        ..SegmentSpec::seeded(16)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-optional", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    assert_not_found(
        tier.fetch_index(&metadata, IndexType::Transaction),
        "transaction index",
    );
    assert_not_found(
        tier.fetch_index(&metadata, IndexType::ProducerSnapshot),
        "producer snapshot",
    );
    for index in [
        IndexType::Offset,
        IndexType::Timestamp,
        IndexType::LeaderEpoch,
    ] {
        assert_eq!(
            ok(tier.fetch_index(&metadata, index), index.kafka_name()),
            segment.index(index).unwrap()
        );
    }
    assert_eq!(fetch(tier, &metadata, 0, None), segment.log);
}

/// A segment that was never copied is NotFound for every fetch, in an
/// unknown partition as well as beside other segments.
pub fn unknown_segment_is_not_found(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-unknown", 0);
    let never = segment_metadata(&partition, 0, 100);
    assert_unknown(tier, &never, "unknown partition");

    let segment = write_segment(dir.path(), &SegmentSpec::seeded(17));
    let copied = segment_metadata(&partition, 0, segment.log.len());
    ok(tier.copy_log_segment_data(&copied, &segment.data), "copy");
    // Same partition and start offset, another segment id.
    let sibling = segment_metadata(&partition, 0, segment.log.len());
    assert_unknown(tier, &sibling, "sibling id");
}

fn assert_unknown(
    tier: &dyn RemoteStorageManager,
    metadata: &RemoteLogSegmentMetadata,
    what: &str,
) {
    assert_not_found(
        tier.fetch_log_segment(metadata, 0, None),
        &format!("{what}: log"),
    );
    assert_not_found(
        tier.fetch_log_segment(metadata, 0, Some(10)),
        &format!("{what}: ranged log"),
    );
    for index in IndexType::ALL {
        assert_not_found(
            tier.fetch_index(metadata, index),
            &format!("{what}: {index:?}"),
        );
    }
}

/// Delete succeeds on a segment that never existed, removes a copied one,
/// and succeeds again afterwards; everything is NotFound after it.
pub fn delete_is_idempotent(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-delete", 2);
    let never = segment_metadata(&partition, 0, 10);
    ok(
        tier.delete_log_segment_data(&never),
        "delete of a never-copied segment",
    );

    let segment = write_segment(dir.path(), &SegmentSpec::seeded(18));
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    ok(tier.delete_log_segment_data(&metadata), "first delete");
    assert_unknown(tier, &metadata, "after delete");
    ok(tier.delete_log_segment_data(&metadata), "second delete");
    assert_unknown(tier, &metadata, "after second delete");
}

/// Deleting one segment leaves the other segments of its partition intact.
pub fn delete_keeps_other_segments(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-siblings", 0);
    let first = write_segment(dir.path(), &SegmentSpec::seeded(19));
    let second = write_segment(dir.path(), &SegmentSpec::seeded(20));
    let first_md = segment_metadata(&partition, 0, first.log.len());
    let second_md = segment_metadata(&partition, 100, second.log.len());
    ok(
        tier.copy_log_segment_data(&first_md, &first.data),
        "copy first",
    );
    ok(
        tier.copy_log_segment_data(&second_md, &second.data),
        "copy second",
    );
    ok(tier.delete_log_segment_data(&first_md), "delete first");
    assert_unknown(tier, &first_md, "deleted segment");
    assert_eq!(fetch(tier, &second_md, 0, None), second.log);
    for index in IndexType::ALL {
        assert_eq!(
            ok(tier.fetch_index(&second_md, index), index.kafka_name()),
            second.index(index).unwrap()
        );
    }
}

/// A second copy with the same metadata replaces the data and every index.
pub fn recopy_overwrites(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-recopy", 0);
    let old = write_segment(dir.path(), &SegmentSpec::seeded(21));
    let new = write_segment(
        dir.path(),
        &SegmentSpec {
            log_len: 3000,
            index_entries: 9,
            ..SegmentSpec::seeded(22)
        },
    );
    assert_ne!(old.log, new.log);
    let metadata = segment_metadata(&partition, 0, new.log.len());
    ok(
        tier.copy_log_segment_data(&metadata, &old.data),
        "first copy",
    );
    ok(tier.copy_log_segment_data(&metadata, &new.data), "re-copy");
    assert_eq!(fetch(tier, &metadata, 0, None), new.log);
    for index in IndexType::ALL {
        assert_eq!(
            ok(tier.fetch_index(&metadata, index), index.kafka_name()),
            new.index(index).unwrap(),
            "{index:?}"
        );
    }
}

/// A re-copy without the optional indexes does not leave the earlier copy's
/// ones behind.
pub fn recopy_drops_absent_optional_indexes(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-recopy-optional", 0);
    let old = write_segment(dir.path(), &SegmentSpec::seeded(23));
    let new = write_segment(
        dir.path(),
        &SegmentSpec {
            transaction_index: false,
            producer_snapshot: false,
            ..SegmentSpec::seeded(24)
        },
    );
    let metadata = segment_metadata(&partition, 0, new.log.len());
    ok(
        tier.copy_log_segment_data(&metadata, &old.data),
        "first copy",
    );
    ok(tier.copy_log_segment_data(&metadata, &new.data), "re-copy");
    assert_not_found(
        tier.fetch_index(&metadata, IndexType::Transaction),
        "stale txn index",
    );
    assert_not_found(
        tier.fetch_index(&metadata, IndexType::ProducerSnapshot),
        "stale producer snapshot",
    );
    assert_eq!(fetch(tier, &metadata, 0, None), new.log);
}

/// A copy that fails (a source file is missing) leaves nothing visible as a
/// segment, and a delete of the failed copy succeeds (Kafka deletes failed
/// copies with their `CopySegmentStarted` metadata).
pub fn failed_copy_is_not_visible(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-failed-copy", 0);
    let missing = dir.path().join("no-such-file");
    for which in [
        "log",
        "offset index",
        "time index",
        "transaction index",
        "producer snapshot",
    ] {
        let mut segment = write_segment(dir.path(), &SegmentSpec::seeded(25));
        match which {
            "log" => segment.data.log_segment = missing.clone(),
            "offset index" => segment.data.offset_index = missing.clone(),
            "time index" => segment.data.time_index = missing.clone(),
            "transaction index" => segment.data.transaction_index = Some(missing.clone()),
            _ => segment.data.producer_snapshot_index = Some(missing.clone()),
        }
        let metadata = segment_metadata(&partition, 0, segment.log.len());
        let result = tier.copy_log_segment_data(&metadata, &segment.data);
        assert!(result.is_err(), "copy with a missing {which} succeeded");
        assert_not_found(
            tier.fetch_log_segment(&metadata, 0, None),
            &format!("log after a copy missing its {which}"),
        );
        ok(
            tier.delete_log_segment_data(&metadata),
            "delete after a failed copy",
        );
        assert_not_found(
            tier.fetch_log_segment(&metadata, 0, None),
            &format!("log after deleting a copy missing its {which}"),
        );
    }
}

/// A reader dropped after a prefix releases the segment: it can be fetched
/// again and deleted.
pub fn partial_read_then_drop(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: 256 * 1024,
        ..SegmentSpec::seeded(26)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-partial", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
    let mut reader = ok(tier.fetch_log_segment(&metadata, 1000, None), "fetch");
    let mut prefix = [0_u8; 100];
    reader.read_exact(&mut prefix).unwrap();
    assert_eq!(&prefix[..], &segment.log[1000..1100]);
    drop(reader);
    assert_eq!(fetch(tier, &metadata, 0, Some(99)), &segment.log[..100]);
    ok(tier.delete_log_segment_data(&metadata), "delete");
    assert_not_found(tier.fetch_log_segment(&metadata, 0, None), "after delete");
}

/// Copies and fetches from several threads at once, in one partition.
pub fn concurrent_copies_and_fetches(tier: &dyn RemoteStorageManager, scratch: &Path) {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-concurrent", 0);
    std::thread::scope(|scope| {
        for thread_no in 0..4_u64 {
            let partition = &partition;
            let dir = dir.path();
            scope.spawn(move || {
                for round in 0..3_u64 {
                    let seed = 100 + thread_no * 10 + round;
                    let segment = write_segment(dir, &SegmentSpec::seeded(seed));
                    let start = i64::try_from(seed * 1000).unwrap();
                    let metadata = segment_metadata(partition, start, segment.log.len());
                    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
                    assert_eq!(fetch(tier, &metadata, 0, None), segment.log);
                    assert_eq!(
                        ok(
                            tier.fetch_index(&metadata, IndexType::Offset),
                            "offset index"
                        ),
                        segment.offset_index
                    );
                    if round == 1 {
                        ok(tier.delete_log_segment_data(&metadata), "delete");
                        assert_not_found(tier.fetch_log_segment(&metadata, 0, None), "deleted");
                    }
                }
            });
        }
    });
}
