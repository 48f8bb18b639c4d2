//! Cost of the WORM archive mode over a plain copy, and deep-verify
//! throughput, on a local directory store.
//!
//! ```text
//! cargo run --release -p krabka-remote-storage --example worm_bench -- <size MiB> <work dir>
//! ```
//!
//! Both copies are single PUTs (the multipart threshold is set above the
//! size, because a local directory returns no version ids for multipart
//! objects), so the difference is the WORM work: SHA-256 in the upload
//! pass, create-only writes, the signed manifest, its seal and the chain
//! tip.

use {
    bytes::Bytes,
    krabka_ids::LeaderEpoch,
    krabka_object_store::ObjectStoreConfig,
    krabka_remote_storage::{
        LogSegmentData, ManifestSigner, RemoteLogSegmentDetails, RemoteLogSegmentId,
        RemoteLogSegmentMetadata, RemoteLogSegmentState, RemoteStorageManager, S3RemoteStorage,
        TopicIdPartition, TrustedManifestKeys, VerifyDepth, VerifyRequest, verify_archive_config,
    },
    std::{collections::BTreeMap, io::Write, path::PathBuf, process::ExitCode, time::Instant},
    uuid::Uuid,
};

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
    let [size, dir] = args.as_slice() else {
        return Err("usage: worm_bench <size MiB> <work dir>".into());
    };
    let size: u64 = size.parse::<u64>()? * 1024 * 1024;
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("segment.log");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&log)?);
    let block: Vec<u8> = (0..1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut written = 0;
    while written < size {
        let n = (size - written).min(block.len() as u64);
        file.write_all(&block[..usize::try_from(n)?])?;
        written += n;
    }
    file.flush()?;
    drop(file);
    let small = |name: &str| -> std::io::Result<PathBuf> {
        let path = dir.join(name);
        std::fs::write(&path, vec![1u8; 4096])?;
        Ok(path)
    };
    let data = LogSegmentData {
        log_segment: log,
        offset_index: small("segment.index")?,
        time_index: small("segment.timeindex")?,
        transaction_index: None,
        producer_snapshot_index: None,
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
    };
    let tp = TopicIdPartition::new(Uuid::new_v4(), "bench", 0);
    let metadata = RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp, Uuid::new_v4()),
        0,
        999,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            i32::try_from(size).unwrap_or(i32::MAX),
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), 0)]),
        ),
    )?;
    let tier = |name: &str| {
        S3RemoteStorage::from_config(&ObjectStoreConfig::Local {
            root: dir.join(name),
        })
        .map(|t| t.with_multipart_tuning(size * 2 + 1, 16 * 1024 * 1024))
    };
    let signer = ManifestSigner::from_secret_bytes(&[1; 32], "bench")?;
    let public = signer.public_key();
    let plain = tier("plain")?;
    let worm = tier("worm")?.with_worm_unchecked(signer, false, "bench".to_owned());
    let mib = size as f64 / (1024.0 * 1024.0);
    let started = Instant::now();
    plain.copy_log_segment_data(&metadata, &data)?;
    let plain_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    worm.copy_log_segment_data(&metadata, &data)?;
    let worm_s = started.elapsed().as_secs_f64();
    let mut request = VerifyRequest::new(None, TrustedManifestKeys::single("bench", &public)?);
    request.depth = VerifyDepth::Deep;
    let started = Instant::now();
    let report = verify_archive_config(
        &ObjectStoreConfig::Local {
            root: dir.join("worm"),
        },
        &request,
    )?;
    let verify_s = started.elapsed().as_secs_f64();
    let hashed: u64 = report.partitions.iter().map(|p| p.bytes_hashed).sum();
    println!("segment: {mib:.0} MiB");
    println!("plain copy: {plain_s:.2} s ({:.0} MiB/s)", mib / plain_s);
    println!(
        "WORM copy:  {worm_s:.2} s ({:.0} MiB/s), {:+.1}% over plain",
        mib / worm_s,
        (worm_s / plain_s - 1.0) * 100.0
    );
    println!(
        "deep verify: {verify_s:.2} s, {:.0} MB/s ({:?})",
        hashed as f64 / 1e6 / verify_s,
        report.outcome()
    );
    Ok(())
}
