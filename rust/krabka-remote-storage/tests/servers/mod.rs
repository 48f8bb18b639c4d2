//! Shared helpers of the object-store integration tests: which servers the
//! stage script started (from environment variables), the skip-or-fail rule,
//! segment fixtures, and a fault-injecting TCP proxy. A test binary that
//! includes it (`mod servers;`) also includes `mod support;`, whose metadata
//! builder it uses.
//!
//! # Skipping
//!
//! `scripts/test.d/50-object-store.sh` starts the servers on loopback, exports
//! their addresses and sets `KRABKA_REQUIRE_SERVERS=1`; then a missing server
//! fails the test. A plain `cargo test` has no servers: each such test prints
//! `SKIPPED <test>: …` straight to the terminal (not through the captured
//! test output) and returns.

#![allow(dead_code, missing_docs)]

pub mod proxy;

use {
    crate::support::{assert_deleted, orders_segment},
    bytes::Bytes,
    krabka_object_store::{
        AzureConfig, AzureCredentials, GcsConfig, S3Config, S3Credentials, Secret,
    },
    krabka_remote_storage::{
        IndexType, LogSegmentData, RemoteStorageError, RemoteStorageManager, SegmentReader,
    },
    std::net::TcpStream,
    std::{
        io::{Read, Write},
        path::{Path, PathBuf},
        time::Duration,
    },
    uuid::Uuid,
};

/// Environment variable that turns a missing server into a failure.
pub const REQUIRE: &str = "KRABKA_REQUIRE_SERVERS";

/// An S3 server the stage script started.
#[derive(Debug, Clone)]
pub struct S3Server {
    pub endpoint: String,
    pub bucket: String,
    pub access_key: String,
    pub secret_key: String,
    pub region: String,
}

/// Retries of the servers' tier configurations: few, so a test against a
/// server that is down fails soon.
const MAX_RETRIES: usize = 2;
/// How long a failed request is retried.
const RETRY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one request may take, its body included. Generous: the test
/// command runs these tests beside brokers and first-time tool builds on 2
/// cores, where a ranged GET of an in-repo Python server once took more
/// than 20 s; a hung server still fails the test within minutes.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long connecting may take (a server that is down refuses at once).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

impl S3Server {
    /// A tier configuration with explicit keys and few retries.
    pub fn config(&self) -> S3Config {
        let mut config = S3Config::new(&self.bucket, &self.region);
        config.endpoint = Some(self.endpoint.clone());
        config.allow_http = true;
        config.path_style = true;
        config.credentials = S3Credentials::Static {
            access_key_id: self.access_key.clone(),
            secret_access_key: Secret::new(&self.secret_key),
            session_token: None,
        };
        config.max_retries = MAX_RETRIES;
        config.retry_timeout = RETRY_TIMEOUT;
        config.request_timeout = REQUEST_TIMEOUT;
        config.connect_timeout = CONNECT_TIMEOUT;
        config
    }
}

/// A GCS server the stage script started.
#[derive(Debug, Clone)]
pub struct GcsServer {
    pub endpoint: String,
    pub bucket: String,
}

impl GcsServer {
    /// A tier configuration with an emulator key (OAuth off) and few retries.
    pub fn config(&self) -> GcsConfig {
        let mut config = GcsConfig::new(&self.bucket);
        config.endpoint = Some(self.endpoint.clone());
        config.allow_http = true;
        config.service_account_key = Some(Secret::new(
            r#"{"private_key":"unused","private_key_id":"unused","client_email":"test@example.com","disable_oauth":true}"#,
        ));
        config.max_retries = MAX_RETRIES;
        config.retry_timeout = RETRY_TIMEOUT;
        config.request_timeout = REQUEST_TIMEOUT;
        config.connect_timeout = CONNECT_TIMEOUT;
        config
    }
}

/// An Azure Blob Storage server (Azurite) the stage script started.
#[derive(Debug, Clone)]
pub struct AzureServer {
    /// The account's blob endpoint, `http://host:port/<account>`.
    pub endpoint: String,
    pub account: String,
    pub key: String,
    pub container: String,
}

impl AzureServer {
    /// A tier configuration with the account's shared key and few retries.
    pub fn config(&self) -> AzureConfig {
        let mut config = AzureConfig::new(
            &self.account,
            &self.container,
            AzureCredentials::AccessKey(Secret::new(&self.key)),
        );
        config.endpoint = Some(self.endpoint.clone());
        config.allow_http = true;
        config.max_retries = MAX_RETRIES;
        config.retry_timeout = RETRY_TIMEOUT;
        config.request_timeout = REQUEST_TIMEOUT;
        config.connect_timeout = CONNECT_TIMEOUT;
        config
    }

    /// `host:port` of the endpoint.
    pub fn authority(&self) -> &str {
        let rest = self.endpoint.trim_start_matches("http://");
        rest.split('/').next().unwrap_or(rest)
    }
}

/// Azurite (block blobs, SharedKey checked); `KRABKA_AZURE_*`.
pub fn azurite(test: &str) -> Option<AzureServer> {
    let Some(endpoint) = env("KRABKA_AZURE_ENDPOINT") else {
        skip_or_fail(test, "KRABKA_AZURE_ENDPOINT");
        return None;
    };
    Some(AzureServer {
        endpoint,
        account: env("KRABKA_AZURE_ACCOUNT").unwrap_or_else(|| "devstoreaccount1".to_owned()),
        key: env("KRABKA_AZURE_KEY").unwrap_or_default(),
        container: env("KRABKA_AZURE_CONTAINER").unwrap_or_else(|| "test".to_owned()),
    })
}

/// Prints a skip notice to the real stderr (bypassing the test harness's
/// capture) or, when servers are required, fails the test.
pub fn skip_or_fail(test: &str, missing: &str) {
    if std::env::var(REQUIRE).is_ok_and(|value| value == "1") {
        panic!(
            "{test}: {REQUIRE}=1 but {missing} is not set; the stage script did not start the server"
        );
    }
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(
        stderr,
        "SKIPPED {test}: {missing} is not set (run scripts/test.d/50-object-store.sh to start the servers)"
    );
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

fn s3_from_env(test: &str, prefix: &str) -> Option<S3Server> {
    let endpoint_var = format!("{prefix}_ENDPOINT");
    let Some(endpoint) = env(&endpoint_var) else {
        skip_or_fail(test, &endpoint_var);
        return None;
    };
    Some(S3Server {
        endpoint,
        bucket: env(&format!("{prefix}_BUCKET")).unwrap_or_else(|| "test".to_owned()),
        access_key: env(&format!("{prefix}_ACCESS_KEY")).unwrap_or_else(|| "test".to_owned()),
        secret_key: env(&format!("{prefix}_SECRET_KEY"))
            .unwrap_or_else(|| "testtesttest".to_owned()),
        region: env(&format!("{prefix}_REGION")).unwrap_or_else(|| "us-east-1".to_owned()),
    })
}

/// SeaweedFS (SigV4 checked, conditional writes, Object Lock).
pub fn seaweedfs(test: &str) -> Option<S3Server> {
    s3_from_env(test, "KRABKA_S3")
}

/// The second S3 server, without conditional writes or Object Lock (s3s-fs).
pub fn plain_s3(test: &str) -> Option<S3Server> {
    s3_from_env(test, "KRABKA_S3_PLAIN")
}

fn gcs_from_env(test: &str, prefix: &str) -> Option<GcsServer> {
    let endpoint_var = format!("{prefix}_ENDPOINT");
    let Some(endpoint) = env(&endpoint_var) else {
        skip_or_fail(test, &endpoint_var);
        return None;
    };
    Some(GcsServer {
        endpoint,
        bucket: env(&format!("{prefix}_BUCKET")).unwrap_or_else(|| "test".to_owned()),
    })
}

/// The in-repo GCS protocol server (XML writes, JSON bucket endpoints).
pub fn gcs(test: &str) -> Option<GcsServer> {
    gcs_from_env(test, "KRABKA_GCS")
}

/// fake-gcs-server (reads, lists and deletes only through the XML API).
pub fn fake_gcs(test: &str) -> Option<GcsServer> {
    gcs_from_env(test, "KRABKA_FAKE_GCS")
}

/// A unique key prefix per test run, so runs never see each other's data.
/// Short, because s3s-fs turns a whole key into one file name.
pub fn unique_prefix(test: &str) -> String {
    let id = Uuid::new_v4().simple().to_string();
    format!(
        "{}-{}",
        test.get(..8).unwrap_or(test),
        id.get(..10).unwrap_or(&id)
    )
}

/// Deterministic, position-dependent bytes.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64).wrapping_mul(2_654_435_761).to_le_bytes()[1] ^ seed)
        .collect()
}

/// Segment files in `dir` with a `log_len`-byte log (written in 1 MiB
/// pieces, never whole in memory) and small indexes.
pub fn segment(dir: &Path, log_len: usize, with_txn: bool) -> LogSegmentData {
    let log = dir.join("seg.log");
    let mut file = std::fs::File::create(&log).unwrap();
    let mut written = 0;
    while written < log_len {
        let piece = (log_len - written).min(1 << 20);
        file.write_all(&pattern_at(written, piece)).unwrap();
        written += piece;
    }
    let write = |name: &str, bytes: &[u8]| -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    LogSegmentData {
        log_segment: log,
        offset_index: write("seg.index", &pattern(800, 1)),
        time_index: write("seg.timeindex", &pattern(1200, 2)),
        transaction_index: with_txn.then(|| write("seg.txnindex", &pattern(340, 3))),
        producer_snapshot_index: Some(write("seg.snapshot", &pattern(96, 4))),
        leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
    }
}

/// Period of the log pattern (a prime, so no power-of-two chunking aligns with it).
const PERIOD: usize = 65_521;

fn pattern_table() -> &'static [u8] {
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..PERIOD)
            .map(|i| (i as u64).wrapping_mul(0x9E37_79B9).to_le_bytes()[2])
            .collect()
    })
}

/// Bytes `[offset, offset + len)` of the log [`segment`] writes: block `k`
/// of `PERIOD` bytes is a fixed table rotated by `k`, so every misplaced
/// block shows (and it is fast to build even in debug builds).
pub fn pattern_at(offset: usize, len: usize) -> Vec<u8> {
    let table = pattern_table();
    let mut out = Vec::with_capacity(len);
    let mut position = offset;
    while out.len() < len {
        let (block, within) = (position / PERIOD, position % PERIOD);
        let start = (within + block) % PERIOD;
        let run = (PERIOD - within).min(PERIOD - start).min(len - out.len());
        out.extend_from_slice(&table[start..start + run]);
        position += run;
    }
    out
}

/// Reads a stream to the end, comparing with the log pattern from `offset`
/// chunk by chunk (never holding it whole). Returns the byte count.
pub fn verify_stream(mut reader: SegmentReader, offset: usize) -> usize {
    let mut buffer = vec![0; 256 * 1024];
    let mut total = 0;
    loop {
        let n = reader.read(&mut buffer).unwrap();
        if n == 0 {
            return total;
        }
        assert_eq!(
            buffer[..n],
            pattern_at(offset + total, n)[..],
            "mismatch at {}",
            offset + total
        );
        total += n;
    }
}

const MIB: usize = 1024 * 1024;

/// Copy (multipart log), full and ranged fetches, every index, delete twice.
pub fn round_trip(tier: &dyn RemoteStorageManager) {
    let dir = tempfile::tempdir().unwrap();
    let len = 13 * MIB + 123;
    let md = orders_segment(len);
    tier.copy_log_segment_data(&md, &segment(dir.path(), len, true))
        .unwrap();
    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, 0, None).unwrap(), 0),
        len
    );
    for (start, end) in [
        (0, Some(0)),
        (MIB as u64 - 1, Some(MIB as u64)),
        (5 * MIB as u64 + 17, Some(9 * MIB as u64 + 3)),
        (len as u64 - 1, None),
        (len as u64 - 10, Some(u64::MAX - 1)),
    ] {
        let expected = end.map_or(len as u64, |end| (end + 1).min(len as u64)) - start;
        let got = verify_stream(
            tier.fetch_log_segment(&md, start, end).unwrap(),
            start as usize,
        );
        assert_eq!(got as u64, expected, "range {start}..={end:?}");
    }
    assert_eq!(
        verify_stream(tier.fetch_log_segment(&md, len as u64, None).unwrap(), len),
        0
    );
    assert!(matches!(
        tier.fetch_log_segment(&md, len as u64 + 1, None),
        Err(RemoteStorageError::InvalidArgument(_))
    ));
    assert_eq!(
        tier.fetch_index(&md, IndexType::Offset).unwrap(),
        pattern(800, 1)
    );
    assert_eq!(
        tier.fetch_index(&md, IndexType::Timestamp).unwrap(),
        pattern(1200, 2)
    );
    assert_eq!(
        tier.fetch_index(&md, IndexType::Transaction).unwrap(),
        pattern(340, 3)
    );
    assert_eq!(
        tier.fetch_index(&md, IndexType::ProducerSnapshot).unwrap(),
        pattern(96, 4)
    );
    assert_eq!(
        tier.fetch_index(&md, IndexType::LeaderEpoch).unwrap(),
        b"0\n1\n0 0\n"
    );
    assert_deleted(tier.delete_log_segment_data(&md), "delete");
    assert_deleted(tier.delete_log_segment_data(&md), "delete again");
    assert!(matches!(
        tier.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    for index in IndexType::ALL {
        assert!(matches!(
            tier.fetch_index(&md, index),
            Err(RemoteStorageError::NotFound { .. })
        ));
    }
}

/// One HTTP/1.1 request over a fresh connection (`Connection: close`);
/// returns the status and body. For seeding emulators through their JSON API.
pub fn http(endpoint: &str, method: &str, target: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let authority = endpoint.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/octet-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("an HTTP answer has a head");
    let status = String::from_utf8_lossy(&answer[..split])
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("an HTTP status line");
    let head_text = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let mut body = answer[split + 4..].to_vec();
    if head_text.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (status, body)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(line_end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .unwrap_or(0);
        data = &data[line_end + 2..];
        if size == 0 || data.len() < size {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[(size + 2).min(data.len())..];
    }
}
