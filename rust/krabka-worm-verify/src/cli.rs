//! The command line: arguments in, a store configuration and a
//! [`VerifyRequest`] out, the report printed, the outcome mapped to an exit
//! code.

use {
    crate::{Console, chunks, exit, html, progress::ProgressPrinter, summary::summary},
    clap::{Parser, ValueEnum},
    krabka_envelope::{KeyPairFiles, RsaKeyPairs},
    krabka_object_store::{GcsConfig, ObjectStoreConfig, S3Config},
    krabka_worm::{
        ChainHead, LogVerifyRequest, NoProgress, OffsetOf, TrustedManifestKeys, VerifyDepth,
        VerifyObserver, VerifyRequest, WormError,
        tlog::{LogError, NoteVerifier, note::MAX_NOTE_BYTES},
        verify_archive_config_observed,
    },
    std::{error::Error, ffi::OsString, io::Write, path::PathBuf},
};

/// The program name in messages and `--help`.
pub(crate) const NAME: &str = "krabka-worm-verify";

/// Audits a Krabka write-once (WORM) archive: chain, signatures (against the
/// keys given here, never the keys in the archive) and objects.
///
/// Exit codes: 0 verified, 1 evidence of tampering, 2 incomplete
/// attestation, 3 could not read the archive, 64 usage error.
#[derive(Debug, Parser)]
#[command(name = NAME, version)]
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
    /// A PEM file of root certificates trusted besides the system's for TLS
    /// to the S3 endpoint (a private CA, a TLS-inspecting proxy); the
    /// plugin's `rsm.config.s3.tls.ca.certificates.path`.
    #[arg(long, requires = "s3_bucket")]
    s3_ca_certificates: Option<PathBuf>,
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
    /// Progress lines on stderr during `--deep`: `auto` when stderr is a
    /// terminal.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    progress: ProgressMode,
    /// Print the machine-readable report (JSON) instead of the summary.
    #[arg(long)]
    json: bool,
    /// Also write the audit report for people to this file: one
    /// self-contained HTML page (verdict, what was checked, the bucket's
    /// lock, the archive log and its witnesses, every finding with its
    /// evidence, each partition's chain and segments over time, the
    /// retention timeline, the command that reproduces the run). Print it to
    /// PDF from any browser (`chromium --headless --print-to-pdf`).
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// The archive log's origin (`rsm.config.worm.log.origin`); by default
    /// the one its newest checkpoint names. Checkpoints must be signed by a
    /// trusted key under it.
    #[arg(long)]
    log_origin: Option<String>,
    /// A witness's cosignature key (C2SP vkey `name+hash+base64`, type 04,
    /// as `litewitness` prints it); repeat for each witness whose
    /// cosignatures count.
    #[arg(long = "witness-key")]
    witness_keys: Vec<String>,
    /// Distinct witnesses whose cosignatures make a checkpoint witnessed
    /// (default: every `--witness-key`). A witnessed checkpoint larger than
    /// the archive's tree is tail truncation.
    #[arg(long, requires = "witness_keys")]
    witness_quorum: Option<usize>,
    /// A signed checkpoint of the log held outside the archive (a file an
    /// earlier audit saved, a witness's copy); repeat. The archive's tree
    /// must contain it.
    #[arg(long = "checkpoint")]
    checkpoints: Vec<PathBuf>,
    /// Ask the witness at this URL (C2SP tlog-witness) which tree of the
    /// log it last cosigned; repeat. A larger tree than the archive's is
    /// tail truncation. The witness is shown the archive's newest
    /// checkpoint, which it cosigns if it knew the log only empty.
    #[arg(long = "ask-witness")]
    ask_witnesses: Vec<String>,
    /// Prove the segment covering this offset included in the newest
    /// checkpoint: `<topic>-<partition>@<offset>`; repeat. The report gives
    /// the leaf index and the audit path (RFC 9162), checked against the
    /// checkpoint's root, for anyone holding the checkpoint to check again.
    #[arg(long = "prove", value_name = "TOPIC-PARTITION@OFFSET")]
    prove: Vec<String>,
    /// With `--deep`: an RSA key pair of segments stored compressed and
    /// encrypted (docs/chunked-format.md), `ID=PUBLIC.pem,PRIVATE.pem`;
    /// repeat. Every chunk of every such segment must then open,
    /// decompress and have its length. Without it (and always), chain,
    /// signatures and digests are checked on the stored bytes, no key
    /// needed.
    #[arg(long = "key-pair", requires = "deep")]
    key_pairs: Vec<String>,
}

/// When `--deep` prints progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProgressMode {
    /// When stderr is a terminal.
    Auto,
    /// Always (for logs of long runs).
    Always,
    /// Never.
    Never,
}

/// Arguments that parse but do not describe a verification.
#[derive(Debug, thiserror::Error)]
enum UsageError {
    /// `--key-id` and `--public-key` counts differ.
    #[error("give each --key-id with one --public-key, in the same order")]
    UnpairedKeys,
    /// A `--public-key` that is not hex of 32 bytes.
    #[error("--public-key for `{key_id}` is not 64 hex characters")]
    PublicKeyNotHex {
        /// The key id it is paired with.
        key_id: String,
    },
    /// A key id or public key the trusted key set refuses.
    #[error(transparent)]
    TrustedKey(WormError),
    /// An `--expect-head` that is not a chain head.
    #[error("--expect-head")]
    ExpectHead(#[source] WormError),
    /// None of `--s3-bucket`, `--gcs-bucket`, `--local`.
    #[error("name the archive: --s3-bucket, --gcs-bucket or --local")]
    NoSource,
    /// A `--witness-key` that is not a C2SP cosignature key.
    #[error("--witness-key `{vkey}`")]
    WitnessKey {
        /// The key as given.
        vkey: String,
        /// Why it is refused.
        #[source]
        source: LogError,
    },
    /// A `--witness-quorum` of 0 or above the number of witness keys.
    #[error("--witness-quorum {quorum} must be between 1 and the {keys} --witness-key(s) given")]
    Quorum {
        /// The quorum asked.
        quorum: usize,
        /// Witness keys given.
        keys: usize,
    },
    /// A `--key-pair` that is not `ID=PUBLIC.pem,PRIVATE.pem`, or whose
    /// files cannot be used.
    #[error("--key-pair: {0}")]
    KeyPair(String),
    /// A `--prove` that is not `<topic>-<partition>@<offset>`.
    #[error("--prove: {0}")]
    Prove(String),
    /// A `--checkpoint` file that cannot be read.
    #[error("--checkpoint `{}`", path.display())]
    CheckpointFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Writes `err` and its causes to `out`, separated by `: `, then a newline.
fn write_chain(out: &mut dyn Write, err: &dyn Error) {
    let _ = write!(out, "{err}");
    let mut source = err.source();
    while let Some(cause) = source {
        let _ = write!(out, ": {cause}");
        source = cause.source();
    }
    let _ = writeln!(out);
}

/// Prints `err` with its causes on stderr; the usage exit code.
fn usage(console: &mut Console<'_>, err: &UsageError) -> u8 {
    let _ = write!(console.err, "{NAME}: usage error: ");
    write_chain(console.err, err);
    exit::USAGE
}

/// Parses `args` (without the program name), verifies, prints; the exit
/// code.
pub(crate) fn execute(args: Vec<OsString>, console: &mut Console<'_>) -> u8 {
    let command = command_line(&args);
    let cli = match Cli::try_parse_from(std::iter::once(OsString::from(NAME)).chain(args)) {
        Ok(cli) => cli,
        // --help and --version.
        Err(err) if !err.use_stderr() => {
            let _ = write!(console.out, "{}", err.render());
            return 0;
        }
        Err(err) => {
            let _ = write!(console.err, "{}", err.render());
            return exit::USAGE;
        }
    };
    let (config, request) = match prepare(&cli) {
        Ok(prepared) => prepared,
        Err(err) => return usage(console, &err),
    };
    let chunk_keys = match key_ring(&cli.key_pairs) {
        Ok(keys) => keys,
        Err(err) => return usage(console, &err),
    };
    let progress = match cli.progress {
        ProgressMode::Always => cli.deep,
        ProgressMode::Auto => cli.deep && console.err_is_terminal,
        ProgressMode::Never => false,
    };
    let result = if progress {
        let printer = ProgressPrinter::new(&mut *console.err);
        verify_archive_config_observed(&config, &request, &printer as &dyn VerifyObserver)
    } else {
        verify_archive_config_observed(&config, &request, &NoProgress)
    };
    let mut report = match result {
        Ok(report) => report,
        Err(err) => {
            let _ = write!(console.err, "{NAME}: could not read the archive: ");
            write_chain(console.err, &err);
            return exit::UNREADABLE;
        }
    };
    if let Some(keys) = &chunk_keys {
        match chunks::check_chunks(&config, &mut report, keys) {
            Ok(check) => {
                let _ = writeln!(
                    console.err,
                    "{NAME}: chunks: {} segment(s) in the chunked format, {} chunk(s) opened with the key pairs given",
                    check.segments, check.chunks
                );
            }
            Err(err) => {
                let _ = writeln!(
                    console.err,
                    "{NAME}: could not read the archive's chunks: {err}"
                );
                return exit::UNREADABLE;
            }
        }
    }
    let printed = if cli.json {
        match serde_json::to_string_pretty(
            &serde_json::json!({ "outcome": report.outcome(), "report": &report }),
        ) {
            Ok(json) => writeln!(console.out, "{json}"),
            Err(err) => {
                let _ = writeln!(console.err, "{NAME}: cannot encode the report: {err}");
                return exit::UNREADABLE;
            }
        }
    } else {
        write!(console.out, "{}", summary(&report))
    };
    if let Err(err) = printed.and_then(|()| console.out.flush()) {
        let _ = writeln!(console.err, "{NAME}: cannot write the report: {err}");
        return exit::UNREADABLE;
    }
    if let Some(path) = &cli.report {
        let run = html::RunContext {
            command: &command,
            source: &source_description(&cli),
            finished_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
        };
        if let Err(err) = std::fs::write(path, html::render(&report, &run)) {
            let _ = writeln!(
                console.err,
                "{NAME}: cannot write the HTML report {}: {err}",
                path.display()
            );
            return exit::UNREADABLE;
        }
    }
    exit::exit_code(report.outcome())
}

/// The command line that reproduces a run with `args`: the program name and
/// each argument quoted for a POSIX shell where it needs it.
fn command_line(args: &[OsString]) -> String {
    std::iter::once(NAME.to_owned())
        .chain(args.iter().map(|arg| shell_quote(&arg.to_string_lossy())))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// Where the archive was read from, in words.
fn source_description(cli: &Cli) -> String {
    let prefix = cli
        .prefix
        .as_deref()
        .map_or_else(String::new, |p| format!(", prefix {p}"));
    if let Some(bucket) = &cli.s3_bucket {
        let endpoint = cli
            .s3_endpoint
            .as_deref()
            .map_or_else(String::new, |e| format!(" at {e}"));
        format!("S3 bucket {bucket}{endpoint}{prefix}")
    } else if let Some(bucket) = &cli.gcs_bucket {
        format!("GCS bucket {bucket}{prefix}")
    } else if let Some(root) = &cli.local {
        format!("local copy {}{prefix}", root.display())
    } else {
        "no source".to_owned()
    }
}

/// The store and the request the arguments describe, or why they do not
/// describe one.
fn prepare(cli: &Cli) -> Result<(ObjectStoreConfig, VerifyRequest), UsageError> {
    if cli.key_ids.len() != cli.public_keys.len() {
        return Err(UsageError::UnpairedKeys);
    }
    let mut trusted = TrustedManifestKeys::new();
    for (key_id, public) in cli.key_ids.iter().zip(&cli.public_keys) {
        let Some(bytes) = decode_hex(public) else {
            return Err(UsageError::PublicKeyNotHex {
                key_id: key_id.clone(),
            });
        };
        trusted
            .insert(key_id, &bytes)
            .map_err(UsageError::TrustedKey)?;
    }
    let expect_head = cli
        .expect_head
        .as_deref()
        .map(str::parse::<ChainHead>)
        .transpose()
        .map_err(UsageError::ExpectHead)?;
    let config = if let Some(bucket) = &cli.s3_bucket {
        let mut s3 = S3Config::new(bucket, &cli.s3_region);
        s3.endpoint.clone_from(&cli.s3_endpoint);
        s3.allow_http = cli
            .s3_endpoint
            .as_deref()
            .is_some_and(|e| e.starts_with("http://"));
        s3.path_style = cli.path_style;
        s3.tls_ca_certificates.clone_from(&cli.s3_ca_certificates);
        ObjectStoreConfig::S3(s3)
    } else if let Some(bucket) = &cli.gcs_bucket {
        let mut gcs = GcsConfig::new(bucket);
        gcs.endpoint.clone_from(&cli.gcs_endpoint);
        gcs.allow_http = cli
            .gcs_endpoint
            .as_deref()
            .is_some_and(|e| e.starts_with("http://"));
        if cli.gcs_no_auth {
            gcs = gcs.without_auth();
        }
        ObjectStoreConfig::Gcs(gcs)
    } else if let Some(root) = &cli.local {
        ObjectStoreConfig::Local { root: root.clone() }
    } else {
        return Err(UsageError::NoSource);
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
    request.log = log_request(cli)?;
    Ok((config, request))
}

/// The key pairs of `--key-pair`, `None` without any.
fn key_ring(pairs: &[String]) -> Result<Option<RsaKeyPairs>, UsageError> {
    let files = pairs
        .iter()
        .map(|pair| {
            KeyPairFiles::parse(pair).ok_or_else(|| {
                UsageError::KeyPair(format!("{pair}: expected ID=PUBLIC.pem,PRIVATE.pem"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = files.first() else {
        return Ok(None);
    };
    RsaKeyPairs::load(&first.id, &files)
        .map(Some)
        .map_err(|err| UsageError::KeyPair(err.to_string()))
}

/// What the arguments ask of the archive log.
fn log_request(cli: &Cli) -> Result<LogVerifyRequest, UsageError> {
    let witnesses = cli
        .witness_keys
        .iter()
        .map(|vkey| {
            NoteVerifier::parse_cosignature(vkey).map_err(|source| UsageError::WitnessKey {
                vkey: vkey.clone(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let quorum = match cli.witness_quorum {
        Some(quorum) if quorum == 0 || quorum > witnesses.len() => {
            return Err(UsageError::Quorum {
                quorum,
                keys: witnesses.len(),
            });
        }
        Some(quorum) => quorum,
        None => 0,
    };
    let checkpoints = cli
        .checkpoints
        .iter()
        .map(|path| {
            read_capped(path)
                .map(|bytes| (format!("file {}", path.display()), bytes))
                .map_err(|source| UsageError::CheckpointFile {
                    path: path.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let prove = cli
        .prove
        .iter()
        .map(|at| at.parse::<OffsetOf>().map_err(UsageError::Prove))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LogVerifyRequest {
        origin: cli.log_origin.clone(),
        witnesses,
        quorum,
        checkpoints,
        ask_witnesses: cli.ask_witnesses.clone(),
        prove,
    })
}

/// A checkpoint file's bytes, at most one more than a signed note may have
/// (the parser refuses it then, naming the cap).
fn read_capped(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_NOTE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
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

#[cfg(test)]
mod tests {
    use {super::*, krabka_worm::VerifyError};

    fn prepared(args: &[&str]) -> Result<(ObjectStoreConfig, VerifyRequest), UsageError> {
        let cli = Cli::try_parse_from(std::iter::once(NAME).chain(args.iter().copied())).unwrap();
        prepare(&cli)
    }

    #[test]
    fn usage_errors_keep_their_typed_cause() {
        let pk = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
        let base = ["--local", "/x", "--key-id", "k1", "--public-key", pk];
        assert!(prepared(&base).is_ok());
        let head = [&base[..], &["--expect-head", "xyz"]].concat();
        assert!(matches!(
            prepared(&head),
            Err(UsageError::ExpectHead(WormError::InvalidChainHead { .. }))
        ));
        let small_order = [
            "--local",
            "/x",
            "--key-id",
            "k1",
            "--public-key",
            &"00".repeat(32),
        ];
        assert!(matches!(
            prepared(&small_order),
            Err(UsageError::TrustedKey(WormError::InvalidPublicKey { .. }))
        ));
        assert!(matches!(
            prepared(&["--key-id", "k1", "--public-key", pk]),
            Err(UsageError::NoSource)
        ));
    }

    #[test]
    fn the_command_line_is_quoted_for_a_shell() {
        let args: Vec<OsString> = ["--local", "/tmp/a b", "--witness-key", "w+1a+B/c=", "it's"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            command_line(&args),
            "krabka-worm-verify --local '/tmp/a b' --witness-key w+1a+B/c= 'it'\\''s'"
        );
    }

    #[test]
    fn errors_are_printed_with_their_cause_chain() {
        let printed = |err: &dyn Error| {
            let mut out = Vec::new();
            write_chain(&mut out, err);
            String::from_utf8(out).unwrap()
        };
        let err = VerifyError::Runtime(std::io::Error::other("no threads"));
        assert_eq!(
            printed(&err),
            "cannot start the verifier's runtime: no threads\n"
        );
        let err = UsageError::ExpectHead("xyz".parse::<ChainHead>().unwrap_err());
        assert_eq!(
            printed(&err),
            "--expect-head: expected 64 hexadecimal characters for a chain head, got `xyz`\n"
        );
    }
}
