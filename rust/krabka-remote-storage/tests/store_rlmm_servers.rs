//! The durable metadata manager (`StoreRemoteLogMetadataManager`) against
//! real stores: a directory, SeaweedFS (S3 with conditional writes) and the
//! in-repo GCS server, the last two when `scripts/test.d/50-object-store.sh`
//! started them (skipped otherwise, failing under `KRABKA_REQUIRE_SERVERS=1`).
//!
//! Each store runs one scenario: two brokers racing as leaders of one
//! partition (one history, the loser fenced), a follower seeing the
//! leader's writes, a lifecycle to deletion, and restarted brokers reading
//! back everything from snapshots and tails.

mod servers;
mod support;

use {
    krabka_ids::LeaderEpoch,
    krabka_object_store::ObjectStoreConfig,
    krabka_remote_storage::{
        RemoteLogMetadataManager, RemoteLogSegmentId, RemoteLogSegmentMetadata,
        RemoteLogSegmentMetadataUpdate,
        RemoteLogSegmentState::{self, *},
        RemoteStorageError, StoreRemoteLogMetadataManager, StoreRlmmConfig, TopicIdPartition,
        store::StoreHandle,
    },
    std::{collections::HashSet, thread, time::Duration},
    support::SegmentMetadataBuilder,
    uuid::Uuid,
};

const SEGMENTS_PER_BROKER: i64 = 12;

fn tp() -> TopicIdPartition {
    TopicIdPartition::new(Uuid::from_u128(0x5157), "events", 2)
}

fn segment(n: i64, epoch: i32) -> RemoteLogSegmentMetadata {
    SegmentMetadataBuilder::new(&tp(), n * 100)
        .segment_id(Uuid::from_u128(u128::try_from(n).unwrap() + 1))
        .end_offset(n * 100 + 99)
        .size(1000)
        .epochs([(LeaderEpoch(epoch), n * 100)])
        .build()
}

fn update(n: i64, state: RemoteLogSegmentState) -> RemoteLogSegmentMetadataUpdate {
    RemoteLogSegmentMetadataUpdate::new(
        RemoteLogSegmentId::new(tp(), Uuid::from_u128(u128::try_from(n).unwrap() + 1)),
        1,
        None,
        state,
        1,
    )
}

/// Retries `write` while it is fenced, as the broker's next task run does.
fn until_unfenced(write: impl Fn() -> Result<(), RemoteStorageError>) -> usize {
    let mut fenced = 0;
    loop {
        match write() {
            Ok(()) => return fenced,
            Err(RemoteStorageError::Fenced { .. }) => fenced += 1,
            Err(other) => panic!("{other}"),
        }
    }
}

/// The whole scenario on managers built by `manager`.
fn scenario(manager: impl Fn() -> StoreRemoteLogMetadataManager + Sync) {
    let (a, b) = (manager(), manager());
    let led = HashSet::from([tp()]);
    a.on_partition_leadership_changes(&led, &HashSet::new());
    b.on_partition_leadership_changes(&led, &HashSet::new());
    // Both believe they lead; each copies its own segments, even or odd.
    let fenced: usize = thread::scope(|scope| {
        let runs: Vec<_> = [(&a, 0), (&b, 1)]
            .into_iter()
            .map(|(broker, parity)| {
                scope.spawn(move || {
                    let mut fenced = 0;
                    for k in 0..SEGMENTS_PER_BROKER {
                        let n = 2 * k + parity;
                        fenced += until_unfenced(|| {
                            broker.add_remote_log_segment_metadata(segment(n, 0))
                        });
                        fenced += until_unfenced(|| {
                            broker
                                .update_remote_log_segment_metadata(update(n, CopySegmentFinished))
                        });
                    }
                    fenced
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).sum()
    });
    let total = 2 * SEGMENTS_PER_BROKER;
    let records = u64::try_from(2 * total).unwrap();
    // One linear history with every accepted event once.
    let follower = manager();
    follower.on_partition_leadership_changes(&HashSet::new(), &led);
    assert_eq!(
        follower.applied(&tp()).unwrap(),
        records,
        "fenced {fenced} times"
    );
    assert_eq!(
        follower.list_remote_log_segments(&tp()).unwrap().len(),
        usize::try_from(total).unwrap()
    );
    assert_eq!(
        follower
            .highest_offset_for_epoch(&tp(), LeaderEpoch(0))
            .unwrap(),
        Some(total * 100 - 1)
    );
    // B steps down; A, the one leader now, retires the first segment (its
    // first write may be fenced once: it had not read B's last records).
    b.on_partition_leadership_changes(&HashSet::new(), &led);
    until_unfenced(|| a.update_remote_log_segment_metadata(update(0, DeleteSegmentStarted)));
    a.update_remote_log_segment_metadata(update(0, DeleteSegmentFinished))
        .unwrap();
    a.add_remote_log_segment_metadata(segment(total, 1))
        .unwrap();
    a.update_remote_log_segment_metadata(update(total, CopySegmentFinished))
        .unwrap();
    // A miss reads through at once.
    assert!(
        follower
            .remote_log_segment_metadata(&tp(), LeaderEpoch(1), total * 100 + 5)
            .unwrap()
            .is_some()
    );
    // Restarted brokers read everything back.
    for restarted in [manager(), manager()] {
        let listed = restarted.list_remote_log_segments(&tp()).unwrap();
        assert_eq!(listed.len(), usize::try_from(total).unwrap());
        assert!(listed.iter().all(|s| s.state() == CopySegmentFinished));
        assert_eq!(listed[0].start_offset(), 100);
        for n in 1..=total {
            let epoch = LeaderEpoch(if n == total { 1 } else { 0 });
            let found = restarted
                .remote_log_segment_metadata(&tp(), epoch, n * 100 + 50)
                .unwrap();
            assert_eq!(
                found.map(|s| s.start_offset()),
                Some(n * 100),
                "segment {n}"
            );
        }
        assert_eq!(restarted.applied(&tp()).unwrap(), records + 4);
        assert!(restarted.is_ready(&tp()));
    }
}

/// Partition `p` of three topics (so the histories' directories sort by
/// topic id, then by the partition number as text: 0, 1, 10, 11, ...).
fn spread(p: i32) -> TopicIdPartition {
    let topic = p % 3;
    TopicIdPartition::new(
        Uuid::from_u128(0xA000 + u128::try_from(topic).unwrap() * 0x1_0000_0000),
        format!("spread-{topic}"),
        p / 3,
    )
}

/// `count` copied segments of `partition` from offset `first`, recorded by
/// `broker`.
fn copy_segments(
    broker: &StoreRemoteLogMetadataManager,
    partition: &TopicIdPartition,
    first: i64,
    count: i64,
) {
    for n in first..first + count {
        let id = RemoteLogSegmentId::new(partition.clone(), Uuid::new_v4());
        let segment = SegmentMetadataBuilder::new(partition, n * 100)
            .segment_id(id.id)
            .end_offset(n * 100 + 99)
            .size(1000)
            .epochs([(LeaderEpoch(0), n * 100)])
            .build();
        broker.add_remote_log_segment_metadata(segment).unwrap();
        broker
            .update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate::new(
                id,
                1,
                None,
                CopySegmentFinished,
                1,
            ))
            .unwrap();
    }
}

/// Loads `partitions` as their leader and waits until every one is ready.
fn lead_all(broker: &StoreRemoteLogMetadataManager, partitions: &[TopicIdPartition]) {
    broker.on_partition_leadership_changes(&partitions.iter().cloned().collect(), &HashSet::new());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    for partition in partitions {
        while !broker.is_ready(partition) {
            assert!(
                std::time::Instant::now() < deadline,
                "{partition} not ready"
            );
            thread::sleep(Duration::from_millis(5));
        }
    }
}

/// A broker's restart from its checkpoint, with the store listing the
/// histories of 150 partitions together (in ranges, on S3 and GCS): what
/// another broker wrote while it was down wins over the checkpoint, and
/// every answer is the history's.
fn restart_from_checkpoint(manager: impl Fn(i32) -> StoreRemoteLogMetadataManager) {
    let partitions: Vec<_> = (0..150).map(spread).collect();
    let first = manager(1);
    lead_all(&first, &partitions);
    for (at, partition) in partitions.iter().enumerate() {
        copy_segments(&first, partition, 0, 1 + i64::try_from(at % 3).unwrap());
    }
    first.close();
    assert_eq!(first.metrics().checkpoints_written(), 1);
    // Broker 2 leads while broker 1 is down and dies: partition 4 gets one
    // segment more (records after the checkpoint), partition 5 six more (a
    // newer snapshot; the checkpoint's records compacted away).
    let second = manager(2);
    lead_all(&second, &partitions[4..6]);
    copy_segments(&second, &partitions[4], 10, 1);
    copy_segments(&second, &partitions[5], 10, 6);
    drop(second);

    let restarted = manager(1);
    lead_all(&restarted, &partitions);
    for (at, partition) in partitions.iter().enumerate() {
        let expected = 1 + at % 3 + [0, 1, 6][usize::from(at == 4) + 2 * usize::from(at == 5)];
        let listed = restarted.list_remote_log_segments(partition).unwrap();
        assert_eq!(listed.len(), expected, "{partition}");
        assert!(listed.iter().all(|s| s.state() == CopySegmentFinished));
    }
    assert_eq!(
        restarted.metrics().checkpoint_loads(),
        149,
        "every partition but the one with a newer snapshot"
    );
}

fn config() -> StoreRlmmConfig {
    StoreRlmmConfig {
        snapshot_every: 8,
        poll_interval: Duration::from_millis(100),
        ..StoreRlmmConfig::default()
    }
}

#[test]
fn filesystem() {
    let dir = tempfile::tempdir().unwrap();
    let store = ObjectStoreConfig::Local {
        root: dir.path().to_owned(),
    };
    scenario(|| {
        StoreRemoteLogMetadataManager::new(StoreHandle::from_config(&store).unwrap(), config())
    });
}

fn numbered(broker: i32) -> StoreRlmmConfig {
    StoreRlmmConfig {
        broker_id: Some(broker),
        ..config()
    }
}

#[test]
fn filesystem_restart_from_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let store = ObjectStoreConfig::Local {
        root: dir.path().to_owned(),
    };
    restart_from_checkpoint(|broker| {
        StoreRemoteLogMetadataManager::new(
            StoreHandle::from_config(&store).unwrap(),
            numbered(broker),
        )
    });
}

#[test]
fn seaweedfs_restart_from_a_checkpoint() {
    let Some(server) = servers::seaweedfs("store_rlmm_seaweedfs_checkpoint") else {
        return;
    };
    let mut s3 = server.config();
    s3.prefix = Some(servers::unique_prefix("rlmm-checkpoint"));
    let store = ObjectStoreConfig::S3(s3);
    restart_from_checkpoint(|broker| {
        StoreRemoteLogMetadataManager::new(
            StoreHandle::from_config(&store).unwrap(),
            numbered(broker),
        )
    });
}

#[test]
fn gcs_test_server_restart_from_a_checkpoint() {
    let Some(server) = servers::gcs("store_rlmm_gcs_checkpoint") else {
        return;
    };
    let mut gcs = server.config();
    gcs.prefix = Some(servers::unique_prefix("rlmm-checkpoint"));
    let store = ObjectStoreConfig::Gcs(gcs);
    restart_from_checkpoint(|broker| {
        StoreRemoteLogMetadataManager::new(
            StoreHandle::from_config(&store).unwrap(),
            numbered(broker),
        )
    });
}

#[test]
fn seaweedfs() {
    let Some(server) = servers::seaweedfs("store_rlmm_seaweedfs") else {
        return;
    };
    let mut s3 = server.config();
    s3.prefix = Some(servers::unique_prefix("rlmm"));
    let store = ObjectStoreConfig::S3(s3);
    scenario(|| {
        StoreRemoteLogMetadataManager::new(StoreHandle::from_config(&store).unwrap(), config())
    });
}

#[test]
fn gcs_test_server() {
    let Some(server) = servers::gcs("store_rlmm_gcs") else {
        return;
    };
    let mut gcs = server.config();
    gcs.prefix = Some(servers::unique_prefix("rlmm"));
    let store = ObjectStoreConfig::Gcs(gcs);
    scenario(|| {
        StoreRemoteLogMetadataManager::new(StoreHandle::from_config(&store).unwrap(), config())
    });
}
