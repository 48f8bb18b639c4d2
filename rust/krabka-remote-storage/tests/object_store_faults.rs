//! Fault tests of the object-store tier: SeaweedFS (S3) and Azurite (Azure
//! Blob Storage) behind a fault-injecting loopback proxy
//! (`servers/proxy.rs`). The server "stops" mid-upload, stalls, throttles
//! with `503`, and resets a download. Each case runs once per backend.

mod servers;
mod support;

use {
    krabka_remote_storage::{IndexType, RemoteStorageError, RemoteStorageManager, S3RemoteStorage},
    servers::{
        AzureServer, S3Server, pattern,
        proxy::{Mode, Proxy},
        segment, unique_prefix, verify_stream,
    },
    std::{
        io::Read,
        time::{Duration, Instant},
    },
    support::orders_segment,
};

const MIB: usize = 1024 * 1024;

/// `host:port` of an `http://host:port` endpoint.
fn authority(endpoint: &str) -> &str {
    endpoint.trim_start_matches("http://").trim_end_matches('/')
}

/// The client policy of the proxied tier in a case.
struct Policy {
    max_retries: usize,
    retry_timeout: Duration,
    request_timeout: Option<Duration>,
}

impl Policy {
    fn retries(max_retries: usize, retry_timeout: Duration) -> Self {
        Self {
            max_retries,
            retry_timeout,
            request_timeout: None,
        }
    }
}

/// A server the stage script started, of either backend.
enum Server {
    S3(S3Server),
    Azure(AzureServer),
}

impl Server {
    fn seaweedfs(test: &str) -> Option<Self> {
        servers::seaweedfs(test).map(Self::S3)
    }

    fn azurite(test: &str) -> Option<Self> {
        servers::azurite(test).map(Self::Azure)
    }

    /// A proxy in front of the server and two tiers sharing a prefix: one
    /// through the proxy with `policy`, one direct. Multipart from 5 MiB in
    /// 5 MiB parts (blocks on Azure).
    fn tiers(&self, test: &str, policy: &Policy) -> (Proxy, S3RemoteStorage, S3RemoteStorage) {
        let prefix = unique_prefix(test);
        let (proxy, proxied, direct) = match self {
            Self::S3(server) => {
                let proxy = Proxy::start(authority(&server.endpoint), Mode::Forward);
                let mut direct = server.config();
                direct.prefix = Some(prefix);
                direct.multipart_threshold = 5 * MIB as u64;
                direct.multipart_chunk_size = 5 * MIB;
                let mut proxied = direct.clone();
                proxied.endpoint = Some(proxy.url());
                proxied.max_retries = policy.max_retries;
                proxied.retry_timeout = policy.retry_timeout;
                if let Some(timeout) = policy.request_timeout {
                    proxied.request_timeout = timeout;
                }
                let proxied = S3RemoteStorage::from_s3_config(&proxied).unwrap();
                (
                    proxy,
                    proxied,
                    S3RemoteStorage::from_s3_config(&direct).unwrap(),
                )
            }
            Self::Azure(server) => {
                let proxy = Proxy::start(server.authority(), Mode::Forward);
                let mut direct = server.config();
                direct.prefix = Some(prefix);
                direct.multipart_threshold = 5 * MIB as u64;
                direct.multipart_chunk_size = 5 * MIB;
                let mut proxied = direct.clone();
                proxied.endpoint = Some(format!("{}/{}", proxy.url(), server.account));
                proxied.max_retries = policy.max_retries;
                proxied.retry_timeout = policy.retry_timeout;
                if let Some(timeout) = policy.request_timeout {
                    proxied.request_timeout = timeout;
                }
                let proxied = S3RemoteStorage::from_azure_config(&proxied).unwrap();
                (
                    proxy,
                    proxied,
                    S3RemoteStorage::from_azure_config(&direct).unwrap(),
                )
            }
        };
        (proxy, proxied.with_upload_concurrency(2), direct)
    }
}

#[test]
fn server_stopped_mid_upload_fails_the_copy_and_a_retry_succeeds() {
    if let Some(server) = Server::seaweedfs("server_stopped_mid_upload") {
        stopped_mid_upload(&server);
    }
}

#[test]
fn azure_stopped_mid_upload_fails_the_copy_and_a_retry_succeeds() {
    if let Some(server) = Server::azurite("azure_stopped_mid_upload") {
        stopped_mid_upload(&server);
    }
}

fn stopped_mid_upload(server: &Server) {
    let (proxy, tier, direct) =
        server.tiers("stopped", &Policy::retries(2, Duration::from_secs(5)));
    let dir = tempfile::tempdir().unwrap();
    let len = 24 * MIB;
    let md = orders_segment(len);
    let data = segment(dir.path(), len, true);
    // The indexes (a few KiB) get through; the log's multipart upload dies.
    proxy.cut_after_upload(9 * MIB as u64);
    let started = Instant::now();
    let err = tier.copy_log_segment_data(&md, &data).unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::Retryable { .. }),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // Nothing of the log is readable: no partial object exists.
    assert!(matches!(
        direct.fetch_log_segment(&md, 0, None),
        Err(RemoteStorageError::NotFound { .. })
    ));
    // The server comes back; the broker's retry of the copy succeeds.
    proxy.set_mode(Mode::Forward);
    tier.copy_log_segment_data(&md, &data).unwrap();
    assert_eq!(
        verify_stream(direct.fetch_log_segment(&md, 0, None).unwrap(), 0),
        len
    );
    assert_eq!(
        direct.fetch_index(&md, IndexType::Transaction).unwrap(),
        pattern(340, 3)
    );
}

#[test]
fn a_stalled_server_times_out_as_retryable() {
    if let Some(server) = Server::seaweedfs("stalled_server") {
        stalled(&server);
    }
}

#[test]
fn a_stalled_azure_server_times_out_as_retryable() {
    if let Some(server) = Server::azurite("azure_stalled_server") {
        stalled(&server);
    }
}

fn stalled(server: &Server) {
    let (proxy, tier, direct) = server.tiers(
        "stalled",
        &Policy {
            max_retries: 1,
            retry_timeout: Duration::from_secs(3),
            request_timeout: Some(Duration::from_millis(300)),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(1000);
    direct
        .copy_log_segment_data(&md, &segment(dir.path(), 1000, false))
        .unwrap();
    proxy.set_mode(Mode::Stall);
    proxy.kill_connections();
    for attempt in 0..2 {
        let started = Instant::now();
        let result = match attempt {
            0 => tier.fetch_index(&md, IndexType::Offset).map(drop),
            _ => tier.fetch_log_segment(&md, 0, None).map(drop),
        };
        let Err(err) = result else {
            panic!("a stalled server answered");
        };
        assert!(
            matches!(err, RemoteStorageError::Retryable { .. }),
            "{err:?}"
        );
        // One timeout, one backoff, one more timeout.
        assert!(
            started.elapsed() >= Duration::from_millis(600),
            "{:?}",
            started.elapsed()
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }
    let err = tier
        .copy_log_segment_data(&md, &segment(dir.path(), 1000, false))
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::Retryable { .. }),
        "{err:?}"
    );
}

#[test]
fn throttling_is_retried_with_backoff_and_counted() {
    if let Some(server) = Server::seaweedfs("throttling") {
        throttled(&server);
    }
}

#[test]
fn azure_throttling_is_retried_with_backoff_and_counted() {
    if let Some(server) = Server::azurite("azure_throttling") {
        throttled(&server);
    }
}

fn throttled(server: &Server) {
    let (proxy, tier, direct) =
        server.tiers("throttled", &Policy::retries(2, Duration::from_secs(10)));
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(1000);
    direct
        .copy_log_segment_data(&md, &segment(dir.path(), 1000, false))
        .unwrap();

    // Throttled for good: 1 attempt + max_retries retries, then Retryable.
    proxy.set_mode(Mode::Throttle(1000));
    proxy.kill_connections();
    let err = tier.fetch_index(&md, IndexType::Offset).unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::Retryable { .. }),
        "{err:?}"
    );
    assert_eq!(proxy.throttled(), 3);

    // Throttled twice: the third attempt goes through.
    proxy.set_mode(Mode::Throttle(2));
    let started = Instant::now();
    assert_eq!(
        tier.fetch_index(&md, IndexType::Offset).unwrap(),
        pattern(800, 1)
    );
    assert_eq!(proxy.throttled(), 5);
    // Two backoffs happened (object_store starts at 100 ms with jitter).
    assert!(
        started.elapsed() >= Duration::from_millis(50),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_reset_during_a_download_is_resumed() {
    if let Some(server) = Server::seaweedfs("reset_download") {
        reset_download(&server);
    }
}

#[test]
fn an_azure_reset_during_a_download_is_resumed() {
    if let Some(server) = Server::azurite("azure_reset_download") {
        reset_download(&server);
    }
}

fn reset_download(server: &Server) {
    let (proxy, tier, direct) = server.tiers("reset", &Policy::retries(3, Duration::from_secs(10)));
    // One GET for the whole range, larger than the socket buffers can hold.
    let len = 40 * MIB;
    let tier = tier.with_fetch_tuning(len, 1);
    let dir = tempfile::tempdir().unwrap();
    let md = orders_segment(len);
    direct
        .copy_log_segment_data(&md, &segment(dir.path(), len, false))
        .unwrap();
    let mut reader = tier.fetch_log_segment(&md, 0, None).unwrap();
    let mut head = vec![0; 1024];
    reader.read_exact(&mut head).unwrap();
    assert_eq!(head, servers::pattern_at(0, 1024));
    // Every open connection is reset in the middle of the body.
    let connections = proxy.connections();
    proxy.kill_connections();
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    assert_eq!(rest.len(), len - 1024);
    assert!(
        rest == servers::pattern_at(1024, len - 1024),
        "resumed bytes differ"
    );
    assert!(
        proxy.connections() > connections,
        "the download was not resumed"
    );
}
