//! Remote reads the way Kafka makes them, through [`S3RemoteStorage`] with
//! and without the read cache, for `scripts/bench-fetch.sh` (which puts a
//! latency proxy between this process and the server).
//!
//! ```text
//! fetch_bench copy <log file> <seed> <partitions> S3...
//! fetch_bench read catchup|random|stream <log file> <seed> <partitions> cache|nocache S3...
//! ```
//!
//! `copy` copies the log (with its indexes) as one segment of each of
//! `<partitions>` partitions, whose ids derive from `<seed>`. `read` reads
//! every partition's segment at once, one thread a partition:
//! - `catchup`: fetches of 1 MiB from position 0 on, each opened where the
//!   previous one stopped, read and closed, as a consumer catching up;
//! - `random`: as many fetches of 1 MiB at pseudo-random positions;
//! - `stream`: one fetch of the whole segment, read to its end.
//!
//! It prints one JSON line: bytes served, seconds, MB/s, the process's peak
//! resident memory, its CPU time and, with the cache, the GETs made and the
//! bytes they fetched.

mod support;

use {
    krabka_remote_storage::{RemoteStorageManager, S3RemoteStorage, TopicIdPartition},
    std::{io::Read, path::PathBuf, process::ExitCode, time::Instant},
    support::{S3_USAGE, cpu_seconds, s3_config, segment_data, segment_metadata},
    uuid::Uuid,
};

const FETCH: u64 = 1024 * 1024;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("fetch_bench: {err}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> String {
    format!(
        "usage: fetch_bench copy <log file> <seed> <partitions> {S3_USAGE}\n       fetch_bench read catchup|random|stream <log file> <seed> <partitions> cache|nocache {S3_USAGE}"
    )
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [copy, file, seed, partitions, rest @ ..] if copy == "copy" => {
            let tier = S3RemoteStorage::from_s3_config(&s3_config(rest)?)?;
            let file = PathBuf::from(file);
            let size = std::fs::metadata(&file)?.len();
            let dir = tempfile::tempdir()?;
            let segment = segment_data(file, dir.path())?;
            for partition in 0..partitions.parse::<u128>()? {
                tier.copy_log_segment_data(&metadata(seed, partition, size)?, &segment)?;
            }
            Ok(())
        }
        [read, workload, file, seed, partitions, cache, rest @ ..] if read == "read" => {
            let mut tier = S3RemoteStorage::from_s3_config(&s3_config(rest)?)?;
            match cache.as_str() {
                "cache" => {}
                "nocache" => {
                    tier = S3RemoteStorage::on(tier.into_store().with_read_cache(None)?);
                }
                other => return Err(format!("cache or nocache, not {other}").into()),
            }
            let size = std::fs::metadata(file)?.len();
            let partitions = partitions.parse::<u128>()?;
            let started = Instant::now();
            let served = std::thread::scope(|scope| {
                let readers: Vec<_> = (0..partitions)
                    .map(|partition| {
                        let tier = &tier;
                        scope.spawn(move || -> Result<u64, String> {
                            let metadata =
                                metadata(seed, partition, size).map_err(|e| e.to_string())?;
                            read_partition(tier, &metadata, workload, size, partition)
                                .map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                readers
                    .into_iter()
                    .map(|reader| reader.join().map_err(|_| "a reader panicked".to_owned())?)
                    .sum::<Result<u64, String>>()
            })?;
            let seconds = started.elapsed().as_secs_f64();
            let stats = tier.store_handle().read_cache().map(|c| c.stats());
            let (gets, fetched) = stats.map_or(("null".to_owned(), "null".to_owned()), |s| {
                (s.gets.to_string(), s.bytes_fetched.to_string())
            });
            let peak = peak_rss_kib().map_or("null".to_owned(), |kib| kib.to_string());
            let cpu = cpu_seconds().map_or("null".to_owned(), |s| format!("{s:.2}"));
            println!(
                "{{\"workload\":\"{workload}\",\"cache\":\"{cache}\",\"partitions\":{partitions},\"bytes\":{served},\"seconds\":{seconds:.3},\"mb_per_s\":{:.1},\"gets\":{gets},\"bytes_fetched\":{fetched},\"peak_rss_kib\":{peak},\"cpu_seconds\":{cpu}}}",
                served as f64 / 1e6 / seconds
            );
            Ok(())
        }
        _ => Err(usage().into()),
    }
}

/// The process's peak resident memory in KiB (`VmHWM`, Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The segment of partition `partition` of the run `seed`.
fn metadata(
    seed: &str,
    partition: u128,
    size: u64,
) -> Result<krabka_remote_storage::RemoteLogSegmentMetadata, Box<dyn std::error::Error>> {
    let seed: u128 = seed.parse()?;
    Ok(segment_metadata(
        TopicIdPartition::new(Uuid::from_u128(seed), "bench", i32::try_from(partition)?),
        Uuid::from_u128(seed + 1 + partition),
        size,
    )?)
}

/// Reads one partition's segment as `workload` says; the bytes served.
fn read_partition(
    tier: &S3RemoteStorage,
    metadata: &krabka_remote_storage::RemoteLogSegmentMetadata,
    workload: &str,
    size: u64,
    partition: u128,
) -> Result<u64, Box<dyn std::error::Error>> {
    let mut buffer = vec![0; 64 * 1024];
    let mut read = |start: u64, len: u64| -> Result<u64, Box<dyn std::error::Error>> {
        let mut stream = tier.fetch_log_segment(metadata, start, None)?;
        let mut left = len;
        while left > 0 {
            let want = usize::try_from(left.min(buffer.len() as u64))?;
            let n = stream.read(&mut buffer[..want])?;
            if n == 0 {
                return Err(format!("the segment ended {left} bytes early").into());
            }
            left -= n as u64;
        }
        Ok(len)
    };
    let fetches = size.div_ceil(FETCH);
    match workload {
        "catchup" => (0..fetches)
            .map(|i| read(i * FETCH, FETCH.min(size - i * FETCH)))
            .sum(),
        "random" => {
            let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ (partition as u64 + 1);
            (0..fetches)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let start = state % size.saturating_sub(FETCH).max(1);
                    read(start, FETCH.min(size - start))
                })
                .sum()
        }
        "stream" => read(0, size),
        other => Err(format!("unknown workload {other}").into()),
    }
}
