//! Decodes segments and indexes written by Apache Kafka's own classes and
//! compares every result with the facts Kafka's API computed on the same
//! files (`tests/fixtures/kafka/expected.json` at the repository root,
//! written by `tests/kafka-fixtures/regenerate.sh`).

use {
    krabka_kafka::{
        LogOffset, RemoteStorageError, TimestampMs,
        index::{
            Compression, ControlRecordType, RecordBatch, TimestampType, first_batch_at_or_after,
            first_record_at_or_after_timestamp, parse_offset_index, parse_time_index,
            parse_txn_index, position_for_relative_offset, record_batches,
            relative_offset_floor_for_timestamp, txn_overlaps,
        },
    },
    serde::Deserialize,
    std::{
        fs,
        path::{Path, PathBuf},
    },
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kafka")
}

fn read(name: &str) -> Vec<u8> {
    let path = fixtures().join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Debug, Deserialize)]
struct Expected {
    kafka_version: String,
    segments: Vec<Segment>,
    legacy_magic: Vec<LegacyFile>,
}

#[derive(Debug, Deserialize)]
struct LegacyFile {
    file: String,
    magic: i8,
}

#[derive(Debug, Deserialize)]
struct Segment {
    name: String,
    base_offset: i64,
    log: String,
    offset_index: String,
    time_index: String,
    txn_index: Option<String>,
    size_in_bytes: usize,
    batches: Vec<Batch>,
    offset_index_entries: Vec<OffsetEntry>,
    time_index_entries: Vec<TimeEntry>,
    aborted_txns: Vec<AbortedTxn>,
    collect_aborted_txns: Vec<CollectLookup>,
    offset_lookups: Vec<OffsetLookup>,
    timestamp_lookups: Vec<TimestampLookup>,
}

/// `[fetch_offset, upper_bound_offset (exclusive), [producer ids]]`.
type CollectLookup = (i64, i64, Vec<i64>);

/// A batch Kafka found: `[base_offset, position, size]`.
type FoundBatch = (i64, usize, usize);

/// `[target, index floor offset, index floor position, found batch | null]`.
type OffsetLookup = (i64, i64, u32, Option<FoundBatch>);

/// `[target timestamp, starting offset, [offset, timestamp] | null]`.
type TimestampLookup = (i64, i64, Option<(LogOffset, TimestampMs)>);

#[derive(Debug, Deserialize)]
struct Batch {
    position: usize,
    size_in_bytes: usize,
    base_offset: i64,
    last_offset: i64,
    magic: i8,
    crc: u32,
    compression: String,
    timestamp_type: String,
    is_transactional: bool,
    is_control: bool,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    max_timestamp: i64,
    count: u32,
    records: Vec<Record>,
}

#[derive(Debug, Deserialize)]
struct Record {
    offset: i64,
    timestamp: i64,
    key: Option<String>,
    value: Option<String>,
    value_len: Option<usize>,
    value_crc32c: Option<u32>,
    headers: Vec<Header>,
    control_type: Option<String>,
    coordinator_epoch: Option<i32>,
}

#[derive(Debug, Deserialize)]
struct Header {
    key: String,
    value: Option<String>,
}

#[derive(Debug, Deserialize)]
struct OffsetEntry {
    offset: i64,
    position: u32,
}

#[derive(Debug, Deserialize)]
struct TimeEntry {
    timestamp: i64,
    offset: i64,
}

#[derive(Debug, Deserialize)]
struct AbortedTxn {
    version: i16,
    producer_id: i64,
    first_offset: i64,
    last_offset: i64,
    last_stable_offset: i64,
}

fn expected() -> Expected {
    serde_json::from_slice(&read("expected.json")).expect("expected.json parses")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn rel(segment: &Segment, offset: i64) -> u32 {
    u32::try_from(offset - segment.base_offset).expect("relative offset fits")
}

#[test]
fn fixtures_come_from_kafka_4() {
    let expected = expected();
    assert!(
        expected.kafka_version.starts_with("4."),
        "{}",
        expected.kafka_version
    );
    let names: Vec<_> = expected.segments.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["plain", "codecs", "txn"]);
}

#[test]
fn offset_indexes_match_kafka() {
    for segment in expected().segments {
        let bytes = read(&segment.offset_index);
        let entries = parse_offset_index(&bytes).unwrap();
        let got: Vec<_> = entries
            .iter()
            .map(|e| (e.relative_offset(), e.position()))
            .collect();
        let want: Vec<_> = segment
            .offset_index_entries
            .iter()
            .map(|e| (rel(&segment, e.offset), e.position))
            .collect();
        assert_eq!(got, want, "{}", segment.name);
        assert!(
            !got.is_empty(),
            "{}: the fixture should exercise the index",
            segment.name
        );
    }
}

#[test]
fn time_indexes_match_kafka() {
    for segment in expected().segments {
        let bytes = read(&segment.time_index);
        let entries = parse_time_index(&bytes).unwrap();
        let got: Vec<_> = entries
            .iter()
            .map(|e| (e.timestamp(), e.relative_offset()))
            .collect();
        let want: Vec<_> = segment
            .time_index_entries
            .iter()
            .map(|e| (e.timestamp, rel(&segment, e.offset)))
            .collect();
        assert_eq!(got, want, "{}", segment.name);
        assert!(!got.is_empty(), "{}", segment.name);
    }
}

#[test]
fn preallocation_padding_is_ignored() {
    for segment in expected().segments {
        let mut offset = read(&segment.offset_index);
        let n = offset.len() / 8;
        offset.resize(offset.len() + 8 * 100, 0);
        assert_eq!(parse_offset_index(&offset).unwrap().len(), n);
        let mut time = read(&segment.time_index);
        let n = time.len() / 12;
        time.resize(time.len() + 12 * 100, 0);
        assert_eq!(parse_time_index(&time).unwrap().len(), n);
    }
}

#[test]
fn txn_indexes_match_kafka() {
    let mut seen = 0;
    for segment in expected().segments {
        let Some(path) = &segment.txn_index else {
            assert!(segment.aborted_txns.is_empty());
            continue;
        };
        let bytes = read(path);
        let entries = parse_txn_index(&bytes).unwrap();
        assert_eq!(entries.len(), segment.aborted_txns.len());
        for (got, want) in entries.iter().zip(&segment.aborted_txns) {
            assert_eq!(got.version.get(), want.version);
            assert_eq!(got.producer_id(), want.producer_id);
            assert_eq!(got.first_offset(), want.first_offset);
            assert_eq!(got.last_offset(), want.last_offset);
            assert_eq!(got.last_stable_offset(), want.last_stable_offset);
        }
        seen += entries.len();
    }
    assert_eq!(seen, 2, "the txn fixture holds two aborted transactions");
}

#[test]
fn overlap_selects_what_kafka_collects() {
    for segment in expected().segments {
        let entries = match &segment.txn_index {
            Some(path) => parse_txn_index(&read(path)).unwrap().to_vec(),
            None => Vec::new(),
        };
        for (from, upper, want) in &segment.collect_aborted_txns {
            let got: Vec<i64> = entries
                .iter()
                .filter(|e| txn_overlaps(e, *from, upper - 1))
                .map(|e| e.producer_id())
                .collect();
            assert_eq!(&got, want, "{} [{from}, {upper})", segment.name);
        }
    }
}

#[test]
fn batches_and_records_match_kafka() {
    let mut codecs = Vec::new();
    let mut control_types = Vec::new();
    for segment in expected().segments {
        let log = read(&segment.log);
        assert_eq!(log.len(), segment.size_in_bytes);
        let batches: Vec<RecordBatch<'_>> = record_batches(&log).map(Result::unwrap).collect();
        assert_eq!(batches.len(), segment.batches.len(), "{}", segment.name);
        for (got, want) in batches.iter().zip(&segment.batches) {
            let at = format!("{} batch at {}", segment.name, want.position);
            assert_eq!(got.position(), want.position, "{at}");
            assert_eq!(got.size_in_bytes(), want.size_in_bytes, "{at}");
            assert_eq!(got.base_offset(), want.base_offset, "{at}");
            assert_eq!(got.last_offset(), want.last_offset, "{at}");
            assert_eq!(got.magic(), want.magic, "{at}");
            assert_eq!(got.crc(), want.crc, "{at}");
            assert_eq!(got.compression().name(), want.compression, "{at}");
            let timestamp_type = match got.timestamp_type() {
                TimestampType::CreateTime => "CreateTime",
                TimestampType::LogAppendTime => "LogAppendTime",
            };
            assert_eq!(timestamp_type, want.timestamp_type, "{at}");
            assert_eq!(got.is_transactional(), want.is_transactional, "{at}");
            assert_eq!(got.is_control(), want.is_control, "{at}");
            assert_eq!(
                got.partition_leader_epoch(),
                want.partition_leader_epoch,
                "{at}"
            );
            assert_eq!(got.producer_id(), want.producer_id, "{at}");
            assert_eq!(got.producer_epoch(), want.producer_epoch, "{at}");
            assert_eq!(got.base_sequence(), want.base_sequence, "{at}");
            assert_eq!(got.max_timestamp(), want.max_timestamp, "{at}");
            assert_eq!(got.records_count(), want.count, "{at}");
            codecs.push(got.compression());

            let records = got.records().unwrap();
            let records: Vec<_> = records.iter().map(Result::unwrap).collect();
            assert_eq!(records.len(), want.records.len(), "{at}");
            for (r, w) in records.iter().zip(&want.records) {
                let at = format!("{at} offset {}", w.offset);
                assert_eq!(r.offset(), w.offset, "{at}");
                assert_eq!(r.timestamp(), w.timestamp, "{at}");
                assert_eq!(r.key().map(hex), w.key, "{at}");
                match (w.value_len, w.value_crc32c) {
                    (Some(len), Some(crc)) => {
                        let value = r.value().expect("large values are not null");
                        assert_eq!(value.len(), len, "{at}");
                        assert_eq!(crc32c::crc32c(value), crc, "{at}");
                    }
                    _ => assert_eq!(r.value().map(hex), w.value, "{at}"),
                }
                let headers: Vec<_> = r
                    .headers()
                    .iter()
                    .map(|h| (String::from_utf8(h.key.to_vec()).unwrap(), h.value.map(hex)))
                    .collect();
                let want_headers: Vec<_> = w
                    .headers
                    .iter()
                    .map(|h| (h.key.clone(), h.value.clone()))
                    .collect();
                assert_eq!(headers, want_headers, "{at}");
                if let Some(kind) = &w.control_type {
                    let got_kind = r.control_type().unwrap();
                    let name = match got_kind {
                        ControlRecordType::Abort => "ABORT",
                        ControlRecordType::Commit => "COMMIT",
                        _ => "OTHER",
                    };
                    assert_eq!(name, kind, "{at}");
                    let marker = r.end_transaction_marker().unwrap().unwrap();
                    assert_eq!(Some(marker.coordinator_epoch), w.coordinator_epoch, "{at}");
                    control_types.push(got_kind);
                }
            }
        }
    }
    for codec in [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        assert!(codecs.contains(&codec), "no {codec} batch in the fixtures");
    }
    assert!(control_types.contains(&ControlRecordType::Abort));
    assert!(control_types.contains(&ControlRecordType::Commit));
}

#[test]
fn offset_lookups_match_kafka() {
    for segment in expected().segments {
        let log = read(&segment.log);
        let index_bytes = read(&segment.offset_index);
        let index = parse_offset_index(&index_bytes).unwrap();
        for &(target, floor_offset, floor_position, batch) in &segment.offset_lookups {
            let at = format!("{} offset {target}", segment.name);
            // OffsetIndex.lookup: the floor entry (or the base offset at 0).
            let position = position_for_relative_offset(index, rel(&segment, target));
            assert_eq!(position, floor_position, "{at}");
            let floor = index
                .iter()
                .rfind(|e| e.relative_offset() <= rel(&segment, target))
                .map_or(segment.base_offset, |e| {
                    segment.base_offset + i64::from(e.relative_offset())
                });
            assert_eq!(floor, floor_offset, "{at}");
            // LogSegment.translateOffset: scan from the floor position.
            let start = usize::try_from(position).unwrap();
            let found = first_batch_at_or_after(&log[start..], target)
                .unwrap()
                .map(|b| (b.base_offset(), start + b.position(), b.size_in_bytes()));
            assert_eq!(found, batch, "{at}");
            // The same answer scanning from the start of the segment.
            let from_start = first_batch_at_or_after(&log, target)
                .unwrap()
                .map(|b| (b.base_offset(), b.position(), b.size_in_bytes()));
            assert_eq!(from_start, batch, "{at}");
        }
    }
}

/// The lookup a remote reader does for ListOffsets by timestamp: time index
/// floor, offset index position, then a scan of the log from there.
fn find_by_timestamp(
    segment: &Segment,
    log: &[u8],
    target: TimestampMs,
    starting_offset: LogOffset,
) -> Option<(LogOffset, TimestampMs)> {
    let time_bytes = read(&segment.time_index);
    let offset_bytes = read(&segment.offset_index);
    let time_index = parse_time_index(&time_bytes).unwrap();
    let offset_index = parse_offset_index(&offset_bytes).unwrap();
    let floor =
        segment.base_offset + i64::from(relative_offset_floor_for_timestamp(time_index, target));
    let scan_from = floor.max(starting_offset);
    let rel = u32::try_from(scan_from - segment.base_offset).unwrap_or(u32::MAX);
    let start = usize::try_from(position_for_relative_offset(offset_index, rel)).unwrap();
    first_record_at_or_after_timestamp(&log[start..], starting_offset, target).unwrap()
}

#[test]
fn timestamp_lookups_match_kafka() {
    let mut found = 0;
    for segment in expected().segments {
        let log = read(&segment.log);
        for &(target, starting_offset, want) in &segment.timestamp_lookups {
            let at = format!("{} ts {target} from {starting_offset}", segment.name);
            assert_eq!(
                find_by_timestamp(&segment, &log, target, starting_offset),
                want,
                "{at}"
            );
            assert_eq!(
                first_record_at_or_after_timestamp(&log, starting_offset, target).unwrap(),
                want,
                "{at}"
            );
            found += usize::from(want.is_some());
        }
    }
    assert!(
        found > 100,
        "the fixtures should exercise hits, got {found}"
    );
}

#[test]
fn every_flipped_bit_in_a_batch_is_caught() {
    for segment in expected().segments {
        let log = read(&segment.log);
        for batch in &segment.batches {
            // Every byte the CRC covers, sampled every 7 bytes in big batches.
            let end = batch.position + batch.size_in_bytes;
            for at in
                (batch.position + 21..end).step_by(if batch.size_in_bytes > 2048 { 7 } else { 1 })
            {
                let mut bad = log[batch.position..end].to_vec();
                bad[at - batch.position] ^= 0x10;
                assert!(
                    matches!(
                        RecordBatch::parse(&bad, batch.position),
                        Err(RemoteStorageError::Corrupt { format: "log", .. })
                    ),
                    "{} byte {at}",
                    segment.name
                );
            }
        }
    }
}

#[test]
fn truncated_segments_are_errors_not_panics() {
    for segment in expected().segments {
        let log = read(&segment.log);
        let last = segment.batches.last().unwrap();
        for cut in [1, 20, last.size_in_bytes - 1] {
            let short = &log[..log.len() - cut];
            let items: Vec<_> = record_batches(short).collect();
            assert_eq!(items.len(), segment.batches.len(), "{}", segment.name);
            assert!(matches!(
                items.last(),
                Some(Err(RemoteStorageError::Corrupt { format: "log", .. }))
            ));
            assert!(first_batch_at_or_after(short, last.base_offset).is_err());
        }
    }
}

#[test]
fn legacy_magic_is_refused() {
    let legacy = expected().legacy_magic;
    assert_eq!(legacy.iter().map(|f| f.magic).collect::<Vec<_>>(), [0, 1]);
    for file in legacy {
        let bytes = read(&file.file);
        assert_eq!(
            bytes[16],
            file.magic.cast_unsigned(),
            "Kafka puts the magic at byte 16"
        );
        let mut batches = record_batches(&bytes);
        assert!(matches!(
            batches.next(),
            Some(Err(RemoteStorageError::Corrupt { format: "log", .. }))
        ));
        assert!(batches.next().is_none());
        assert!(first_batch_at_or_after(&bytes, 0).is_err());
        assert!(first_record_at_or_after_timestamp(&bytes, 0, 0).is_err());
    }
}
