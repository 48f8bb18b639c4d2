//! The remote-tier key codec: Kafka UUID text, partition directory names and
//! segment file names.
//!
//! The layout is `<topic>-<partition>-<topicId>/<offset:020>-<segmentId><suffix>`,
//! byte-compatible with Apache Kafka's own `LocalTieredStorage`, so either
//! implementation reads a tier the other wrote. Pure functions, no I/O.

use {
    crate::RemoteLogSegmentMetadata,
    base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD},
    uuid::Uuid,
};

/// Length of a UUID in Kafka's text form.
const KAFKA_UUID_LEN: usize = 22;

/// Width of the zero-padded base offset in segment file names.
const OFFSET_WIDTH: usize = 20;

/// A UUID as Kafka prints it (`org.apache.kafka.common.Uuid#toString`):
/// URL-safe base64 of the 16 bytes without padding, always 22 characters.
///
/// ```
/// use krabka_kafka::kafka_uuid;
/// use uuid::Uuid;
/// assert_eq!(kafka_uuid(Uuid::from_u128(1)), "AAAAAAAAAAAAAAAAAAAAAQ");
/// assert_eq!(kafka_uuid(Uuid::from_u128(0xfe)), "AAAAAAAAAAAAAAAAAAAA_g");
/// ```
#[must_use]
pub fn kafka_uuid(id: Uuid) -> String {
    URL_SAFE_NO_PAD.encode(id.as_bytes())
}

/// Parses Kafka's text form of a UUID. Only the canonical encoding is
/// accepted: exactly 22 characters of the URL-safe alphabet whose unused
/// trailing bits are zero, so `kafka_uuid(decode_kafka_uuid(s)?) == s`.
///
/// ```
/// use krabka_kafka::decode_kafka_uuid;
/// use uuid::Uuid;
/// assert_eq!(decode_kafka_uuid("AAAAAAAAAAAAAAAAAAAAAQ"), Some(Uuid::from_u128(1)));
/// assert_eq!(decode_kafka_uuid("AAAAAAAAAAAAAAAAAAAAAR"), None); // non-canonical
/// assert_eq!(decode_kafka_uuid("AAAAAAAAAAAAAAAAAAAAAQ=="), None); // padded
/// ```
#[must_use]
pub fn decode_kafka_uuid(text: &str) -> Option<Uuid> {
    if text.len() != KAFKA_UUID_LEN {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
    let bytes: [u8; 16] = bytes.try_into().ok()?;
    Some(Uuid::from_bytes(bytes))
}

/// The parts of a partition directory name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionDirName {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Topic id.
    pub topic_id: Uuid,
}

/// The directory (or key prefix) of a segment's partition:
/// `<topic>-<partition>-<topicId>`.
///
/// ```
/// # use krabka_kafka::*;
/// # use krabka_ids::LeaderEpoch;
/// # use std::collections::BTreeMap;
/// # use uuid::Uuid;
/// let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 7);
/// let id = RemoteLogSegmentId::new(tp, Uuid::from_u128(2));
/// let details = RemoteLogSegmentDetails::new(0, RemoteLogSegmentState::CopySegmentStarted,
///     BTreeMap::from([(LeaderEpoch(0), 0)]));
/// let md = RemoteLogSegmentMetadata::new(id, 0, 0, 0, 0, 0, details).unwrap();
/// assert_eq!(partition_dir_name(&md), "orders-7-AAAAAAAAAAAAAAAAAAAAAQ");
/// ```
#[must_use]
pub fn partition_dir_name(metadata: &RemoteLogSegmentMetadata) -> String {
    let tp = metadata.topic_id_partition();
    format!("{}-{}-{}", tp.topic, tp.partition, kafka_uuid(tp.topic_id))
}

/// Parses a partition directory name from the right, so topic names that
/// contain `-` and digits parse correctly (`orders-7-3-<id>` is topic
/// `orders-7`, partition 3).
///
/// Refused: an id that is not a canonical Kafka UUID, a partition that is not
/// a non-negative decimal `i32`, an empty topic, a topic containing `/`.
///
/// ```
/// use krabka_kafka::parse_partition_dir_name;
/// let parsed = parse_partition_dir_name("orders-7-3-AAAAAAAAAAAAAAAAAAAAAQ").unwrap();
/// assert_eq!((parsed.topic.as_str(), parsed.partition), ("orders-7", 3));
/// assert!(parse_partition_dir_name("-3-AAAAAAAAAAAAAAAAAAAAAQ").is_none());
/// ```
#[must_use]
pub fn parse_partition_dir_name(name: &str) -> Option<PartitionDirName> {
    let split = name.len().checked_sub(KAFKA_UUID_LEN + 1)?;
    let (rest, id_part) = (name.get(..split)?, name.get(split..)?);
    let id_text = id_part.strip_prefix('-')?;
    let topic_id = decode_kafka_uuid(id_text)?;
    let (topic, partition_text) = rest.rsplit_once('-')?;
    let partition = parse_decimal_i32(partition_text)?;
    if topic.is_empty() || topic.contains('/') {
        return None;
    }
    Some(PartitionDirName {
        topic: topic.to_owned(),
        partition,
        topic_id,
    })
}

/// The parts of a segment file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentFileName<'a> {
    /// The segment's start offset.
    pub base_offset: i64,
    /// The segment copy's id.
    pub segment_id: Uuid,
    /// The file suffix (`.log`, `.index`, …), possibly empty.
    pub suffix: &'a str,
}

/// The file name of one of a segment's files:
/// `<start offset, 20 digits>-<segmentId><suffix>`.
#[must_use]
pub fn segment_file_name(metadata: &RemoteLogSegmentMetadata, suffix: &str) -> String {
    format!(
        "{:0width$}-{}{}",
        metadata.start_offset(),
        kafka_uuid(metadata.remote_log_segment_id().id),
        suffix,
        width = OFFSET_WIDTH
    )
}

/// Parses a segment file name. The fixed widths let it parse from the left
/// although Kafka's UUID alphabet contains `-`.
///
/// ```
/// use krabka_kafka::parse_segment_file_name;
/// let parsed = parse_segment_file_name("00000000000000000011-AAAAAAAAAAAAAAAAAAAA_g.snapshot").unwrap();
/// assert_eq!((parsed.base_offset, parsed.suffix), (11, ".snapshot"));
/// assert!(parse_segment_file_name("11-AAAAAAAAAAAAAAAAAAAA_g.log").is_none());
/// ```
#[must_use]
pub fn parse_segment_file_name(name: &str) -> Option<SegmentFileName<'_>> {
    let offset_text = name.get(..OFFSET_WIDTH)?;
    if !offset_text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let base_offset: i64 = offset_text.parse().ok()?;
    let rest = name.get(OFFSET_WIDTH..)?.strip_prefix('-')?;
    let segment_id = decode_kafka_uuid(rest.get(..KAFKA_UUID_LEN)?)?;
    let suffix = rest.get(KAFKA_UUID_LEN..)?;
    Some(SegmentFileName {
        base_offset,
        segment_id,
        suffix,
    })
}

/// A non-negative decimal `i32` with no sign and no leading `+`.
fn parse_decimal_i32(text: &str) -> Option<i32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{
            RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentState, TopicIdPartition,
        },
        krabka_ids::LeaderEpoch,
        proptest::prelude::*,
        std::collections::BTreeMap,
    };

    fn metadata(
        topic: &str,
        partition: i32,
        topic_id: u128,
        segment: u128,
        start: i64,
    ) -> RemoteLogSegmentMetadata {
        let tp = TopicIdPartition::new(Uuid::from_u128(topic_id), topic, partition);
        RemoteLogSegmentMetadata::new(
            RemoteLogSegmentId::new(tp, Uuid::from_u128(segment)),
            start,
            start,
            0,
            0,
            0,
            RemoteLogSegmentDetails::new(
                0,
                RemoteLogSegmentState::CopySegmentStarted,
                BTreeMap::from([(LeaderEpoch(0), start)]),
            ),
        )
        .unwrap()
    }

    #[test]
    fn kafka_uuid_vectors() {
        for (value, text) in [
            (1, "AAAAAAAAAAAAAAAAAAAAAQ"),
            (0x0a, "AAAAAAAAAAAAAAAAAAAACg"),
            (0x1e, "AAAAAAAAAAAAAAAAAAAAHg"),
            (0xfe, "AAAAAAAAAAAAAAAAAAAA_g"),
        ] {
            assert_eq!(kafka_uuid(Uuid::from_u128(value)), text);
            assert_eq!(decode_kafka_uuid(text), Some(Uuid::from_u128(value)));
        }
    }

    #[test]
    fn non_canonical_or_malformed_uuids_are_refused() {
        for text in [
            "",
            "AAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAQA",
            "AAAAAAAAAAAAAAAAAAAAAR",
            "AAAAAAAAAAAAAAAAAAAA+g",
            "AAAAAAAAAAAAAAAAAAAA/g",
            "AAAAAAAAAAAAAAAAAAAA=g",
            "AAAAAAAAAAAAAAAAAAAAAé",
        ] {
            assert_eq!(decode_kafka_uuid(text), None, "{text:?}");
        }
    }

    #[test]
    fn names_match_kafka_local_tiered_storage() {
        let md = metadata("orders", 0, 1, 0x1e, 0);
        assert_eq!(partition_dir_name(&md), "orders-0-AAAAAAAAAAAAAAAAAAAAAQ");
        assert_eq!(
            segment_file_name(&md, ".log"),
            "00000000000000000000-AAAAAAAAAAAAAAAAAAAAHg.log"
        );
        let md = metadata("orders", 0, 1, 0xfe, 11);
        assert_eq!(
            segment_file_name(&md, ".snapshot"),
            "00000000000000000011-AAAAAAAAAAAAAAAAAAAA_g.snapshot"
        );
    }

    #[test]
    fn partition_dir_names_parse_from_the_right() {
        let id = "AAAAAAAAAAAAAAAAAAAAAQ";
        let parsed = parse_partition_dir_name(&format!("orders--1-{id}")).unwrap();
        assert_eq!((parsed.topic.as_str(), parsed.partition), ("orders-", 1));
        for bad in [
            String::new(),
            format!("orders-{id}"),
            format!("orders-x-{id}"),
            format!("orders--{id}"),
            format!("-1-{id}"),
            format!("a/b-1-{id}"),
            format!("orders-+1-{id}"),
            format!("orders-1-{id}A"),
            format!("orders-1-{}", &id[1..]),
            format!("orders-99999999999-{id}"),
        ] {
            assert_eq!(parse_partition_dir_name(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn malformed_segment_file_names_are_refused() {
        for bad in [
            "",
            "0000000000000000000-AAAAAAAAAAAAAAAAAAAAAQ.log",
            "0000000000000000000x-AAAAAAAAAAAAAAAAAAAAAQ.log",
            "00000000000000000000_AAAAAAAAAAAAAAAAAAAAAQ.log",
            "00000000000000000000-AAAAAAAAAAAAAAAAAAAA.log",
            "99999999999999999999-AAAAAAAAAAAAAAAAAAAAAQ.log",
        ] {
            assert_eq!(parse_segment_file_name(bad), None, "{bad:?}");
        }
        let parsed =
            parse_segment_file_name("00000000000000000000-AAAAAAAAAAAAAAAAAAAAAQ").unwrap();
        assert_eq!(parsed.suffix, "");
    }

    proptest! {
        #[test]
        fn kafka_uuid_round_trips(value in any::<u128>()) {
            let id = Uuid::from_u128(value);
            let text = kafka_uuid(id);
            prop_assert_eq!(text.len(), 22);
            prop_assert_eq!(decode_kafka_uuid(&text), Some(id));
        }

        #[test]
        fn decode_is_canonical(text in "[A-Za-z0-9_-]{22}") {
            if let Some(id) = decode_kafka_uuid(&text) {
                prop_assert_eq!(kafka_uuid(id), text);
            }
        }

        #[test]
        fn partition_dir_name_round_trips(
            topic in "[a-zA-Z0-9._]{1,6}(-[a-zA-Z0-9._]{0,6}){0,3}",
            partition in 0..=i32::MAX,
            topic_id in any::<u128>(),
        ) {
            let md = metadata(&topic, partition, topic_id, 1, 0);
            let parsed = parse_partition_dir_name(&partition_dir_name(&md)).unwrap();
            prop_assert_eq!(parsed.topic, topic);
            prop_assert_eq!(parsed.partition, partition);
            prop_assert_eq!(parsed.topic_id, Uuid::from_u128(topic_id));
        }

        #[test]
        fn segment_file_name_round_trips(
            start in 0..=i64::MAX,
            segment in any::<u128>(),
            suffix in prop::sample::select(vec!["", ".log", ".index", ".timeindex", ".txnindex", ".snapshot", ".leader_epoch_checkpoint"]),
        ) {
            let md = metadata("t", 0, 1, segment, start);
            let name = segment_file_name(&md, suffix);
            let parsed = parse_segment_file_name(&name).unwrap();
            prop_assert_eq!(parsed.base_offset, start);
            prop_assert_eq!(parsed.segment_id, Uuid::from_u128(segment));
            prop_assert_eq!(parsed.suffix, suffix);
        }

        #[test]
        fn parsers_never_panic(text in "\\PC{0,80}") {
            let _ = parse_partition_dir_name(&text);
            let _ = parse_segment_file_name(&text);
            let _ = decode_kafka_uuid(&text);
        }
    }
}
