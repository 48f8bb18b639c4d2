//! Cases about copies and deletes: idempotent deletes (or retention),
//! re-copies (overwrite or `AlreadyExists`), failed copies, and copies from
//! many threads.

use {
    super::{Outcome, Subject, case_dir},
    crate::support::{
        SegmentFiles, SegmentSpec, assert_already_exists, new_partition, ok, segment_metadata,
        write_segment,
    },
    krabka_remote_storage::{IndexType, RemoteLogSegmentMetadata},
    std::path::Path,
};

/// Delete succeeds on a segment that never existed, then on a copied one,
/// and again afterwards. A tier that deletes has nothing left of it; an
/// archive answers that it retains it, and still serves all of it.
pub fn delete_is_idempotent(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-delete", 2);
    let never = segment_metadata(&partition, 0, 10);
    s.delete(&never, "delete of a never-copied segment");
    s.expect_unknown(&never, "never-copied segment after its delete");

    let segment = write_segment(dir.path(), &SegmentSpec::seeded(18));
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    s.copy(&metadata, &segment, "copy");
    s.delete(&metadata, "first delete");
    s.expect_deleted(&metadata, &segment, "after delete");
    s.delete(&metadata, "second delete");
    s.expect_deleted(&metadata, &segment, "after second delete");
    Outcome::Ran
}

/// Deleting one segment leaves the other segments of its partition intact.
pub fn delete_keeps_other_segments(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let partition = new_partition("conformance-siblings", 0);
    let first = write_segment(dir.path(), &SegmentSpec::seeded(19));
    let second = write_segment(dir.path(), &SegmentSpec::seeded(20));
    let first_md = segment_metadata(&partition, 0, first.log.len());
    let second_md = segment_metadata(&partition, 100, second.log.len());
    s.copy(&first_md, &first, "copy first");
    s.copy(&second_md, &second, "copy second");
    s.delete(&first_md, "delete first");
    s.expect_deleted(&first_md, &first, "deleted segment");
    s.expect_segment(&second_md, &second, "the other segment");
    Outcome::Ran
}

/// A second copy with the same metadata replaces the data and every index;
/// on a tier without overwrites it fails with `AlreadyExists` and the first
/// copy stays byte for byte.
pub fn recopy_of_an_existing_segment(s: Subject<'_>, scratch: &Path) -> Outcome {
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
    s.copy(&metadata, &old, "first copy");
    recopy(s, &metadata, &old, &new);
    Outcome::Ran
}

/// A re-copy without the optional indexes does not leave the earlier copy's
/// ones behind; on a tier without overwrites the re-copy fails with
/// `AlreadyExists` and the earlier copy keeps them.
pub fn recopy_without_optional_indexes(s: Subject<'_>, scratch: &Path) -> Outcome {
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
    s.copy(&metadata, &old, "first copy");
    recopy(s, &metadata, &old, &new);
    Outcome::Ran
}

/// Copies `new` over the segment that holds `old`, and checks what the tier
/// declares: `new` whole, or `AlreadyExists` and `old` whole.
#[track_caller]
fn recopy(
    s: Subject<'_>,
    metadata: &RemoteLogSegmentMetadata,
    old: &SegmentFiles,
    new: &SegmentFiles,
) {
    let result = s.tier.copy_log_segment_data(metadata, &new.data);
    if s.caps.overwrites {
        ok(result, "re-copy");
        s.expect_segment(metadata, new, "after the re-copy");
    } else {
        assert_already_exists(result, "re-copy");
        s.expect_segment(metadata, old, "after the refused re-copy");
    }
}

/// A copy that fails (a source file is missing) leaves nothing visible as a
/// segment, and a delete of the failed copy succeeds (Kafka deletes failed
/// copies with their `CopySegmentStarted` metadata).
pub fn failed_copy_is_not_visible(s: Subject<'_>, scratch: &Path) -> Outcome {
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
        let result = s.tier.copy_log_segment_data(&metadata, &segment.data);
        assert!(result.is_err(), "copy with a missing {which} succeeded");
        s.expect_not_found(
            s.tier.fetch_log_segment(&metadata, 0, None),
            &format!("log after a copy missing its {which}"),
        );
        s.delete(&metadata, "delete after a failed copy");
        s.expect_not_found(
            s.tier.fetch_log_segment(&metadata, 0, None),
            &format!("log after deleting a copy missing its {which}"),
        );
    }
    Outcome::Ran
}

/// Copies and fetches from several threads at once, in one partition.
pub fn concurrent_copies_and_fetches(s: Subject<'_>, scratch: &Path) -> Outcome {
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
                    let metadata = s.copy_new(partition, start, &segment, "copy");
                    s.expect_log(&metadata, 0, None, &segment.log, "log");
                    s.expect_index(
                        &metadata,
                        IndexType::Offset,
                        &segment.offset_index,
                        "offset index",
                    );
                    if round == 1 {
                        s.delete(&metadata, "delete");
                        s.expect_deleted(&metadata, &segment, "deleted");
                    }
                }
            });
        }
    });
    Outcome::Ran
}
