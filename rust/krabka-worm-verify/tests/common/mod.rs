//! The archive fixture the command-line tests share: two signed segments
//! of `orders-0` under `arch/` in a local directory, and the arguments that
//! name it.

#![allow(dead_code, missing_docs)]

pub mod logged;

use {
    bytes::Bytes,
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        CancellationToken, LogSegmentData, ManifestSigner, RemoteLogSegmentDetails,
        RemoteLogSegmentId, RemoteLogSegmentMetadata, RemoteLogSegmentState, SealedManifest,
        SegmentCodec, TopicIdPartition, WormArchiver,
    },
    object_store::local::LocalFileSystem,
    std::{collections::BTreeMap, path::Path, process::Command, sync::Arc},
    uuid::Uuid,
};

pub const BIN: &str = env!("CARGO_BIN_EXE_krabka-worm-verify");

/// Metadata of a new segment (fresh segment id) of `tp` covering offsets
/// `[start, start + 99]` in leader epoch 0, with a `.log` of `size` bytes.
pub fn segment_metadata(tp: &TopicIdPartition, start: i64, size: i32) -> RemoteLogSegmentMetadata {
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(tp.clone(), Uuid::new_v4()),
        start,
        start + 99,
        0,
        1,
        0,
        RemoteLogSegmentDetails::new(
            size,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), start)]),
        ),
    )
    .unwrap()
}

pub fn signer() -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&[1; 32], "k1").unwrap()
}

pub fn public_hex() -> String {
    signer()
        .public_key()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Two segments of `orders-0` archived under `arch/` in `root`.
pub fn archive(root: &Path) -> Vec<SealedManifest> {
    archive_with(root, SegmentCodec::default())
}

/// Two segments of `orders-0` archived under `arch/` in `root`, stored as
/// `codec` says.
pub fn archive_with(root: &Path, codec: SegmentCodec) -> Vec<SealedManifest> {
    let store = Arc::new(LocalFileSystem::new_with_prefix(root).unwrap());
    let archiver = WormArchiver::new(store, Some("arch".to_owned()), signer()).with_codec(codec);
    let files = tempfile::tempdir().unwrap();
    let tp = TopicIdPartition::new(Uuid::from_u128(5), "orders", 0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    (0..2i64)
        .map(|i| {
            let write = |name: &str, len: usize| {
                let path = files.path().join(format!("{i}{name}"));
                std::fs::write(&path, vec![7u8; len]).unwrap();
                path
            };
            let data = LogSegmentData {
                log_segment: write(".log", 3000),
                offset_index: write(".index", 16),
                time_index: write(".timeindex", 24),
                transaction_index: None,
                producer_snapshot_index: None,
                leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
            };
            let metadata = segment_metadata(&tp, i * 100, 3000);
            runtime
                .block_on(archiver.archive(&metadata, &data, &CancellationToken::new()))
                .unwrap()
        })
        .collect()
}

pub fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(BIN).args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

pub fn base_args(root: &Path) -> Vec<String> {
    vec![
        "--local".to_owned(),
        root.display().to_string(),
        "--prefix".to_owned(),
        "arch".to_owned(),
        "--key-id".to_owned(),
        "k1".to_owned(),
        "--public-key".to_owned(),
        public_hex(),
    ]
}

pub fn run_with(root: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = base_args(root);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Flips one byte of the first segment's log: tampering a deep run finds.
pub fn flip_a_log_byte(root: &Path, sealed: &[SealedManifest]) {
    let log = &sealed[0]
        .manifest
        .body
        .objects
        .iter()
        .find(|o| o.suffix == ".log")
        .unwrap()
        .key;
    let path = root.join(log);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[10] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
}
