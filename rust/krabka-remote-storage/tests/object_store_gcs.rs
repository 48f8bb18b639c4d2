//! The object-store tier against Google Cloud Storage protocol servers on
//! loopback, through `object_store`'s native GCS client (XML API):
//!
//! - the in-repo server `tests/gcs-server/server.py`, for everything
//!   including writes and XML multipart uploads;
//! - fake-gcs-server, for reads, ranged reads and deletes of objects seeded
//!   through its JSON upload API (it cannot take `object_store`'s XML writes).
//!
//! Started by `scripts/test.d/50-object-store.sh`.

mod servers;
mod support;

use {
    krabka_remote_storage::{
        IndexType, LogSegmentData, RemoteStorageError, RemoteStorageManager, S3RemoteStorage,
        partition_dir_name, segment_file_name,
    },
    servers::{GcsServer, pattern, pattern_at, segment, unique_prefix, verify_stream},
    support::{assert_deleted, orders_segment},
};

const MIB: usize = 1024 * 1024;

fn tier(server: &GcsServer, prefix: &str) -> S3RemoteStorage {
    let mut config = server.config();
    config.prefix = Some(prefix.to_owned());
    config.multipart_threshold = 5 * MIB as u64;
    config.multipart_chunk_size = 5 * MIB;
    S3RemoteStorage::from_gcs_config(&config)
        .unwrap()
        .with_upload_concurrency(3)
        .with_fetch_tuning(MIB, 3)
}

#[test]
fn gcs_round_trip_with_xml_multipart_ranges_and_deletes() {
    let Some(server) = servers::gcs("gcs_round_trip") else {
        return;
    };
    servers::round_trip(&tier(&server, &unique_prefix("gcs-round-trip")));
}

#[test]
fn gcs_missing_bucket_is_a_backend_error() {
    let Some(mut server) = servers::gcs("gcs_missing_bucket") else {
        return;
    };
    server.bucket = "krabka-missing-bucket".to_owned();
    let tier = tier(&server, "missing");
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(100);
    let err = tier
        .copy_log_segment_data(&md, &segment(dir.path(), 100, false))
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
    let Err(err) = tier.fetch_log_segment(&md, 0, None) else {
        panic!("a fetch from a missing bucket succeeded");
    };
    assert!(matches!(err, RemoteStorageError::Backend { .. }), "{err:?}");
}

/// Uploads the segment's files through the JSON media upload under `prefix`.
fn seed_through_json(
    server: &GcsServer,
    prefix: &str,
    md: &krabka_remote_storage::RemoteLogSegmentMetadata,
    data: &LogSegmentData,
) {
    let dir = format!("{prefix}/{}", partition_dir_name(md));
    let mut files = vec![
        (".log", std::fs::read(&data.log_segment).unwrap()),
        (
            IndexType::Offset.suffix(),
            std::fs::read(&data.offset_index).unwrap(),
        ),
        (
            IndexType::Timestamp.suffix(),
            std::fs::read(&data.time_index).unwrap(),
        ),
        (
            IndexType::LeaderEpoch.suffix(),
            data.leader_epoch_index.to_vec(),
        ),
    ];
    if let Some(snapshot) = &data.producer_snapshot_index {
        files.push((
            IndexType::ProducerSnapshot.suffix(),
            std::fs::read(snapshot).unwrap(),
        ));
    }
    for (suffix, bytes) in files {
        let name = format!("{dir}/{}", segment_file_name(md, suffix));
        let target = format!(
            "/upload/storage/v1/b/{}/o?uploadType=media&name={}",
            server.bucket,
            name.replace('/', "%2F")
        );
        let (status, body) = servers::http(&server.endpoint, "POST", &target, &bytes);
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    }
}

#[test]
fn fake_gcs_server_serves_fetches_and_deletes_of_json_seeded_segments() {
    let Some(server) = servers::fake_gcs("fake_gcs_reads") else {
        return;
    };
    let prefix = unique_prefix("fake-gcs");
    let tier = tier(&server, &prefix);
    let dir = tempfile::tempdir().unwrap();
    let len = 3 * MIB + 5;
    let md = orders_segment(len);
    let data = segment(dir.path(), len, false);
    seed_through_json(&server, &prefix, &md, &data);

    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, 0, None).unwrap(), 0),
        len
    );
    assert_eq!(
        verify_stream(
            tier.fetch_log_segment(&md, 100, Some(2 * MIB as u64))
                .unwrap(),
            100
        ),
        2 * MIB + 1 - 100
    );
    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, len as u64, None).unwrap(), len),
        0
    );
    assert!(matches!(
        tier.fetch_log_segment(&md, len as u64 + 1, None),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    let mut head = vec![0; 10];
    std::io::Read::read_exact(
        &mut tier.fetch_log_segment(&md, 7, Some(16)).unwrap(),
        &mut head,
    )
    .unwrap();
    assert_eq!(head, pattern_at(7, 10));
    assert_eq!(
        tier.fetch_index(&md, IndexType::Offset).unwrap(),
        pattern(800, 1)
    );
    assert_eq!(
        tier.fetch_index(&md, IndexType::LeaderEpoch).unwrap(),
        b"0\n1\n0 0\n"
    );
    assert!(matches!(
        tier.fetch_index(&md, IndexType::Transaction),
        Err(RemoteStorageError::NotFound { .. })
    ));
    assert_deleted(tier.delete_log_segment_data(&md), "delete");
    assert_deleted(tier.delete_log_segment_data(&md), "delete again");
    assert!(matches!(
        tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
}
