//! What the benchmark examples (`s3_bench`, `worm_bench`, `fetch_bench`)
//! share: an S3 configuration from command-line options, a segment's
//! metadata, the index files that go up with a log, and the CPU time used.

use {
    bytes::Bytes,
    krabka_ids::LeaderEpoch,
    krabka_object_store::{S3Config, S3Credentials, Secret},
    krabka_remote_storage::{
        LogSegmentData, RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentState, RemoteStorageError, TopicIdPartition,
    },
    std::{
        collections::BTreeMap,
        path::{Path, PathBuf},
    },
    uuid::Uuid,
};

/// The S3 options both examples take.
pub const S3_USAGE: &str =
    "--endpoint URL --bucket B --access-key K --secret-key S [--prefix P] [--region R]";

/// An S3 configuration (path style, plain HTTP allowed, default multipart
/// tuning) from `--endpoint`, `--bucket`, `--access-key`, `--secret-key`
/// and the optional `--prefix` and `--region` among `args`.
pub fn s3_config(args: &[String]) -> Result<S3Config, String> {
    let option = |name: &str| -> Option<String> {
        args.iter()
            .position(|arg| arg == name)
            .and_then(|at| args.get(at + 1))
            .cloned()
    };
    let required = |name: &str| option(name).ok_or_else(|| format!("{name} is required"));
    let region = option("--region").unwrap_or_else(|| "us-east-1".to_owned());
    let mut config = S3Config::new(required("--bucket")?, region);
    config.endpoint = Some(required("--endpoint")?);
    config.allow_http = true;
    config.path_style = true;
    config.prefix = option("--prefix");
    config.credentials = S3Credentials::Static {
        access_key_id: required("--access-key")?,
        secret_access_key: Secret::new(required("--secret-key")?),
        session_token: None,
    };
    Ok(config)
}

/// The metadata of segment `id` of `partition`: offsets 0–999, leader
/// epoch 0, `size` bytes.
pub fn segment_metadata(
    partition: TopicIdPartition,
    id: Uuid,
    size: u64,
) -> Result<RemoteLogSegmentMetadata, RemoteStorageError> {
    segment_metadata_from(partition, id, size, 0)
}

/// The metadata of segment `id` of `partition`: 1000 offsets from `start`,
/// leader epoch 0, `size` bytes.
pub fn segment_metadata_from(
    partition: TopicIdPartition,
    id: Uuid,
    size: u64,
    start: i64,
) -> Result<RemoteLogSegmentMetadata, RemoteStorageError> {
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(partition, id),
        start,
        start + 999,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            i32::try_from(size).unwrap_or(i32::MAX),
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), start)]),
        ),
    )
}

/// The files of a segment whose log is `log`: offset, time and producer
/// snapshot indexes of 4 KiB each written into `dir`, no transaction index,
/// a one-entry leader-epoch checkpoint.
pub fn segment_data(log: PathBuf, dir: &Path) -> std::io::Result<LogSegmentData> {
    let index = |name: &str| -> std::io::Result<PathBuf> {
        let path = dir.join(name);
        std::fs::write(&path, vec![1u8; 4096])?;
        Ok(path)
    };
    Ok(LogSegmentData {
        log_segment: log,
        offset_index: index("segment.index")?,
        time_index: index("segment.timeindex")?,
        transaction_index: None,
        producer_snapshot_index: Some(index("segment.snapshot")?),
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
    })
}

/// As [`segment_data`], with the offset and time indexes as large as Kafka
/// writes them for a log of this size: an entry every 4 KiB of log
/// (`index.interval.bytes`' default), 8 bytes in the offset index and 12 in
/// the time index, each at most 10 MiB (`segment.index.bytes`' default). A
/// 1 GiB segment has a 2 MiB offset index and a 3 MiB time index.
#[allow(dead_code, reason = "only s3_bench copies Kafka-sized indexes")]
pub fn segment_data_kafka_sized(log: PathBuf, dir: &Path) -> std::io::Result<LogSegmentData> {
    const INTERVAL: u64 = 4096;
    const MAX_INDEX: u64 = 10 * 1024 * 1024;
    let entries = std::fs::metadata(&log)?.len() / INTERVAL;
    let index = |name: &str, entry: u64| -> std::io::Result<PathBuf> {
        let path = dir.join(name);
        let len = usize::try_from((entries * entry).clamp(entry, MAX_INDEX)).unwrap_or(usize::MAX);
        std::fs::write(&path, vec![1u8; len])?;
        Ok(path)
    };
    Ok(LogSegmentData {
        offset_index: index("segment.index", 8)?,
        time_index: index("segment.timeindex", 12)?,
        ..segment_data(log, dir)?
    })
}

/// CPU time the process has used so far, user and system, in seconds
/// (`/proc/self/stat`, Linux, in its clock ticks of 1/100 s); time the
/// hypervisor stole from the virtual machine is not in it.
#[allow(dead_code, reason = "s3_bench does not report CPU time")]
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses: state is
    // the first of them, user time the 12th, system time the 13th.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / 100.0)
}
