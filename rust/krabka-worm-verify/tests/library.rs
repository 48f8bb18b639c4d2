//! The library entry point ([`krabka_worm_verify::run`]) against the same
//! local archives as the binary: the same exit codes and the same bytes on
//! stdout and stderr, since the binary and the verifier jar are both thin
//! callers of it.

#![allow(missing_docs)]

mod common;

use {
    common::{archive, base_args, flip_a_log_byte, public_hex, run},
    krabka_worm_verify::Console,
    std::path::Path,
};

/// Runs the library with `err_is_terminal`; (exit code, stdout, stderr).
fn run_library(args: &[String], err_is_terminal: bool) -> (u8, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = krabka_worm_verify::run(
        args,
        &mut Console {
            out: &mut out,
            err: &mut err,
            err_is_terminal,
        },
    );
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn args(root: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = base_args(root);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

/// The library and the binary agree on `args`; the library's exit code.
fn same_as_binary(args: &[String]) -> (u8, String) {
    let (code, stdout, stderr) = run_library(args, false);
    let (bin_code, bin_stdout, bin_stderr) =
        run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(i32::from(code), bin_code, "{args:?}");
    assert_eq!(stdout, bin_stdout, "{args:?}");
    assert_eq!(stderr, bin_stderr, "{args:?}");
    (code, stdout)
}

#[test]
fn the_library_gives_the_binary_s_codes_and_output() {
    let root = tempfile::tempdir().unwrap();
    let sealed = archive(root.path());
    let tip = sealed[1].head.to_string();
    let (code, stdout) = same_as_binary(&args(root.path(), &["--json", "--deep"]));
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["report"]["partitions"][0]["tip"], tip.as_str());
    let (code, stdout) = same_as_binary(&args(root.path(), &["--expect-head", &tip]));
    assert_eq!(code, 0);
    assert!(stdout.contains("result: VERIFIED"), "{stdout}");
    flip_a_log_byte(root.path(), &sealed);
    let (code, stdout) = same_as_binary(&args(root.path(), &["--json", "--deep"]));
    assert_eq!(code, 1);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["outcome"], "tampered");
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
    for usage in [
        args(root.path(), &["--partition", "zero"]),
        vec!["--local".to_owned(), "x".to_owned()],
        args(root.path(), &["--public-key", "abcd"]),
    ] {
        let (code, stdout) = same_as_binary(&usage);
        assert_eq!(code, 64, "{usage:?}");
        assert_eq!(stdout, "");
    }
    let (code, stdout) = same_as_binary(&["--help".to_owned()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("--progress"), "{stdout}");
}

#[test]
fn progress_auto_prints_only_on_a_terminal_and_only_when_deep() {
    let root = tempfile::tempdir().unwrap();
    archive(root.path());
    let (code, stdout, stderr) = run_library(&args(root.path(), &["--deep", "--json"]), true);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str::<serde_json::Value>(&stdout).unwrap();
    assert!(stderr.starts_with("deep verify: "), "{stderr}");
    assert!(stderr.trim_end().ends_with(", done"), "{stderr}");
    let (code, _, stderr) = run_library(&args(root.path(), &["--json"]), true);
    assert_eq!(code, 0);
    assert_eq!(stderr, "");
    let (code, _, stderr) =
        run_library(&args(root.path(), &["--deep", "--progress", "never"]), true);
    assert_eq!(code, 0);
    assert_eq!(stderr, "");
    let (code, _, stderr) = run_library(&args(root.path(), &["--deep"]), false);
    assert_eq!(code, 0);
    assert_eq!(stderr, "");
}
