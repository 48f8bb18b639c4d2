//! The command line of `krabka-tier`.

use {
    clap::{Parser, Subcommand},
    krabka_envelope::{KeyPairFiles, RsaKeyPairs},
    krabka_object_store::ObjectStoreConfig,
    krabka_tier::{
        Authenticity, DecodingStore, ExportRange, ExportSummary, PartitionListing, SegmentListing,
        Source, TierError, ValueEncoding, add_details, authenticate_partition, export_log_file,
        export_partition_observed, list_tier, record_json, rewrap_tier, trusted_keys,
    },
    krabka_worm::TrustedManifestKeys,
    object_store::ObjectStore,
    std::{
        error::Error,
        ffi::OsString,
        io::{BufWriter, Write},
        path::PathBuf,
        sync::Arc,
    },
};

/// Exit code: everything selected was exported.
pub(crate) const OK: u8 = 0;
/// Exit code: records were skipped because they could not be read.
const SKIPPED: u8 = 1;
/// Exit code: the selection has offset gaps.
const GAPS: u8 = 2;
/// Exit code: the tier could not be read.
pub(crate) const UNREADABLE: u8 = 3;
/// Exit code: usage error (BSD `EX_USAGE`).
pub(crate) const USAGE: u8 = 64;

/// Reads a Krabka tier (a filesystem tier, an S3 or GCS bucket) without a
/// broker.
#[derive(Debug, Parser)]
#[command(
    name = "krabka-tier",
    version,
    after_help = "To produce a tier's records into a topic of any Kafka cluster (Kafka's own producer, \
every client security option), use the replay tool over the same reader:\n  \
java -cp \"krabka-tier-replay.jar:$KAFKA_HOME/libs/*\" io.krabka.remote.storage.TierReplay \
--bootstrap-servers HOST:PORT [--client-config FILE] <the source options of export>\n\
(build it with `gradle tierReplayJar`; see docs/tier.md)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Topics, partitions and segment copies of the tier.
    List {
        #[command(flatten)]
        source: Source,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Records of a topic (or one partition) as JSON lines on stdout, or
    /// as Kafka record-batch files (`--format raw --output-dir DIR`).
    ///
    /// To produce them into a topic of a Kafka cluster, use `replay` of the
    /// Java tool `krabka-tier-replay.jar` (Kafka's own producer, every
    /// client security option): see docs/tier.md.
    Export {
        #[command(flatten)]
        source: Source,
        /// The topic.
        #[arg(long)]
        topic: String,
        /// Only this partition.
        #[arg(long)]
        partition: Option<i32>,
        /// The first offset.
        #[arg(long)]
        from_offset: Option<i64>,
        /// The last offset (inclusive).
        #[arg(long)]
        to_offset: Option<i64>,
        /// The earliest timestamp (ms).
        #[arg(long)]
        from_timestamp: Option<i64>,
        /// The latest timestamp (ms, inclusive).
        #[arg(long)]
        to_timestamp: Option<i64>,
        /// Also records of aborted transactions.
        #[arg(long)]
        uncommitted: bool,
        /// Keys and values as text when they are UTF-8 (else `{"base64": …}`);
        /// base64 otherwise.
        #[arg(long)]
        utf8: bool,
        /// A progress line on stderr after each segment copy (for long runs).
        #[arg(long)]
        progress: bool,
        /// `json`: one JSON object per record on stdout. `raw`: the original
        /// record batches, one Kafka `.log` file per partition under
        /// `--output-dir` (`<topic>-<partition>/<first offset>.log`).
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        /// Where `--format raw` writes its files.
        #[arg(long, required_if_eq("format", "raw"))]
        output_dir: Option<PathBuf>,
        /// The tier is a write-once archive: authenticate each partition
        /// first (the archive verifier's deep checks against the keys given)
        /// and refuse to export one that fails them.
        #[arg(long, requires = "key_ids")]
        verify: bool,
        /// A trusted key id (with `--verify`); repeat, each paired with the
        /// `--public-key` at the same position.
        #[arg(long = "key-id")]
        key_ids: Vec<String>,
        /// A trusted Ed25519 public key, 64 hex characters.
        #[arg(long = "public-key")]
        public_keys: Vec<String>,
    },
    /// Compares the tier with its metadata histories: orphaned objects (no
    /// record names them), missing objects (a finished copy without its
    /// log), unfinished copies and their age, and what is left of deleted
    /// topics. Exit 0 when they agree, 1 when they do not (docs/tier.md).
    Fsck {
        #[command(flatten)]
        source: Source,
        #[command(flatten)]
        options: FsckOptions,
    },
    /// Re-wraps the data key of every encrypted segment under the active key
    /// pair, rewriting only each segment's envelope (docs/chunked-format.md).
    /// Afterwards the older pairs can be dropped from the configuration.
    ///
    /// Give every pair that wrapped a segment with `--key-pair`.
    Rewrap {
        #[command(flatten)]
        source: Source,
        /// The id of the pair to wrap every data key with.
        #[arg(long)]
        active: String,
        /// Count what would be rewrapped; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// What `fsck` compares the tier with.
#[derive(Debug, clap::Args)]
struct FsckOptions {
    /// Read the metadata histories from this directory instead of the
    /// tier's store (e.g. Kafka's `__remote_log_metadata` imported into a
    /// scratch directory with the plugin jar's import tool).
    #[arg(long)]
    metadata_local: Option<PathBuf>,
    /// The histories' directory under the prefix (the metadata manager's
    /// root).
    #[arg(long, default_value = krabka_remote_storage::DEFAULT_RLMM_ROOT)]
    metadata_root: String,
    /// A file of the cluster's topic ids, one per line (Kafka's text form,
    /// as `kafka-topics.sh --describe` prints after `TopicId:`): anything of
    /// another topic is what is left of a deleted topic.
    #[arg(long)]
    live_topics: Option<PathBuf>,
    /// Delete the orphaned segment copies (and, with --live-topics, deleted
    /// topics' histories that name no segment) older than --older-than.
    /// Refused on a write-once archive.
    #[arg(long, requires = "older_than")]
    delete_orphans: bool,
    /// With --delete-orphans: only objects written at least this long ago,
    /// e.g. 30m, 6h, 7d (leave a copy in progress alone).
    #[arg(long, requires = "delete_orphans")]
    older_than: Option<String>,
    /// With --delete-orphans: print what would be deleted, delete nothing.
    #[arg(long, requires = "delete_orphans")]
    dry_run: bool,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// JSON lines on stdout.
    Json,
    /// Kafka record-batch (`.log`) files.
    Raw,
}

/// Runs the command line on `args`; returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { USAGE } else { OK };
        }
    };
    let source = match &cli.command {
        Command::List { source, .. }
        | Command::Export { source, .. }
        | Command::Fsck { source, .. }
        | Command::Rewrap { source, .. } => source,
    };
    let access = match source.access() {
        Ok(access) => access,
        Err(usage) => {
            eprintln!("krabka-tier: {usage}");
            return USAGE;
        }
    };
    if let ObjectStoreConfig::Local { root } = &access.config {
        if !root.is_dir() {
            eprintln!("krabka-tier: {} is not a directory", root.display());
            return UNREADABLE;
        }
    }
    let store = match access.store() {
        Ok(store) => store,
        Err(err) => return fail(&err),
    };
    let key_pairs = match source.key_pair_files() {
        Ok(pairs) => pairs,
        Err(usage) => {
            eprintln!("krabka-tier: {usage}");
            return USAGE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return fail(&err),
    };
    let prefix = source.prefix.clone();
    runtime.block_on(async move {
        let listing = match list_tier(&*store, prefix.as_deref()).await {
            Ok(listing) => listing,
            Err(err) => return fail(&err),
        };
        match cli.command {
            Command::Fsck { options, .. } => {
                let request = crate::fsck_command::FsckRequest {
                    tier_config: access.config.clone(),
                    prefix: prefix.clone(),
                    metadata_local: options.metadata_local,
                    metadata_root: options.metadata_root,
                    live_topics: options.live_topics,
                    delete_older_than: options.older_than.filter(|_| options.delete_orphans),
                    dry_run: options.dry_run,
                    json: options.json,
                };
                crate::fsck_command::fsck(store.raw(), &listing, request).await
            }
            Command::Rewrap {
                active, dry_run, ..
            } => {
                rewrap(
                    &*store,
                    prefix.as_deref(),
                    &listing,
                    &key_pairs,
                    &active,
                    dry_run,
                )
                .await
            }
            Command::List { json, .. } => {
                let mut listing = listing;
                if let Err(err) = add_details(&*store, &mut listing).await {
                    return fail(&err);
                }
                print_listing(&listing, json)
            }
            Command::Export {
                topic,
                partition,
                from_offset,
                to_offset,
                from_timestamp,
                to_timestamp,
                uncommitted,
                utf8,
                progress,
                format,
                output_dir,
                verify,
                key_ids,
                public_keys,
                ..
            } => {
                let trusted = if verify {
                    match trusted_keys(&key_ids, &public_keys) {
                        Ok(trusted) => Some(trusted),
                        Err(message) => {
                            eprintln!("krabka-tier: {message}");
                            return USAGE;
                        }
                    }
                } else {
                    None
                };
                let range = ExportRange {
                    from_offset,
                    to_offset,
                    from_timestamp,
                    to_timestamp,
                    uncommitted,
                };
                let encoding = if utf8 {
                    ValueEncoding::Utf8
                } else {
                    ValueEncoding::Base64
                };
                let selected: Vec<&PartitionListing> = listing
                    .iter()
                    .filter(|p| p.topic == topic && partition.is_none_or(|n| p.partition == n))
                    .collect();
                let output = match (format, output_dir) {
                    (Format::Raw, Some(dir)) => Output::Raw(dir),
                    _ => Output::Json(encoding),
                };
                let request = Export {
                    range,
                    output,
                    trusted,
                    prefix,
                    progress,
                };
                export(store, &selected, &request, &topic).await
            }
        }
    })
}

/// `rewrap`: loads the key pairs, rewraps, prints what it did.
async fn rewrap(
    store: &dyn ObjectStore,
    prefix: Option<&str>,
    listing: &[PartitionListing],
    pairs: &[KeyPairFiles],
    active: &str,
    dry_run: bool,
) -> u8 {
    let keys = match RsaKeyPairs::load(active, pairs) {
        Ok(keys) => keys,
        Err(err) => {
            eprintln!("krabka-tier: {err}");
            return USAGE;
        }
    };
    let summary = match rewrap_tier(store, prefix, listing, &keys, dry_run).await {
        Ok(summary) => summary,
        Err(err) => return fail(&err),
    };
    let verb = if dry_run { "would rewrap" } else { "rewrapped" };
    println!(
        "{verb} {} segment(s) under key pair {active}; {} already under it, {} not encrypted, {} failed",
        summary.rewrapped,
        summary.already_active,
        summary.not_encrypted,
        summary.failed.len()
    );
    for (key, reason) in &summary.failed {
        eprintln!("krabka-tier: {key}: {reason}");
    }
    if summary.failed.is_empty() {
        OK
    } else {
        UNREADABLE
    }
}

fn print_listing(listing: &[PartitionListing], json: bool) -> u8 {
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = if json {
        serde_json::to_writer_pretty(&mut out, listing)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out))
    } else {
        listing.iter().try_for_each(|p| {
            let bytes: u64 = p.segments.iter().map(|s| s.log_bytes).sum();
            writeln!(
                out,
                "{}-{} (topic id {}): {} segment cop{} from offset {}, {} bytes of logs",
                p.topic,
                p.partition,
                krabka_kafka::kafka_uuid(p.topic_id),
                p.segments.len(),
                if p.segments.len() == 1 { "y" } else { "ies" },
                p.segments.first().map_or(0, |s| s.start_offset),
                bytes
            )?;
            p.segments.iter().try_for_each(|s| {
                writeln!(
                    out,
                    "  {:>20} {} {:>12} bytes {}",
                    s.start_offset,
                    krabka_kafka::kafka_uuid(s.segment_id),
                    s.log_bytes,
                    s.files.keys().cloned().collect::<Vec<_>>().join(" ")
                )?;
                let Some(details) = &s.details else {
                    return Ok(());
                };
                let shown =
                    |value: Option<i64>| value.map_or_else(|| "?".to_owned(), |v| v.to_string());
                let epochs: Vec<String> = details
                    .leader_epochs
                    .iter()
                    .map(|e| format!("{}@{}", e.epoch, e.start_offset))
                    .collect();
                writeln!(
                    out,
                    "  {:>20} to offset {}, max timestamp {}, leader epochs [{}]",
                    "",
                    shown(details.end_offset),
                    shown(details.max_timestamp),
                    epochs.join(" ")
                )?;
                details
                    .problems
                    .iter()
                    .try_for_each(|problem| writeln!(out, "  {:>20} problem: {problem}", ""))
            })
        })
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => OK,
        Err(err) => fail(&TierError::Output(err)),
    }
}

/// What `export` was asked for.
struct Export {
    range: ExportRange,
    output: Output,
    /// With `--verify`: the keys partitions are authenticated against.
    trusted: Option<TrustedManifestKeys>,
    prefix: Option<String>,
    /// `--progress`.
    progress: bool,
}

/// Where `export` writes.
enum Output {
    /// JSON lines on stdout, values encoded so.
    Json(ValueEncoding),
    /// Batch files under this directory.
    Raw(PathBuf),
}

/// Whether `partition` of the archive verifies deep against `trusted`;
/// prints why not.
async fn authentic(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    trusted: &TrustedManifestKeys,
    prefix: Option<&str>,
) -> Result<bool, u8> {
    match authenticate_partition(store, partition, trusted, prefix).await {
        Ok(Authenticity::Verified) => Ok(true),
        Ok(Authenticity::Refused(findings)) => {
            eprintln!(
                "krabka-tier: {}-{}: refused: the archive does not verify; nothing of it is exported",
                partition.topic, partition.partition,
            );
            for finding in findings {
                eprintln!("krabka-tier:   {finding}");
            }
            Ok(false)
        }
        Err(err) => Err(fail(&err)),
    }
}

async fn export(
    store: Arc<DecodingStore>,
    selected: &[&PartitionListing],
    request: &Export,
    topic: &str,
) -> u8 {
    if selected.is_empty() {
        return fail(&TierError::NoSuchPartition(format!("topic {topic}")));
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut code = OK;
    for partition in selected {
        if let Some(trusted) = &request.trusted {
            // The archive's digests are of the stored bytes.
            match authentic(
                &**store.raw(),
                partition,
                trusted,
                request.prefix.as_deref(),
            )
            .await
            {
                Ok(true) => {}
                Ok(false) => {
                    code = SKIPPED;
                    continue;
                }
                Err(code) => return code,
            }
        }
        let copies = partition.segments.len();
        let mut read = 0usize;
        let mut bytes = 0u64;
        let mut progress = |segment: &SegmentListing, so_far: &ExportSummary| {
            read += 1;
            bytes += segment.log_bytes;
            if request.progress {
                eprintln!(
                    "krabka-tier: {}-{}: segment copy {read}/{copies} (offset {}), {bytes} bytes of logs, {} record(s) so far",
                    partition.topic, partition.partition, segment.start_offset, so_far.records
                );
            }
        };
        let exported = match &request.output {
            Output::Json(encoding) => {
                let mut sink = |record: &krabka_tier::ExportedRecord<'_>| {
                    serde_json::to_writer(&mut out, &record_json(record, *encoding))
                        .map_err(std::io::Error::other)?;
                    out.write_all(b"\n")
                };
                export_partition_observed(
                    &*store,
                    partition,
                    &request.range,
                    &mut sink,
                    &mut progress,
                )
                .await
            }
            Output::Raw(dir) => {
                export_log_file(&*store, partition, &request.range, dir, &mut progress)
                    .await
                    .map(|(summary, file)| {
                        if let Some(file) = file {
                            eprintln!("krabka-tier: wrote {}", file.display());
                        }
                        summary
                    })
            }
        };
        let summary = match exported {
            Ok(summary) => summary,
            Err(err) => return fail(&err),
        };
        report(partition, &summary);
        if summary.skipped_anything() {
            code = SKIPPED;
        } else if !summary.gaps.is_empty() && code == OK {
            code = GAPS;
        }
    }
    match out.flush() {
        Ok(()) => code,
        Err(err) => fail(&TierError::Output(err)),
    }
}

fn report(partition: &PartitionListing, summary: &ExportSummary) {
    eprintln!(
        "krabka-tier: {}-{}: {} record(s) from {} segment cop{}; left out: {} aborted and {} control batch(es), {} overlapping batch(es), {} batch(es) off the leader-epoch lineage",
        partition.topic,
        partition.partition,
        summary.records,
        summary.segments,
        if summary.segments == 1 { "y" } else { "ies" },
        summary.aborted_batches,
        summary.control_batches,
        summary.overlapping_batches,
        summary.divergent_batches
    );
    if summary.lineage.len() > 1 || summary.divergent_batches > 0 {
        let lineage: Vec<String> = summary
            .lineage
            .iter()
            .map(|(epoch, start)| format!("epoch {epoch} from {start}"))
            .collect();
        eprintln!(
            "krabka-tier:   leader-epoch lineage: {}",
            lineage.join(", ")
        );
    }
    for notice in &summary.notices {
        eprintln!("krabka-tier:   notice: {notice}");
    }
    for (first, last) in &summary.gaps {
        eprintln!("krabka-tier:   gap: no segment holds offsets {first}..={last}");
    }
    for problem in &summary.problems {
        eprintln!(
            "krabka-tier:   skipped: {} (position {}, offset {}): {}",
            problem.key,
            problem.position.map_or("-".to_owned(), |p| p.to_string()),
            problem.offset.map_or("-".to_owned(), |o| o.to_string()),
            problem.detail
        );
    }
}

pub(crate) fn fail(err: &dyn Error) -> u8 {
    let mut message = format!("krabka-tier: {err}");
    let mut source = err.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    eprintln!("{message}");
    UNREADABLE
}
