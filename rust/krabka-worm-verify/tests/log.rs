//! The archive log through the command line, on archives in a local
//! directory: a clean log verifies; tail truncation (newest manifests
//! removed, an older copy restored, a shorter history shown), split views,
//! forged and unknown cosignatures, removed checkpoints and tiles are each
//! reported with the exit code they deserve.

#![allow(missing_docs)]

mod common;

use {
    common::{
        logged::{
            Logged, ORIGIN, Witness, copy_dir, finding_kinds, findings, remove, witnessed,
            witnessed_copies,
        },
        run_with, signer,
    },
    krabka_remote_storage::tlog::{LogEntry, LogHash, proof::verify_inclusion},
};

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

#[test]
fn proofs_of_inclusion_and_consistency_check_against_the_checkpoints() {
    let witness = Witness::new("witness.example", 9);
    let archive = witnessed(&witness);
    let held = archive.path().join("held-0");
    std::fs::write(&held, archive.checkpoint_note(0)).unwrap();
    let held_arg = held.display().to_string();
    let (code, stdout, stderr) = archive.run(&[
        "--checkpoint",
        &held_arg,
        "--prove",
        "orders-0@150",
        "--prove",
        "orders-0@999999",
        "--json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let log = &value["report"]["log"];
    // The checkpoint of 3 held outside is consistent with the newest of 5.
    let consistency = &log["consistency"][0];
    assert_eq!(consistency["old_size"], 3);
    assert_eq!(consistency["new_size"], 5);
    assert_eq!(consistency["verified"], true, "{stdout}");
    // Offset 150 is in the second copy: leaf 1 of 5, and the audit path
    // checks again here from the proof alone.
    let inclusion = &log["inclusion"][0];
    assert_eq!(inclusion["index"], 1, "{stdout}");
    assert_eq!(inclusion["verified"], true, "{stdout}");
    let path: Vec<LogHash> = inclusion["proof"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| LogHash::from_base64(h.as_str().unwrap(), "hash").unwrap())
        .collect();
    let seal = inclusion["seal"].as_str().unwrap();
    let entry = LogEntry::of_seal(
        seal.strip_prefix("arch/").unwrap(),
        &std::fs::read(archive.file(seal)).unwrap(),
    );
    let root = LogHash::from_base64(log["newest"]["root"].as_str().unwrap(), "root").unwrap();
    verify_inclusion(
        1,
        5,
        &LogHash::leaf(&entry.to_bytes().unwrap()),
        &path,
        &root,
    )
    .unwrap();
    assert!(
        verify_inclusion(
            0,
            5,
            &LogHash::leaf(&entry.to_bytes().unwrap()),
            &path,
            &root
        )
        .is_err()
    );
    // No segment covers the second offset: said, not a finding.
    assert_eq!(log["inclusion"][1]["verified"], false);
    // A malformed request is a usage error.
    let (code, _, stderr) = archive.run(&["--prove", "orders@x"]);
    assert_eq!(code, 64, "{stderr}");
}

#[test]
fn a_checkpoint_of_a_huge_tree_is_refused_in_bounded_time_and_findings() {
    let archive = witnessed(&Witness::new("witness.example", 9));
    // Signed by the writer's own key, so only the tree can refute it.
    let huge = format!(
        "{ORIGIN}\n{}\n{}\n",
        1u64 << 40,
        LogHash::leaf(b"x").to_base64()
    );
    let note = signer().note_signer(ORIGIN).unwrap().sign(&huge).unwrap();
    std::fs::write(
        archive.file(&Logged::layout().checkpoint(2)),
        note.as_bytes(),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (code, stdout, _) = archive.run(&["--json"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let findings = findings(&value);
    assert!(findings.len() <= 200, "{} findings", findings.len());
    assert!(
        findings.iter().any(|f| f["kind"] == "log_object_missing"
            && f["key"].as_str().unwrap().contains("tile/entries/")),
        "{stdout}"
    );
}
