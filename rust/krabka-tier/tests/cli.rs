//! The `krabka-tier` binary on a filesystem tier holding a segment Apache
//! Kafka wrote: output and exit codes.

#![allow(missing_docs)]

use {
    std::{fs, path::Path, process::Command},
    uuid::Uuid,
};

fn fixture_log() -> Vec<u8> {
    fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/kafka/plain/00000000000000000100.log"),
    )
    .unwrap()
}

/// A tier with topic `orders`, partition 2, one segment copy of `log`.
fn tier(log: &[u8]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(format!(
        "orders-2-{}",
        krabka_kafka::kafka_uuid(Uuid::from_u128(7))
    ));
    fs::create_dir_all(&dir).unwrap();
    let name = format!(
        "{:020}-{}",
        100,
        krabka_kafka::kafka_uuid(Uuid::from_u128(9))
    );
    fs::write(dir.join(format!("{name}.log")), log).unwrap();
    fs::write(dir.join(format!("{name}.index")), b"").unwrap();
    root
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

#[test]
fn list_names_partitions_and_segment_copies() {
    let root = tier(&fixture_log());
    let local = root.path().to_str().unwrap();
    let (code, out, _) = run(&["list", "--local", local]);
    assert_eq!(code, 0);
    assert!(out.starts_with("orders-2 (topic id "), "{out}");
    assert!(out.contains("1 segment copy from offset 100"), "{out}");
    assert!(out.contains(".index .log"), "{out}");
    let (code, out, _) = run(&["list", "--local", local, "--json"]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json[0]["topic"], "orders");
    assert_eq!(json[0]["segments"][0]["start_offset"], 100);
}

#[test]
fn export_writes_json_lines_and_says_what_it_did() {
    let root = tier(&fixture_log());
    let local = root.path().to_str().unwrap();
    let (code, out, err) = run(&[
        "export",
        "--local",
        local,
        "--topic",
        "orders",
        "--to-offset",
        "102",
        "--utf8",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["offset"], 100);
    assert_eq!(lines[0]["key"], "key-100");
    assert_eq!(lines[0]["partition"], 2);
    assert_eq!(lines[0]["headers"][0]["key"], "h0");
    assert_eq!(lines[0]["headers"][1]["value"], serde_json::Value::Null);
    assert!(err.contains("orders-2: 3 record(s)"), "{err}");
}

#[test]
fn skipped_records_gaps_and_failures_have_their_exit_codes() {
    let mut log = fixture_log();
    log[70] ^= 0xff;
    let root = tier(&log);
    let local = root.path().to_str().unwrap();
    let (code, _, err) = run(&["export", "--local", local, "--topic", "orders"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("skipped:") && err.contains(".log (position 0, offset 100)"),
        "{err}"
    );
    // The fixture's offsets 125..=129 are held by no batch.
    let clean = tier(&fixture_log());
    let (code, _, err) = run(&[
        "export",
        "--local",
        clean.path().to_str().unwrap(),
        "--topic",
        "orders",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("gap: no segment holds offsets 125..=129"),
        "{err}"
    );
    let (code, _, _) = run(&["export", "--local", local, "--topic", "payments"]);
    assert_eq!(code, 3);
    let (code, _, _) = run(&["list", "--local", "/nonexistent/tier"]);
    assert_eq!(code, 3);
    let (code, _, _) = run(&["export", "--local", local]);
    assert_eq!(code, 64);
}

#[test]
fn progress_lines_come_only_when_asked() {
    let root = tier(&fixture_log());
    let local = root.path().to_str().unwrap();
    let args = [
        "export",
        "--local",
        local,
        "--topic",
        "orders",
        "--to-offset",
        "110",
    ];
    let (_, _, quiet) = run(&args);
    assert!(!quiet.contains("segment copy 1/1"), "{quiet}");
    let mut with_progress = args.to_vec();
    with_progress.push("--progress");
    let (code, out, err) = run(&with_progress);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 11);
    assert!(
        err.contains("orders-2: segment copy 1/1 (offset 100)")
            && err.contains("11 record(s) so far"),
        "{err}"
    );
}

#[test]
fn export_format_raw_writes_a_log_file_per_partition() {
    let log = fixture_log();
    let root = tier(&log);
    let local = root.path().to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let (code, stdout, err) = run(&[
        "export",
        "--local",
        local,
        "--topic",
        "orders",
        "--format",
        "raw",
        "--output-dir",
        dir,
    ]);
    // The fixture has offsets no batch holds (compacted away): exit 2.
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gap: no segment holds offsets"), "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    let file = out.path().join("orders-2").join(format!("{:020}.log", 100));
    assert!(err.contains(&format!("wrote {}", file.display())), "{err}");
    // The fixture holds committed, non-control batches only: the file is
    // the log, byte for byte.
    assert_eq!(fs::read(&file).unwrap(), log);
    let (code, _, err) = run(&[
        "export", "--local", local, "--topic", "orders", "--format", "raw",
    ]);
    assert_eq!(code, 64, "{err}");
    assert!(err.contains("--output-dir"), "{err}");
}

#[test]
fn list_tells_each_copys_last_offset_and_largest_timestamp() {
    let root = tier(&fixture_log());
    let local = root.path().to_str().unwrap();
    // The truth: every record of the copy, exported.
    let (code, out, err) = run(&[
        "export",
        "--local",
        local,
        "--topic",
        "orders",
        "--uncommitted",
    ]);
    // 2: the fixture has a hole (offsets 125..=129), reported as a gap.
    assert_eq!(code, 2, "{err}");
    let records: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let last = records.iter().map(|r| r["offset"].as_i64().unwrap()).max();
    let newest = records
        .iter()
        .map(|r| r["timestamp"].as_i64().unwrap())
        .max();
    let (code, out, err) = run(&["list", "--local", local, "--json"]);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let details = &json[0]["segments"][0]["details"];
    assert_eq!(details["end_offset"].as_i64(), last, "{details}");
    assert_eq!(details["max_timestamp"].as_i64(), newest, "{details}");
    let (code, out, _) = run(&["list", "--local", local]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("to offset {}", last.unwrap())),
        "{out}"
    );
}

#[test]
fn a_ca_certificates_file_that_cannot_be_used_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-ca.pem");
    let garbage = dir.path().join("garbage-ca.pem");
    fs::write(&garbage, "not a certificate\n").unwrap();
    for ca in [&missing, &garbage] {
        let ca = ca.to_str().unwrap();
        let (code, stdout, stderr) = run(&[
            "list",
            "--s3-bucket",
            "tiered",
            "--s3-endpoint",
            "https://127.0.0.1:9",
            "--s3-ca-certificates",
            ca,
        ]);
        assert_ne!(code, 0, "{stdout}{stderr}");
        assert!(stderr.contains(ca), "{stderr}");
    }
    // Without an S3 bucket the option is a usage error.
    let (code, _, stderr) = run(&[
        "list",
        "--local",
        dir.path().to_str().unwrap(),
        "--s3-ca-certificates",
        missing.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--s3-bucket"), "{stderr}");
}
