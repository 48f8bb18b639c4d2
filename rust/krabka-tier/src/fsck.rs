//! [`check_tier`]: the tier compared with its metadata histories. Objects no
//! record names (orphans), records whose objects are gone (missing),
//! copies a leader started and never finished, and what is left of deleted
//! topics.
//!
//! The comparison itself is a pure function of two listings, taken in this
//! order: the tier first, the histories after it. A copy's record is
//! written before its objects, so every object the tier listing shows is
//! named by a history read later, unless it really is an orphan (or it was
//! being deleted meanwhile: deleting it again is harmless). Deleting
//! orphans therefore never removes a live segment's objects.

use {
    crate::listing::{PartitionListing, SegmentListing},
    krabka_kafka::{
        LOG_FILE_SUFFIX, RemoteLogSegmentMetadata, RemoteLogSegmentState, decode_kafka_uuid,
        kafka_uuid,
    },
    krabka_remote_storage::HistoryView,
    serde::Serialize,
    std::collections::{HashMap, HashSet},
    uuid::Uuid,
};

/// What the check compares.
#[derive(Debug, Clone, Copy)]
pub struct FsckInput<'a> {
    /// The tier's partition directories and segment copies.
    pub tier: &'a [PartitionListing],
    /// The metadata histories of the partitions.
    pub histories: &'a [HistoryView],
    /// The ids of the topics the cluster has, when known: a history or a
    /// partition directory of any other topic is what is left of a deleted
    /// topic.
    pub live_topics: Option<&'a HashSet<Uuid>>,
    /// The tier is a write-once archive: objects no record names are what
    /// it retains, not orphans.
    pub archive: bool,
    /// Now, in milliseconds since the epoch (ages are counted from it).
    pub now_ms: i64,
}

/// What the check found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FsckReport {
    /// Partition directories of the tier.
    pub tier_partitions: usize,
    /// Segment copies in the tier.
    pub tier_segments: usize,
    /// Metadata histories read.
    pub histories: usize,
    /// Segments the histories name that are not deleted.
    pub live_segments: usize,
    /// Segment copies in the tier no history names (on a plain tier).
    pub orphans: Vec<Orphan>,
    /// Segment copies an archive retains after Kafka deleted them (on a
    /// write-once archive, instead of orphans).
    pub retained: usize,
    /// Finished copies whose log object is not in the tier.
    pub missing: Vec<Missing>,
    /// Copies started and never finished (their leader died or is still at
    /// it; Kafka's expiration task deletes them).
    pub unfinished: Vec<Unfinished>,
    /// Histories of topics the cluster no longer has.
    pub deleted_topic_histories: Vec<DeletedTopicHistory>,
    /// Histories that name no live segment, of topics not known to be
    /// deleted or alive (give the live topics to decide).
    pub empty_histories: Vec<String>,
}

impl FsckReport {
    /// Whether the tier and its metadata agree: no orphan, nothing missing,
    /// nothing left of a deleted topic.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.orphans.is_empty()
            && self.missing.is_empty()
            && self.deleted_topic_histories.is_empty()
    }
}

/// A segment copy in the tier that no history names.
#[derive(Debug, Clone, Serialize)]
pub struct Orphan {
    /// Its partition directory.
    pub dir: String,
    /// The copy's segment id.
    pub segment_id: Uuid,
    /// Its start offset.
    pub start_offset: i64,
    /// Its objects.
    pub keys: Vec<String>,
    /// Milliseconds since its newest object was written.
    pub age_ms: i64,
    /// Its topic was deleted (the live topics say so).
    pub topic_deleted: bool,
}

/// A finished copy whose log is not in the tier.
#[derive(Debug, Clone, Serialize)]
pub struct Missing {
    /// The partition (`<topic>-<partition>`).
    pub partition: String,
    /// The segment id.
    pub segment_id: Uuid,
    /// Its start offset.
    pub start_offset: i64,
    /// Its end offset.
    pub end_offset: i64,
    /// What the tier holds of it (suffixes), if anything.
    pub present: Vec<String>,
}

/// A copy started and not finished.
#[derive(Debug, Clone, Serialize)]
pub struct Unfinished {
    /// The partition (`<topic>-<partition>`).
    pub partition: String,
    /// The segment id.
    pub segment_id: Uuid,
    /// Its start offset.
    pub start_offset: i64,
    /// The broker that started it.
    pub broker_id: i32,
    /// Milliseconds since it started.
    pub age_ms: i64,
    /// How many of its objects the tier holds.
    pub objects_present: usize,
}

/// The history of a partition whose topic the cluster no longer has.
#[derive(Debug, Clone, Serialize)]
pub struct DeletedTopicHistory {
    /// The partition (`<topicId>-<partition>`, and its topic's name).
    pub partition: String,
    /// The history's objects.
    pub keys: Vec<String>,
    /// Segments it still names as not deleted.
    pub live_segments: usize,
    /// Milliseconds since its newest object was written.
    pub age_ms: i64,
}

/// Compares the tier with its histories.
#[must_use]
pub fn check_tier(input: FsckInput<'_>) -> FsckReport {
    let mut report = FsckReport {
        tier_partitions: input.tier.len(),
        tier_segments: input.tier.iter().map(|p| p.segments.len()).sum(),
        histories: input.histories.len(),
        ..FsckReport::default()
    };
    let copies: HashMap<Uuid, (&PartitionListing, &SegmentListing)> = input
        .tier
        .iter()
        .flat_map(|partition| {
            partition
                .segments
                .iter()
                .map(move |segment| (segment.segment_id, (partition, segment)))
        })
        .collect();
    let mut named: HashSet<Uuid> = HashSet::new();
    for history in input.histories {
        let deleted = input
            .live_topics
            .is_some_and(|live| !live.contains(&history.partition.topic_id));
        let age_ms = input.now_ms.saturating_sub(history.last_written_ms);
        let partition = format!(
            "{}-{}",
            history.partition.topic, history.partition.partition
        );
        if deleted {
            report.deleted_topic_histories.push(DeletedTopicHistory {
                partition: format!(
                    "{}-{} ({})",
                    kafka_uuid(history.partition.topic_id),
                    history.partition.partition,
                    if history.partition.topic.is_empty() {
                        "name unknown"
                    } else {
                        &history.partition.topic
                    }
                ),
                keys: history.objects.clone(),
                live_segments: history.segments.len(),
                age_ms,
            });
        } else if history.segments.is_empty() && input.live_topics.is_none() {
            report.empty_histories.push(format!(
                "{}-{}",
                kafka_uuid(history.partition.topic_id),
                history.partition.partition
            ));
        }
        for segment in &history.segments {
            let id = segment.remote_log_segment_id().id;
            named.insert(id);
            report.live_segments += 1;
            let copy = copies.get(&id).map(|(_, copy)| *copy);
            match segment.state() {
                RemoteLogSegmentState::CopySegmentFinished
                    if copy.is_none_or(|copy| copy.log_key.is_none()) =>
                {
                    report.missing.push(missing(&partition, segment, copy));
                }
                RemoteLogSegmentState::CopySegmentStarted => {
                    report.unfinished.push(Unfinished {
                        partition: partition.clone(),
                        segment_id: id,
                        start_offset: segment.start_offset(),
                        broker_id: segment.broker_id(),
                        age_ms: input.now_ms.saturating_sub(segment.event_timestamp_ms()),
                        objects_present: copy.map_or(0, |copy| copy.files.len()),
                    });
                }
                // Being deleted: its objects may be partly gone.
                _ => {}
            }
        }
    }
    for partition in input.tier {
        let topic_deleted = input
            .live_topics
            .is_some_and(|live| !live.contains(&partition.topic_id));
        for segment in &partition.segments {
            if named.contains(&segment.segment_id) {
                continue;
            }
            if input.archive {
                report.retained += 1;
                continue;
            }
            report.orphans.push(Orphan {
                dir: partition.dir.clone(),
                segment_id: segment.segment_id,
                start_offset: segment.start_offset,
                keys: segment.files.values().cloned().collect(),
                age_ms: input.now_ms.saturating_sub(segment.last_modified_ms),
                topic_deleted,
            });
        }
    }
    report
}

fn missing(
    partition: &str,
    segment: &RemoteLogSegmentMetadata,
    copy: Option<&SegmentListing>,
) -> Missing {
    Missing {
        partition: partition.to_owned(),
        segment_id: segment.remote_log_segment_id().id,
        start_offset: segment.start_offset(),
        end_offset: segment.end_offset(),
        present: copy.map_or_else(Vec::new, |copy| {
            copy.files
                .keys()
                .filter(|suffix| suffix.as_str() != LOG_FILE_SUFFIX)
                .cloned()
                .collect()
        }),
    }
}

/// The topic ids of a live-topics file: one id per line in Kafka's text
/// form (as `kafka-topics.sh --describe` prints after `TopicId:`); blank
/// lines and `#` comments are skipped.
///
/// # Errors
/// The first line that is not a topic id, with its number.
pub fn parse_live_topics(text: &str) -> Result<HashSet<Uuid>, String> {
    let mut ids = HashSet::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let id = decode_kafka_uuid(line)
            .ok_or_else(|| format!("line {}: `{line}` is not a Kafka topic id", number + 1))?;
        ids.insert(id);
    }
    Ok(ids)
}

/// A duration of `--older-than`: a number and a unit (`s`, `m`, `h`, `d`),
/// in milliseconds.
///
/// # Errors
/// A message saying what is expected.
pub fn parse_age(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: i64 = number
        .parse()
        .map_err(|_| format!("`{text}`: expected a number and a unit, e.g. 30m, 6h or 7d"))?;
    let unit_ms = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(format!("`{text}`: the unit is one of s, m, h, d")),
    };
    number
        .checked_mul(unit_ms)
        .ok_or_else(|| format!("`{text}` is too long"))
}

#[cfg(test)]
mod tests;
