//! The archive log against independent implementations and a real S3
//! server (started by `scripts/test.d/55-worm.sh`; skipped, or failed under
//! `KRABKA_REQUIRE_SERVERS=1`, when they are not there):
//!
//! - litewitness (`filippo.io/torchwood`, C2SP `tlog-witness`) cosigns our
//!   checkpoints, checking our consistency proofs; the verifier checks its
//!   cosignatures and asks it which tree it cosigned;
//! - `tests/tlog-interop` checks our checkpoint signature with Go's
//!   `golang.org/x/mod/sumdb/note` and our tiles with
//!   `golang.org/x/mod/sumdb/tlog` (the root and every leaf's inclusion);
//! - on SeaweedFS (through the aws-rules front), the newest copies removed
//!   and an older copy of the archive shown are reported as tampering with
//!   no `--expect-head`.

#![allow(missing_docs)]

mod common;

use {
    common::{
        BIN,
        logged::{self, copy_dir},
        public_hex, segment_metadata, signer,
    },
    futures_util::TryStreamExt,
    krabka_object_store::{ObjectStoreConfig, S3Config, S3Credentials, Secret},
    krabka_remote_storage::{
        ArchiveLog, ArchiveLogConfig, CancellationToken, LogSegmentData, SealedManifest,
        TopicIdPartition, WitnessConfig, WormArchiver,
        tlog::{LogLayout, NoteVerifier},
    },
    object_store::{ObjectStore, ObjectStoreExt, local::LocalFileSystem, path::Path as StorePath},
    std::{path::Path, process::Command, sync::Arc},
    uuid::Uuid,
};

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The witness the stage started, or `None` (skipped) outside it.
struct Witness {
    url: String,
    vkey: String,
    ctl: String,
    db: String,
    interop: String,
}

impl Witness {
    fn from_env(test: &str) -> Option<Self> {
        let found = (|| {
            Some(Self {
                url: env("KRABKA_WITNESS_URL")?,
                vkey: env("KRABKA_WITNESS_VKEY")?,
                ctl: env("KRABKA_WITNESSCTL")?,
                db: env("KRABKA_WITNESS_DB")?,
                interop: env("KRABKA_TLOG_INTEROP")?,
            })
        })();
        if found.is_none() {
            assert_ne!(
                env("KRABKA_REQUIRE_SERVERS").as_deref(),
                Some("1"),
                "{test}: KRABKA_WITNESS_* not set (scripts/test.d/55-worm.sh starts litewitness)"
            );
            eprintln!("SKIPPED {test}: no litewitness (scripts/test.d/55-worm.sh)");
        }
        found
    }

    /// Tells the witness to cosign checkpoints of `origin` signed by the
    /// archive's key (`witnessctl add-log`, `add-key`).
    fn register(&self, origin: &str) -> String {
        let log_key = signer().note_signer(origin).unwrap().verifier().to_string();
        for args in [
            vec!["add-log", "-db", &self.db, "-origin", origin],
            vec![
                "add-key", "-db", &self.db, "-origin", origin, "-key", &log_key,
            ],
        ] {
            let out = Command::new(&self.ctl).args(&args).output().unwrap();
            assert!(
                out.status.success(),
                "witnessctl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        log_key
    }

    fn config(&self) -> WitnessConfig {
        WitnessConfig::new(&self.url, &self.vkey).unwrap()
    }
}

/// An archive of `orders-0` under `prefix` in `store`, keeping a log of
/// `origin` cosigned by the witness.
struct Archive {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    runtime: tokio::runtime::Runtime,
    archiver: WormArchiver,
    log: Arc<ArchiveLog>,
    files: tempfile::TempDir,
    tp: TopicIdPartition,
    copies: i64,
}

impl Archive {
    fn new(store: Arc<dyn ObjectStore>, prefix: &str, origin: &str, witness: &Witness) -> Self {
        let log = Arc::new(
            ArchiveLog::new(
                Arc::clone(&store),
                Some(prefix.to_owned()),
                signer().note_signer(origin).unwrap(),
                Vec::new(),
                ArchiveLogConfig::new(origin).with_witness(witness.config()),
            )
            .unwrap(),
        );
        let archiver = WormArchiver::new(Arc::clone(&store), Some(prefix.to_owned()), signer())
            .with_log(Arc::clone(&log));
        Self {
            store,
            prefix: prefix.to_owned(),
            runtime: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
            archiver,
            log,
            files: tempfile::tempdir().unwrap(),
            tp: TopicIdPartition::new(Uuid::from_u128(7), "orders", 0),
            copies: 0,
        }
    }

    fn copy(&mut self) -> SealedManifest {
        let i = self.copies;
        self.copies += 1;
        let write = |name: &str, len: usize| {
            let path = self.files.path().join(format!("{i}{name}"));
            std::fs::write(&path, vec![9u8; len]).unwrap();
            path
        };
        let data = LogSegmentData {
            log_segment: write(".log", 500),
            offset_index: write(".index", 16),
            time_index: write(".timeindex", 24),
            transaction_index: None,
            producer_snapshot_index: None,
            leader_epoch_index: bytes::Bytes::from_static(b"0\n1\n0 0\n"),
        };
        let metadata = segment_metadata(&self.tp, i * 100, 500);
        self.runtime
            .block_on(
                self.archiver
                    .archive(&metadata, &data, &CancellationToken::new()),
            )
            .unwrap()
    }

    /// Publishes and has the witness cosign; the checkpoint's size.
    fn publish(&self) -> u64 {
        self.runtime
            .block_on(self.log.publish())
            .unwrap()
            .unwrap()
            .size
    }

    fn layout(&self) -> LogLayout {
        LogLayout::new(Some(&self.prefix))
    }

    /// Whether `key` exists.
    fn exists(&self, key: &str) -> bool {
        self.runtime
            .block_on(self.store.head(&StorePath::from(key)))
            .is_ok()
    }

    fn delete(&self, key: &str) {
        self.runtime
            .block_on(self.store.delete(&StorePath::from(key)))
            .unwrap();
    }

    /// Copies every object under the prefix to `to` (an older copy of the
    /// archive, kept aside).
    fn copy_prefix(&self, to: &str) {
        let store = Arc::clone(&self.store);
        let prefix = self.prefix.clone();
        let to = to.to_owned();
        self.runtime.block_on(async move {
            let keys: Vec<_> = store
                .list(Some(&StorePath::from(prefix.as_str())))
                .map_ok(|meta| meta.location)
                .try_collect()
                .await
                .unwrap();
            for key in keys {
                let target = format!("{to}{}", &key.as_ref()[prefix.len()..]);
                store
                    .copy(&key, &StorePath::from(target.as_str()))
                    .await
                    .unwrap();
            }
        });
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(BIN).args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn keys_args() -> Vec<String> {
    vec![
        "--key-id".to_owned(),
        "k1".to_owned(),
        "--public-key".to_owned(),
        public_hex(),
    ]
}

fn finding_kinds(stdout: &str) -> Vec<String> {
    logged::finding_kinds(&serde_json::from_str(stdout).unwrap())
}

#[test]
fn litewitness_cosigns_our_checkpoints_and_go_verifies_our_signatures_and_tiles() {
    let test = "litewitness_cosigns_our_checkpoints_and_go_verifies_our_signatures_and_tiles";
    let Some(witness) = Witness::from_env(test) else {
        return;
    };
    let origin = format!(
        "krabka.test/local-{}",
        &Uuid::new_v4().simple().to_string()[..8]
    );
    let log_key = witness.register(&origin);
    let root = tempfile::tempdir().unwrap();
    let store: Arc<dyn ObjectStore> =
        Arc::new(LocalFileSystem::new_with_prefix(root.path()).unwrap());
    let mut archive = Archive::new(store, "arch", &origin, &witness);
    for _ in 0..3 {
        archive.copy();
    }
    assert_eq!(archive.publish(), 3);
    let cosigner = NoteVerifier::parse(&witness.vkey).unwrap();
    assert!(
        archive.exists(&archive.layout().cosignature(0, &cosigner)),
        "litewitness did not cosign checkpoint 0"
    );
    // An older copy of the archive, taken now.
    let older = tempfile::tempdir().unwrap();
    copy_dir(root.path(), older.path());
    // Past a full tile: litewitness checks our consistency proof 3 -> 263.
    for _ in 0..260 {
        archive.copy();
    }
    assert_eq!(archive.publish(), 263);
    assert!(
        archive.exists(&archive.layout().cosignature(1, &cosigner)),
        "litewitness did not cosign checkpoint 1 (the consistency proof from 3)"
    );

    // Go's note and tlog packages verify our signature, root and leaves.
    let log_dir = root.path().join("arch").join("_krabka-log");
    for seq in ["0", "1"] {
        let out = Command::new(&witness.interop)
            .args(["-dir", log_dir.to_str().unwrap(), "-log-key", &log_key])
            .args(["-checkpoint", seq])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tlog-interop checkpoint {seq}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // The verifier: cosigned and as large as the witness says.
    let local = |dir: &Path, extra: &[&str]| {
        let mut args = vec![
            "--local".to_owned(),
            dir.display().to_string(),
            "--prefix".to_owned(),
            "arch".to_owned(),
        ];
        args.extend(keys_args());
        args.extend(
            [
                "--witness-key",
                &witness.vkey,
                "--ask-witness",
                &witness.url,
            ]
            .iter()
            .chain(extra)
            .map(|s| (*s).to_owned()),
        );
        run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (code, stdout, stderr) = local(root.path(), &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("witnessed checkpoint (quorum 1): size 263"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("witness {}: cosigned size 263", witness.url)),
        "{stdout}"
    );
    // The older copy verifies on its own (its checkpoint is cosigned too)
    // but the witness has cosigned a larger tree: tail truncation.
    let (code, stdout, _) = local(older.path(), &["--json"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        finding_kinds(&stdout).contains(&"log_truncated".to_owned()),
        "{stdout}"
    );
}

#[test]
fn on_seaweedfs_removed_newest_copies_and_an_older_copy_are_tampering() {
    let test = "on_seaweedfs_removed_newest_copies_and_an_older_copy_are_tampering";
    let Some(witness) = Witness::from_env(test) else {
        return;
    };
    let (Some(endpoint), Some(bucket)) = (env("KRABKA_S3_ENDPOINT"), env("KRABKA_S3_BUCKET"))
    else {
        panic!("{test}: the stage starts SeaweedFS with litewitness");
    };
    let mut config = S3Config::new(&bucket, "us-east-1");
    config.endpoint = Some(endpoint.clone());
    config.allow_http = true;
    config.path_style = true;
    config.credentials = S3Credentials::Static {
        access_key_id: env("KRABKA_S3_ACCESS_KEY").unwrap_or_else(|| "test".to_owned()),
        secret_access_key: Secret::new(
            env("KRABKA_S3_SECRET_KEY").unwrap_or_else(|| "testtesttest".to_owned()),
        ),
        session_token: None,
    };
    let store = krabka_object_store::build_object_store(&ObjectStoreConfig::S3(config)).unwrap();
    let run_id = &Uuid::new_v4().simple().to_string()[..8];
    let origin = format!("krabka.test/s3-{run_id}");
    witness.register(&origin);
    let prefix = format!("witnessed-{run_id}");
    let older = format!("restored-{run_id}");
    let mut archive = Archive::new(store, &prefix, &origin, &witness);
    for _ in 0..3 {
        archive.copy();
    }
    assert_eq!(archive.publish(), 3);
    archive.copy_prefix(&older);
    let newest: Vec<SealedManifest> = (0..2).map(|_| archive.copy()).collect();
    assert_eq!(archive.publish(), 5);

    let s3 = |prefix: &str, extra: &[&str]| {
        let mut args = vec![
            "--s3-bucket",
            bucket.as_str(),
            "--s3-endpoint",
            endpoint.as_str(),
            "--path-style",
            "--prefix",
            prefix,
            "--witness-key",
            &witness.vkey,
            "--json",
        ];
        args.extend_from_slice(extra);
        let keys = keys_args();
        args.extend(keys.iter().map(String::as_str));
        let output = Command::new(BIN)
            .args(&args)
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "testtesttest")
            .output()
            .unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
        )
    };
    // The plain bucket cannot attest its own protection (exit 2), but
    // nothing is tampered with.
    let (code, stdout) = s3(&prefix, &[]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        !finding_kinds(&stdout)
            .iter()
            .any(|k| k.starts_with("log_") || k.starts_with("leaf_")),
        "{stdout}"
    );
    // An older copy of the archive: the witness has cosigned size 5.
    let (code, stdout) = s3(&older, &["--ask-witness", &witness.url]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        finding_kinds(&stdout).contains(&"log_truncated".to_owned()),
        "{stdout}"
    );
    // The newest two copies removed (seals and manifests): the chain is a
    // shorter valid chain, the witnessed tree names them.
    for copy in &newest {
        archive.delete(&copy.seal_key);
        archive.delete(&copy.manifest_key);
    }
    let (code, stdout) = s3(&prefix, &[]);
    assert_eq!(code, 1, "{stdout}");
    let kinds = finding_kinds(&stdout);
    assert_eq!(
        kinds.iter().filter(|k| *k == "leaf_without_seal").count(),
        2,
        "{stdout}"
    );
}
