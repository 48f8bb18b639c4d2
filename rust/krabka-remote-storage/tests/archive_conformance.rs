//! The shared `RemoteStorageManager` conformance suite (`support/conformance.rs`)
//! run against the write-once archive tier (`WormRemoteStorage`) over
//! `object_store`'s in-memory store, read-write and write-only. The archive
//! declares what it does differently ([`Capabilities::archive`]): a re-copy is
//! `AlreadyExists`, a delete is `RetainedByArchive`, copies of one partition
//! are chained, and a write-only archive refuses every fetch. The same suite
//! runs against a SeaweedFS Object Lock bucket in `worm_servers.rs`.
//!
//! The in-memory store keeps no object versions, and the archive must pin the
//! version of every multipart object (it refuses a multipart upload that
//! comes back without one), so here every file goes up as one create-only
//! PUT: the multipart threshold is above the suite's largest log. The
//! archive's multipart path runs on SeaweedFS.

mod support;

use {
    krabka_remote_storage::{ManifestSigner, S3RemoteStorage, SegmentCodec, WormRemoteStorage},
    object_store::memory::InMemory,
    std::sync::Arc,
    support::{
        conformance::{self, Capabilities, LARGE_LOG},
        keys::{ring, sealing_codec, write_key_pair},
    },
};

/// Files below this size go up as one create-only PUT.
const SINGLE_PUT_BELOW: u64 = 2 * LARGE_LOG as u64;

fn archive(write_only: bool) -> WormRemoteStorage {
    archive_with(write_only, SegmentCodec::default())
}

fn archive_with(write_only: bool, codec: SegmentCodec) -> WormRemoteStorage {
    let signer = ManifestSigner::from_secret_bytes(&[7; 32], "conformance").unwrap();
    S3RemoteStorage::with_store(Arc::new(InMemory::new()), Some("archive".to_owned()))
        .unwrap()
        .with_codec(codec)
        .unwrap()
        .with_multipart_tuning(SINGLE_PUT_BELOW, LARGE_LOG)
        .with_worm_unchecked(signer, write_only, "in-memory test store".to_owned())
}

/// The archive storing copies compressed and encrypted (the chunked
/// format, docs/chunked-format.md): the same suite, and every manifest
/// names the envelope among the objects it seals.
#[test]
fn read_write_archive_compressed_and_encrypted() {
    let keys = tempfile::tempdir().unwrap();
    let pair = write_key_pair(keys.path(), "k1");
    let archive = archive_with(false, sealing_codec(4096, ring("k1", &[pair])));
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(&archive, Capabilities::archive(false), scratch.path());
}

#[test]
fn read_write_archive_in_memory() {
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(
        &archive(false),
        Capabilities::archive(false),
        scratch.path(),
    );
}

#[test]
fn write_only_archive_in_memory() {
    let scratch = tempfile::tempdir().unwrap();
    conformance::run_rsm_conformance(&archive(true), Capabilities::archive(true), scratch.path());
}
