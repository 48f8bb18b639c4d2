//! The chunked segment format (compressed and encrypted) on real object
//! stores: the RSM conformance suite on SeaweedFS (S3), the GCS test server
//! and Azurite, with encoded objects streamed as multipart uploads. Started
//! by `scripts/test.d/50-object-store.sh`; skipped without servers unless
//! `KRABKA_REQUIRE_SERVERS=1`.

mod servers;
mod support;

use {
    krabka_remote_storage::S3RemoteStorage,
    support::{
        conformance::{self, Capabilities},
        keys::{ring, sealing_codec, write_key_pair},
    },
};

/// The smallest part S3 and GCS accept but for the last.
const SERVER_PART: usize = 5 * 1024 * 1024;

/// Runs the suite on `tier` writing compressed and encrypted segments in
/// chunks of 64 KiB, with every encoded object of 64 KiB or more uploaded in
/// parts.
fn run(tier: S3RemoteStorage) {
    let dir = tempfile::tempdir().unwrap();
    let pair = write_key_pair(dir.path(), "k1");
    let tier = tier
        .with_codec(sealing_codec(64 * 1024, ring("k1", &[pair])))
        .unwrap()
        .with_multipart_tuning(64 * 1024, SERVER_PART)
        .with_upload_concurrency(2);
    conformance::run_rsm_conformance(&tier, Capabilities::PLAIN, &dir.path().join("scratch"));
}

#[test]
fn seaweedfs() {
    let Some(server) = servers::seaweedfs("chunked_seaweedfs") else {
        return;
    };
    let mut config = server.config();
    config.prefix = Some(servers::unique_prefix("chunked"));
    run(S3RemoteStorage::from_s3_config(&config).unwrap());
}

#[test]
fn gcs_test_server() {
    let Some(server) = servers::gcs("chunked_gcs") else {
        return;
    };
    let mut config = server.config();
    config.prefix = Some(servers::unique_prefix("chunked"));
    run(S3RemoteStorage::from_gcs_config(&config).unwrap());
}

#[test]
fn azurite() {
    let Some(server) = servers::azurite("chunked_azurite") else {
        return;
    };
    let mut config = server.config();
    config.prefix = Some(servers::unique_prefix("chunked"));
    run(S3RemoteStorage::from_azure_config(&config).unwrap());
}
