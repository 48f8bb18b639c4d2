//! The ambient AWS credential chain beyond environment keys: the EC2
//! instance profile (IMDSv2) and EKS Pod Identity, each served by a loopback
//! stand-in of the AWS endpoint that hands out temporary credentials. The
//! configuration has no static keys; only the chain can sign.
//!
//! Verified by the requests they produce: the stand-in also answers the
//! tier's S3 requests, and every one must be signed with the stand-in's
//! access key and carry its session token as a signed
//! `x-amz-security-token`. (SeaweedFS cannot check them: it looks a key that
//! comes with a session token up among its own STS sessions and refuses it.)
//! `AWS_METADATA_ENDPOINT` and `AWS_CONTAINER_CREDENTIALS_FULL_URI` name the
//! stand-in where a real host has fixed link-local addresses.
//!
//! The process environment cannot be changed safely inside a test, so each
//! test runs itself again as a child process with the chain's variables set
//! (and every other AWS credential variable removed), while the parent serves
//! the stand-in and checks what the child sent it.

mod servers;
mod support;

use {
    krabka_object_store::{S3Config, S3Credentials},
    krabka_remote_storage::{RemoteStorageManager, S3RemoteStorage},
    servers::{segment, unique_prefix},
    std::{
        io::{BufRead, BufReader, Read, Write},
        net::{TcpListener, TcpStream},
        process::Command,
        sync::{Arc, Mutex, PoisonError},
        thread,
        time::Duration,
    },
    support::orders_segment,
};

/// Set in the child process: the stand-in's address, where the tier sends
/// its S3 requests.
const CHILD_ENDPOINT: &str = "KRABKA_CREDENTIAL_CHILD_ENDPOINT";
/// Set in the child process, optionally: the PEM file the tier trusts
/// (`S3Config::tls_ca_certificates`).
const CHILD_CA: &str = "KRABKA_CREDENTIAL_CHILD_CA";
/// Set in the child process to `refused` when its copy must fail.
const CHILD_REFUSED: &str = "KRABKA_CREDENTIAL_CHILD_REFUSED";

/// Every variable of the AWS chain; the child starts without any of them.
const CHAIN_VARIABLES: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "AWS_ROLE_SESSION_NAME",
    "AWS_ENDPOINT_URL_STS",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
    "AWS_METADATA_ENDPOINT",
    "AWS_IMDSV1_FALLBACK",
];

/// The temporary credentials both stand-ins hand out.
const ACCESS_KEY: &str = "ASIASTANDINKEY";
/// Their secret.
const SECRET: &str = "stand-in-secret";
/// Their session token.
const SESSION_TOKEN: &str = "session-token-from-the-stand-in";
/// The IMDSv2 session token the instance-metadata stand-in issues.
const IMDS_TOKEN: &str = "imds-session-token-4711";
/// The role name the instance-metadata stand-in lists.
const ROLE: &str = "krabka-tier-role";
/// The Pod Identity agent's authorization token, read from a file.
const POD_TOKEN: &str = "pod-identity-token-0815";

/// How a stand-in answers a credentials request (status and body), or
/// `None` for a request that is not one: it is answered as S3 would.
type Answer = fn(&Seen) -> Option<(u16, String)>;

/// One request the stand-in received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A loopback HTTP server answering like an AWS credential endpoint, one
/// connection at a time, recording every request.
struct StandIn {
    address: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl StandIn {
    /// Serves `answer(request) -> (status, body)` on a free loopback port
    /// until the test process ends.
    fn start(answer: Answer) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the stand-in");
        let address = format!("http://{}", listener.local_addr().expect("its address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if let Some(request) = serve(stream, answer) {
                    record
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(request);
                }
            }
        });
        Self { address, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Reads one request from `stream`, answers it and closes the connection.
fn serve(stream: TcpStream, answer: Answer) -> Option<Seen> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut writer = stream.try_clone().ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().unwrap_or(0);
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let request = Seen {
        method,
        path,
        headers,
    };
    let reply = match answer(&request) {
        Some((status, body)) => format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        ),
        // An S3 request: a PUT stored, or a DeleteObjects (of a stale index) done.
        None => {
            let body = if request.method == "POST" {
                delete_result(&String::from_utf8_lossy(&body))
            } else {
                String::new()
            };
            format!(
                "HTTP/1.1 200 OK\r\netag: \"e\"\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
        }
    };
    writer.write_all(reply.as_bytes()).ok()?;
    Some(request)
}

/// S3's answer to a DeleteObjects request: every key it names deleted.
fn delete_result(request: &str) -> String {
    let deleted: String = request
        .split("<Key>")
        .skip(1)
        .filter_map(|rest| rest.split("</Key>").next())
        .map(|key| format!("<Deleted><Key>{key}</Key></Deleted>"))
        .collect();
    format!(r#"<?xml version="1.0" encoding="UTF-8"?><DeleteResult>{deleted}</DeleteResult>"#)
}

/// The credentials document both endpoints return.
fn credentials_json() -> String {
    format!(
        r#"{{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"{ACCESS_KEY}","SecretAccessKey":"{SECRET}","Token":"{SESSION_TOKEN}","Expiration":"2099-01-01T00:00:00Z","LastUpdated":"2026-01-01T00:00:00Z"}}"#
    )
}

/// EC2's instance metadata service, IMDSv2: a session token first, then the
/// role name, then the role's credentials, each asked with the token.
fn instance_metadata(request: &Seen) -> Option<(u16, String)> {
    let listing = "/latest/meta-data/iam/security-credentials/";
    let path = request.path.as_str();
    if !path.starts_with("/latest/") {
        return None;
    }
    Some(match request.method.as_str() {
        "PUT" if path == "/latest/api/token" => (200, IMDS_TOKEN.to_owned()),
        _ if request.header("x-aws-ec2-metadata-token") != Some(IMDS_TOKEN) => {
            (401, format!("no session token for {path}"))
        }
        "GET" if path == listing => (200, ROLE.to_owned()),
        "GET" if path == format!("{listing}{ROLE}") => (200, credentials_json()),
        _ => (404, String::new()),
    })
}

/// The EKS Pod Identity agent: credentials for the bearer of the token.
fn pod_identity(request: &Seen) -> Option<(u16, String)> {
    if request.path != "/v1/credentials" {
        return None;
    }
    Some(if request.header("authorization") == Some(POD_TOKEN) {
        (200, credentials_json())
    } else {
        (403, String::new())
    })
}

/// In the child: a segment copied to the stand-in (answering as S3) through
/// the ambient chain alone (or refused, with [`CHILD_REFUSED`]).
fn child(endpoint: &str) {
    let mut config = S3Config::new("tier", "us-east-1");
    config.endpoint = Some(endpoint.to_owned());
    config.allow_http = true;
    config.path_style = true;
    config.credentials = S3Credentials::Ambient;
    config.max_retries = 0;
    config.prefix = Some(unique_prefix("credential-chain"));
    config.tls_ca_certificates = std::env::var_os(CHILD_CA).map(std::path::PathBuf::from);
    let tier = S3RemoteStorage::from_s3_config(&config).expect("an S3 tier without keys");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let copied = tier.copy_log_segment_data(&orders_segment(100), &segment(dir.path(), 100, false));
    if std::env::var_os(CHILD_REFUSED).is_some() {
        copied.expect_err("a copy without credentials");
    } else {
        copied.expect("a copy signed with the chain's credentials");
    }
}

/// Runs `test` again as a child sending its S3 requests to `endpoint`, with
/// the chain's variables replaced by `variables`; panics unless it passed.
fn run_child(test: &str, endpoint: &str, variables: &[(&str, String)]) {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command.args(["--exact", test, "--test-threads=1"]);
    for name in CHAIN_VARIABLES {
        command.env_remove(name);
    }
    command.env(CHILD_ENDPOINT, endpoint).envs(
        variables
            .iter()
            .map(|(name, value)| (*name, value.as_str())),
    );
    let output = command.output().expect("run the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Checks that the child sent S3 PUTs, each signed with the stand-in's key
/// and carrying its session token among the signed headers.
fn assert_signed_with_the_chain(seen: &[Seen]) {
    let puts: Vec<&Seen> = seen
        .iter()
        .filter(|r| r.method == "PUT" && r.path.starts_with("/tier/"))
        .collect();
    assert!(!puts.is_empty(), "no S3 PUT reached the stand-in: {seen:?}");
    for put in puts {
        let authorization = put.header("authorization").unwrap_or_default();
        assert!(
            authorization.starts_with(&format!("AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/")),
            "{put:?}"
        );
        let signed = authorization
            .split("SignedHeaders=")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .unwrap_or_default();
        assert!(
            signed.split(';').any(|h| h == "x-amz-security-token"),
            "{put:?}"
        );
        assert_eq!(
            put.header("x-amz-security-token"),
            Some(SESSION_TOKEN),
            "{put:?}"
        );
    }
}

/// EC2 instance profile: with `AWS_METADATA_ENDPOINT` naming the stand-in
/// (on EC2 the fixed link-local address), the tier asks for an IMDSv2
/// session token, lists the role, fetches its credentials with the token and
/// signs its S3 requests with them.
#[test]
fn instance_profile_credentials_sign_requests() {
    let test = "instance_profile_credentials_sign_requests";
    if let Ok(endpoint) = std::env::var(CHILD_ENDPOINT) {
        return child(&endpoint);
    }
    let stand_in = StandIn::start(instance_metadata);
    run_child(
        test,
        &stand_in.address,
        &[("AWS_METADATA_ENDPOINT", stand_in.address.clone())],
    );
    let seen = stand_in.seen();
    let token = seen
        .iter()
        .find(|r| r.method == "PUT" && r.path == "/latest/api/token")
        .unwrap_or_else(|| panic!("no IMDSv2 token request: {seen:?}"));
    assert!(
        token
            .header("x-aws-ec2-metadata-token-ttl-seconds")
            .is_some_and(|ttl| ttl.parse::<u32>().is_ok_and(|ttl| ttl > 0)),
        "{token:?}"
    );
    let credentials = format!("/latest/meta-data/iam/security-credentials/{ROLE}");
    assert!(
        seen.iter()
            .any(|r| r.path == credentials
                && r.header("x-aws-ec2-metadata-token") == Some(IMDS_TOKEN)),
        "no credentials request with the session token: {seen:?}"
    );
    assert_signed_with_the_chain(&seen);
}

/// EKS Pod Identity: with `AWS_CONTAINER_CREDENTIALS_FULL_URI` and
/// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`, the tier sends the file's token
/// to the agent and signs its S3 requests with the credentials it returns.
#[test]
fn pod_identity_credentials_sign_requests() {
    let test = "pod_identity_credentials_sign_requests";
    if let Ok(endpoint) = std::env::var(CHILD_ENDPOINT) {
        return child(&endpoint);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let token_file = dir.path().join("eks-pod-identity-token");
    std::fs::write(&token_file, POD_TOKEN).expect("write the token file");
    let stand_in = StandIn::start(pod_identity);
    run_child(
        test,
        &stand_in.address,
        &[
            (
                "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                format!("{}/v1/credentials", stand_in.address),
            ),
            (
                "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
                token_file.display().to_string(),
            ),
        ],
    );
    let seen = stand_in.seen();
    assert!(
        seen.iter()
            .any(|r| r.path == "/v1/credentials" && r.header("authorization") == Some(POD_TOKEN)),
        "no credentials request with the pod's token: {seen:?}"
    );
    assert_signed_with_the_chain(&seen);
}

/// Runs `openssl` with `args` in `dir`; panics unless it succeeded.
fn openssl(dir: &std::path::Path, args: &[&str]) {
    let output = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A private CA (`ca.pem`) and a server certificate it signed for
/// 127.0.0.1 (`leaf.pem`, `leaf-key.pem`) in `dir`.
fn private_ca(dir: &std::path::Path) {
    let ec_key = "ec_paramgen_curve:prime256v1";
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            ec_key,
            "-nodes",
            "-keyout",
            "ca-key.pem",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=krabka test CA",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            ec_key,
            "-nodes",
            "-keyout",
            "leaf-key.pem",
            "-out",
            "leaf.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    );
    std::fs::write(
        dir.join("leaf.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .expect("write the extensions");
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca-key.pem",
            "-CAcreateserial",
            "-out",
            "leaf.pem",
            "-days",
            "2",
            "-extfile",
            "leaf.ext",
        ],
    );
}

/// The HTTPS stand-in of STS (`tests/credential-chain/sts.py`), killed when
/// dropped.
struct Sts {
    process: std::process::Child,
    endpoint: String,
    log: std::path::PathBuf,
}

impl Sts {
    fn start(dir: &std::path::Path) -> Self {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/credential-chain/sts.py");
        let log = dir.join("sts-requests.jsonl");
        let mut process = Command::new("python3")
            .arg(script)
            .args(["--cert", "leaf.pem", "--key", "leaf-key.pem", "--log"])
            .arg(&log)
            .args(["--access-key", ACCESS_KEY, "--secret", SECRET])
            .args(["--session-token", SESSION_TOKEN])
            .current_dir(dir)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the STS stand-in");
        let mut port = String::new();
        BufReader::new(process.stdout.take().expect("its stdout"))
            .read_line(&mut port)
            .expect("its port");
        let port: u16 = port.trim().parse().expect("a port number");
        Self {
            process,
            endpoint: format!("https://127.0.0.1:{port}"),
            log,
        }
    }

    /// The requests it answered, one JSON object per line.
    fn requests(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Sts {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Web identity (IRSA): with `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`
/// and `AWS_ENDPOINT_URL_STS` naming an HTTPS stand-in whose certificate a
/// private CA signed, the tier trusts that CA through
/// `s3.tls.ca.certificates.path` (`object_store` talks to STS over HTTPS
/// only), exchanges the token for temporary credentials and signs its S3
/// requests with them. Without the CA the exchange fails: the TLS check is
/// on, and the setting is what makes it pass.
#[test]
fn web_identity_credentials_sign_requests() {
    let test = "web_identity_credentials_sign_requests";
    if let Ok(endpoint) = std::env::var(CHILD_ENDPOINT) {
        return child(&endpoint);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    private_ca(dir.path());
    let token_file = dir.path().join("web-identity-token");
    std::fs::write(&token_file, "eyJ.web-identity.token").expect("write the token file");
    let sts = Sts::start(dir.path());
    let chain = [
        (
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            token_file.display().to_string(),
        ),
        (
            "AWS_ROLE_ARN",
            "arn:aws:iam::123456789012:role/krabka-tier".to_owned(),
        ),
        ("AWS_ROLE_SESSION_NAME", "krabka-test".to_owned()),
        ("AWS_ENDPOINT_URL_STS", sts.endpoint.clone()),
    ];

    let untrusted = StandIn::start(|_| None);
    run_child(
        test,
        &untrusted.address,
        &[&chain[..], &[(CHILD_REFUSED, "refused".to_owned())]].concat(),
    );
    assert!(
        untrusted.seen().is_empty(),
        "a request went out without credentials: {:?}",
        untrusted.seen()
    );
    assert!(
        sts.requests().is_empty(),
        "STS answered over an untrusted connection"
    );

    let s3 = StandIn::start(|_| None);
    let ca = dir.path().join("ca.pem").display().to_string();
    run_child(test, &s3.address, &[&chain[..], &[(CHILD_CA, ca)]].concat());
    let requests = sts.requests();
    for expected in [
        r#""Action": "AssumeRoleWithWebIdentity""#,
        r#""WebIdentityToken": "eyJ.web-identity.token""#,
        r#""RoleArn": "arn:aws:iam::123456789012:role/krabka-tier""#,
        r#""RoleSessionName": "krabka-test""#,
    ] {
        assert!(requests.contains(expected), "{expected} not in {requests}");
    }
    assert_signed_with_the_chain(&s3.seen());
}
