//! Cost of the WORM archive mode over a plain copy, and deep-verify
//! throughput, on a local directory store or an S3 server.
//!
//! ```text
//! worm_bench <size MiB> <work dir>
//! worm_bench s3 plain|worm|verify <size MiB> <work dir> \
//!     --endpoint URL --bucket B --access-key K --secret-key S [--prefix P] [--region R]
//! worm_bench local archive <size MiB> <segments> <work dir>
//! worm_bench local sha256|verify <work dir>
//! ```
//!
//! Both modes copy the same segment: a log of pseudo-random bytes
//! (generated once into `<work dir>/segment.log` and reused while its size
//! matches) with 4 KiB offset, time and producer-snapshot indexes.
//!
//! **Local directory** (one process, three steps): both copies are single
//! PUTs (the multipart threshold is set above the size, because a local
//! directory returns no version ids for multipart objects), so the
//! difference is the WORM work: SHA-256 in the upload pass, create-only
//! writes, the signed manifest, its seal and the chain tip. Then the WORM
//! copy is deep-verified.
//!
//! **S3** (one step per process, so `scripts/bench-worm.sh` can alternate
//! rounds): `plain` copies through [`S3RemoteStorage`] to `--bucket`,
//! `worm` through [`S3RemoteStorage::with_worm`] (the bucket must prove
//! Object Lock COMPLIANCE; the proof is not timed), `verify` deep-verifies
//! everything under `--prefix` in `--bucket` as `krabka-worm-verify --deep`
//! does ([`verify_archive_config`]: re-hash every object, then the version
//! and retention checks) and fails unless the outcome is verified. The tier
//! keeps its default multipart tuning; every copy is a new partition and
//! segment id. Each step prints one JSON line with its time.
//!
//! **Deep verify against hashing speed** (one step per process, so
//! `scripts/bench-verify.sh` can alternate rounds): `local archive` writes
//! `<segments>` WORM copies of the segment into `<work dir>/archive` (a
//! local directory store); `local sha256` hashes every file of that
//! directory with SHA-256 on one thread in 1 MiB reads (the machine's
//! single-core hashing speed over the same bytes, the baseline); `local
//! verify` deep-verifies the directory as `krabka-worm-verify --deep`
//! does. Each prints one JSON line: bytes, seconds, the CPU time the step
//! used (user and system, not counting time stolen by the hypervisor), and
//! for `verify` the cores it can use.

#[path = "support/random.rs"]
mod random;
mod support;

use {
    krabka_object_store::{ObjectStoreConfig, S3Config},
    krabka_remote_storage::{
        LogSegmentData, RemoteStorageManager, S3RemoteStorage, TopicIdPartition,
        TrustedManifestKeys, VerifyDepth, VerifyOutcome, VerifyRequest, WormConfig,
        verify_archive_config,
    },
    std::{
        path::{Path, PathBuf},
        process::ExitCode,
        time::Instant,
    },
    support::{
        S3_USAGE, cpu_seconds, s3_config, segment_data, segment_metadata, segment_metadata_from,
    },
    uuid::Uuid,
};

/// The signing key of the archive (the test key of the WORM fixtures).
const KEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/worm/test-key-1.pem"
);
const KEY_ID: &str = "test-key-1";
const MIB: f64 = 1024.0 * 1024.0;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("worm_bench: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [s3, step, size, dir, rest @ ..] if s3 == "s3" => {
            let config = s3_config(rest)?;
            if !["plain", "worm", "verify"].contains(&step.as_str()) {
                return Err(format!("unknown step {step}").into());
            }
            let (size, data) = segment(size, dir)?;
            s3_step(step, size, &data, config)
        }
        [local, step, rest @ ..] if local == "local" => local_step(step, rest),
        [size, dir] => {
            let (size, data) = segment(size, dir)?;
            local(size, &data, Path::new(dir))
        }
        _ => Err(format!(
            "usage: worm_bench <size MiB> <work dir>\n       worm_bench s3 plain|worm|verify <size MiB> <work dir> {S3_USAGE}\n       worm_bench local archive <size MiB> <segments> <work dir>\n       worm_bench local sha256|verify <work dir>"
        )
        .into()),
    }
}

/// The segment of `size` MiB in `dir`: its log is written unless a file of
/// that size is there already.
fn segment(size: &str, dir: &str) -> Result<(u64, LogSegmentData), Box<dyn std::error::Error>> {
    let size = size.parse::<u64>()? * 1024 * 1024;
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("segment.log");
    if std::fs::metadata(&log).map(|m| m.len()).ok() != Some(size) {
        random::write_random(&log, size)?;
    }
    Ok((size, segment_data(log, &dir)?))
}

fn bench_partition() -> TopicIdPartition {
    TopicIdPartition::new(Uuid::new_v4(), "bench", 0)
}

fn deep_request(prefix: Option<String>) -> Result<VerifyRequest, Box<dyn std::error::Error>> {
    let public = WormConfig::new(KEY, KEY_ID).signer()?.public_key();
    let mut request = VerifyRequest::new(prefix, TrustedManifestKeys::single(KEY_ID, &public)?);
    request.depth = VerifyDepth::Deep;
    Ok(request)
}

/// Times [`verify_archive_config`]; returns the seconds, the bytes hashed
/// and the objects checked, or an error unless the archive is verified.
fn timed_verify(
    config: &ObjectStoreConfig,
    request: &VerifyRequest,
) -> Result<(f64, u64, usize), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let report = verify_archive_config(config, request)?;
    let seconds = started.elapsed().as_secs_f64();
    if report.outcome() != VerifyOutcome::Verified {
        let findings: Vec<String> = report
            .all_findings()
            .map(|f| format!("{:?}: {f:?}", f.severity()))
            .collect();
        return Err(format!(
            "the archive did not verify ({:?}): {}",
            report.outcome(),
            findings.join("; ")
        )
        .into());
    }
    let hashed = report.partitions.iter().map(|p| p.bytes_hashed).sum();
    let objects = report.partitions.iter().map(|p| p.objects).sum();
    Ok((seconds, hashed, objects))
}

/// One step against S3, printed as a JSON line.
fn s3_step(
    step: &str,
    size: u64,
    data: &LogSegmentData,
    config: S3Config,
) -> Result<(), Box<dyn std::error::Error>> {
    let tier: Box<dyn RemoteStorageManager> = match step {
        "plain" => Box::new(S3RemoteStorage::from_s3_config(&config)?),
        "worm" => Box::new(
            S3RemoteStorage::from_s3_config(&config)?.with_worm(WormConfig::new(KEY, KEY_ID))?,
        ),
        "verify" => {
            let request = deep_request(config.prefix.clone())?;
            let (seconds, hashed, objects) =
                timed_verify(&ObjectStoreConfig::S3(config), &request)?;
            println!(
                "{{\"step\":\"verify\",\"bytes\":{hashed},\"objects\":{objects},\"seconds\":{seconds:.3},\"mb_per_s\":{:.1}}}",
                hashed as f64 / 1e6 / seconds
            );
            return Ok(());
        }
        other => return Err(format!("unknown step {other}").into()),
    };
    let metadata = segment_metadata(bench_partition(), Uuid::new_v4(), size)?;
    let started = Instant::now();
    tier.copy_log_segment_data(&metadata, data)?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{{\"step\":\"{step}\",\"bytes\":{size},\"seconds\":{seconds:.3},\"mib_per_s\":{:.1}}}",
        size as f64 / MIB / seconds
    );
    Ok(())
}

/// Plain copy, WORM copy and deep verify on local directory stores under
/// `dir`.
fn local(size: u64, data: &LogSegmentData, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let metadata = segment_metadata(bench_partition(), Uuid::new_v4(), size)?;
    let tier = |name: &str| {
        S3RemoteStorage::from_config(&ObjectStoreConfig::Local {
            root: dir.join(name),
        })
        .map(|t| t.with_multipart_tuning(size * 2 + 1, 16 * 1024 * 1024))
    };
    let signer = WormConfig::new(KEY, KEY_ID).signer()?;
    let plain = tier("plain")?;
    let worm = tier("worm")?.with_worm_unchecked(signer, false, "bench".to_owned());
    let mib = size as f64 / MIB;
    let started = Instant::now();
    plain.copy_log_segment_data(&metadata, data)?;
    let plain_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    worm.copy_log_segment_data(&metadata, data)?;
    let worm_s = started.elapsed().as_secs_f64();
    let (verify_s, hashed, _) = timed_verify(
        &ObjectStoreConfig::Local {
            root: dir.join("worm"),
        },
        &deep_request(None)?,
    )?;
    println!("segment: {mib:.0} MiB");
    println!("plain copy: {plain_s:.2} s ({:.0} MiB/s)", mib / plain_s);
    println!(
        "WORM copy:  {worm_s:.2} s ({:.0} MiB/s), {:+.1}% over plain",
        mib / worm_s,
        (worm_s / plain_s - 1.0) * 100.0
    );
    println!(
        "deep verify: {verify_s:.2} s, {:.0} MB/s",
        hashed as f64 / 1e6 / verify_s
    );
    Ok(())
}

/// One step of the deep-verify benchmark on a local directory store.
fn local_step(step: &str, args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    match (step, args) {
        ("archive", [size, segments, dir]) => {
            let (size, data) = segment(size, dir)?;
            let root = Path::new(dir).join("archive");
            if root.exists() {
                std::fs::remove_dir_all(&root)?;
            }
            std::fs::create_dir_all(&root)?;
            let signer = WormConfig::new(KEY, KEY_ID).signer()?;
            let worm = S3RemoteStorage::from_config(&ObjectStoreConfig::Local { root })?
                .with_multipart_tuning(size * 2 + 1, 16 * 1024 * 1024)
                .with_worm_unchecked(signer, false, "bench".to_owned());
            let partition = bench_partition();
            let segments: u64 = segments.parse()?;
            for index in 0..segments {
                let start = i64::try_from(index * 1000)?;
                let metadata =
                    segment_metadata_from(partition.clone(), Uuid::new_v4(), size, start)?;
                worm.copy_log_segment_data(&metadata, &data)?;
            }
            println!(
                "{{\"step\":\"archive\",\"segments\":{segments},\"bytes\":{}}}",
                size * segments
            );
            Ok(())
        }
        ("sha256", [dir]) => {
            let cpu_before = cpu_seconds().ok_or("no CPU time (/proc/self/stat)")?;
            let started = Instant::now();
            let bytes = hash_tree(&Path::new(dir).join("archive"))?;
            let seconds = started.elapsed().as_secs_f64();
            let cpu = cpu_seconds().ok_or("no CPU time (/proc/self/stat)")? - cpu_before;
            println!(
                "{{\"step\":\"sha256\",\"bytes\":{bytes},\"seconds\":{seconds:.3},\"mb_per_s\":{:.1},\"cpu_seconds\":{cpu:.2}}}",
                bytes as f64 / 1e6 / seconds
            );
            Ok(())
        }
        ("verify", [dir]) => {
            let root = Path::new(dir).join("archive");
            let cpu_before = cpu_seconds().ok_or("no CPU time (/proc/self/stat)")?;
            let (seconds, hashed, objects) =
                timed_verify(&ObjectStoreConfig::Local { root }, &deep_request(None)?)?;
            let cpu = cpu_seconds().ok_or("no CPU time (/proc/self/stat)")? - cpu_before;
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            println!(
                "{{\"step\":\"verify\",\"bytes\":{hashed},\"objects\":{objects},\"seconds\":{seconds:.3},\"mb_per_s\":{:.1},\"cores\":{cores},\"cpu_seconds\":{cpu:.2}}}",
                hashed as f64 / 1e6 / seconds
            );
            Ok(())
        }
        _ => Err(format!("unknown local step {step} {args:?}").into()),
    }
}

/// SHA-256 of every file under `dir`, one after the other on this thread,
/// in 1 MiB reads; the bytes hashed.
fn hash_tree(dir: &Path) -> Result<u64, Box<dyn std::error::Error>> {
    use {sha2::Digest, std::io::Read};
    let mut bytes = 0;
    // Page-aligned: the kernel copies file pages into an unaligned buffer
    // several times slower (measured: 0.24 s of system time against 0.02 s
    // for 512 MiB), which would make the baseline slow for the wrong reason.
    let mut backing = vec![0u8; 1024 * 1024 + 4096];
    let skip = backing.as_ptr().align_offset(4096);
    let buffer = backing
        .get_mut(skip..skip.saturating_add(1024 * 1024))
        .ok_or("no aligned buffer")?;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                pending.push(entry?.path());
            }
            continue;
        }
        let mut file = std::fs::File::open(&path)?;
        let mut hasher = sha2::Sha256::new();
        loop {
            let n = file.read(buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            bytes += n as u64;
        }
        std::hint::black_box(hasher.finalize());
    }
    Ok(bytes)
}
