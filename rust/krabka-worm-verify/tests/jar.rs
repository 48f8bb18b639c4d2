//! The verifier jar (`java -jar krabka-worm-verify.jar`, built by
//! `gradle verifierJar`) against the binary on the same local archives: the
//! same exit code, stdout and stderr, byte for byte. Compiled with the
//! `jar-test` feature; `KRABKA_WORM_VERIFY_JAR` names the jar (and `JAVA`
//! the `java` to run, `java` on the `PATH` by default). Run by
//! `scripts/test.d/60-java.sh`.

#![allow(missing_docs)]

mod common;

use {
    common::{archive, base_args, flip_a_log_byte, public_hex, run},
    std::{path::Path, process::Command},
};

fn jar() -> String {
    std::env::var("KRABKA_WORM_VERIFY_JAR").unwrap_or_else(|_| {
        panic!(
            "set KRABKA_WORM_VERIFY_JAR to build/libs/krabka-worm-verify.jar (gradle verifierJar)"
        )
    })
}

/// `java [jvm_args] -jar <jar> args`: (exit code, stdout, stderr).
fn run_jar(jvm_args: &[&str], args: &[String]) -> (i32, String, String) {
    let java = std::env::var("JAVA").unwrap_or_else(|_| "java".to_owned());
    let output = Command::new(java)
        .args(jvm_args)
        .arg("-jar")
        .arg(jar())
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// The jar and the binary agree on `args`; the exit code and stdout.
fn same_as_binary(args: &[String]) -> (i32, String) {
    let jar = run_jar(&[], args);
    let bin = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(jar, bin, "{args:?}");
    (jar.0, jar.1)
}

fn args(root: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = base_args(root);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

#[test]
fn the_jar_verifies_like_the_binary() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let tip = sealed[1].head.to_string();
    let (code, stdout) = same_as_binary(&args(root.path(), &["--json", "--deep"]));
    assert_eq!(code, 0, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["outcome"], "verified");
    assert_eq!(value["report"]["partitions"][0]["tip"], tip.as_str());
    let (code, stdout) = same_as_binary(&args(root.path(), &["--expect-head", &tip]));
    assert_eq!(code, 0);
    assert!(stdout.contains("result: VERIFIED"), "{stdout}");

    flip_a_log_byte(root.path(), &sealed);
    let (code, stdout) = same_as_binary(&args(root.path(), &["--json", "--deep"]));
    assert_eq!(code, 1, "{stdout}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["outcome"], "tampered");
    let (code, stdout) = same_as_binary(&args(root.path(), &["--deep"]));
    assert_eq!(code, 1);
    assert!(stdout.contains("HashMismatch"), "{stdout}");
}

#[test]
fn the_jar_reports_usage_and_read_errors_like_the_binary() {
    let root = tempfile::tempdir().unwrap();
    archive(root.path());
    for usage in [
        args(root.path(), &["--public-key", "abcd"]),
        vec!["--local".to_owned(), root.path().display().to_string()],
        args(root.path(), &["--progress", "sometimes"]),
    ] {
        let (code, stdout) = same_as_binary(&usage);
        assert_eq!(code, 64, "{usage:?}");
        assert_eq!(stdout, "");
    }
    let (code, stdout) = same_as_binary(&[
        "--local".to_owned(),
        root.path().join("absent").display().to_string(),
        "--key-id".to_owned(),
        "k1".to_owned(),
        "--public-key".to_owned(),
        public_hex(),
    ]);
    assert_eq!(code, 3);
    assert_eq!(stdout, "");
    let (code, stdout) = same_as_binary(&["--help".to_owned()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Exit codes"), "{stdout}");
}

#[test]
fn the_jar_prints_progress_on_stderr_only() {
    let root = tempfile::tempdir().unwrap();
    archive(root.path());
    let args = args(root.path(), &["--json", "--deep", "--progress", "always"]);
    let (code, stdout, stderr) = run_jar(&[], &args);
    assert_eq!(code, 0, "{stderr}");
    let (_, bin_stdout, _) = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(stdout, bin_stdout);
    assert!(stderr.starts_with("deep verify: "), "{stderr}");
    assert!(stderr.trim_end().ends_with(", done"), "{stderr}");
}

#[test]
fn a_library_that_does_not_load_is_exit_code_3() {
    let root = tempfile::tempdir().unwrap();
    archive(root.path());
    let missing = root.path().join("no-such-libkrabka_jni.so");
    let (code, stdout, stderr) = run_jar(
        &[&format!(
            "-Dkrabka.native.library.path={}",
            missing.display()
        )],
        &args(root.path(), &[]),
    );
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("no-such-libkrabka_jni.so"), "{stderr}");
}
