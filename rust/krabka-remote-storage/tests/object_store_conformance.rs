//! The shared `RemoteStorageManager` conformance suite (`support/conformance.rs`)
//! run against the object-store tier: over `object_store`'s in-memory store
//! (always), and against SeaweedFS, s3s-fs, the GCS test server and Azurite when
//! `scripts/test.d/50-object-store.sh` started them (skipped otherwise, or
//! failing under `KRABKA_REQUIRE_SERVERS=1`).
//!
//! Each backend runs twice: with the default multipart threshold (every
//! object a single PUT) and with a small threshold, so the same cases also go
//! through streamed multipart uploads and chunked, prefetched ranged reads.
//! Real servers refuse parts below 5 MiB but the last (`EntityTooSmall`), so
//! there the suite's logs (up to 1 MiB) become one-part multipart uploads;
//! the in-memory store takes 32 KiB parts and so many parts per object.

mod servers;
mod support;

use {
    krabka_remote_storage::S3RemoteStorage,
    object_store::memory::InMemory,
    std::sync::Arc,
    support::conformance::{self, Capabilities},
};

const KIB: usize = 1024;

/// Runs the suite on `tier` as is and with multipart uploads of files from
/// 64 KiB on in parts of `part` bytes.
fn run(tier: impl Fn() -> S3RemoteStorage, part: usize) {
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(&tier(), Capabilities::PLAIN, scratch.path());
    let multipart = tier()
        .with_multipart_tuning(64 * KIB as u64, part)
        .with_upload_concurrency(3)
        .with_fetch_tuning(16 * KIB, 3);
    conformance::run_rsm_conformance(&multipart, Capabilities::PLAIN, scratch.path());
}

/// The smallest part S3 and GCS accept but for the last.
const SERVER_PART: usize = 5 * 1024 * KIB;

#[test]
fn in_memory_object_store() {
    run(
        || S3RemoteStorage::with_store(Arc::new(InMemory::new()), Some("tier".to_owned())).unwrap(),
        32 * KIB,
    );
}

#[test]
fn seaweedfs() {
    let Some(server) = servers::seaweedfs("conformance_seaweedfs") else {
        return;
    };
    let prefix = servers::unique_prefix("conform");
    run(
        || {
            let mut config = server.config();
            config.prefix = Some(prefix.clone());
            S3RemoteStorage::from_s3_config(&config).unwrap()
        },
        SERVER_PART,
    );
}

#[test]
fn s3s_fs() {
    let Some(server) = servers::plain_s3("conformance_s3s_fs") else {
        return;
    };
    let prefix = servers::unique_prefix("conform");
    run(
        || {
            let mut config = server.config();
            config.prefix = Some(prefix.clone());
            S3RemoteStorage::from_s3_config(&config).unwrap()
        },
        SERVER_PART,
    );
}

#[test]
fn gcs_test_server() {
    let Some(server) = servers::gcs("conformance_gcs") else {
        return;
    };
    let prefix = servers::unique_prefix("conform");
    run(
        || {
            let mut config = server.config();
            config.prefix = Some(prefix.clone());
            S3RemoteStorage::from_gcs_config(&config).unwrap()
        },
        SERVER_PART,
    );
}

#[test]
fn azurite() {
    let Some(server) = servers::azurite("conformance_azurite") else {
        return;
    };
    let prefix = servers::unique_prefix("conform");
    run(
        || {
            let mut config = server.config();
            config.prefix = Some(prefix.clone());
            S3RemoteStorage::from_azure_config(&config).unwrap()
        },
        SERVER_PART,
    );
}
