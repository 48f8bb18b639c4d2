//! `krabka-tier fsck` on a filesystem tier and the histories our metadata
//! manager keeps beside it: what it finds, its exit codes, and what
//! `--delete-orphans` removes (and refuses to remove).

#![allow(missing_docs)]

use {
    krabka_ids::LeaderEpoch,
    krabka_kafka::kafka_uuid,
    krabka_object_store::{ObjectStoreConfig, store::StoreHandle},
    krabka_remote_storage::{
        RemoteLogMetadataManager, RemoteLogSegmentDetails, RemoteLogSegmentId,
        RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate, RemoteLogSegmentState,
        StoreRemoteLogMetadataManager, StoreRlmmConfig, TopicIdPartition,
    },
    std::{collections::BTreeMap, fs, path::Path, process::Command},
    uuid::Uuid,
};

const ORDERS: Uuid = Uuid::from_u128(7);
const GONE: Uuid = Uuid::from_u128(8);

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_krabka-tier"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn manager(root: &Path) -> StoreRemoteLogMetadataManager {
    let store = StoreHandle::from_config(&ObjectStoreConfig::Local {
        root: root.to_owned(),
    })
    .unwrap();
    StoreRemoteLogMetadataManager::new(store, StoreRlmmConfig::default())
}

fn segment_id(topic: Uuid, id: u128) -> RemoteLogSegmentId {
    RemoteLogSegmentId::new(
        TopicIdPartition::new(topic, "orders", 2),
        Uuid::from_u128(id),
    )
}

/// Records a copy started (and finished) of segment `id` from `start`.
fn record(
    manager: &StoreRemoteLogMetadataManager,
    topic: Uuid,
    id: u128,
    start: i64,
    finished: bool,
) {
    let details = RemoteLogSegmentDetails::new(
        10,
        RemoteLogSegmentState::CopySegmentStarted,
        BTreeMap::from([(LeaderEpoch(0), start)]),
    );
    manager
        .add_remote_log_segment_metadata(
            RemoteLogSegmentMetadata::new(
                segment_id(topic, id),
                start,
                start + 99,
                0,
                1,
                5,
                details,
            )
            .unwrap(),
        )
        .unwrap();
    if finished {
        update(
            manager,
            topic,
            id,
            RemoteLogSegmentState::CopySegmentFinished,
        );
    }
}

fn update(
    manager: &StoreRemoteLogMetadataManager,
    topic: Uuid,
    id: u128,
    state: RemoteLogSegmentState,
) {
    manager
        .update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate::new(
            segment_id(topic, id),
            6,
            None,
            state,
            1,
        ))
        .unwrap();
}

/// Writes the files of segment `id` from `start` with `suffixes`.
fn write_copy(root: &Path, topic: Uuid, id: u128, start: i64, suffixes: &[&str]) {
    let dir = root.join(format!("orders-2-{}", kafka_uuid(topic)));
    fs::create_dir_all(&dir).unwrap();
    let name = format!("{start:020}-{}", kafka_uuid(Uuid::from_u128(id)));
    for suffix in suffixes {
        fs::write(dir.join(format!("{name}{suffix}")), b"bytes").unwrap();
    }
}

/// A tier with one whole copy (9), a finished copy whose log is gone (10),
/// a copy started and not finished (11) and an orphan (12).
fn tier() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let rlmm = manager(root.path());
    record(&rlmm, ORDERS, 9, 100, true);
    write_copy(
        root.path(),
        ORDERS,
        9,
        100,
        &[".log", ".index", ".timeindex"],
    );
    record(&rlmm, ORDERS, 10, 200, true);
    write_copy(root.path(), ORDERS, 10, 200, &[".index"]);
    record(&rlmm, ORDERS, 11, 300, false);
    write_copy(root.path(), ORDERS, 11, 300, &[".log"]);
    write_copy(root.path(), ORDERS, 12, 400, &[".log", ".index"]);
    root
}

#[test]
fn fsck_finds_orphans_missing_objects_and_unfinished_copies() {
    let root = tier();
    let local = root.path().to_str().unwrap();
    let (code, out, err) = run(&["fsck", "--local", local]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("4 segment copies in the tier; 1 metadata histories naming 3 live segment(s)"),
        "{out}"
    );
    assert!(out.contains("orphans: 1\n"), "{out}");
    assert!(
        out.contains(&format!("00000000000000000400-{}", Uuid::from_u128(12))),
        "{out}"
    );
    assert!(out.contains("missing: 1\n"), "{out}");
    assert!(
        out.contains("(offsets 200..=299): no log in the tier, only .index"),
        "{out}"
    );
    assert!(out.contains("unfinished copies: 1\n"), "{out}");
    assert!(out.contains("started by broker 1"), "{out}");

    let (code, out, _) = run(&["fsck", "--local", local, "--json"]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["archive"], false);
    assert_eq!(json["report"]["orphans"].as_array().unwrap().len(), 1);
    assert_eq!(json["report"]["missing"][0]["start_offset"], 200);
}

#[test]
fn delete_orphans_removes_only_old_enough_orphans_and_a_dry_run_nothing() {
    let root = tier();
    let local = root.path().to_str().unwrap();
    let orphan_log = root.path().join(format!(
        "orders-2-{}/{:020}-{}.log",
        kafka_uuid(ORDERS),
        400,
        kafka_uuid(Uuid::from_u128(12))
    ));
    // Written just now: a copy in progress looks like this.
    let (code, _, err) = run(&[
        "fsck",
        "--local",
        local,
        "--delete-orphans",
        "--older-than",
        "1h",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("deleting 0 object(s)"), "{err}");
    assert!(orphan_log.exists());

    let (code, out, err) = run(&[
        "fsck",
        "--local",
        local,
        "--delete-orphans",
        "--older-than",
        "0s",
        "--dry-run",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("would delete 2 object(s) of 1 orphaned segment copies"),
        "{err}"
    );
    assert!(out.contains(".log\n"), "{out}");
    assert!(orphan_log.exists());

    let (code, _, err) = run(&[
        "fsck",
        "--local",
        local,
        "--delete-orphans",
        "--older-than",
        "0s",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!orphan_log.exists());
    // The live copies are all there; only the missing log is still reported.
    let (code, out, _) = run(&["fsck", "--local", local]);
    assert_eq!(code, 1);
    assert!(
        out.contains("orphans: 0\n") && out.contains("missing: 1\n"),
        "{out}"
    );
    assert!(
        root.path()
            .join(format!("orders-2-{}", kafka_uuid(ORDERS)))
            .read_dir()
            .unwrap()
            .count()
            >= 5
    );
}

#[test]
fn a_deleted_topics_leftovers_are_found_with_the_live_topics_and_removed() {
    let root = tier();
    let local = root.path().to_str().unwrap();
    // A topic whose segments were all deleted, history left behind.
    let rlmm = manager(root.path());
    record(&rlmm, GONE, 20, 0, true);
    update(&rlmm, GONE, 20, RemoteLogSegmentState::DeleteSegmentStarted);
    update(
        &rlmm,
        GONE,
        20,
        RemoteLogSegmentState::DeleteSegmentFinished,
    );
    let history = root
        .path()
        .join(format!("remote-log-metadata/{}-2", kafka_uuid(GONE)));
    assert!(history.is_dir());
    let (_, out, _) = run(&["fsck", "--local", local]);
    assert!(out.contains("histories naming no live segment"), "{out}");

    let live = root.path().join("live-topics");
    fs::write(&live, format!("{}\n", kafka_uuid(ORDERS))).unwrap();
    let live = live.to_str().unwrap();
    let (code, out, _) = run(&["fsck", "--local", local, "--live-topics", live]);
    assert_eq!(code, 1);
    assert!(out.contains("histories of deleted topics: 1\n"), "{out}");
    let (code, _, err) = run(&[
        "fsck",
        "--local",
        local,
        "--live-topics",
        live,
        "--delete-orphans",
        "--older-than",
        "0s",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !history
            .join("log")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some()),
        "history left"
    );

    let (code, _, err) = run(&["fsck", "--local", local, "--live-topics", "/nonexistent"]);
    assert_eq!(code, 64, "{err}");
}

#[test]
fn a_write_once_archive_retains_what_no_record_names_and_refuses_deletion() {
    let root = tier();
    let local = root.path().to_str().unwrap();
    fs::create_dir_all(root.path().join("_krabka-worm-probe")).unwrap();
    fs::write(root.path().join("_krabka-worm-probe/p"), b"probe").unwrap();
    let (code, out, _) = run(&["fsck", "--local", local]);
    // Nothing orphaned on an archive; the missing log is still missing.
    assert_eq!(code, 1);
    assert!(
        out.contains("a write-once archive") && out.contains("orphans: 0\n"),
        "{out}"
    );
    assert!(
        out.contains("retained by the archive (no live record names them): 1"),
        "{out}"
    );
    let (code, _, err) = run(&[
        "fsck",
        "--local",
        local,
        "--delete-orphans",
        "--older-than",
        "0s",
    ]);
    assert_eq!(code, 64);
    assert!(
        err.contains("refusing to delete: the tier is a write-once archive"),
        "{err}"
    );
}

#[test]
fn a_tier_without_histories_is_refused_with_the_way_to_check_it() {
    let root = tempfile::tempdir().unwrap();
    write_copy(root.path(), ORDERS, 9, 100, &[".log"]);
    let (code, _, err) = run(&["fsck", "--local", root.path().to_str().unwrap()]);
    assert_eq!(code, 64);
    assert!(
        err.contains("no metadata history under remote-log-metadata"),
        "{err}"
    );
    assert!(err.contains("--metadata-local"), "{err}");
}
