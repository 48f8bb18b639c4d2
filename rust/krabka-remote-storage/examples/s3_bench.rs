//! Copy or fetch one segment through [`S3RemoteStorage`] and print the
//! throughput, for `scripts/bench-s3.sh` (which measures peak memory with
//! `/usr/bin/time -v` around this process).
//!
//! ```text
//! s3_bench copy|fetch <log file> <segment seed> \
//!     --endpoint URL --bucket B --access-key K --secret-key S [--prefix P] [--region R] \
//!     [--part-mib N] [--parts-in-flight N]
//! ```
//!
//! `--part-mib` and `--parts-in-flight` replace the default upload tuning
//! (parts of that many MiB, that many in flight), for comparisons.
//! `--filesystem DIR` (instead of the S3 options) copies to and fetches
//! from a [`LocalTieredStorage`] under `DIR`.
//!
//! The segment's ids derive from the seed, so `fetch` finds what `copy` wrote.
//! A copy uploads the log with indexes as large as Kafka's for it (2 MiB
//! and 3 MiB for 1 GiB), as a broker's copy does.

mod support;

use {
    krabka_remote_storage::{
        LocalTieredStorage, RemoteStorageManager, S3RemoteStorage, TopicIdPartition,
    },
    std::{io::Read, path::PathBuf, process::ExitCode, time::Instant},
    support::{S3_USAGE, s3_config, segment_data_kafka_sized, segment_metadata},
    uuid::Uuid,
};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("s3_bench: {err}");
            ExitCode::FAILURE
        }
    }
}

/// The number after `name` among `args`, if it is there.
fn option(args: &[String], name: &str) -> Result<Option<usize>, String> {
    match args.iter().position(|arg| arg == name) {
        None => Ok(None),
        Some(at) => args
            .get(at + 1)
            .and_then(|value| value.parse().ok())
            .map(Some)
            .ok_or_else(|| format!("{name} needs a positive number")),
    }
}

/// The tier `args` name: a directory after `--filesystem`, S3 otherwise.
fn tier(args: &[String]) -> Result<Box<dyn RemoteStorageManager>, Box<dyn std::error::Error>> {
    if let Some(at) = args.iter().position(|arg| arg == "--filesystem") {
        let root = args.get(at + 1).ok_or("--filesystem needs a directory")?;
        return Ok(Box::new(LocalTieredStorage::new(PathBuf::from(root))));
    }
    let mut tier = S3RemoteStorage::from_s3_config(&s3_config(args)?)?;
    if let Some(mib) = option(args, "--part-mib")? {
        let bytes = mib * 1024 * 1024;
        tier = tier.with_multipart_tuning(bytes as u64, bytes);
    }
    if let Some(parts) = option(args, "--parts-in-flight")? {
        tier = tier.with_upload_concurrency(parts);
    }
    Ok(Box::new(tier))
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, file, seed, rest @ ..] = args.as_slice() else {
        return Err(format!(
            "usage: s3_bench copy|fetch <log file> <seed> ({S3_USAGE} [--part-mib N] [--parts-in-flight N] | --filesystem DIR)"
        )
        .into());
    };
    let tier = tier(rest)?;
    let seed: u128 = seed.parse()?;
    let file = PathBuf::from(file);
    let size = std::fs::metadata(&file)?.len();
    let metadata = segment_metadata(
        TopicIdPartition::new(Uuid::from_u128(seed), "bench", 0),
        Uuid::from_u128(seed + 1),
        size,
    )?;
    let started = Instant::now();
    let bytes = match mode.as_str() {
        "copy" => {
            let dir = tempfile::tempdir()?;
            let segment = segment_data_kafka_sized(file, dir.path())?;
            tier.copy_log_segment_data(&metadata, &segment)?;
            size
        }
        "fetch" => {
            let mut reader = tier.fetch_log_segment(&metadata, 0, None)?;
            let mut buffer = vec![0; 1 << 20];
            let mut total = 0u64;
            loop {
                let n = reader.read(&mut buffer)?;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            if total != size {
                return Err(format!("fetched {total} bytes, expected {size}").into());
            }
            total
        }
        other => return Err(format!("unknown mode {other}").into()),
    };
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{{\"mode\":\"{mode}\",\"bytes\":{bytes},\"seconds\":{seconds:.3},\"mib_per_s\":{:.1}}}",
        bytes as f64 / (1024.0 * 1024.0) / seconds
    );
    Ok(())
}
