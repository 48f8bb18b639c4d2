//! `krabka-tier rewrap`: every encrypted segment of a filesystem tier put
//! under the active key pair by rewriting its envelope alone; the old pair
//! can then be dropped.

#![allow(missing_docs)]

use {
    bytes::Bytes,
    krabka_envelope::{
        Cipher, Compression, KeyPairFiles, RsaKeyPairs, SegmentCodec, testing::write_key_pair,
    },
    krabka_remote_storage::{
        LocalTieredStorage, LogSegmentData, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteStorageManager, TopicIdPartition,
    },
    std::{collections::BTreeMap, fs, io::Read, path::Path, process::Command, sync::Arc},
    uuid::Uuid,
};

fn tier(root: &Path, active: &str, pairs: &[KeyPairFiles]) -> LocalTieredStorage {
    LocalTieredStorage::new(root.to_path_buf())
        .with_codec(SegmentCodec {
            chunk_size: 4096,
            compression: Some(Compression::default()),
            encryption: Some(Cipher::Aes256Gcm),
            keys: Some(Arc::new(RsaKeyPairs::load(active, pairs).unwrap())),
        })
        .unwrap()
}

/// Copies a segment of `log` starting at `start` and returns its metadata
/// as Kafka hands it back (with the copy's custom metadata).
fn copy(
    tier: &LocalTieredStorage,
    scratch: &Path,
    start: i64,
    log: &[u8],
) -> RemoteLogSegmentMetadata {
    let partition = TopicIdPartition::new(Uuid::from_u128(5), "orders", 0);
    let id = RemoteLogSegmentId::new(partition, Uuid::new_v4());
    let metadata = RemoteLogSegmentMetadata::new(
        id,
        start,
        start + 9,
        1_700_000_000_000,
        1,
        1_700_000_000_000,
        krabka_remote_storage::RemoteLogSegmentDetails::new(
            i32::try_from(log.len()).unwrap(),
            krabka_remote_storage::RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(krabka_ids::LeaderEpoch(0), start)]),
        ),
    )
    .unwrap();
    fs::create_dir_all(scratch).unwrap();
    let put = |name: &str, bytes: &[u8]| {
        let path = scratch.join(format!("{start}{name}"));
        fs::write(&path, bytes).unwrap();
        path
    };
    let data = LogSegmentData {
        log_segment: put(".log", log),
        offset_index: put(".index", &[0; 16]),
        time_index: put(".timeindex", &[0; 24]),
        transaction_index: None,
        producer_snapshot_index: None,
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
    };
    let custom = tier.copy_log_segment_data(&metadata, &data).unwrap();
    metadata.with_custom_metadata(custom)
}

fn read(tier: &LocalTieredStorage, metadata: &RemoteLogSegmentMetadata) -> Vec<u8> {
    let mut out = Vec::new();
    tier.fetch_log_segment(metadata, 0, None)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

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

fn stored_logs(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for dir in fs::read_dir(root).unwrap() {
        for file in fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path
                .extension()
                .is_some_and(|ext| ext == "log" || ext == "index")
            {
                out.insert(path.display().to_string(), fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn rewrap_moves_every_segment_to_the_active_pair_and_touches_no_data() {
    let keys = tempfile::tempdir().unwrap();
    let (k1, k2) = (
        write_key_pair(keys.path(), "k1"),
        write_key_pair(keys.path(), "k2"),
    );
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("tier");
    let scratch = work.path().join("scratch");
    let logs: Vec<Vec<u8>> = (0..3u8).map(|n| vec![b'a' + n; 10_000]).collect();
    let under_k1 = tier(&root, "k1", std::slice::from_ref(&k1));
    let first = copy(&under_k1, &scratch, 0, &logs[0]);
    let second = copy(&under_k1, &scratch, 10, &logs[1]);
    let under_k2 = tier(&root, "k2", &[k1.clone(), k2.clone()]);
    let third = copy(&under_k2, &scratch, 20, &logs[2]);
    let before = stored_logs(&root);

    let pair = |files: &KeyPairFiles| {
        format!(
            "{}={},{}",
            files.id,
            files.public_key_file.display(),
            files.private_key_file.display()
        )
    };
    let root_arg = root.display().to_string();
    let (k1_arg, k2_arg) = (pair(&k1), pair(&k2));
    let args = [
        "rewrap",
        "--local",
        &root_arg,
        "--key-pair",
        &k1_arg,
        "--key-pair",
        &k2_arg,
        "--active",
        "k2",
    ];
    let (code, out, err) = run(&[&args[..], &["--dry-run"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("would rewrap 2 segment(s) under key pair k2; 1 already under it"),
        "{out}"
    );
    // A dry run changed nothing: k2 alone cannot read k1's segments yet.
    let only_k2 = tier(&root, "k2", std::slice::from_ref(&k2));
    assert!(only_k2.fetch_log_segment(&first, 0, None).is_err());

    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("rewrapped 2 segment(s) under key pair k2; 1 already under it, 0 not encrypted, 0 failed"), "{out}");
    assert_eq!(
        stored_logs(&root),
        before,
        "a rewrap rewrites envelopes only"
    );
    let only_k2 = tier(&root, "k2", std::slice::from_ref(&k2));
    for (metadata, log) in [(&first, &logs[0]), (&second, &logs[1]), (&third, &logs[2])] {
        assert_eq!(&read(&only_k2, metadata), log);
    }
    let (code, out, _) = run(&args);
    assert_eq!(code, 0);
    assert!(
        out.contains("rewrapped 0 segment(s) under key pair k2; 3 already under it"),
        "{out}"
    );
}

#[test]
fn a_segment_no_configured_pair_unwraps_is_reported_and_left_alone() {
    let keys = tempfile::tempdir().unwrap();
    let (k1, k2) = (
        write_key_pair(keys.path(), "k1"),
        write_key_pair(keys.path(), "k2"),
    );
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("tier");
    let metadata = copy(
        &tier(&root, "k1", std::slice::from_ref(&k1)),
        &work.path().join("s"),
        0,
        b"records",
    );
    let root_arg = root.display().to_string();
    let k2_arg = format!(
        "k2={},{}",
        k2.public_key_file.display(),
        k2.private_key_file.display()
    );
    let (code, out, err) = run(&[
        "rewrap",
        "--local",
        &root_arg,
        "--key-pair",
        &k2_arg,
        "--active",
        "k2",
    ]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("1 failed"), "{out}");
    assert!(err.contains(".envelope") && err.contains("\"k1\""), "{err}");
    // Still readable under k1: nothing was written.
    assert_eq!(read(&tier(&root, "k1", &[k1]), &metadata), b"records");
    let (code, _, err) = run(&[
        "rewrap",
        "--local",
        &root_arg,
        "--key-pair",
        "k2=nope",
        "--active",
        "k2",
    ]);
    assert_eq!(code, 64, "{err}");
}

/// A segment Apache Kafka wrote (offsets from 100), with its indexes.
fn kafka_segment(scratch: &Path) -> LogSegmentData {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kafka/plain");
    fs::create_dir_all(scratch).unwrap();
    let copy = |name: &str| {
        let path = scratch.join(name);
        fs::copy(fixtures.join(name), &path).unwrap();
        path
    };
    LogSegmentData {
        log_segment: copy("00000000000000000100.log"),
        offset_index: copy("00000000000000000100.index"),
        time_index: copy("00000000000000000100.timeindex"),
        transaction_index: None,
        producer_snapshot_index: None,
        leader_epoch_index: Bytes::from_static(b"0\n1\n7 100\n"),
    }
}

/// `tier` holding the Kafka-written segment as partition 2 of `orders`.
fn kafka_tier(tier: &LocalTieredStorage, scratch: &Path) {
    let size = fs::metadata(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/kafka/plain/00000000000000000100.log"),
    )
    .unwrap()
    .len();
    let partition = TopicIdPartition::new(Uuid::from_u128(7), "orders", 2);
    let metadata = RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(partition, Uuid::from_u128(9)),
        100,
        199,
        1_700_000_000_000,
        1,
        1_700_000_000_000,
        krabka_remote_storage::RemoteLogSegmentDetails::new(
            i32::try_from(size).unwrap(),
            krabka_remote_storage::RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(krabka_ids::LeaderEpoch(0), 100)]),
        ),
    )
    .unwrap();
    tier.copy_log_segment_data(&metadata, &kafka_segment(scratch))
        .unwrap();
}

#[test]
fn list_and_export_read_chunked_segments_as_they_read_plain_ones() {
    let keys = tempfile::tempdir().unwrap();
    let k1 = write_key_pair(keys.path(), "k1");
    let work = tempfile::tempdir().unwrap();
    let (plain_root, chunked_root) = (work.path().join("plain"), work.path().join("chunked"));
    kafka_tier(
        &LocalTieredStorage::new(plain_root.clone()),
        &work.path().join("s1"),
    );
    kafka_tier(
        &tier(&chunked_root, "k1", std::slice::from_ref(&k1)),
        &work.path().join("s2"),
    );
    let pair = format!(
        "k1={},{}",
        k1.public_key_file.display(),
        k1.private_key_file.display()
    );
    let (plain, chunked) = (
        plain_root.display().to_string(),
        chunked_root.display().to_string(),
    );

    for command in [
        &["list", "--json"][..],
        &["export", "--topic", "orders", "--utf8"][..],
    ] {
        // (The fixture has a gap of offsets, so export exits 2 on both.)
        let (plain_code, expected, plain_err) = run(&[command, &["--local", &plain]].concat());
        let (code, got, err) =
            run(&[command, &["--local", &chunked, "--key-pair", &pair]].concat());
        assert_eq!(code, plain_code, "{err}");
        assert!(code == 0 || code == 2, "{plain_err}");
        if command[0] == "export" {
            assert_eq!(got, expected);
            assert!(got.lines().count() >= 3, "{got} / {err}");
        } else {
            // The same partitions and copies, the same last offsets and sizes
            // (originals), plus the envelope among the files.
            let (expected, got): (serde_json::Value, serde_json::Value) = (
                serde_json::from_str(&expected).unwrap(),
                serde_json::from_str(&got).unwrap(),
            );
            let (want, have) = (&expected[0]["segments"][0], &got[0]["segments"][0]);
            assert_eq!(have["log_bytes"], want["log_bytes"]);
            assert_eq!(have["details"], want["details"]);
            assert!(have["files"][".envelope"].is_string(), "{have}");
        }
    }
    // Without the key a listing still lists, and says what it could not read.
    let (code, out, err) = run(&["list", "--json", "--local", &chunked]);
    assert_eq!(code, 0, "{err}");
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    let problems = listed[0]["segments"][0]["details"]["problems"].to_string();
    assert!(problems.contains("\\\"k1\\\""), "{problems}");
    // Without the key the export says which key it lacks.
    let (code, _, err) = run(&["export", "--local", &chunked, "--topic", "orders"]);
    assert_ne!(code, 0);
    assert!(err.contains("\"k1\""), "{err}");
}

#[test]
fn a_write_once_archive_is_not_rewrapped() {
    let keys = tempfile::tempdir().unwrap();
    let k1 = write_key_pair(keys.path(), "k1");
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("tier");
    copy(
        &tier(&root, "k1", std::slice::from_ref(&k1)),
        &work.path().join("s"),
        0,
        b"records",
    );
    // What an archive tier leaves at its root when it opens.
    let probes = root.join(krabka_object_store::CREATE_ONLY_PROBE_DIR);
    fs::create_dir_all(&probes).unwrap();
    fs::write(probes.join("probe"), b"").unwrap();
    let envelopes_before = stored_envelopes(&root);
    let pair = format!(
        "k1={},{}",
        k1.public_key_file.display(),
        k1.private_key_file.display()
    );
    let root_arg = root.display().to_string();
    let (code, _, err) = run(&[
        "rewrap",
        "--local",
        &root_arg,
        "--key-pair",
        &pair,
        "--active",
        "k1",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("write-once archive"), "{err}");
    assert_eq!(stored_envelopes(&root), envelopes_before);
}

fn stored_envelopes(root: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for dir in fs::read_dir(root).unwrap() {
        let dir = dir.unwrap().path();
        for file in fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "envelope") {
                out.push(fs::read(path).unwrap());
            }
        }
    }
    out
}
