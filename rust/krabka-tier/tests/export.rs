//! Exports from a filesystem tier holding segments Apache Kafka itself
//! wrote (`tests/fixtures/kafka`, with the facts Kafka's API computed in
//! `expected.json`), compared record by record.

#![allow(missing_docs)]

use {
    krabka_tier::{ExportRange, PartitionListing, export_partition, list_tier},
    object_store::local::LocalFileSystem,
    serde::Deserialize,
    std::{fs, path::Path},
    uuid::Uuid,
};

#[derive(Debug, Deserialize)]
struct Expected {
    segments: Vec<Segment>,
}

#[derive(Debug, Deserialize)]
struct Segment {
    name: String,
    base_offset: i64,
    log: String,
    txn_index: Option<String>,
    batches: Vec<Batch>,
}

impl Segment {
    /// Offsets between consecutive batches that no batch holds.
    fn gaps(&self) -> Vec<(i64, i64)> {
        self.batches
            .windows(2)
            .filter(|w| w[1].base_offset > w[0].last_offset + 1)
            .map(|w| (w[0].last_offset + 1, w[1].base_offset - 1))
            .collect()
    }
}

#[derive(Debug, Deserialize)]
struct Batch {
    position: u64,
    base_offset: i64,
    last_offset: i64,
    is_transactional: bool,
    is_control: bool,
    producer_id: i64,
    records: Vec<Record>,
}

#[derive(Debug, Deserialize)]
struct Record {
    offset: i64,
    timestamp: i64,
    key: Option<String>,
    value: Option<String>,
    /// Values above 64 bytes are recorded by length and CRC-32C.
    value_len: Option<usize>,
    value_crc32c: Option<u32>,
    #[serde(default)]
    headers: Vec<Header>,
}

impl Record {
    fn value(&self) -> Option<String> {
        match (self.value_len, self.value_crc32c) {
            (Some(len), Some(crc)) => Some(format!("{len} bytes, crc32c {crc}")),
            _ => self.value.clone(),
        }
    }
}

/// A value as `expected.json` records it.
fn value_of(bytes: &[u8]) -> String {
    if bytes.len() > 64 {
        format!("{} bytes, crc32c {}", bytes.len(), crc32c::crc32c(bytes))
    } else {
        hex(bytes)
    }
}

#[derive(Debug, Deserialize)]
struct Header {
    key: String,
    value: Option<String>,
}

/// A record as compared: offset, timestamp, key, value and headers as hex.
type Flat = (
    i64,
    i64,
    Option<String>,
    Option<String>,
    Vec<(String, Option<String>)>,
);

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/kafka")
}

fn expected() -> Expected {
    serde_json::from_slice(&fs::read(fixtures().join("expected.json")).unwrap()).unwrap()
}

fn segment(name: &str) -> Segment {
    expected()
        .segments
        .into_iter()
        .find(|s| s.name == name)
        .unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Kafka's committed view, from the transaction markers (not the
/// transaction index the exporter uses): a transactional batch counts when
/// its producer's next marker is a COMMIT (control key type 1).
fn committed(segment: &Segment, uncommitted: bool) -> Vec<Flat> {
    let mut out = Vec::new();
    for (i, batch) in segment.batches.iter().enumerate() {
        if batch.is_control {
            continue;
        }
        if batch.is_transactional && !uncommitted {
            let marker = segment.batches[i + 1..]
                .iter()
                .find(|b| b.is_control && b.producer_id == batch.producer_id)
                .expect("a marker ends every transaction of the fixture");
            if marker.records[0].key.as_deref() != Some("00000001") {
                continue;
            }
        }
        for r in &batch.records {
            let headers = r
                .headers
                .iter()
                .map(|h| (hex(h.key.as_bytes()), h.value.clone()))
                .collect();
            out.push((r.offset, r.timestamp, r.key.clone(), r.value(), headers));
        }
    }
    out
}

/// A filesystem tier with the fixture segments `names` as copies of one
/// partition (each under a fresh segment id); returns its root.
fn tier(names: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let topic_id = krabka_kafka::kafka_uuid(Uuid::from_u128(0x42));
    let dir = root.path().join(format!("orders-0-{topic_id}"));
    fs::create_dir_all(&dir).unwrap();
    for (i, name) in names.iter().enumerate() {
        let seg = segment(name);
        let id = krabka_kafka::kafka_uuid(Uuid::from_u128(1000 + i as u128));
        let base = format!("{:020}-{id}", seg.base_offset);
        fs::copy(fixtures().join(&seg.log), dir.join(format!("{base}.log"))).unwrap();
        if let Some(txn) = &seg.txn_index {
            fs::copy(fixtures().join(txn), dir.join(format!("{base}.txnindex"))).unwrap();
        }
    }
    (root, dir)
}

fn export(root: &Path, range: &ExportRange) -> (Vec<Flat>, krabka_tier::ExportSummary) {
    let store = LocalFileSystem::new_with_prefix(root).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let listing = list_tier(&store, None).await.unwrap();
        let [partition]: [PartitionListing; 1] = listing.try_into().unwrap();
        assert_eq!(
            (partition.topic.as_str(), partition.partition),
            ("orders", 0)
        );
        let mut records = Vec::new();
        let mut sink = |r: &krabka_tier::ExportedRecord<'_>| {
            records.push((
                r.offset,
                r.timestamp,
                r.key.map(hex),
                r.value.map(value_of),
                r.headers
                    .iter()
                    .map(|(k, v)| (hex(k), v.map(hex)))
                    .collect(),
            ));
            Ok(())
        };
        let summary = export_partition(&store, &partition, range, &mut sink)
            .await
            .unwrap();
        (records, summary)
    })
}

#[test]
fn every_record_of_kafka_segments_is_exported_as_kafka_wrote_it() {
    for name in ["plain", "codecs"] {
        let (root, _) = tier(&[name]);
        let (records, summary) = export(root.path(), &ExportRange::default());
        assert_eq!(records, committed(&segment(name), false), "{name}");
        assert!(summary.problems.is_empty(), "{summary:?}");
        assert_eq!(summary.gaps, segment(name).gaps(), "{name}");
    }
}

#[test]
fn aborted_transactions_and_markers_are_left_out_unless_asked() {
    let txn = segment("txn");
    let (root, _) = tier(&["txn"]);
    let (records, summary) = export(root.path(), &ExportRange::default());
    assert_eq!(records, committed(&txn, false));
    assert_eq!(summary.control_batches, 3);
    assert_eq!(summary.aborted_batches, 3);
    let uncommitted = ExportRange {
        uncommitted: true,
        ..ExportRange::default()
    };
    let (all, _) = export(root.path(), &uncommitted);
    assert_eq!(all, committed(&txn, true));
    assert!(all.len() > records.len());
}

#[test]
fn offset_and_timestamp_bounds_select_records() {
    let (root, _) = tier(&["plain"]);
    let every = committed(&segment("plain"), false);
    let range = ExportRange {
        from_offset: Some(every[3].0),
        to_offset: Some(every[7].0),
        ..ExportRange::default()
    };
    let (records, _) = export(root.path(), &range);
    assert_eq!(records, every[3..=7].to_vec());
    let range = ExportRange {
        from_timestamp: Some(every[2].1),
        to_timestamp: Some(every[4].1),
        ..ExportRange::default()
    };
    let (records, _) = export(root.path(), &range);
    let want: Vec<Flat> = every
        .iter()
        .filter(|r| r.1 >= every[2].1 && r.1 <= every[4].1)
        .cloned()
        .collect();
    assert_eq!(records, want);
}

#[test]
fn overlapping_copies_export_each_offset_once_and_gaps_are_reported() {
    let (root, _) = tier(&["plain", "plain", "txn"]);
    let (records, summary) = export(root.path(), &ExportRange::default());
    let mut want = committed(&segment("plain"), false);
    want.extend(committed(&segment("txn"), false));
    assert_eq!(records, want);
    assert_eq!(
        summary.overlapping_batches,
        segment("plain").batches.len() as u64
    );
    let plain = segment("plain");
    let mut gaps = plain.gaps();
    gaps.push((plain.batches.last().unwrap().last_offset + 1, 999));
    gaps.extend(segment("txn").gaps());
    assert_eq!(summary.gaps, gaps);
}

#[test]
fn a_corrupt_batch_is_reported_with_its_key_and_offset_and_the_rest_exported() {
    let plain = segment("plain");
    let (root, dir) = tier(&["plain"]);
    let log = fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    let mut bytes = fs::read(&log).unwrap();
    let victim = &plain.batches[2];
    // A byte of the records, inside the CRC's range.
    bytes[usize::try_from(victim.position).unwrap() + 70] ^= 0xff;
    fs::write(&log, &bytes).unwrap();
    let (records, summary) = export(root.path(), &ExportRange::default());
    let want: Vec<Flat> = committed(&plain, false)
        .into_iter()
        .filter(|r| !victim.records.iter().any(|v| v.offset == r.0))
        .collect();
    assert_eq!(records, want);
    let [problem] = summary.problems.as_slice() else {
        panic!("{summary:?}");
    };
    assert!(problem.key.ends_with(".log"), "{problem:?}");
    assert_eq!(problem.position, Some(victim.position));
    assert_eq!(problem.offset, Some(victim.base_offset));
    assert!(problem.detail.to_lowercase().contains("crc"), "{problem:?}");
}

#[test]
fn a_truncated_log_exports_what_precedes_the_cut_and_says_so() {
    let plain = segment("plain");
    let (root, dir) = tier(&["plain"]);
    let log = fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    let bytes = fs::read(&log).unwrap();
    let cut = plain.batches[5].position + 20;
    fs::write(&log, &bytes[..usize::try_from(cut).unwrap()]).unwrap();
    let (records, summary) = export(root.path(), &ExportRange::default());
    let before: Vec<Flat> = committed(&plain, false)
        .into_iter()
        .filter(|r| r.0 < plain.batches[5].base_offset)
        .collect();
    assert_eq!(records, before);
    assert_eq!(summary.problems.len(), 1, "{summary:?}");
    assert_eq!(
        summary.problems[0].position,
        Some(plain.batches[5].position)
    );
    assert!(summary.problems[0].detail.contains("truncated"));
}

/// The batches of fixture segment `name`: their facts and bytes.
fn batches_of(name: &str) -> Vec<(Batch, Vec<u8>)> {
    let seg = segment(name);
    let log = fs::read(fixtures().join(&seg.log)).unwrap();
    seg.batches
        .into_iter()
        .map(|b| {
            let start = usize::try_from(b.position).unwrap();
            let length = u32::from_be_bytes(log[start + 8..start + 12].try_into().unwrap());
            let bytes = log[start..start + 12 + length as usize].to_vec();
            (b, bytes)
        })
        .collect()
}

/// `batch` moved to `base_offset` and leader epoch `epoch` (neither is
/// covered by the batch CRC, as in Kafka, where the leader assigns both).
fn rewritten(batch: &[u8], base_offset: i64, epoch: i32) -> Vec<u8> {
    let mut bytes = batch.to_vec();
    bytes[..8].copy_from_slice(&base_offset.to_be_bytes());
    bytes[12..16].copy_from_slice(&epoch.to_be_bytes());
    bytes
}

/// A segment copy written into a partition directory of [`tier`]: its log
/// and, when given, its leader-epoch checkpoint (Kafka's text format).
fn write_copy(dir: &Path, id: u128, start: i64, log: &[u8], epochs: Option<&[(i32, i64)]>) {
    let base = format!(
        "{start:020}-{}",
        krabka_kafka::kafka_uuid(Uuid::from_u128(id))
    );
    fs::write(dir.join(format!("{base}.log")), log).unwrap();
    if let Some(epochs) = epochs {
        let mut text = format!("0\n{}\n", epochs.len());
        for (epoch, offset) in epochs {
            text.push_str(&format!("{epoch} {offset}\n"));
        }
        fs::write(dir.join(format!("{base}.leader_epoch_checkpoint")), text).unwrap();
    }
}

/// The records of fixture batches as the export should give them, each
/// moved by `shift` offsets.
fn flat(batches: &[&Batch], shift: i64) -> Vec<Flat> {
    batches
        .iter()
        .flat_map(|b| &b.records)
        .map(|r| {
            let headers = r
                .headers
                .iter()
                .map(|h| (hex(h.key.as_bytes()), h.value.clone()))
                .collect();
            (
                r.offset + shift,
                r.timestamp,
                r.key.clone(),
                r.value(),
                headers,
            )
        })
        .collect()
}

/// Two copies of partition 0 from offset 100: the old leader's (epoch 3,
/// all of `plain`) and the new leader's (epoch 5 from the `k`th batch on,
/// where its records are those of `codecs`, moved there). The broker serves
/// the new leader's records from that offset.
#[test]
fn overlapping_copies_follow_the_leader_epoch_lineage_in_any_order() {
    let plain = batches_of("plain");
    let codecs = batches_of("codecs");
    let k = 4;
    let switch = plain[k].0.base_offset;
    let old: Vec<u8> = plain
        .iter()
        .flat_map(|(b, bytes)| rewritten(bytes, b.base_offset, 3))
        .collect();
    let shift = switch - codecs[0].0.base_offset;
    let mut new: Vec<u8> = plain[..k]
        .iter()
        .flat_map(|(b, bytes)| rewritten(bytes, b.base_offset, 3))
        .collect();
    for (b, bytes) in &codecs {
        new.extend(rewritten(bytes, b.base_offset + shift, 5));
    }
    let mut want = flat(&plain[..k].iter().map(|(b, _)| b).collect::<Vec<_>>(), 0);
    want.extend(flat(
        &codecs.iter().map(|(b, _)| b).collect::<Vec<_>>(),
        shift,
    ));
    let old_epochs = [(3, 100)];
    let new_epochs = [(3, 100), (5, switch)];
    // Segment ids decide which copy is read first; checkpoints present or
    // not (then the epochs come from the batch headers).
    for (old_id, new_id) in [(1, 2), (2, 1)] {
        for checkpoints in [true, false] {
            let (root, dir) = tier(&[]);
            write_copy(
                &dir,
                old_id,
                100,
                &old,
                checkpoints.then_some(&old_epochs[..]),
            );
            write_copy(
                &dir,
                new_id,
                100,
                &new,
                checkpoints.then_some(&new_epochs[..]),
            );
            let (records, summary) = export(root.path(), &ExportRange::default());
            let case = format!("old id {old_id}, checkpoints {checkpoints}");
            assert_eq!(records, want, "{case}");
            assert_eq!(summary.lineage, vec![(3, 100), (5, switch)], "{case}");
            assert!(summary.problems.is_empty(), "{case}: {summary:?}");
            assert!(summary.gaps.is_empty(), "{case}: {summary:?}");
            assert!(
                summary
                    .notices
                    .iter()
                    .any(|n| n.contains("off the leader-epoch lineage")
                        && n.contains(&format!("offsets {switch}..="))),
                "{case}: {:?}",
                summary.notices
            );
            // The old copy's tail is off the lineage; the head both copies
            // share is exported once.
            assert_eq!(
                summary.divergent_batches,
                (plain.len() - k) as u64,
                "{case}"
            );
            assert_eq!(summary.overlapping_batches, k as u64, "{case}");
        }
    }
}

/// A stale leader (epoch 4) that wrote past where the next leader (epoch 5)
/// started has its records left out, and a hole no copy on the lineage
/// fills is reported as a gap, not filled with the stale records.
#[test]
fn a_stale_leaders_records_never_fill_a_gap() {
    let plain = batches_of("plain");
    let k = 4;
    let switch = plain[k].0.base_offset;
    let later = plain[k + 3].0.base_offset;
    // Copy 1: the stale leader, epoch 3 then 4 from `switch`.
    let stale: Vec<u8> = plain
        .iter()
        .enumerate()
        .flat_map(|(i, (b, bytes))| rewritten(bytes, b.base_offset, if i < k { 3 } else { 4 }))
        .collect();
    // Copy 2: the leader of epoch 5, whose segment from `switch` to `later`
    // is missing from the tier; it holds from `later` on.
    let newest: Vec<u8> = plain[k + 3..]
        .iter()
        .flat_map(|(b, bytes)| rewritten(bytes, b.base_offset, 5))
        .collect();
    let (root, dir) = tier(&[]);
    write_copy(&dir, 1, 100, &stale, Some(&[(3, 100), (4, switch)]));
    write_copy(&dir, 2, later, &newest, Some(&[(3, 100), (5, switch)]));
    let (records, summary) = export(root.path(), &ExportRange::default());
    let mut want = flat(&plain[..k].iter().map(|(b, _)| b).collect::<Vec<_>>(), 0);
    want.extend(flat(
        &plain[k + 3..].iter().map(|(b, _)| b).collect::<Vec<_>>(),
        0,
    ));
    let want: Vec<Flat> = want
        .into_iter()
        .filter(|r| committed(&segment("plain"), false).contains(r))
        .collect();
    assert_eq!(records, want);
    assert_eq!(summary.lineage, vec![(3, 100), (5, switch)]);
    assert_eq!(summary.divergent_batches, (plain.len() - k) as u64);
    assert!(summary.gaps.contains(&(switch, later - 1)), "{summary:?}");
}

/// The batches `export_log_file` writes for the tier at `root`, as the
/// facts of the fixture batches they are (found by their bytes).
fn raw_export(root: &Path, range: &ExportRange) -> (Vec<u8>, krabka_tier::ExportSummary) {
    let store = LocalFileSystem::new_with_prefix(root).unwrap();
    let out = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let listing = list_tier(&store, None).await.unwrap();
        let (summary, file) =
            krabka_tier::export_log_file(&store, &listing[0], range, out.path(), &mut |_, _| {})
                .await
                .unwrap();
        let bytes = match file {
            Some(file) => {
                assert_eq!(file.parent().unwrap(), out.path().join("orders-0"));
                fs::read(file).unwrap()
            }
            None => Vec::new(),
        };
        (bytes, summary)
    })
}

#[test]
fn raw_export_writes_the_committed_batches_byte_for_byte() {
    let (root, _) = tier(&["txn"]);
    let (bytes, summary) = raw_export(root.path(), &ExportRange::default());
    let txn = batches_of("txn");
    let committed_offsets: Vec<i64> = committed(&segment("txn"), false)
        .iter()
        .map(|r| r.0)
        .collect();
    // The batches whose records are committed, whole; markers and aborted
    // transactions left out.
    let want: Vec<u8> = txn
        .iter()
        .filter(|(b, _)| !b.is_control && committed_offsets.contains(&b.base_offset))
        .flat_map(|(_, bytes)| bytes.clone())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(bytes, want);
    assert_eq!(summary.records, committed_offsets.len() as u64);
    assert_eq!(summary.control_batches, 3);
    assert_eq!(summary.aborted_batches, 3);
    // Uncommitted: every data batch.
    let all = ExportRange {
        uncommitted: true,
        ..ExportRange::default()
    };
    let (bytes, _) = raw_export(root.path(), &all);
    let want: Vec<u8> = txn
        .iter()
        .filter(|(b, _)| !b.is_control)
        .flat_map(|(_, bytes)| bytes.clone())
        .collect();
    assert_eq!(bytes, want);
}

#[test]
fn raw_export_writes_whole_batches_that_a_bound_cuts_and_nothing_when_none_is_selected() {
    let (root, _) = tier(&["codecs"]);
    let codecs = batches_of("codecs");
    // Offsets 8..=20 cut batches 1 (6..=11) and 3 (18..=23).
    let range = ExportRange {
        from_offset: Some(8),
        to_offset: Some(20),
        ..ExportRange::default()
    };
    let (bytes, summary) = raw_export(root.path(), &range);
    let want: Vec<u8> = codecs[1..=3]
        .iter()
        .flat_map(|(_, bytes)| bytes.clone())
        .collect();
    assert_eq!(bytes, want);
    assert_eq!(summary.records, 18);
    let none = ExportRange {
        from_timestamp: Some(i64::MAX - 1),
        ..ExportRange::default()
    };
    let (bytes, summary) = raw_export(root.path(), &none);
    assert!(bytes.is_empty());
    assert_eq!(summary.records, 0);
}
