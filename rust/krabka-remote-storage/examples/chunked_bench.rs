//! The chunked format's costs against plain segments, one measurement per
//! process, for `scripts/bench-chunked.sh`:
//!
//! ```text
//! chunked_bench write text|zstd <log file> <MiB>
//! chunked_bench copy  plain|chunked <log file> <seed> <key dir> <S3 options>
//! chunked_bench read  plain|chunked <size> <seed> <key dir> <S3 options>
//! ```
//!
//! `write` makes a log of Kafka v2 record batches of 16 KiB: `text` holds
//! uncompressed JSON-like records (as a topic of JSON logs or CDC events
//! that producers send uncompressed), `zstd` batches marked zstd-compressed
//! with incompressible payloads (as a producer-zstd topic). `copy` copies it
//! as segment `seed` (plain, or compressed and AES-256-GCM-encrypted in
//! 4 MiB chunks under `<key dir>/k1-public.pem` and `k1-private.pem`) and
//! prints the time, CPU time and bytes stored; `read` reads the segment from
//! its start the way a catching-up consumer's broker does, in 1 MiB fetches
//! each closed, through the read cache, and prints the time and CPU time.

mod support;

use {
    futures_util::TryStreamExt,
    krabka_object_store::store::cache::CacheConfig,
    krabka_remote_storage::{
        Cipher, Compression, KeyPairFiles, RemoteStorageManager, RsaKeyPairs, S3RemoteStorage,
        SegmentCodec, TopicIdPartition,
    },
    object_store::path::Path as Key,
    std::{
        io::{BufWriter, Read, Write},
        path::{Path, PathBuf},
        process::ExitCode,
        sync::Arc,
        time::Instant,
    },
    support::{S3_USAGE, cpu_seconds, s3_config, segment_data, segment_metadata},
    uuid::Uuid,
};

const MIB: u64 = 1024 * 1024;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("chunked_bench: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [mode, kind, file, mib] if mode == "write" => write_log(kind, Path::new(file), mib.parse()?),
        [mode, format, file, seed, keys, rest @ ..] if mode == "copy" => {
            copy(format, Path::new(file), seed.parse()?, Path::new(keys), rest)
        }
        [mode, format, size, seed, keys, rest @ ..] if mode == "read" => {
            read(format, size.parse()?, seed.parse()?, Path::new(keys), rest)
        }
        _ => Err(format!(
            "usage: chunked_bench write text|zstd FILE MIB | copy plain|chunked FILE SEED KEY_DIR {S3_USAGE} | read plain|chunked SIZE SEED KEY_DIR {S3_USAGE}"
        )
        .into()),
    }
}

/// One v2 record batch of `payload` with `codec` in its attributes (its
/// CRC right; the records section is not decoded by anything measured).
fn batch(base_offset: i64, codec: u16, payload: &[u8]) -> Vec<u8> {
    let mut batch = Vec::with_capacity(61 + payload.len());
    batch.extend_from_slice(&base_offset.to_be_bytes());
    batch.extend_from_slice(
        &i32::try_from(49 + payload.len())
            .unwrap_or(i32::MAX)
            .to_be_bytes(),
    );
    batch.extend_from_slice(&0i32.to_be_bytes());
    batch.push(2);
    batch.extend_from_slice(&[0; 4]);
    batch.extend_from_slice(&codec.to_be_bytes());
    batch.extend_from_slice(&99i32.to_be_bytes());
    batch.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    batch.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
    batch.extend_from_slice(&(-1i64).to_be_bytes());
    batch.extend_from_slice(&(-1i16).to_be_bytes());
    batch.extend_from_slice(&(-1i32).to_be_bytes());
    batch.extend_from_slice(&100i32.to_be_bytes());
    batch.extend_from_slice(payload);
    let crc = crc32c::crc32c(&batch[21..]);
    batch[17..21].copy_from_slice(&crc.to_be_bytes());
    batch
}

fn write_log(kind: &str, path: &Path, mib: u64) -> Result<(), Box<dyn std::error::Error>> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    let (mut written, mut offset, mut n, mut state) = (0u64, 0i64, 0u64, 0x9E37_79B9_7F4A_7C15u64);
    while written < mib * MIB {
        let mut payload = Vec::with_capacity(16 * 1024);
        let codec = match kind {
            "text" => {
                while payload.len() < 16 * 1024 - 300 {
                    n += 1;
                    // A random request id and session token per record, as real
                    // event logs carry: they keep zstd near the 4-6x it gets on
                    // such logs instead of the 20x of purely regular text.
                    let mut random = || {
                        state ^= state >> 12;
                        state ^= state << 25;
                        state ^= state >> 27;
                        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
                    };
                    let (id, token_a, token_b) = (random(), random(), random());
                    let line = format!(
                        "{{\"ts\":\"2026-12-07T01:{:02}:{:02}.{:03}Z\",\"request\":\"{id:016x}\",\"session\":\"{token_a:016x}{token_b:08x}\",\"order\":{n},\"customer\":\"c-{}\",\"status\":\"{}\",\"amount\":{}.{:02},\"region\":\"eu-west-{}\"}}\n",
                        n / 60 % 60,
                        n % 60,
                        n % 1000,
                        n * 7919 % 100_000,
                        ["created", "paid", "shipped", "delivered"][usize::try_from(n % 4)?],
                        n * 31 % 1000,
                        n % 100,
                        n % 3
                    );
                    payload.extend_from_slice(line.as_bytes());
                }
                0
            }
            "zstd" => {
                while payload.len() < 16 * 1024 {
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    payload.extend_from_slice(
                        &state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes(),
                    );
                }
                4
            }
            other => return Err(format!("unknown log kind {other}").into()),
        };
        let bytes = batch(offset, codec, &payload);
        out.write_all(&bytes)?;
        written += bytes.len() as u64;
        offset += 100;
    }
    out.flush()?;
    Ok(())
}

/// The tier: plain, or writing (and reading) the chunked format under k1.
fn tier(
    format: &str,
    keys: &Path,
    s3: &[String],
    cache: bool,
) -> Result<S3RemoteStorage, Box<dyn std::error::Error>> {
    let store = S3RemoteStorage::from_s3_config(&s3_config(s3)?)?.into_store();
    let store = if cache {
        store.with_read_cache(Some(CacheConfig::default()))?
    } else {
        store
    };
    let tier = S3RemoteStorage::on(store);
    Ok(match format {
        "plain" => tier,
        "chunked" => {
            let pair = KeyPairFiles {
                id: "k1".to_owned(),
                public_key_file: keys.join("k1-public.pem"),
                private_key_file: keys.join("k1-private.pem"),
            };
            tier.with_codec(SegmentCodec {
                compression: Some(Compression::default()),
                encryption: Some(Cipher::Aes256Gcm),
                keys: Some(Arc::new(RsaKeyPairs::load("k1", &[pair])?)),
                ..SegmentCodec::default()
            })?
        }
        other => return Err(format!("unknown format {other}").into()),
    })
}

fn partition(seed: u128) -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(seed), "bench", 0)
}

fn copy(
    format: &str,
    file: &Path,
    seed: u128,
    keys: &Path,
    s3: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let tier = tier(format, keys, s3, false)?;
    let size = std::fs::metadata(file)?.len();
    let metadata = segment_metadata(partition(seed), Uuid::from_u128(seed + 1), size)?;
    let dir = tempfile::tempdir()?;
    let segment = segment_data(PathBuf::from(file), dir.path())?;
    let cpu = cpu_seconds();
    let started = Instant::now();
    tier.copy_log_segment_data(&metadata, &segment)?;
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds()
        .zip(cpu)
        .map_or(0.0, |(end, start)| end - start);
    // What the bucket holds of the segment's log.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let store = Arc::clone(tier.store());
    let prefix = Key::from(format!(
        "{}/{}",
        tier.prefix().unwrap_or_default(),
        krabka_remote_storage::partition_dir_name(&metadata)
    ));
    let log_name = krabka_remote_storage::segment_file_name(&metadata, ".log");
    let stored: u64 = runtime.block_on(async {
        store
            .list(Some(&prefix))
            .try_filter(|meta| {
                futures_util::future::ready(meta.location.as_ref().ends_with(&log_name))
            })
            .map_ok(|meta| meta.size)
            .try_fold(0, |sum, size| futures_util::future::ready(Ok(sum + size)))
            .await
    })?;
    println!(
        "{{\"mode\":\"copy\",\"format\":\"{format}\",\"bytes\":{size},\"stored_bytes\":{stored},\"seconds\":{seconds:.3},\"cpu_seconds\":{cpu:.2}}}"
    );
    Ok(())
}

fn read(
    format: &str,
    size: u64,
    seed: u128,
    keys: &Path,
    s3: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let tier = tier(format, keys, s3, true)?;
    let metadata = segment_metadata(partition(seed), Uuid::from_u128(seed + 1), size)?;
    let cpu = cpu_seconds();
    let started = Instant::now();
    let mut buffer = vec![0; 64 * 1024];
    let mut total = 0;
    let mut position = 0;
    while position < size {
        let end = (position + MIB).min(size) - 1;
        let mut reader = tier.fetch_log_segment(&metadata, position, Some(end))?;
        loop {
            let n = reader.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        position = end + 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds()
        .zip(cpu)
        .map_or(0.0, |(end, start)| end - start);
    if total != size {
        return Err(format!("read {total} bytes of {size}").into());
    }
    println!(
        "{{\"mode\":\"read\",\"format\":\"{format}\",\"bytes\":{size},\"seconds\":{seconds:.3},\"cpu_seconds\":{cpu:.2}}}"
    );
    Ok(())
}
