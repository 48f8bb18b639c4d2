//! Our [`LocalTieredStorage`] driven from the command line, for the
//! interoperability test with Apache Kafka's own `LocalTieredStorage`
//! (`tests/interop/run.sh`, which runs the Java side `io.krabka.interop.KafkaTier`).
//!
//! ```text
//! kafka_tier_interop copy  <tier> <src>        copies every segment of <src>/manifest into the tier
//! kafka_tier_interop fetch <tier> <src> <out>  fetches every segment and index of the manifest into <out>
//! ```
//!
//! `<tier>` is what Kafka calls its `dir` setting: the segments live under
//! `<tier>/kafka-tiered-storage`. The manifest and the file names are the ones
//! `KafkaTier` documents: one line `name topic partition topicId segmentId
//! startOffset endOffset epoch:offset,...` per segment, its files
//! `name.log`, `name.index`, ... `fetch` writes `name.log`, `name.log@P` (from
//! byte P, a third of the segment), one file per index and
//! `name.<suffix>.missing` for an index the tier does not have.

use {
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        IndexType, LocalTieredStorage, LogSegmentData, RemoteLogSegmentDetails, RemoteLogSegmentId,
        RemoteLogSegmentMetadata, RemoteLogSegmentState, RemoteStorageError, RemoteStorageManager,
        TopicIdPartition, decode_kafka_uuid,
    },
    std::{
        collections::BTreeMap,
        error::Error,
        fs, io,
        path::{Path, PathBuf},
        process::ExitCode,
    },
};

type Fallible<T> = Result<T, Box<dyn Error>>;

/// One manifest line: a segment and where its source files are.
struct Segment {
    name: String,
    metadata: RemoteLogSegmentMetadata,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["copy", tier, src] => copy(Path::new(tier), Path::new(src)),
        ["fetch", tier, src, out] => fetch(Path::new(tier), Path::new(src), Path::new(out)),
        _ => {
            eprintln!("usage: kafka_tier_interop copy <tier> <src> | fetch <tier> <src> <out>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kafka_tier_interop: {e}");
            ExitCode::FAILURE
        }
    }
}

fn storage(tier: &Path) -> LocalTieredStorage {
    LocalTieredStorage::new(tier.join(LocalTieredStorage::KAFKA_STORAGE_DIR_NAME))
}

fn manifest(src: &Path) -> Fallible<Vec<Segment>> {
    let text = fs::read_to_string(src.join("manifest"))?;
    let mut segments = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [
            name,
            topic,
            partition,
            topic_id,
            segment_id,
            start,
            end,
            epochs,
        ] = fields.as_slice()
        else {
            return Err(format!("manifest line needs 8 fields: {line}").into());
        };
        let uuid = |s: &str| decode_kafka_uuid(s).ok_or_else(|| format!("bad Kafka uuid {s}"));
        let mut leader_epochs = BTreeMap::new();
        for pair in epochs.split(',') {
            let (epoch, offset) = pair
                .split_once(':')
                .ok_or_else(|| format!("bad epoch {pair}"))?;
            leader_epochs.insert(LeaderEpoch(epoch.parse()?), offset.parse::<i64>()?);
        }
        let size = i32::try_from(fs::metadata(src.join(format!("{name}.log")))?.len())?;
        let tp = TopicIdPartition::new(uuid(topic_id)?, *topic, partition.parse()?);
        let metadata = RemoteLogSegmentMetadata::new(
            RemoteLogSegmentId::new(tp, uuid(segment_id)?),
            start.parse()?,
            end.parse()?,
            1_700_000_000_000,
            0,
            1_700_000_000_000,
            RemoteLogSegmentDetails::new(
                size,
                RemoteLogSegmentState::CopySegmentStarted,
                leader_epochs,
            ),
        )?;
        segments.push(Segment {
            name: (*name).to_owned(),
            metadata,
        });
    }
    Ok(segments)
}

fn copy(tier: &Path, src: &Path) -> Fallible<()> {
    let storage = storage(tier);
    for segment in manifest(src)? {
        let file = |suffix: &str| src.join(format!("{}{suffix}", segment.name));
        let txn = file(IndexType::Transaction.suffix());
        let data = LogSegmentData {
            log_segment: file(".log"),
            offset_index: file(IndexType::Offset.suffix()),
            time_index: file(IndexType::Timestamp.suffix()),
            transaction_index: txn.exists().then_some(txn),
            producer_snapshot_index: Some(file(IndexType::ProducerSnapshot.suffix())),
            leader_epoch_index: fs::read(file(IndexType::LeaderEpoch.suffix()))?.into(),
        };
        storage.copy_log_segment_data(&segment.metadata, &data)?;
        println!(
            "  krabka copied {} ({}, offsets {}..{})",
            segment.name,
            segment.metadata.topic_id_partition(),
            segment.metadata.start_offset(),
            segment.metadata.end_offset()
        );
    }
    Ok(())
}

fn fetch(tier: &Path, src: &Path, out: &Path) -> Fallible<()> {
    let storage = storage(tier);
    fs::create_dir_all(out)?;
    for segment in manifest(src)? {
        let md = &segment.metadata;
        let position = u64::try_from(md.segment_size_in_bytes())? / 3;
        let target = |suffix: &str| -> PathBuf { out.join(format!("{}{suffix}", segment.name)) };
        save(storage.fetch_log_segment(md, 0, None)?, &target(".log"))?;
        save(
            storage.fetch_log_segment(md, position, None)?,
            &target(&format!(".log@{position}")),
        )?;
        let mut missing = 0;
        for index in IndexType::ALL {
            match storage.fetch_index(md, index) {
                Ok(bytes) => fs::write(target(index.suffix()), bytes)?,
                Err(RemoteStorageError::NotFound { .. }) => {
                    fs::write(target(&format!("{}.missing", index.suffix())), "NotFound")?;
                    missing += 1;
                }
                Err(e) => return Err(e.into()),
            }
        }
        println!(
            "  krabka fetched {}: segment, segment from byte {position}, {} indexes{}",
            segment.name,
            IndexType::ALL.len() - missing,
            if missing > 0 {
                format!(", {missing} not found")
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

fn save(mut reader: impl io::Read, path: &Path) -> Fallible<()> {
    let mut file = fs::File::create(path)?;
    io::copy(&mut reader, &mut file)?;
    Ok(())
}
