//! `--report FILE.html`: the audit report for people, from archives in a
//! local directory. The page says the verdict and exit code first, names
//! the findings with their evidence, loads nothing from anywhere, and a
//! report that cannot be written is exit 3. With `KRABKA_CHROMIUM` and
//! `KRABKA_HTML_VALIDATOR` set (`scripts/test.d/57-report.sh`), a real
//! headless Chromium renders each page (screenshot and PDF in
//! `KRABKA_ARTEFACTS`) and the HTML is validated.

#![allow(missing_docs)]

mod common;

use {
    common::logged::{Witness, remove, witnessed_copies},
    std::{
        path::{Path, PathBuf},
        process::Command,
    },
};

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A clean and a tampered report, written into `dir`: (clean, tampered).
fn reports(dir: &Path) -> (PathBuf, PathBuf) {
    let witness = Witness::new("witness.example", 9);
    let (clean, _) = witnessed_copies(&witness);
    let clean_report = dir.join("clean.html");
    let (code, stdout, stderr) = clean.run(&[
        "--witness-key",
        &witness.vkey(),
        "--report",
        clean_report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");

    let (tampered, sealed) = witnessed_copies(&witness);
    remove(&tampered.file(&sealed[4].seal_key));
    remove(&tampered.file(&sealed[4].manifest_key));
    let tampered_report = dir.join("tampered.html");
    let (code, stdout, stderr) = tampered.run(&[
        "--witness-key",
        &witness.vkey(),
        "--report",
        tampered_report.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    (clean_report, tampered_report)
}

/// Nothing on the page is fetched from anywhere: no `src`, no link, no
/// `url(…)`, no script.
fn assert_self_contained(html: &str) {
    for needle in ["src=", "<link", "url(", "<script", "@import", "<iframe"] {
        assert!(!html.contains(needle), "the page holds {needle}");
    }
}

#[test]
fn the_report_says_the_verdict_first_and_names_every_finding() {
    let dir = tempfile::tempdir().unwrap();
    let (clean, tampered) = reports(dir.path());

    let page = std::fs::read_to_string(&clean).unwrap();
    assert_self_contained(&page);
    let verdict = page.find("id=\"verdict\"").unwrap();
    assert!(
        page[verdict..]
            .starts_with("id=\"verdict\"><div class=\"big\">VERIFIED</div><p>Exit code 0.")
    );
    for section in [
        "id=\"command\"",
        "id=\"checkpoints\"",
        "id=\"partitions\"",
        "id=\"segments-chart\"",
    ] {
        assert!(page.find(section).unwrap() > verdict, "{section}");
    }
    assert!(page.contains("krabka-worm-verify --local "), "the command");
    assert!(
        page.contains("<code>witness.example</code>"),
        "the cosigner"
    );
    assert!(page.contains("Findings (0)"));
    assert!(page.contains("orders-0"));
    // A local copy: the bucket's lock was not read, and the page says so.
    assert!(page.contains("The bucket's own lock was not read"));

    let page = std::fs::read_to_string(&tampered).unwrap();
    assert_self_contained(&page);
    assert!(page.contains("<div class=\"big\">EVIDENCE OF TAMPERING</div><p>Exit code 1."));
    assert!(page.contains("leaf_without_seal"), "the finding's kind");
    assert!(
        page.contains("_chain/"),
        "the seal the leaf names is the evidence"
    );
    // Tampered partitions are drawn red.
    assert!(page.contains("#b42318"));
}

#[test]
fn a_report_that_cannot_be_written_is_exit_3() {
    let witness = Witness::new("witness.example", 9);
    let (archive, _) = witnessed_copies(&witness);
    let (code, _, stderr) = archive.run(&["--report", "/nonexistent/dir/report.html"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("cannot write the HTML report"), "{stderr}");
}

#[test]
fn a_headless_chromium_renders_the_reports_and_the_html_is_valid() {
    let (Some(chromium), Some(validator)) = (env("KRABKA_CHROMIUM"), env("KRABKA_HTML_VALIDATOR"))
    else {
        assert_ne!(
            env("KRABKA_REQUIRE_BROWSER").as_deref(),
            Some("1"),
            "KRABKA_CHROMIUM / KRABKA_HTML_VALIDATOR not set"
        );
        eprintln!("SKIPPED: no browser (scripts/test.d/57-report.sh)");
        return;
    };
    let artefacts = PathBuf::from(
        env("KRABKA_ARTEFACTS").unwrap_or_else(|| "target/test-artefacts/report".to_owned()),
    );
    std::fs::create_dir_all(&artefacts).unwrap();
    let (clean, tampered) = reports(&artefacts);
    for (page, verdict, finding) in [
        (&clean, "VERIFIED", None),
        (
            &tampered,
            "EVIDENCE OF TAMPERING",
            Some("leaf_without_seal"),
        ),
    ] {
        let name = page.file_stem().unwrap().to_str().unwrap();
        let validated = Command::new(&validator).arg(page).output().unwrap();
        assert!(
            validated.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&validated.stdout),
            String::from_utf8_lossy(&validated.stderr)
        );
        let url = format!("file://{}", page.canonicalize().unwrap().display());
        let browser = |args: &[&str]| {
            let output = Command::new(&chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-extensions",
                    "--window-size=1200,1600",
                ])
                .args(args)
                .arg(&url)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{name}: chromium {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            String::from_utf8_lossy(&output.stdout).into_owned()
        };
        // The rendered DOM shows the verdict and the findings.
        let dom = browser(&["--dump-dom"]);
        assert!(
            dom.contains(verdict),
            "{name}: no verdict in the rendered page"
        );
        if let Some(finding) = finding {
            assert!(dom.contains(finding), "{name}: {finding} not rendered");
        }
        let screenshot = artefacts.join(format!("{name}.png"));
        let _ = std::fs::remove_file(&screenshot);
        browser(&[&format!("--screenshot={}", screenshot.display())]);
        let png = std::fs::read(&screenshot).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{name}: no PNG screenshot");
        assert!(
            png.len() > 20_000,
            "{name}: a blank screenshot ({} bytes)",
            png.len()
        );
        let pdf = artefacts.join(format!("{name}.pdf"));
        let _ = std::fs::remove_file(&pdf);
        browser(&[
            "--no-pdf-header-footer",
            &format!("--print-to-pdf={}", pdf.display()),
        ]);
        assert!(
            std::fs::read(&pdf).unwrap().starts_with(b"%PDF"),
            "{name}: no PDF"
        );
    }
}
