//! The command line against archives in a local directory: exit code,
//! stdout and stderr of each outcome.

#![allow(missing_docs)]

mod common;

use {
    common::{archive, flip_a_log_byte, public_hex, run, run_with},
    krabka_remote_storage::ManifestSigner,
};

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
    flip_a_log_byte(root.path(), &sealed);
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

#[test]
fn progress_always_goes_to_stderr_and_keeps_stdout_clean() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let objects: usize = sealed.iter().map(|s| s.manifest.body.objects.len()).sum();
    let (code, stdout, stderr) =
        run_with(root.path(), &["--deep", "--json", "--progress", "always"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["outcome"], "verified");
    assert!(!stdout.contains("deep verify"), "{stdout}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("deep verify: 6.0 KiB of 6.0 KiB, "),
        "{stderr}"
    );
    assert!(
        last.contains(&format!(", {objects}/{objects} objects, ")),
        "{stderr}"
    );
    assert!(last.ends_with(", done"), "{stderr}");
    assert!(
        stderr.lines().all(|l| l.starts_with("deep verify: ")),
        "{stderr}"
    );
}

#[test]
fn no_progress_when_never_shallow_or_not_a_terminal() {
    let root = tempfile::tempdir().unwrap();
    archive(root.path());
    for extra in [
        &["--deep", "--progress", "never"][..],
        &["--deep"][..], // auto, and stderr is a pipe here
        &["--deep", "--progress", "auto"][..],
        &["--progress", "always"][..], // shallow: nothing is hashed
    ] {
        let (code, stdout, stderr) = run_with(root.path(), extra);
        assert_eq!(code, 0, "{extra:?}: {stdout}{stderr}");
        assert_eq!(stderr, "", "{extra:?}");
    }
    let (code, stdout, stderr) = run_with(root.path(), &["--deep", "--progress", "sometimes"]);
    assert_eq!(code, 64, "{stdout}{stderr}");
    assert_eq!(stdout, "");
}

#[test]
fn a_foreign_object_under_the_chain_is_tampering() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let (chain_dir, _) = sealed[1].seal_key.rsplit_once('/').unwrap();
    let junk = format!("{chain_dir}/00000000000000000002.seal");
    std::fs::write(root.path().join(&junk), b"not a seal").unwrap();
    for extra in [&[][..], &["--deep"][..]] {
        let (code, stdout, _) = run_with(root.path(), extra);
        assert_eq!(code, 1, "{stdout}");
        assert!(stdout.contains("Tampering: ForeignObject"), "{stdout}");
        assert!(stdout.contains(&junk), "{stdout}");
        assert!(stdout.contains("no detour routes around it"), "{stdout}");
        assert!(stdout.contains("result: EVIDENCE OF TAMPERING"), "{stdout}");
    }
}

#[test]
fn a_committed_but_unfinished_copy_is_a_notice() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    std::fs::remove_file(root.path().join(&sealed[1].manifest_key)).unwrap();
    let tip = sealed[1].head.to_string();
    let (code, stdout, stderr) = run_with(root.path(), &["--deep", "--expect-head", &tip]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Notice: CommitUnfinished"), "{stdout}");
    assert!(stdout.contains("result: VERIFIED"), "{stdout}");
    // A local copy has no bucket of its own to report.
    let (code, stdout, _) = run_with(root.path(), &["--json"]);
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["report"]["bucket"], serde_json::Value::Null);
    assert_eq!(
        value["report"]["partitions"][0]["findings"][0]["kind"],
        "commit_unfinished"
    );
    assert!(!stdout.contains("bucket: versioning"), "{stdout}");
}

#[test]
fn a_ca_certificates_file_that_cannot_be_used_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-ca.pem");
    let garbage = dir.path().join("garbage-ca.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    let key = public_hex();
    for ca in [&missing, &garbage] {
        let ca = ca.to_str().unwrap();
        let (code, stdout, stderr) = run(&[
            "--s3-bucket",
            "archive",
            "--s3-endpoint",
            "https://127.0.0.1:9",
            "--s3-ca-certificates",
            ca,
            "--key-id",
            "k1",
            "--public-key",
            &key,
        ]);
        assert_eq!(code, 3, "{stdout}{stderr}");
        assert!(stderr.contains(ca), "{stderr}");
    }
}
