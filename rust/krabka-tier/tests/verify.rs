//! `krabka-tier export --verify` on a write-once archive: a segment Apache
//! Kafka wrote, archived by the archive writer into a local directory, is
//! exported once it authenticates, and refused once it is tampered with.

#![allow(missing_docs)]

use {
    bytes::Bytes,
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        CancellationToken, LogSegmentData, ManifestSigner, RemoteLogSegmentDetails,
        RemoteLogSegmentId, RemoteLogSegmentMetadata, RemoteLogSegmentState, TopicIdPartition,
        WormArchiver,
    },
    object_store::local::LocalFileSystem,
    std::{collections::BTreeMap, fs, path::Path, process::Command, sync::Arc},
    uuid::Uuid,
};

fn signer() -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[3; 32], "archive-key").unwrap()
}

fn public_hex() -> String {
    signer()
        .public_key()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The fixture `plain` segment archived under `arch/` in `root`; returns the
/// key of its `.log`.
fn archive(root: &Path) -> String {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kafka/plain");
    let log = fixtures.join("00000000000000000100.log");
    let size = i32::try_from(fs::metadata(&log).unwrap().len()).unwrap();
    let tp = TopicIdPartition::new(Uuid::from_u128(5), "orders", 0);
    let metadata = RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp, Uuid::from_u128(77)),
        100,
        139,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            size,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(7), 100)]),
        ),
    )
    .unwrap();
    let data = LogSegmentData {
        log_segment: log,
        offset_index: fixtures.join("00000000000000000100.index"),
        time_index: fixtures.join("00000000000000000100.timeindex"),
        transaction_index: None,
        producer_snapshot_index: None,
        leader_epoch_index: Bytes::from_static(b"0\n1\n7 100\n"),
    };
    let store = Arc::new(LocalFileSystem::new_with_prefix(root).unwrap());
    let archiver = WormArchiver::new(store, Some("arch".to_owned()), signer());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let sealed = runtime
        .block_on(archiver.archive(&metadata, &data, &CancellationToken::new()))
        .unwrap();
    sealed
        .manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap()
        .key
        .clone()
}

fn export_verified(root: &Path, public_hex: &str) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_krabka-tier"))
        .args(["export", "--local"])
        .arg(root)
        .args(["--prefix", "arch", "--topic", "orders", "--verify"])
        .args(["--key-id", "archive-key", "--public-key", public_hex])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn an_authentic_archive_is_exported_and_a_tampered_one_refused() {
    let root = tempfile::tempdir().unwrap();
    let log_key = archive(root.path());
    let (code, out, err) = export_verified(root.path(), &public_hex());
    // The fixture's offsets 125..=129 are held by no batch: exit 2, not 1.
    assert_eq!(code, 2, "{err}");
    assert_eq!(out.lines().count(), 33, "{err}");
    // Another key: nothing attests the archive.
    let (code, out, err) = export_verified(root.path(), &"11".repeat(32));
    assert!(code == 1 || code == 64, "{code}: {err}");
    assert!(out.is_empty());
    // One byte of the archived log changed in place.
    let path = root.path().join(&log_key);
    let mut bytes = fs::read(&path).unwrap();
    bytes[200] ^= 1;
    fs::write(&path, bytes).unwrap();
    let (code, out, err) = export_verified(root.path(), &public_hex());
    assert_eq!(code, 1, "{err}");
    assert!(
        out.is_empty(),
        "exported bytes that fail the archive's checks"
    );
    assert!(
        err.contains("refused") && err.contains("hash_mismatch"),
        "{err}"
    );
}
