//! The archive log through the command line, on archives in a local
//! directory: a clean log verifies; tail truncation (newest manifests
//! removed, an older copy restored, a shorter history shown), split views,
//! forged and unknown cosignatures, removed checkpoints and tiles are each
//! reported with the exit code they deserve.

#![allow(missing_docs)]

mod common;

use {
    common::{run_with, segment_metadata, signer},
    ed25519_dalek::{Signer as _, SigningKey},
    krabka_remote_storage::{
        ArchiveLog, ArchiveLogConfig, CancellationToken, LogSegmentData, SealedManifest,
        TopicIdPartition, WormArchiver,
        tlog::{
            LogHash, LogLayout, NoteSignature, NoteVerifier, SignedNote,
            note::{COSIGNATURE_TYPE, cosignature_message},
        },
    },
    object_store::{ObjectStore, local::LocalFileSystem},
    std::{path::Path, sync::Arc},
    tempfile::TempDir,
    uuid::Uuid,
};

const ORIGIN: &str = "archive.example/orders";
const PREFIX: &str = "arch";

/// An archive under `arch/` in a directory, keeping its log.
struct Logged {
    root: TempDir,
    files: TempDir,
    runtime: tokio::runtime::Runtime,
    archiver: WormArchiver,
    log: Arc<ArchiveLog>,
    tp: TopicIdPartition,
    copies: i64,
}

impl Logged {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let store: Arc<dyn ObjectStore> =
            Arc::new(LocalFileSystem::new_with_prefix(root.path()).unwrap());
        let log = Arc::new(
            ArchiveLog::new(
                Arc::clone(&store),
                Some(PREFIX.to_owned()),
                signer().note_signer(ORIGIN).unwrap(),
                Vec::new(),
                ArchiveLogConfig::new(ORIGIN),
            )
            .unwrap(),
        );
        let archiver =
            WormArchiver::new(store, Some(PREFIX.to_owned()), signer()).with_log(Arc::clone(&log));
        Self {
            root,
            files: tempfile::tempdir().unwrap(),
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            archiver,
            log,
            tp: TopicIdPartition::new(Uuid::from_u128(5), "orders", 0),
            copies: 0,
        }
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    /// Archives the next segment of `orders-0`.
    fn copy(&mut self) -> SealedManifest {
        let i = self.copies;
        self.copies += 1;
        let write = |name: &str, len: usize| {
            let path = self.files.path().join(format!("{i}{name}"));
            std::fs::write(&path, vec![7u8; len]).unwrap();
            path
        };
        let data = LogSegmentData {
            log_segment: write(".log", 1000),
            offset_index: write(".index", 16),
            time_index: write(".timeindex", 24),
            transaction_index: None,
            producer_snapshot_index: None,
            leader_epoch_index: bytes::Bytes::from_static(b"0\n1\n0 0\n"),
        };
        let metadata = segment_metadata(&self.tp, i * 100, 1000);
        self.runtime
            .block_on(
                self.archiver
                    .archive(&metadata, &data, &CancellationToken::new()),
            )
            .unwrap()
    }

    /// Publishes a checkpoint of every copy so far; its size.
    fn publish(&self) -> u64 {
        self.runtime
            .block_on(self.log.publish())
            .unwrap()
            .unwrap()
            .size
    }

    fn layout() -> LogLayout {
        LogLayout::new(Some(PREFIX))
    }

    fn file(&self, key: &str) -> std::path::PathBuf {
        self.path().join(key)
    }

    /// Checkpoint `seq` as stored.
    fn checkpoint_note(&self, seq: u64) -> Vec<u8> {
        std::fs::read(self.file(&Self::layout().checkpoint(seq))).unwrap()
    }

    /// Stores `witness`'s cosignature of checkpoint `seq`, as the writer
    /// does with a witness's answer.
    fn cosign(&self, seq: u64, witness: &Witness) {
        let note = SignedNote::parse(&self.checkpoint_note(seq)).unwrap();
        let time = 1_790_000_000u64;
        let mut signature = time.to_be_bytes().to_vec();
        signature.extend_from_slice(
            &witness
                .key
                .sign(&cosignature_message(time, &note.text))
                .to_bytes(),
        );
        let line = NoteSignature {
            name: witness.verifier.name().to_owned(),
            key_hash: witness.verifier.key_hash(),
            signature,
        }
        .line();
        let path = self.file(&Self::layout().cosignature(seq, &witness.verifier));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, line).unwrap();
    }

    fn run(&self, extra: &[&str]) -> (i32, String, String) {
        let mut args = vec!["--log-origin", ORIGIN];
        args.extend_from_slice(extra);
        run_with(self.path(), &args)
    }
}

/// A witness's cosignature key.
struct Witness {
    key: SigningKey,
    verifier: NoteVerifier,
}

impl Witness {
    fn new(name: &str, secret: u8) -> Self {
        let key = SigningKey::from_bytes(&[secret; 32]);
        let verifier =
            NoteVerifier::new(name, COSIGNATURE_TYPE, key.verifying_key().to_bytes()).unwrap();
        Self { key, verifier }
    }

    fn vkey(&self) -> String {
        self.verifier.to_string()
    }
}

fn remove(path: &Path) {
    std::fs::remove_file(path).unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
}

/// An archive of five copies, two checkpoints (after 3 and 5), both
/// cosigned by `witness`; the copies' seals.
fn witnessed_copies(witness: &Witness) -> (Logged, Vec<SealedManifest>) {
    let mut archive = Logged::new();
    let mut sealed: Vec<SealedManifest> = (0..3).map(|_| archive.copy()).collect();
    assert_eq!(archive.publish(), 3);
    sealed.extend((0..2).map(|_| archive.copy()));
    assert_eq!(archive.publish(), 5);
    archive.cosign(0, witness);
    archive.cosign(1, witness);
    (archive, sealed)
}

fn witnessed(witness: &Witness) -> Logged {
    witnessed_copies(witness).0
}

#[test]
fn a_witnessed_log_verifies_and_reports_its_checkpoints() {
    let witness = Witness::new("witness.example", 9);
    let archive = witnessed(&witness);
    let (code, stdout, stderr) = archive.run(&["--witness-key", &witness.vkey()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "archive log {ORIGIN}: 2 checkpoint(s), 5 leaf(s) checked, 0 pending"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("witnessed checkpoint (quorum 1): size 5"),
        "{stdout}"
    );
    assert!(stdout.contains("cosigned by witness.example"), "{stdout}");
    // Without any log option the log is still checked (the archive keeps
    // one), and the origin is the checkpoints' own.
    let (code, stdout, _) = run_with(archive.path(), &["--json"]);
    assert_eq!(code, 0, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["report"]["log"]["origin"], ORIGIN);
    assert_eq!(value["report"]["log"]["leaves"], 5);
}

#[test]
fn newest_manifests_removed_are_tampering_without_expect_head() {
    let witness = Witness::new("witness.example", 9);
    let (mut archive, sealed) = witnessed_copies(&witness);
    // One more copy after the last checkpoint: pending, still verifies.
    archive.copy();
    let (code, stdout, _) = archive.run(&["--witness-key", &witness.vkey()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("1 pending"), "{stdout}");
    // A governance bypass removes the newest copy in the tree (manifest
    // and seal): the chain alone still verifies, the log does not.
    let fifth = &sealed[4];
    remove(&archive.file(&fifth.seal_key));
    remove(&archive.file(&fifth.manifest_key));
    let (code, stdout, _) = archive.run(&["--witness-key", &witness.vkey(), "--json"]);
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let kinds = finding_kinds(&value);
    assert!(kinds.contains(&"leaf_without_seal".to_owned()), "{kinds:?}");
}

#[test]
fn an_older_copy_of_the_bucket_is_caught_by_a_checkpoint_held_outside() {
    let mut archive = Logged::new();
    for _ in 0..3 {
        archive.copy();
    }
    archive.publish();
    // The auditor keeps the older copy of the whole bucket...
    let older = tempfile::tempdir().unwrap();
    copy_dir(archive.path(), older.path());
    // ...the archive grows, and its newest checkpoint is saved elsewhere.
    for _ in 0..2 {
        archive.copy();
    }
    archive.publish();
    let held = older.path().join("held-checkpoint");
    std::fs::write(&held, archive.checkpoint_note(1)).unwrap();
    // The older copy verifies alone (a shorter chain is a valid chain)...
    let (code, stdout, _) = run_with(older.path(), &["--log-origin", ORIGIN]);
    assert_eq!(code, 0, "{stdout}");
    // ...but not against the checkpoint held outside it.
    let held_arg = held.display().to_string();
    let (code, stdout, _) = run_with(
        older.path(),
        &["--log-origin", ORIGIN, "--checkpoint", &held_arg, "--json"],
    );
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let truncated = findings(&value)
        .into_iter()
        .find(|f| f["kind"] == "log_truncated")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(truncated["attested_size"], 5);
    assert_eq!(truncated["found_size"], 3);
    // The current archive contains the held checkpoint.
    let (code, stdout, _) = archive.run(&["--checkpoint", &held_arg]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_removed_witnessed_checkpoint_with_its_tiles_is_truncation() {
    let witness = Witness::new("witness.example", 9);
    let archive = witnessed(&witness);
    let layout = Logged::layout();
    // Remove the newest checkpoint (keeping its cosignature) and the
    // partial tiles of size 5.
    remove(&archive.file(&layout.checkpoint(1)));
    let (code, stdout, _) = archive.run(&["--witness-key", &witness.vkey(), "--json"]);
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        findings(&value)
            .iter()
            .any(|f| f["kind"] == "log_object_missing" && f["key"] == layout.checkpoint(1)),
        "{stdout}"
    );
    let witness_b = Witness::new("witness-b.example", 10);
    let archive = witnessed(&witness_b);
    let bundle = archive.file(&layout.tile(krabka_remote_storage::tlog::TileId {
        level: krabka_remote_storage::tlog::TileId::ENTRIES,
        index: 0,
        width: 5,
    }));
    remove(&bundle);
    let (code, stdout, _) = archive.run(&["--witness-key", &witness_b.vkey(), "--json"]);
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let kinds = finding_kinds(&value);
    assert!(
        kinds.contains(&"log_object_missing".to_owned()),
        "{kinds:?}"
    );
    assert!(kinds.contains(&"log_truncated".to_owned()), "{kinds:?}");
}

#[test]
fn a_split_view_is_tampering_with_both_notes_as_evidence() {
    let archive = witnessed(&Witness::new("w.example", 9));
    // The writer's key signs another tree of size 5 for someone else.
    let other = format!("{ORIGIN}\n5\n{}\n", LogHash::leaf(b"other").to_base64());
    let note = signer().note_signer(ORIGIN).unwrap().sign(&other).unwrap();
    let held = archive.path().join("other-view");
    std::fs::write(&held, &note).unwrap();
    let held_arg = held.display().to_string();
    let (code, stdout, _) = archive.run(&["--checkpoint", &held_arg, "--json"]);
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let split = findings(&value)
        .into_iter()
        .find(|f| f["kind"] == "checkpoint_inconsistent")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(split["evidence"][0], note.as_str());
}

#[test]
fn cosignatures_are_judged_by_the_witness_keys_given() {
    let witness = Witness::new("witness.example", 9);
    let stranger = Witness::new("stranger.example", 11);
    let archive = witnessed(&witness);
    archive.cosign(1, &stranger);
    // An unknown cosigner is a notice.
    let (code, stdout, _) = archive.run(&["--witness-key", &witness.vkey()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("CosignatureUnknown"), "{stdout}");
    // Quorum 2 of two given keys, one of which never cosigned: incomplete.
    let (code, stdout, _) = archive.run(&[
        "--witness-key",
        &witness.vkey(),
        "--witness-key",
        &Witness::new("absent.example", 12).vkey(),
    ]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("LogUnattested"), "{stdout}");
    // A cosignature moved from checkpoint 0 onto checkpoint 1: forged.
    let layout = Logged::layout();
    let moved = std::fs::read(archive.file(&layout.cosignature(0, &witness.verifier))).unwrap();
    std::fs::write(
        archive.file(&layout.cosignature(1, &witness.verifier)),
        moved,
    )
    .unwrap();
    let (code, stdout, _) = archive.run(&["--witness-key", &witness.vkey()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("CosignatureInvalid"), "{stdout}");
}

#[test]
fn malformed_log_objects_and_bad_arguments_are_typed() {
    let witness = Witness::new("witness.example", 9);
    let archive = witnessed(&witness);
    let layout = Logged::layout();
    std::fs::write(archive.file(&layout.checkpoint(0)), b"not a note").unwrap();
    let (code, stdout, _) = archive.run(&["--json"]);
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        finding_kinds(&value).contains(&"log_object_unreadable".to_owned()),
        "{stdout}"
    );
    // A checkpoint of another origin, held outside: unsigned for this log.
    let foreign = signer()
        .note_signer("other.example/log")
        .unwrap()
        .sign(&format!(
            "other.example/log\n1\n{}\n",
            LogHash::leaf(b"x").to_base64()
        ))
        .unwrap();
    let held = archive.path().join("foreign");
    std::fs::write(&held, foreign).unwrap();
    let (code, stdout, _) = archive.run(&["--checkpoint", &held.display().to_string()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("CheckpointUnsigned"), "{stdout}");
    // Usage errors: a witness key of the wrong type, a quorum above the
    // keys, a checkpoint file that is not there.
    let log_key = signer().note_signer(ORIGIN).unwrap().verifier().to_string();
    for args in [
        vec!["--witness-key", log_key.as_str()],
        vec!["--witness-key", "garbage"],
        vec!["--witness-key", &witness.vkey(), "--witness-quorum", "2"],
        vec!["--checkpoint", "/nonexistent/checkpoint"],
    ] {
        let (code, _, stderr) = archive.run(&args);
        assert_eq!(code, 64, "{args:?}: {stderr}");
        assert!(stderr.contains("usage error"), "{stderr}");
    }
}

#[test]
fn an_archive_without_a_log_is_unattested_only_when_one_is_asked_for() {
    let root = tempfile::tempdir().unwrap();
    common::archive(root.path());
    let (code, stdout, _) = run_with(root.path(), &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("archive log"), "{stdout}");
    let witness = Witness::new("witness.example", 9);
    let (code, stdout, _) = run_with(root.path(), &["--witness-key", &witness.vkey()]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("LogUnattested"), "{stdout}");
}

fn findings(value: &serde_json::Value) -> Vec<serde_json::Value> {
    let report = &value["report"];
    let mut all: Vec<serde_json::Value> =
        report["findings"].as_array().cloned().unwrap_or_default();
    for partition in report["partitions"].as_array().into_iter().flatten() {
        all.extend(
            partition["findings"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        );
    }
    all
}

fn finding_kinds(value: &serde_json::Value) -> Vec<String> {
    findings(value)
        .iter()
        .filter_map(|f| f["kind"].as_str().map(str::to_owned))
        .collect()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    for path in walk(from) {
        let target = to.join(path.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&path, &target).unwrap();
    }
}
