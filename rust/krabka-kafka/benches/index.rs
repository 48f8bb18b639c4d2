//! Benchmarks of the index decoders: offset- and time-index parsing and
//! lookups, and record-batch scanning over segments written by Kafka
//! (`tests/fixtures/kafka/`), uncompressed and zstd.
//!
//! Run: `cargo bench -p krabka-remote-storage --bench index`.

use {
    criterion::{BenchmarkId, Criterion, Throughput, criterion_main},
    krabka_kafka::{
        OffsetIndexEntry, TimeIndexEntry, first_batch_at_or_after,
        index::{Compression, record_batches},
        parse_offset_index, parse_time_index, position_for_relative_offset,
        relative_offset_floor_for_timestamp,
    },
    std::{hint::black_box, path::Path},
    zerocopy::IntoBytes,
};

/// Entries in the synthetic indexes: a full 10 MiB time index has ~870 000.
const ENTRIES: u32 = 100_000;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/kafka")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn offset_index_bytes() -> Vec<u8> {
    (0..ENTRIES)
        .flat_map(|i| OffsetIndexEntry::new(i * 10, i * 4096).as_bytes().to_vec())
        .collect()
}

fn time_index_bytes() -> Vec<u8> {
    (0..ENTRIES)
        .flat_map(|i| {
            TimeIndexEntry::new(1_700_000_000_000 + i64::from(i) * 100, i * 10)
                .as_bytes()
                .to_vec()
        })
        .collect()
}

fn indexes(c: &mut Criterion) {
    let offset_bytes = offset_index_bytes();
    let time_bytes = time_index_bytes();
    let mut group = c.benchmark_group("index");
    group.throughput(Throughput::Elements(u64::from(ENTRIES)));
    group.bench_function("parse_offset_index/100k", |b| {
        b.iter(|| parse_offset_index(black_box(&offset_bytes)).unwrap().len())
    });
    group.bench_function("parse_time_index/100k", |b| {
        b.iter(|| parse_time_index(black_box(&time_bytes)).unwrap().len())
    });
    group.throughput(Throughput::Elements(1));
    let offsets = parse_offset_index(&offset_bytes).unwrap();
    let times = parse_time_index(&time_bytes).unwrap();
    group.bench_function("position_for_relative_offset/100k", |b| {
        let mut target = 0_u32;
        b.iter(|| {
            target = target.wrapping_add(7_919) % (ENTRIES * 10);
            position_for_relative_offset(black_box(offsets), target)
        })
    });
    for (name, ts) in [
        ("early", 1_700_000_000_050_i64),
        ("middle", 1_700_000_000_000 + i64::from(ENTRIES) * 50),
        ("late", i64::MAX),
    ] {
        group.bench_with_input(
            BenchmarkId::new("relative_offset_floor_for_timestamp/100k", name),
            &ts,
            |b, &ts| b.iter(|| relative_offset_floor_for_timestamp(black_box(times), ts)),
        );
    }
    group.finish();
}

/// About 1 MiB of `log` repeated.
fn repeated(log: &[u8]) -> Vec<u8> {
    log.repeat((1 << 20) / log.len() + 1)
}

/// The batches of the codecs fixture with `codec`, concatenated.
fn batches_of(codec: Compression) -> Vec<u8> {
    let log = fixture("codecs/00000000000000000000.log");
    record_batches(&log)
        .map(Result::unwrap)
        .filter(|b| b.compression() == codec)
        .flat_map(|b| b.as_bytes().to_vec())
        .collect()
}

fn scanning(c: &mut Criterion) {
    let plain = repeated(&fixture("plain/00000000000000000100.log"));
    let mut group = c.benchmark_group("log");
    group.throughput(Throughput::Bytes(plain.len() as u64));
    group.bench_function("scan_batch_headers_crc/none/1MiB", |b| {
        // No batch reaches this offset: every header is read and every CRC checked.
        b.iter(|| {
            first_batch_at_or_after(black_box(&plain), i64::MAX)
                .unwrap()
                .is_none()
        })
    });
    group.bench_function("decode_all_records/none/1MiB", |b| {
        b.iter(|| count_records(black_box(&plain)))
    });
    let zstd = repeated(&batches_of(Compression::Zstd));
    group.throughput(Throughput::Bytes(zstd.len() as u64));
    group.bench_function("decode_all_records/zstd/1MiB-compressed", |b| {
        b.iter(|| count_records(black_box(&zstd)))
    });
    group.finish();
}

fn count_records(log: &[u8]) -> usize {
    record_batches(log)
        .map(|batch| {
            batch
                .unwrap()
                .records()
                .unwrap()
                .iter()
                .map(Result::unwrap)
                .count()
        })
        .sum()
}

/// Every benchmark of this file (`criterion_group!` would make this public
/// and undocumented).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    indexes(&mut c);
    scanning(&mut c);
}

criterion_main!(benches);
