//! The command line against a SeaweedFS Object Lock bucket written by the
//! tier in WORM mode (started by `scripts/test.d/55-worm.sh`; skipped, or
//! failed under `KRABKA_REQUIRE_SERVERS=1`, when the bucket is not set).
//! `KRABKA_S3_ENDPOINT` names the aws-rules front before SeaweedFS, which
//! refuses uploads Amazon S3 would refuse (no checksum into a lock bucket).

#![allow(missing_docs)]

mod common;

use {
    bytes::Bytes,
    krabka_object_store::{S3Config, S3Credentials, Secret},
    krabka_remote_storage::{
        LogSegmentData, RemoteStorageManager, S3RemoteStorage, TopicIdPartition, WormChainRecord,
        WormConfig,
    },
    std::process::Command,
    uuid::Uuid,
};

const KEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../krabka-remote-storage/tests/fixtures/worm/test-key-1.pem"
);
const KEY_1_PUBLIC: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[test]
fn the_binary_verifies_a_seaweedfs_lock_bucket_and_reports_the_tip() {
    let (Some(endpoint), Some(bucket)) = (env("KRABKA_S3_ENDPOINT"), env("KRABKA_S3_WORM_BUCKET"))
    else {
        assert_ne!(
            env("KRABKA_REQUIRE_SERVERS").as_deref(),
            Some("1"),
            "KRABKA_S3_ENDPOINT / KRABKA_S3_WORM_BUCKET not set"
        );
        eprintln!("SKIPPED: KRABKA_S3_WORM_BUCKET is not set (scripts/test.d/55-worm.sh)");
        return;
    };
    let access = env("KRABKA_S3_ACCESS_KEY").unwrap_or_else(|| "test".to_owned());
    let secret = env("KRABKA_S3_SECRET_KEY").unwrap_or_else(|| "testtesttest".to_owned());
    let prefix = format!("cli-{}", &Uuid::new_v4().simple().to_string()[..10]);
    let mut config = S3Config::new(&bucket, "us-east-1");
    config.endpoint = Some(endpoint.clone());
    config.allow_http = true;
    config.path_style = true;
    config.prefix = Some(prefix.clone());
    config.credentials = S3Credentials::Static {
        access_key_id: access.clone(),
        secret_access_key: Secret::new(&secret),
        session_token: None,
    };
    let tier = S3RemoteStorage::from_s3_config(&config)
        .unwrap()
        .with_worm(WormConfig::new(KEY, "test-key-1"))
        .unwrap();
    let files = tempfile::tempdir().unwrap();
    let write = |name: &str, len: usize| {
        let path = files.path().join(name);
        std::fs::write(&path, vec![3u8; len]).unwrap();
        path
    };
    let data = LogSegmentData {
        log_segment: write("s.log", 5000),
        offset_index: write("s.index", 16),
        time_index: write("s.timeindex", 24),
        transaction_index: None,
        producer_snapshot_index: None,
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
    };
    let tp = TopicIdPartition::new(Uuid::new_v4(), "orders", 1);
    let mut head = None;
    for start in [0i64, 100] {
        let metadata = common::segment_metadata(&tp, start, 5000);
        let receipt = tier
            .copy_log_segment_data(&metadata, &data)
            .unwrap()
            .unwrap();
        if let Some(WormChainRecord::Receipt { head: h, .. }) =
            WormChainRecord::from_custom_metadata(receipt.as_bytes()).unwrap()
        {
            head = Some(h);
        }
    }
    let tip = head.unwrap().to_string();
    let verify = |extra: &[&str]| {
        let output = Command::new(common::BIN)
            .env("AWS_ACCESS_KEY_ID", &access)
            .env("AWS_SECRET_ACCESS_KEY", &secret)
            .env("AWS_REGION", "us-east-1")
            .args([
                "--s3-bucket",
                &bucket,
                "--s3-endpoint",
                &endpoint,
                "--path-style",
                "--prefix",
                &prefix,
                "--key-id",
                "test-key-1",
                "--public-key",
                KEY_1_PUBLIC,
            ])
            .args(extra)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (code, stdout, stderr) = verify(&["--deep", "--expect-head", &tip]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(&format!("tip: {tip}")), "{stdout}");
    assert!(
        stdout.contains(
            "bucket: versioning Enabled, Object Lock enabled, default retention COMPLIANCE 1 Days"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("result: VERIFIED"), "{stdout}");
    let (code, stdout, _) = verify(&["--json"]);
    assert_eq!(code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["report"]["bucket"]["versioning"], "Enabled");
    assert_eq!(value["report"]["bucket"]["object_lock"], true);
    assert_eq!(value["report"]["bucket"]["default_mode"], "COMPLIANCE");
    // A plain DeleteObject of the newest seal (allowed under COMPLIANCE)
    // leaves a delete marker: tampering, named in the report.
    let store = krabka_object_store::build_object_store(
        &krabka_object_store::ObjectStoreConfig::S3(config.clone()),
    )
    .unwrap();
    let listed: Vec<String> = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            use futures_util::TryStreamExt;
            let seals: Vec<String> = store
                .list(Some(&object_store::path::Path::from(prefix.as_str())))
                .map_ok(|m| m.location.to_string())
                .try_filter(|k| std::future::ready(k.ends_with("00000000000000000001.seal")))
                .try_collect()
                .await
                .unwrap();
            for seal in &seals {
                object_store::ObjectStoreExt::delete(
                    &*store,
                    &object_store::path::Path::from(seal.as_str()),
                )
                .await
                .unwrap();
            }
            seals
        });
    assert_eq!(listed.len(), 1, "{listed:?}");
    for extra in [&[][..], &["--deep"][..]] {
        let (code, stdout, stderr) = verify(extra);
        assert_eq!(code, Some(1), "{stdout}{stderr}");
        assert!(stdout.contains("Tampering: DeleteMarker"), "{stdout}");
        assert!(stdout.contains(&listed[0]), "{stdout}");
    }
}
