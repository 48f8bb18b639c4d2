use {
    super::*,
    krabka_ids::LeaderEpoch,
    krabka_kafka::{RemoteLogSegmentDetails, RemoteLogSegmentId, TopicIdPartition},
    std::collections::BTreeMap,
};

const TOPIC: Uuid = Uuid::from_u128(0x10);
const GONE: Uuid = Uuid::from_u128(0x20);
const NOW: i64 = 10_000_000;

fn segment(
    topic: Uuid,
    id: u128,
    start: i64,
    state: RemoteLogSegmentState,
    event_ms: i64,
) -> RemoteLogSegmentMetadata {
    let partition = TopicIdPartition::new(topic, "t", 0);
    let details =
        RemoteLogSegmentDetails::new(100, state, BTreeMap::from([(LeaderEpoch(0), start)]));
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(partition, Uuid::from_u128(id)),
        start,
        start + 9,
        0,
        2,
        event_ms,
        details,
    )
    .unwrap()
}

fn copy(id: u128, start: i64, with_log: bool, modified_ms: i64) -> SegmentListing {
    let mut files = BTreeMap::new();
    for suffix in [".log", ".index", ".timeindex"] {
        if suffix != ".log" || with_log {
            files.insert(suffix.to_owned(), format!("t-0-x/{start:020}-{id}{suffix}"));
        }
    }
    SegmentListing {
        start_offset: start,
        segment_id: Uuid::from_u128(id),
        log_key: with_log.then(|| format!("t-0-x/{start:020}-{id}.log")),
        log_bytes: 100,
        files,
        last_modified_ms: modified_ms,
        details: None,
    }
}

fn partition(topic: Uuid, segments: Vec<SegmentListing>) -> PartitionListing {
    PartitionListing {
        dir: format!("t-0-{}", kafka_uuid(topic)),
        topic: "t".to_owned(),
        topic_id: topic,
        partition: 0,
        segments,
        other_keys: Vec::new(),
    }
}

fn history(topic: Uuid, segments: Vec<RemoteLogSegmentMetadata>) -> HistoryView {
    HistoryView {
        partition: TopicIdPartition::new(topic, "t", 0),
        segments,
        objects: vec![format!("remote-log-metadata/{}-0/log/1", kafka_uuid(topic))],
        last_written_ms: NOW - 1_000,
    }
}

fn input<'a>(
    tier: &'a [PartitionListing],
    histories: &'a [HistoryView],
    live: Option<&'a HashSet<Uuid>>,
) -> FsckInput<'a> {
    FsckInput {
        tier,
        histories,
        live_topics: live,
        archive: false,
        now_ms: NOW,
    }
}

#[test]
fn a_tier_that_matches_its_histories_is_clean() {
    let tier = [partition(
        TOPIC,
        vec![copy(1, 0, true, 5), copy(2, 10, true, 6)],
    )];
    let histories = [history(
        TOPIC,
        vec![
            segment(TOPIC, 1, 0, RemoteLogSegmentState::CopySegmentFinished, 1),
            segment(TOPIC, 2, 10, RemoteLogSegmentState::CopySegmentFinished, 1),
        ],
    )];
    let report = check_tier(input(&tier, &histories, None));
    assert!(report.is_clean(), "{report:?}");
    assert_eq!((report.tier_segments, report.live_segments), (2, 2));
    assert!(report.unfinished.is_empty() && report.empty_histories.is_empty());
}

#[test]
fn orphans_missing_and_unfinished_copies_are_told_apart() {
    let tier = [partition(
        TOPIC,
        vec![
            // Named and whole.
            copy(1, 0, true, 5),
            // A dead leader's copy Kafka later deleted in the metadata only.
            copy(7, 10, true, NOW - 3_600_000),
            // Started, objects half there.
            copy(3, 20, false, 5),
            // Finished, but its log is gone.
            copy(4, 30, false, 5),
        ],
    )];
    let histories = [history(
        TOPIC,
        vec![
            segment(TOPIC, 1, 0, RemoteLogSegmentState::CopySegmentFinished, 1),
            segment(
                TOPIC,
                3,
                20,
                RemoteLogSegmentState::CopySegmentStarted,
                NOW - 60_000,
            ),
            segment(TOPIC, 4, 30, RemoteLogSegmentState::CopySegmentFinished, 1),
            // Finished, nothing of it in the tier.
            segment(TOPIC, 5, 40, RemoteLogSegmentState::CopySegmentFinished, 1),
            // Being deleted: objects may be gone, not missing.
            segment(TOPIC, 6, 50, RemoteLogSegmentState::DeleteSegmentStarted, 1),
        ],
    )];
    let report = check_tier(input(&tier, &histories, None));
    assert!(!report.is_clean());
    assert_eq!(report.orphans.len(), 1);
    let orphan = &report.orphans[0];
    assert_eq!(orphan.segment_id, Uuid::from_u128(7));
    assert_eq!(orphan.age_ms, 3_600_000);
    assert_eq!(orphan.keys.len(), 3);
    assert!(!orphan.topic_deleted);
    let missing: Vec<_> = report
        .missing
        .iter()
        .map(|m| m.segment_id.as_u128())
        .collect();
    assert_eq!(missing, vec![4, 5]);
    assert_eq!(report.missing[0].present, vec![".index", ".timeindex"]);
    assert_eq!(report.unfinished.len(), 1);
    assert_eq!(report.unfinished[0].age_ms, 60_000);
    assert_eq!(report.unfinished[0].objects_present, 2);
    assert_eq!(report.unfinished[0].broker_id, 2);
}

#[test]
fn the_live_topics_tell_what_is_left_of_a_deleted_topic() {
    let tier = [
        partition(TOPIC, vec![copy(1, 0, true, 5)]),
        partition(GONE, vec![copy(9, 0, true, 5)]),
    ];
    let histories = [
        history(
            TOPIC,
            vec![segment(
                TOPIC,
                1,
                0,
                RemoteLogSegmentState::CopySegmentFinished,
                1,
            )],
        ),
        // Every segment deleted, the history left behind.
        history(GONE, Vec::new()),
    ];
    // Without the live topics: an empty history is only a candidate, and
    // the unnamed copy an orphan.
    let unsure = check_tier(input(&tier, &histories, None));
    assert_eq!(unsure.empty_histories.len(), 1);
    assert!(unsure.deleted_topic_histories.is_empty());
    assert!(!unsure.orphans[0].topic_deleted);
    let live = HashSet::from([TOPIC]);
    let report = check_tier(input(&tier, &histories, Some(&live)));
    assert_eq!(report.deleted_topic_histories.len(), 1);
    assert_eq!(report.deleted_topic_histories[0].keys.len(), 1);
    assert!(report.empty_histories.is_empty());
    assert_eq!(report.orphans.len(), 1);
    assert!(report.orphans[0].topic_deleted);
    assert!(!report.is_clean());
}

#[test]
fn an_archive_retains_what_no_record_names() {
    let tier = [partition(
        TOPIC,
        vec![copy(1, 0, true, 5), copy(2, 10, true, 5)],
    )];
    let histories = [history(TOPIC, Vec::new())];
    let mut checked = input(&tier, &histories, None);
    checked.archive = true;
    let report = check_tier(checked);
    assert!(report.orphans.is_empty());
    assert_eq!(report.retained, 2);
    assert!(report.is_clean());
}

#[test]
fn ages_and_live_topic_files_parse_or_say_why_not() {
    assert_eq!(parse_age("90s"), Ok(90_000));
    assert_eq!(parse_age("30m"), Ok(1_800_000));
    assert_eq!(parse_age("6h"), Ok(21_600_000));
    assert_eq!(parse_age("7d"), Ok(604_800_000));
    for bad in ["", "7", "d", "7w", "-1h", "99999999999999999999d"] {
        assert!(parse_age(bad).is_err(), "{bad}");
    }
    let text = format!(
        "# live\n{}\n\n{}  # orders\n",
        kafka_uuid(TOPIC),
        kafka_uuid(GONE)
    );
    assert_eq!(parse_live_topics(&text), Ok(HashSet::from([TOPIC, GONE])));
    let err = parse_live_topics("AAAA\n").unwrap_err();
    assert!(err.starts_with("line 1:"), "{err}");
}
