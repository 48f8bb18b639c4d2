//! The command line against archives in a local directory: exit code,
//! stdout and stderr of each outcome.

#![allow(missing_docs)]

use {
    bytes::Bytes,
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        CancellationToken, LogSegmentData, ManifestSigner, RemoteLogSegmentDetails,
        RemoteLogSegmentId, RemoteLogSegmentMetadata, RemoteLogSegmentState, SealedManifest,
        TopicIdPartition, WormArchiver,
    },
    object_store::local::LocalFileSystem,
    std::{collections::BTreeMap, path::Path, process::Command, sync::Arc},
    uuid::Uuid,
};

const BIN: &str = env!("CARGO_BIN_EXE_krabka-worm-verify");

fn signer() -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[1; 32], "k1").unwrap()
}

fn public_hex() -> String {
    signer()
        .public_key()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Two segments of `orders-0` archived under `arch/` in `root`.
fn archive(root: &Path) -> Vec<SealedManifest> {
    let store = Arc::new(LocalFileSystem::new_with_prefix(root).unwrap());
    let archiver = WormArchiver::new(store, Some("arch".to_owned()), signer());
    let files = tempfile::tempdir().unwrap();
    let tp = TopicIdPartition::new(Uuid::from_u128(5), "orders", 0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    (0..2i64)
        .map(|i| {
            let write = |name: &str, len: usize| {
                let path = files.path().join(format!("{i}{name}"));
                std::fs::write(&path, vec![7u8; len]).unwrap();
                path
            };
            let data = LogSegmentData {
                log_segment: write(".log", 3000),
                offset_index: write(".index", 16),
                time_index: write(".timeindex", 24),
                transaction_index: None,
                producer_snapshot_index: None,
                leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
            };
            let metadata = RemoteLogSegmentMetadata::new(
                RemoteLogSegmentId::new(tp.clone(), Uuid::new_v4()),
                i * 100,
                i * 100 + 99,
                0,
                1,
                0,
                RemoteLogSegmentDetails::new(
                    3000,
                    RemoteLogSegmentState::CopySegmentStarted,
                    BTreeMap::from([(LeaderEpoch(0), i * 100)]),
                ),
            )
            .unwrap();
            runtime
                .block_on(archiver.archive(&metadata, &data, &CancellationToken::new()))
                .unwrap()
        })
        .collect()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(BIN).args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn base_args(root: &Path) -> Vec<String> {
    vec![
        "--local".to_owned(),
        root.display().to_string(),
        "--prefix".to_owned(),
        "arch".to_owned(),
        "--key-id".to_owned(),
        "k1".to_owned(),
        "--public-key".to_owned(),
        public_hex(),
    ]
}

fn run_with(root: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = base_args(root);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn a_clean_archive_verifies_with_its_tip() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let tip = sealed[1].head.to_string();
    for deep in [false, true] {
        let extra: &[&str] = if deep {
            &["--deep", "--expect-head", &tip]
        } else {
            &["--expect-head", &tip]
        };
        let (code, stdout, stderr) = run_with(root.path(), extra);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains(&format!("tip: {tip}")), "{stdout}");
        assert!(stdout.contains("result: VERIFIED"), "{stdout}");
        assert_eq!(stderr, "");
    }
}

#[test]
fn json_output_is_machine_readable() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let (code, stdout, _) = run_with(
        root.path(),
        &["--json", "--topic", "orders", "--partition", "0"],
    );
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["outcome"], "verified");
    assert_eq!(
        value["report"]["partitions"][0]["tip"],
        serde_json::Value::String(sealed[1].head.to_string())
    );
    // A filter that matches nothing: nothing to verify, still readable.
    let (code, stdout, _) = run_with(root.path(), &["--json", "--topic", "payments"]);
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        value["report"]["partitions"].as_array().map(Vec::len),
        Some(0)
    );
}

#[test]
fn a_flipped_byte_is_tampering_only_when_deep() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let log = &sealed[0]
        .manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap()
        .key;
    let path = root.path().join(log);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[10] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let (code, stdout, _) = run_with(root.path(), &[]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = run_with(root.path(), &["--deep"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("HashMismatch"), "{stdout}");
    assert!(stdout.contains("result: EVIDENCE OF TAMPERING"), "{stdout}");
}

#[test]
fn a_truncated_tail_is_caught_by_expect_head() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    std::fs::remove_file(root.path().join(&sealed[1].manifest_key)).unwrap();
    std::fs::remove_file(root.path().join(&sealed[1].seal_key)).unwrap();
    let tip = sealed[1].head.to_string();
    let (code, stdout, _) = run_with(root.path(), &["--expect-head", &tip]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("ExpectHeadMismatch"), "{stdout}");
}

#[test]
fn an_untrusted_signer_is_incomplete_attestation() {
    let root = tempfile::tempdir().unwrap();
    archive(root.path());
    let other: String = ManifestSigner::from_secret_bytes(&[2; 32], "k2")
        .unwrap()
        .public_key()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let root_text = root.path().display().to_string();
    let (code, stdout, _) = run(&[
        "--local",
        &root_text,
        "--prefix",
        "arch",
        "--key-id",
        "k2",
        "--public-key",
        &other,
    ]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("UntrustedKey"), "{stdout}");
    assert!(
        stdout.contains("result: INCOMPLETE ATTESTATION"),
        "{stdout}"
    );
}

#[test]
fn a_missing_archive_cannot_be_read() {
    let (code, stdout, stderr) = run(&[
        "--local",
        "/nonexistent/krabka-archive",
        "--key-id",
        "k1",
        "--public-key",
        &public_hex(),
    ]);
    assert_eq!(code, 3);
    assert_eq!(stdout, "");
    assert!(stderr.contains("could not read the archive"), "{stderr}");
}

#[test]
fn usage_errors_exit_64() {
    let root = tempfile::tempdir().unwrap();
    let root_text = root.path().display().to_string();
    let pk = public_hex();
    for args in [
        vec!["--local", &root_text],
        vec![
            "--local",
            &root_text,
            "--key-id",
            "k1",
            "--public-key",
            "abcd",
        ],
        vec![
            "--local",
            &root_text,
            "--key-id",
            "k1",
            "--key-id",
            "k2",
            "--public-key",
            &pk,
        ],
        vec![
            "--local",
            &root_text,
            "--key-id",
            "k1",
            "--public-key",
            &pk,
            "--expect-head",
            "xyz",
        ],
        vec!["--key-id", "k1", "--public-key", &pk],
        vec![
            "--local",
            &root_text,
            "--s3-bucket",
            "b",
            "--key-id",
            "k1",
            "--public-key",
            &pk,
        ],
    ] {
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 64, "{args:?}: {stdout}{stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(!stderr.is_empty(), "{args:?}");
    }
    let (code, stdout, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Exit codes"), "{stdout}");
}
