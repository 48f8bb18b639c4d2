//! `LocalTieredStorage`: the shared RSM conformance suite, Kafka layout
//! compatibility, and crash safety.

mod support;

use {
    krabka_remote_storage::{
        IndexType, LOG_FILE_SUFFIX, LocalTieredStorage, RemoteStorageError, RemoteStorageManager,
        TopicIdPartition, partition_dir_name, segment_file_name,
    },
    std::{
        fs,
        path::{Path, PathBuf},
    },
    support::{
        SegmentMetadataBuilder, SegmentSpec, assert_deleted, assert_invalid_argument,
        assert_not_found, conformance,
        conformance::{Capabilities, Subject},
        new_partition, ok, read_all, segment_metadata, write_segment,
    },
    uuid::Uuid,
};

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    scratch: PathBuf,
    tier: LocalTieredStorage,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tier");
    let scratch = dir.path().join("scratch");
    let tier = LocalTieredStorage::new(root.clone());
    Fixture {
        _dir: dir,
        root,
        scratch,
        tier,
    }
}

/// Every entry under `dir`, relative, sorted; `[]` when it does not exist.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            out.push(path.strip_prefix(base).unwrap().display().to_string());
            if path.is_dir() {
                walk(base, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

macro_rules! conformance_cases {
    ($($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                let fx = fixture();
                let subject = Subject::new(&fx.tier, Capabilities::PLAIN);
                conformance::run_case(stringify!($case), conformance::$case, subject, &fx.scratch);
            }
        )*

        #[test]
        fn every_conformance_case_has_its_own_test() {
            let here = [$(stringify!($case)),*];
            let all: Vec<&str> = conformance::CASES.iter().map(|(name, _)| *name).collect();
            assert_eq!(here.to_vec(), all);
        }
    };
}

conformance_cases!(
    copy_and_full_fetch,
    ranged_fetch_edges,
    ranged_fetch_reference_vectors,
    empty_segment,
    every_index_is_byte_exact,
    missing_optional_indexes_are_not_found,
    unknown_segment_is_not_found,
    delete_is_idempotent,
    delete_keeps_other_segments,
    recopy_of_an_existing_segment,
    recopy_without_optional_indexes,
    failed_copy_is_not_visible,
    copy_cancelled_before_it_starts,
    copy_cancelled_while_running,
    partial_read_then_drop,
    concurrent_copies_and_fetches,
);

#[test]
fn the_whole_suite_runs_on_one_shared_tier() {
    let fx = fixture();
    conformance::run_rsm_conformance(&fx.tier, Capabilities::PLAIN, &fx.scratch);
    // Cases that delete everything they copied leave no partition behind;
    // the others leave complete segments only: no staging file anywhere.
    assert!(
        tree(&fx.root).iter().all(|entry| !entry.contains("/.")),
        "{:?}",
        tree(&fx.root)
    );
}

#[test]
fn layout_is_kafkas() {
    let fx = fixture();
    let partition = TopicIdPartition::new(Uuid::from_u128(1), "orders", 0);
    let segment_id = Uuid::from_u128(0x1e);
    let metadata = SegmentMetadataBuilder::new(&partition, 11)
        .segment_id(segment_id)
        .size(4096)
        .build();
    let segment = write_segment(&fx.scratch, &SegmentSpec::seeded(1));
    ok(
        fx.tier.copy_log_segment_data(&metadata, &segment.data),
        "copy",
    );

    let dir = "orders-0-AAAAAAAAAAAAAAAAAAAAAQ";
    let stem = "00000000000000000011-AAAAAAAAAAAAAAAAAAAAHg";
    let mut expected = vec![dir.to_owned()];
    for suffix in [
        ".index",
        ".leader_epoch_checkpoint",
        ".log",
        ".snapshot",
        ".timeindex",
        ".txnindex",
    ] {
        expected.push(format!("{dir}/{stem}{suffix}"));
    }
    expected.sort();
    assert_eq!(tree(&fx.root), expected);
    assert_eq!(
        fs::read(fx.root.join(dir).join(format!("{stem}.log"))).unwrap(),
        segment.log
    );
    assert_eq!(
        fs::read(
            fx.root
                .join(dir)
                .join(format!("{stem}.leader_epoch_checkpoint"))
        )
        .unwrap(),
        segment.leader_epoch
    );
    assert_eq!(
        ok(fx.tier.segment_path(&metadata, LOG_FILE_SUFFIX), "path"),
        fx.root.join(dir).join(format!("{stem}.log"))
    );
    assert_eq!(
        LocalTieredStorage::KAFKA_STORAGE_DIR_NAME,
        "kafka-tiered-storage"
    );
}

/// Files laid out by hand the way Kafka's `LocalTieredStorage` writes them
/// (no leader-epoch file when the checkpoint was empty) are served.
#[test]
fn a_tier_written_by_kafka_is_readable() {
    let fx = fixture();
    let partition = TopicIdPartition::new(Uuid::from_u128(0xfe), "payments.eu", 7);
    let metadata = segment_metadata(&partition, 0, 5);
    let dir = fx.root.join(format!(
        "payments.eu-7-{}",
        krabka_remote_storage::kafka_uuid(Uuid::from_u128(0xfe))
    ));
    fs::create_dir_all(&dir).unwrap();
    let stem = format!(
        "00000000000000000000-{}",
        krabka_remote_storage::kafka_uuid(metadata.remote_log_segment_id().id)
    );
    fs::write(dir.join(format!("{stem}.log")), b"hello").unwrap();
    fs::write(dir.join(format!("{stem}.index")), [0_u8; 8]).unwrap();
    fs::write(dir.join(format!("{stem}.timeindex")), [1_u8; 12]).unwrap();
    fs::write(dir.join(format!("{stem}.snapshot")), b"snap").unwrap();
    assert_eq!(
        read_all(ok(
            fx.tier.fetch_log_segment(&metadata, 1, Some(3)),
            "fetch"
        )),
        b"ell"
    );
    assert_eq!(
        ok(fx.tier.fetch_index(&metadata, IndexType::Timestamp), "time"),
        [1_u8; 12]
    );
    assert_eq!(
        ok(
            fx.tier.fetch_index(&metadata, IndexType::ProducerSnapshot),
            "snap"
        ),
        b"snap"
    );
    assert_not_found(
        fx.tier.fetch_index(&metadata, IndexType::LeaderEpoch),
        "epoch",
    );
    assert_not_found(
        fx.tier.fetch_index(&metadata, IndexType::Transaction),
        "txn",
    );
    assert_deleted(fx.tier.delete_log_segment_data(&metadata), "delete");
    assert!(tree(&fx.root).is_empty(), "{:?}", tree(&fx.root));
}

#[test]
fn an_empty_leader_epoch_checkpoint_is_still_written() {
    let fx = fixture();
    let mut segment = write_segment(&fx.scratch, &SegmentSpec::seeded(2));
    segment.data.leader_epoch_index = bytes::Bytes::new();
    let metadata = segment_metadata(&new_partition("t", 0), 0, segment.log.len());
    ok(
        fx.tier.copy_log_segment_data(&metadata, &segment.data),
        "copy",
    );
    assert!(
        ok(
            fx.tier.fetch_index(&metadata, IndexType::LeaderEpoch),
            "epoch"
        )
        .is_empty()
    );
}

#[test]
fn deleting_the_last_segment_removes_the_partition_directory() {
    let fx = fixture();
    let partition = new_partition("t", 0);
    let first = write_segment(&fx.scratch, &SegmentSpec::seeded(3));
    let second = write_segment(&fx.scratch, &SegmentSpec::seeded(4));
    let first_md = segment_metadata(&partition, 0, first.log.len());
    let second_md = segment_metadata(&partition, 100, second.log.len());
    ok(
        fx.tier.copy_log_segment_data(&first_md, &first.data),
        "copy",
    );
    ok(
        fx.tier.copy_log_segment_data(&second_md, &second.data),
        "copy",
    );
    let dir = fx.root.join(partition_dir_name(&first_md));
    assert_deleted(fx.tier.delete_log_segment_data(&first_md), "delete");
    assert!(dir.is_dir());
    assert_eq!(tree(&dir).len(), 6);
    assert_deleted(fx.tier.delete_log_segment_data(&second_md), "delete");
    assert!(!dir.exists());
    assert!(tree(&fx.root).is_empty());
    assert_deleted(fx.tier.delete_log_segment_data(&second_md), "delete again");
}

#[test]
fn a_failed_copy_leaves_no_file_at_all() {
    let fx = fixture();
    let partition = new_partition("t", 0);
    let mut segment = write_segment(&fx.scratch, &SegmentSpec::seeded(5));
    segment.data.log_segment = fx.scratch.join("vanished.log");
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    let err = fx
        .tier
        .copy_log_segment_data(&metadata, &segment.data)
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Io { .. }), "{err:?}");
    // Indexes were published before the log failed: all removed again, and
    // while present they were not served (the log decides visibility).
    for index in IndexType::ALL {
        assert_not_found(
            fx.tier.fetch_index(&metadata, index),
            "index of a failed copy",
        );
    }
    assert!(tree(&fx.root).is_empty(), "{:?}", tree(&fx.root));
}

#[test]
fn a_failed_recopy_hides_the_old_segment() {
    let fx = fixture();
    let partition = new_partition("t", 0);
    let good = write_segment(&fx.scratch, &SegmentSpec::seeded(6));
    let metadata = segment_metadata(&partition, 0, good.log.len());
    ok(fx.tier.copy_log_segment_data(&metadata, &good.data), "copy");
    let mut broken = write_segment(&fx.scratch, &SegmentSpec::seeded(7));
    broken.data.time_index = fx.scratch.join("vanished.timeindex");
    assert!(
        fx.tier
            .copy_log_segment_data(&metadata, &broken.data)
            .is_err()
    );
    assert_not_found(fx.tier.fetch_log_segment(&metadata, 0, None), "log");
    assert_not_found(
        fx.tier.fetch_index(&metadata, IndexType::Offset),
        "offset index",
    );
    assert!(tree(&fx.root).is_empty(), "{:?}", tree(&fx.root));
}

/// A crash between the indexes and the log leaves indexes without a log:
/// the segment is absent for every fetch, and a delete cleans it up.
#[test]
fn indexes_without_a_log_are_not_a_segment() {
    let fx = fixture();
    let partition = new_partition("t", 0);
    let segment = write_segment(&fx.scratch, &SegmentSpec::seeded(8));
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    ok(
        fx.tier.copy_log_segment_data(&metadata, &segment.data),
        "copy",
    );
    fs::remove_file(ok(fx.tier.segment_path(&metadata, LOG_FILE_SUFFIX), "path")).unwrap();
    assert_not_found(fx.tier.fetch_log_segment(&metadata, 0, None), "log");
    for index in IndexType::ALL {
        assert_not_found(fx.tier.fetch_index(&metadata, index), "index");
    }
    ok(
        fx.tier.copy_log_segment_data(&metadata, &segment.data),
        "copy again",
    );
    assert_eq!(
        read_all(ok(fx.tier.fetch_log_segment(&metadata, 0, None), "fetch")),
        segment.log
    );
    assert_deleted(fx.tier.delete_log_segment_data(&metadata), "delete");
    assert!(tree(&fx.root).is_empty());
}

/// A crash mid-write leaves a staging file: it is never read as data, does
/// not disturb a later copy, and the segment's delete removes it.
#[test]
fn a_leftover_staging_file_is_ignored_and_cleaned() {
    let fx = fixture();
    let partition = new_partition("t", 0);
    let segment = write_segment(&fx.scratch, &SegmentSpec::seeded(9));
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    let dir = fx.root.join(partition_dir_name(&metadata));
    fs::create_dir_all(&dir).unwrap();
    let log_name = segment_file_name(&metadata, LOG_FILE_SUFFIX);
    let index_name = segment_file_name(&metadata, IndexType::Offset.suffix());
    let stale_log = dir.join(format!(".{log_name}.0badc0de.tmp"));
    let stale_index = dir.join(format!(".{index_name}.0badc0de.tmp"));
    fs::write(&stale_log, b"partial garbage").unwrap();
    fs::write(&stale_index, b"partial").unwrap();

    assert_not_found(fx.tier.fetch_log_segment(&metadata, 0, None), "before copy");
    assert_not_found(
        fx.tier.fetch_index(&metadata, IndexType::Offset),
        "before copy",
    );

    ok(
        fx.tier.copy_log_segment_data(&metadata, &segment.data),
        "copy",
    );
    assert_eq!(
        read_all(ok(fx.tier.fetch_log_segment(&metadata, 0, None), "fetch")),
        segment.log
    );
    assert_eq!(
        ok(fx.tier.fetch_index(&metadata, IndexType::Offset), "offset"),
        segment.offset_index
    );
    // A stale staging file of another segment in the same partition stays.
    let other = dir.join(".00000000000000000999-AAAAAAAAAAAAAAAAAAAAAQ.log.1.tmp");
    fs::write(&other, b"x").unwrap();
    assert_deleted(fx.tier.delete_log_segment_data(&metadata), "delete");
    assert!(!stale_log.exists() && !stale_index.exists());
    assert!(other.exists());
    fs::remove_file(&other).unwrap();
    assert_deleted(fx.tier.delete_log_segment_data(&metadata), "delete again");
    assert!(tree(&fx.root).is_empty(), "{:?}", tree(&fx.root));
}

#[test]
fn copies_publish_no_staging_files() {
    let fx = fixture();
    let partition = new_partition("t", 0);
    for seed in 0..5 {
        let segment = write_segment(&fx.scratch, &SegmentSpec::seeded(seed));
        let metadata = segment_metadata(
            &partition,
            i64::try_from(seed).unwrap() * 100,
            segment.log.len(),
        );
        ok(
            fx.tier.copy_log_segment_data(&metadata, &segment.data),
            "copy",
        );
    }
    let entries = tree(&fx.root);
    assert_eq!(entries.len(), 1 + 5 * 6, "{entries:?}");
    assert!(entries.iter().all(|e| !e.contains("/.")), "{entries:?}");
}

#[test]
fn topic_names_that_would_escape_the_root_are_refused() {
    let fx = fixture();
    let segment = write_segment(&fx.scratch, &SegmentSpec::seeded(10));
    for topic in ["..", "a/b", "../../etc", ""] {
        let metadata = segment_metadata(&new_partition(topic, 0), 0, segment.log.len());
        assert_invalid_argument(
            fx.tier.copy_log_segment_data(&metadata, &segment.data),
            topic,
        );
        assert_invalid_argument(fx.tier.fetch_log_segment(&metadata, 0, None), topic);
        assert_invalid_argument(fx.tier.fetch_index(&metadata, IndexType::Offset), topic);
        assert_invalid_argument(fx.tier.delete_log_segment_data(&metadata), topic);
    }
    assert!(tree(&fx.root).is_empty());
}

#[test]
fn a_missing_root_holds_no_segments() {
    let fx = fixture();
    let metadata = segment_metadata(&new_partition("t", 0), 0, 10);
    assert_not_found(fx.tier.fetch_log_segment(&metadata, 0, None), "log");
    assert_deleted(fx.tier.delete_log_segment_data(&metadata), "delete");
    assert!(!fx.root.exists());
    assert_eq!(fx.tier.root(), fx.root.as_path());
}

/// Deletes that empty the partition directory race with copies into it:
/// every copy still succeeds and every copied segment stays complete.
#[test]
fn deletes_emptying_the_partition_race_safely_with_copies() {
    let fx = fixture();
    let partition = new_partition("race", 0);
    std::thread::scope(|scope| {
        for thread_no in 0..4_u64 {
            let (tier, scratch, partition) = (&fx.tier, &fx.scratch, &partition);
            scope.spawn(move || {
                for round in 0..15_u64 {
                    let seed = thread_no * 100 + round;
                    let spec = SegmentSpec {
                        log_len: 512,
                        index_entries: 4,
                        ..SegmentSpec::seeded(seed)
                    };
                    let segment = write_segment(scratch, &spec);
                    let start = i64::try_from(seed).unwrap() * 1000;
                    let metadata = segment_metadata(partition, start, segment.log.len());
                    ok(tier.copy_log_segment_data(&metadata, &segment.data), "copy");
                    assert_eq!(
                        read_all(ok(tier.fetch_log_segment(&metadata, 0, None), "fetch")),
                        segment.log
                    );
                    assert_eq!(
                        ok(tier.fetch_index(&metadata, IndexType::LeaderEpoch), "epoch"),
                        segment.leader_epoch
                    );
                    assert_deleted(tier.delete_log_segment_data(&metadata), "delete");
                }
            });
        }
    });
    assert!(tree(&fx.root).is_empty(), "{:?}", tree(&fx.root));
}
