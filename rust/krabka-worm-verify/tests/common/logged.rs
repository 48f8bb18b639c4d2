//! An archive that keeps its log, in a local directory, and witnesses
//! that cosign its checkpoints: shared by the log and report tests.

#![allow(dead_code, missing_docs)]

use {
    super::{run_with, segment_metadata, signer},
    ed25519_dalek::{Signer as _, SigningKey},
    krabka_remote_storage::{
        ArchiveLog, ArchiveLogConfig, CancellationToken, LogSegmentData, SealedManifest,
        TopicIdPartition, WormArchiver,
        tlog::{
            LogLayout, NoteSignature, NoteVerifier, SignedNote,
            note::{COSIGNATURE_TYPE, cosignature_message},
        },
    },
    object_store::{ObjectStore, local::LocalFileSystem},
    std::{path::Path, sync::Arc},
    tempfile::TempDir,
    uuid::Uuid,
};

pub const ORIGIN: &str = "archive.example/orders";
pub const PREFIX: &str = "arch";

/// An archive under `arch/` in a directory, keeping its log.
pub struct Logged {
    root: TempDir,
    files: TempDir,
    runtime: tokio::runtime::Runtime,
    archiver: WormArchiver,
    log: Arc<ArchiveLog>,
    tp: TopicIdPartition,
    copies: i64,
}

impl Logged {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let store: Arc<dyn ObjectStore> =
            Arc::new(LocalFileSystem::new_with_prefix(root.path()).unwrap());
        let log = Arc::new(
            ArchiveLog::new(
                Arc::clone(&store),
                Some(PREFIX.to_owned()),
                signer().note_signer(ORIGIN).unwrap(),
                Vec::new(),
                ArchiveLogConfig::new(ORIGIN),
            )
            .unwrap(),
        );
        let archiver =
            WormArchiver::new(store, Some(PREFIX.to_owned()), signer()).with_log(Arc::clone(&log));
        Self {
            root,
            files: tempfile::tempdir().unwrap(),
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            archiver,
            log,
            tp: TopicIdPartition::new(Uuid::from_u128(5), "orders", 0),
            copies: 0,
        }
    }

    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// Archives the next segment of `orders-0`.
    pub fn copy(&mut self) -> SealedManifest {
        let i = self.copies;
        self.copies += 1;
        let write = |name: &str, len: usize| {
            let path = self.files.path().join(format!("{i}{name}"));
            std::fs::write(&path, vec![7u8; len]).unwrap();
            path
        };
        let data = LogSegmentData {
            log_segment: write(".log", 1000),
            offset_index: write(".index", 16),
            time_index: write(".timeindex", 24),
            transaction_index: None,
            producer_snapshot_index: None,
            leader_epoch_index: bytes::Bytes::from_static(b"0\n1\n0 0\n"),
        };
        let metadata = segment_metadata(&self.tp, i * 100, 1000);
        self.runtime
            .block_on(
                self.archiver
                    .archive(&metadata, &data, &CancellationToken::new()),
            )
            .unwrap()
    }

    /// Publishes a checkpoint of every copy so far; its size.
    pub fn publish(&self) -> u64 {
        self.runtime
            .block_on(self.log.publish())
            .unwrap()
            .unwrap()
            .size
    }

    pub fn layout() -> LogLayout {
        LogLayout::new(Some(PREFIX))
    }

    pub fn file(&self, key: &str) -> std::path::PathBuf {
        self.path().join(key)
    }

    /// Checkpoint `seq` as stored.
    pub fn checkpoint_note(&self, seq: u64) -> Vec<u8> {
        std::fs::read(self.file(&Self::layout().checkpoint(seq))).unwrap()
    }

    /// Stores `witness`'s cosignature of checkpoint `seq`, as the writer
    /// does with a witness's answer.
    pub fn cosign(&self, seq: u64, witness: &Witness) {
        let note = SignedNote::parse(&self.checkpoint_note(seq)).unwrap();
        let time = 1_790_000_000u64;
        let mut signature = time.to_be_bytes().to_vec();
        signature.extend_from_slice(
            &witness
                .key
                .sign(&cosignature_message(time, &note.text))
                .to_bytes(),
        );
        let line = NoteSignature {
            name: witness.verifier.name().to_owned(),
            key_hash: witness.verifier.key_hash(),
            signature,
        }
        .line();
        let path = self.file(&Self::layout().cosignature(seq, &witness.verifier));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, line).unwrap();
    }

    pub fn run(&self, extra: &[&str]) -> (i32, String, String) {
        let mut args = vec!["--log-origin", ORIGIN];
        args.extend_from_slice(extra);
        run_with(self.path(), &args)
    }
}

/// A witness's cosignature key.
pub struct Witness {
    pub key: SigningKey,
    pub verifier: NoteVerifier,
}

impl Witness {
    pub fn new(name: &str, secret: u8) -> Self {
        let key = SigningKey::from_bytes(&[secret; 32]);
        let verifier =
            NoteVerifier::new(name, COSIGNATURE_TYPE, key.verifying_key().to_bytes()).unwrap();
        Self { key, verifier }
    }

    pub fn vkey(&self) -> String {
        self.verifier.to_string()
    }
}

pub fn remove(path: &Path) {
    std::fs::remove_file(path).unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
}

/// An archive of five copies, two checkpoints (after 3 and 5), both
/// cosigned by `witness`; the copies' seals.
pub fn witnessed_copies(witness: &Witness) -> (Logged, Vec<SealedManifest>) {
    let mut archive = Logged::new();
    let mut sealed: Vec<SealedManifest> = (0..3).map(|_| archive.copy()).collect();
    assert_eq!(archive.publish(), 3);
    sealed.extend((0..2).map(|_| archive.copy()));
    assert_eq!(archive.publish(), 5);
    archive.cosign(0, witness);
    archive.cosign(1, witness);
    (archive, sealed)
}

pub fn witnessed(witness: &Witness) -> Logged {
    witnessed_copies(witness).0
}

pub fn findings(value: &serde_json::Value) -> Vec<serde_json::Value> {
    let report = &value["report"];
    let mut all: Vec<serde_json::Value> =
        report["findings"].as_array().cloned().unwrap_or_default();
    for partition in report["partitions"].as_array().into_iter().flatten() {
        all.extend(
            partition["findings"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        );
    }
    all
}

pub fn finding_kinds(value: &serde_json::Value) -> Vec<String> {
    findings(value)
        .iter()
        .filter_map(|f| f["kind"].as_str().map(str::to_owned))
        .collect()
}

pub fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

pub fn copy_dir(from: &Path, to: &Path) {
    for path in walk(from) {
        let target = to.join(path.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&path, &target).unwrap();
    }
}
