//! What the archive log costs: copies with checkpointing on against off,
//! and a shallow verify with the log's checks against one without.
//!
//! ```text
//! worm_log_bench copy on|off <size MiB> <segments> <work dir> \
//!     --endpoint URL --bucket B --access-key K --secret-key S [--prefix P] [--region R]
//! worm_log_bench archive <partitions> <segments per partition> <work dir>
//! worm_log_bench verify <work dir>
//! ```
//!
//! **copy** opens the WORM tier on an Object Lock bucket (the proof is not
//! timed) with the archive log kept (`on`: a checkpoint at most every
//! second, as `scripts/bench-worm-log.sh` runs it) or not (`off`), copies
//! `<segments>` segments of one partition one after the other as a broker's
//! copy task does, and prints one JSON line: the seconds the copies took
//! (the last checkpoint, written when the tier is dropped, is timed apart
//! as `close_seconds`).
//!
//! **archive** writes `<partitions> × <segments>` small WORM copies with
//! their log into `<work dir>/archive` (a local directory store; the
//! partitions' copies run concurrently), then publishes one checkpoint.
//!
//! **verify** verifies `<work dir>/archive` shallow, as `krabka-worm-verify`
//! does, and prints the seconds, CPU seconds, the process's peak resident
//! memory, and the leaves the log check read (0 when the script has moved
//! the log aside: the baseline).

// Shared by several benchmark examples; this one uses a part of it.
#[path = "support/random.rs"]
mod random;
#[allow(dead_code)]
mod support;

use {
    bytes::Bytes,
    futures_util::{StreamExt, stream},
    krabka_object_store::ObjectStoreConfig,
    krabka_remote_storage::{
        ArchiveLog, ArchiveLogConfig, CancellationToken, LogSegmentData, RemoteStorageManager,
        S3RemoteStorage, TopicIdPartition, TrustedManifestKeys, VerifyOutcome, VerifyRequest,
        WormArchiver, WormConfig, verify_archive_config,
    },
    object_store::{ObjectStore, local::LocalFileSystem},
    std::{path::Path, process::ExitCode, sync::Arc, time::Instant},
    support::{S3_USAGE, cpu_seconds, s3_config, segment_data, segment_metadata_from},
    uuid::Uuid,
};

/// The signing key of the archive (the test key of the WORM fixtures).
const KEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/worm/test-key-1.pem"
);
const KEY_ID: &str = "test-key-1";
const ORIGIN: &str = "bench.krabka.test/log";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("worm_log_bench: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [copy, mode, size, segments, dir, rest @ ..] if copy == "copy" => {
            copy_step(mode, size.parse()?, segments.parse()?, Path::new(dir), rest)
        }
        [archive, partitions, segments, dir] if archive == "archive" => {
            archive_step(partitions.parse()?, segments.parse()?, Path::new(dir))
        }
        [verify, dir] if verify == "verify" => verify_step(Path::new(dir)),
        _ => Err(format!(
            "usage: worm_log_bench copy on|off <size MiB> <segments> <work dir> {S3_USAGE}\n       worm_log_bench archive <partitions> <segments per partition> <work dir>\n       worm_log_bench verify <work dir>"
        )
        .into()),
    }
}

/// The segment's log of `size` bytes under `dir`, written unless it is
/// there with that size, with its index files.
fn segment(size: u64, dir: &Path) -> Result<LogSegmentData, Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let log = dir.join(format!("segment-{size}.log"));
    if std::fs::metadata(&log).map(|m| m.len()).ok() != Some(size) {
        random::write_random(&log, size)?;
    }
    Ok(segment_data(log, dir)?)
}

fn copy_step(
    mode: &str,
    mib: u64,
    segments: u64,
    dir: &Path,
    s3: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let config = s3_config(s3)?;
    let size = mib * 1024 * 1024;
    let data = segment(size, dir)?;
    let worm = WormConfig::new(KEY, KEY_ID);
    let worm = match mode {
        "on" => worm.with_log(
            ArchiveLogConfig::new(ORIGIN).with_interval(std::time::Duration::from_secs(1)),
        ),
        "off" => worm,
        other => return Err(format!("copy mode {other}: on or off").into()),
    };
    let tier = S3RemoteStorage::from_s3_config(&config)?.with_worm(worm)?;
    let partition = TopicIdPartition::new(Uuid::new_v4(), "bench", 0);
    let started = Instant::now();
    for index in 0..segments {
        let start = i64::try_from(index * 1000)?;
        let metadata = segment_metadata_from(partition.clone(), Uuid::new_v4(), size, start)?;
        tier.copy_log_segment_data(&metadata, &data)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let closing = Instant::now();
    drop(tier);
    let close_seconds = closing.elapsed().as_secs_f64();
    println!(
        "{{\"step\":\"copy\",\"log\":\"{mode}\",\"segments\":{segments},\"bytes\":{},\"seconds\":{seconds:.3},\"close_seconds\":{close_seconds:.3}}}",
        size * segments
    );
    Ok(())
}

fn archive_step(
    partitions: u64,
    segments: u64,
    dir: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = dir.join("archive");
    if root.exists() {
        std::fs::remove_dir_all(&root)?;
    }
    std::fs::create_dir_all(&root)?;
    let files = dir.join("segment");
    std::fs::create_dir_all(&files)?;
    let write = |name: &str, len: usize| -> std::io::Result<std::path::PathBuf> {
        let path = files.join(name);
        std::fs::write(&path, vec![7u8; len])?;
        Ok(path)
    };
    let data = LogSegmentData {
        log_segment: write("s.log", 1024)?,
        offset_index: write("s.index", 16)?,
        time_index: write("s.timeindex", 24)?,
        transaction_index: None,
        producer_snapshot_index: None,
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
    };
    let store: Arc<dyn ObjectStore> = Arc::new(LocalFileSystem::new_with_prefix(&root)?);
    let signer = WormConfig::new(KEY, KEY_ID).signer()?;
    let log = Arc::new(ArchiveLog::new(
        Arc::clone(&store),
        None,
        signer.note_signer(ORIGIN)?,
        Vec::new(),
        ArchiveLogConfig::new(ORIGIN),
    )?);
    let archiver = WormArchiver::new(store, None, signer).with_log(Arc::clone(&log));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let tps: Vec<TopicIdPartition> = (0..partitions)
        .map(|p| TopicIdPartition::new(Uuid::new_v4(), "bench", i32::try_from(p).unwrap_or(0)))
        .collect();
    let started = Instant::now();
    runtime.block_on(async {
        let archiver = &archiver;
        let data = &data;
        let copies = stream::iter(tps.iter())
            .map(|tp| async move {
                for index in 0..segments {
                    let start = i64::try_from(index * 1000)?;
                    let metadata = segment_metadata_from(tp.clone(), Uuid::new_v4(), 1024, start)?;
                    archiver
                        .archive(&metadata, data, &CancellationToken::new())
                        .await?;
                }
                Ok::<(), Box<dyn std::error::Error>>(())
            })
            .buffer_unordered(16)
            .collect::<Vec<_>>()
            .await;
        copies.into_iter().collect::<Result<Vec<()>, _>>()?;
        log.publish().await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })?;
    println!(
        "{{\"step\":\"archive\",\"partitions\":{partitions},\"segments\":{},\"seconds\":{:.1}}}",
        partitions * segments,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The process's peak resident memory in KiB (`VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

fn verify_step(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let public = WormConfig::new(KEY, KEY_ID).signer()?.public_key();
    let request = VerifyRequest::new(None, TrustedManifestKeys::single(KEY_ID, &public)?);
    let config = ObjectStoreConfig::Local {
        root: dir.join("archive"),
    };
    let cpu_before = cpu_seconds().ok_or("no CPU time (/proc/self/stat)")?;
    let started = Instant::now();
    let report = verify_archive_config(&config, &request)?;
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().ok_or("no CPU time (/proc/self/stat)")? - cpu_before;
    if report.outcome() != VerifyOutcome::Verified {
        let first: Vec<String> = report
            .all_findings()
            .take(5)
            .map(|f| format!("{f:?}"))
            .collect();
        return Err(format!("the archive did not verify: {}", first.join("; ")).into());
    }
    let manifests: usize = report.partitions.iter().map(|p| p.manifests).sum();
    let leaves = report.log.as_ref().map_or(0, |log| log.leaves);
    println!(
        "{{\"step\":\"verify\",\"manifests\":{manifests},\"leaves\":{leaves},\"seconds\":{seconds:.3},\"cpu_seconds\":{cpu:.2},\"peak_rss_kib\":{}}}",
        peak_rss_kib().unwrap_or(0)
    );
    Ok(())
}
