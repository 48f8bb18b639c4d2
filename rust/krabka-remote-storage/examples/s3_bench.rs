//! Copy or fetch one segment through [`S3RemoteStorage`] and print the
//! throughput, for `scripts/bench-s3.sh` (which measures peak memory with
//! `/usr/bin/time -v` around this process).
//!
//! ```text
//! s3_bench copy|fetch <log file> <segment seed> \
//!     --endpoint URL --bucket B --access-key K --secret-key S [--prefix P]
//! ```
//!
//! The segment's ids derive from the seed, so `fetch` finds what `copy` wrote.

use {
    bytes::Bytes,
    krabka_ids::LeaderEpoch,
    krabka_object_store::{S3Config, S3Credentials, Secret},
    krabka_remote_storage::{
        LogSegmentData, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentState, RemoteStorageManager, S3RemoteStorage, TopicIdPartition,
    },
    std::{collections::BTreeMap, io::Read, path::PathBuf, process::ExitCode, time::Instant},
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

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, file, seed, rest @ ..] = args.as_slice() else {
        return Err("usage: s3_bench copy|fetch <log file> <seed> --endpoint URL --bucket B --access-key K --secret-key S [--prefix P]".into());
    };
    let option = |name: &str| -> Option<String> {
        rest.iter()
            .position(|arg| arg == name)
            .and_then(|at| rest.get(at + 1))
            .cloned()
    };
    let required = |name: &str| option(name).ok_or_else(|| format!("{name} is required"));
    let mut config = S3Config::new(required("--bucket")?, "us-east-1");
    config.endpoint = Some(required("--endpoint")?);
    config.allow_http = true;
    config.path_style = true;
    config.prefix = option("--prefix");
    config.credentials = S3Credentials::Static {
        access_key_id: required("--access-key")?,
        secret_access_key: Secret::new(required("--secret-key")?),
        session_token: None,
    };
    let tier = S3RemoteStorage::from_s3_config(&config)?;
    let seed: u128 = seed.parse()?;
    let file = PathBuf::from(file);
    let size = std::fs::metadata(&file)?.len();
    let metadata = RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(
            TopicIdPartition::new(Uuid::from_u128(seed), "bench", 0),
            Uuid::from_u128(seed + 1),
        ),
        0,
        1,
        0,
        0,
        0,
        RemoteLogSegmentDetails::new(
            i32::try_from(size).unwrap_or(i32::MAX),
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), 0)]),
        ),
    )?;
    let started = Instant::now();
    let bytes = match mode.as_str() {
        "copy" => {
            let dir = tempfile::tempdir()?;
            let index = dir.path().join("index");
            std::fs::write(&index, [0u8; 8])?;
            let segment = LogSegmentData {
                log_segment: file,
                offset_index: index.clone(),
                time_index: index.clone(),
                transaction_index: None,
                producer_snapshot_index: Some(index),
                leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
            };
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
