//! `krabka-worm-verify`: audits a Krabka write-once archive.
//!
//! Argument parsing and printing only; the checks are
//! [`krabka_remote_storage::verify_archive`].
//!
//! Exit codes: 0 verified, 1 evidence of tampering, 2 incomplete
//! attestation (unsigned or untrusted manifests, unknown format version,
//! `--expect-head` with several partitions in scope), 3 the archive could
//! not be read, 64 usage error.

#![forbid(unsafe_code)]

use {
    clap::Parser,
    krabka_object_store::{GcsConfig, ObjectStoreConfig, S3Config, Secret},
    krabka_remote_storage::{
        ChainHead, TrustedManifestKeys, VerifyDepth, VerifyOutcome, VerifyRequest,
        verify_archive_config,
    },
    std::{path::PathBuf, process::ExitCode},
};

/// Audits a Krabka write-once (WORM) archive: chain, signatures (against the
/// keys given here, never the keys in the archive) and objects.
///
/// Exit codes: 0 verified, 1 evidence of tampering, 2 incomplete
/// attestation, 3 could not read the archive, 64 usage error.
#[derive(Debug, Parser)]
#[command(name = "krabka-worm-verify", version)]
struct Cli {
    /// S3 bucket to read (credentials from the AWS environment).
    #[arg(long, group = "source")]
    s3_bucket: Option<String>,
    /// S3 endpoint (S3-compatible servers).
    #[arg(long, requires = "s3_bucket")]
    s3_endpoint: Option<String>,
    /// S3 region.
    #[arg(long, default_value = "us-east-1")]
    s3_region: String,
    /// Path-style S3 requests.
    #[arg(long)]
    path_style: bool,
    /// GCS bucket to read (credentials from GOOGLE_APPLICATION_CREDENTIALS).
    #[arg(long, group = "source")]
    gcs_bucket: Option<String>,
    /// GCS endpoint (emulators).
    #[arg(long, requires = "gcs_bucket")]
    gcs_endpoint: Option<String>,
    /// Send no GCS credentials (emulators).
    #[arg(long, requires = "gcs_bucket")]
    gcs_no_auth: bool,
    /// A local copy of the archive (a directory laid out like the bucket).
    #[arg(long, group = "source")]
    local: Option<PathBuf>,
    /// Key prefix of the archive in the bucket.
    #[arg(long)]
    prefix: Option<String>,
    /// Only this topic.
    #[arg(long)]
    topic: Option<String>,
    /// Only this partition.
    #[arg(long)]
    partition: Option<i32>,
    /// A trusted key id; repeat, each paired with the `--public-key` at the
    /// same position.
    #[arg(long = "key-id", required = true)]
    key_ids: Vec<String>,
    /// A trusted Ed25519 public key, 64 hex characters.
    #[arg(long = "public-key", required = true)]
    public_keys: Vec<String>,
    /// The tip head recorded by an earlier run (needs one partition in scope).
    #[arg(long)]
    expect_head: Option<String>,
    /// Re-hash every object (streamed).
    #[arg(long)]
    deep: bool,
    /// Print the machine-readable report (JSON) instead of the summary.
    #[arg(long)]
    json: bool,
}

fn usage(message: &str) -> ExitCode {
    eprintln!("krabka-worm-verify: usage error: {message}");
    ExitCode::from(VerifyOutcome::EXIT_USAGE)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(VerifyOutcome::EXIT_USAGE);
        }
    };
    if cli.key_ids.len() != cli.public_keys.len() {
        return usage("give each --key-id with one --public-key, in the same order");
    }
    let mut trusted = TrustedManifestKeys::new();
    for (key_id, public) in cli.key_ids.iter().zip(&cli.public_keys) {
        let Some(bytes) = decode_hex(public) else {
            return usage(&format!(
                "--public-key for `{key_id}` is not 64 hex characters"
            ));
        };
        if let Err(err) = trusted.insert(key_id, &bytes) {
            return usage(&err.to_string());
        }
    }
    let expect_head = match cli.expect_head.as_deref().map(str::parse::<ChainHead>) {
        None => None,
        Some(Ok(head)) => Some(head),
        Some(Err(err)) => return usage(&format!("--expect-head: {err}")),
    };
    let config = if let Some(bucket) = &cli.s3_bucket {
        let mut s3 = S3Config::new(bucket, &cli.s3_region);
        s3.endpoint.clone_from(&cli.s3_endpoint);
        s3.allow_http = cli
            .s3_endpoint
            .as_deref()
            .is_some_and(|e| e.starts_with("http://"));
        s3.path_style = cli.path_style;
        ObjectStoreConfig::S3(s3)
    } else if let Some(bucket) = &cli.gcs_bucket {
        let mut gcs = GcsConfig::new(bucket);
        gcs.endpoint.clone_from(&cli.gcs_endpoint);
        gcs.allow_http = cli
            .gcs_endpoint
            .as_deref()
            .is_some_and(|e| e.starts_with("http://"));
        if cli.gcs_no_auth {
            gcs.service_account_key = Some(Secret::new(
                r#"{"private_key":"unused","private_key_id":"unused","client_email":"verifier@example.com","disable_oauth":true}"#,
            ));
        }
        ObjectStoreConfig::Gcs(gcs)
    } else if let Some(root) = &cli.local {
        ObjectStoreConfig::Local { root: root.clone() }
    } else {
        return usage("name the archive: --s3-bucket, --gcs-bucket or --local");
    };
    let mut request = VerifyRequest::new(cli.prefix.clone(), trusted);
    request.depth = if cli.deep {
        VerifyDepth::Deep
    } else {
        VerifyDepth::Shallow
    };
    request.topic.clone_from(&cli.topic);
    request.partition = cli.partition;
    request.expect_head = expect_head;
    let report = match verify_archive_config(&config, &request) {
        Ok(report) => report,
        Err(err) => {
            eprintln!("krabka-worm-verify: could not read the archive: {err}");
            return ExitCode::from(VerifyOutcome::EXIT_UNREADABLE);
        }
    };
    if cli.json {
        match serde_json::to_string_pretty(
            &serde_json::json!({ "outcome": report.outcome(), "report": &report }),
        ) {
            Ok(json) => println!("{json}"),
            Err(err) => {
                eprintln!("krabka-worm-verify: cannot encode the report: {err}");
                return ExitCode::from(VerifyOutcome::EXIT_UNREADABLE);
            }
        }
    } else {
        print!("{}", report.summary());
    }
    ExitCode::from(report.outcome().exit_code())
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 {
        return None;
    }
    (0..32)
        .map(|i| {
            text.get(i * 2..i * 2 + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect()
}
