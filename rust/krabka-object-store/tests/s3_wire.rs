//! What the S3 client built by `build_object_store` puts on the wire for
//! uploads, captured by a minimal S3 stand-in on loopback: every PutObject
//! (plain and create-only) and UploadPart carries a signed
//! `x-amz-checksum-sha256` of its body, CreateMultipartUpload asks for
//! SHA256, and CompleteMultipartUpload lists each part's checksum (Amazon S3
//! refuses uploads into an Object Lock bucket without such a header); the
//! configured storage class and server-side encryption are on every PUT and
//! CreateMultipartUpload, signed.

#![allow(missing_docs)]

use {
    krabka_object_store::{
        ObjectStoreConfig, S3Config, S3Credentials, S3ServerSideEncryption, Secret,
        build_object_store,
    },
    object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, path::Path},
    std::{
        collections::BTreeMap,
        io::{BufRead, BufReader, Read, Write},
        net::{TcpListener, TcpStream},
        sync::{Arc, Mutex},
    },
};

/// One request as the stand-in saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// The lower-case names in the SigV4 `SignedHeaders` list.
    fn signed_headers(&self) -> Vec<String> {
        let authorization = self.header("authorization").unwrap_or_default();
        authorization
            .split("SignedHeaders=")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .map(|list| list.split(';').map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

/// Answers like S3 would (UploadPart echoes the part's checksum, as AWS
/// does) and records every request.
fn stand_in() -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = Arc::clone(&log);
            std::thread::spawn(move || serve(stream, &log));
        }
    });
    (url, seen)
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut words = line.split_whitespace();
        let (method, target) = (
            words.next().unwrap_or_default().to_owned(),
            words.next().unwrap_or_default().to_owned(),
        );
        let mut headers = BTreeMap::new();
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
        }
        let length = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let seen = Seen {
            method,
            target,
            headers,
            body,
        };
        let (extra, answer) = answer(&seen);
        log.lock().unwrap().push(seen);
        let head = format!(
            "HTTP/1.1 200 OK\r\netag: \"e\"\r\nx-amz-version-id: v1\r\n{extra}content-length: {}\r\n\r\n",
            answer.len()
        );
        writer.write_all(head.as_bytes()).unwrap();
        writer.write_all(answer.as_bytes()).unwrap();
    }
}

fn answer(seen: &Seen) -> (String, String) {
    if seen.method == "POST" && seen.target.contains("?uploads") {
        return (
            String::new(),
            "<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>"
                .to_owned(),
        );
    }
    if seen.method == "POST" && seen.target.contains("uploadId=") {
        return (
            String::new(),
            "<CompleteMultipartUploadResult><ETag>\"e-2\"</ETag></CompleteMultipartUploadResult>"
                .to_owned(),
        );
    }
    let echo = seen
        .header("x-amz-checksum-sha256")
        .filter(|_| seen.target.contains("partNumber="))
        .map(|value| format!("x-amz-checksum-sha256: {value}\r\n"))
        .unwrap_or_default();
    (echo, String::new())
}

fn store(endpoint: &str) -> Arc<dyn ObjectStore> {
    store_with(endpoint, |_| {})
}

fn store_with(endpoint: &str, configure: impl FnOnce(&mut S3Config)) -> Arc<dyn ObjectStore> {
    let mut config = S3Config::new("tier", "us-east-1");
    config.endpoint = Some(endpoint.to_owned());
    config.allow_http = true;
    config.path_style = true;
    config.max_retries = 0;
    config.credentials = S3Credentials::Static {
        access_key_id: "test".to_owned(),
        secret_access_key: Secret::new("testtesttest"),
        session_token: None,
    };
    configure(&mut config);
    build_object_store(&ObjectStoreConfig::S3(config)).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Base64 SHA-256 of the bodies below (computed with Python's hashlib).
const PROBE_SHA256: &str = "KZKcuP0vlflp0WVHwf3pRATFqQ/5sV5EtCyLS20Lpho=";
const A1000_SHA256: &str = "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=";
const B1000_SHA256: &str = "9vEY4SDlK+C9DP3yeUzRLAdobMhxI1rC8RRZN45tI1s=";

fn assert_signed_checksum(seen: &Seen, expected: &str) {
    assert_eq!(
        seen.header("x-amz-checksum-sha256"),
        Some(expected),
        "{seen:#?}"
    );
    assert!(
        seen.signed_headers()
            .iter()
            .any(|h| h == "x-amz-checksum-sha256"),
        "the checksum header must be signed: {seen:#?}"
    );
}

#[test]
fn puts_and_create_only_puts_carry_a_signed_sha256_checksum() {
    let (endpoint, seen) = stand_in();
    let store = store(&endpoint);
    runtime().block_on(async {
        let key = Path::from("a/plain");
        store
            .put(&key, PutPayload::from_static(b"krabka checksum probe"))
            .await
            .unwrap();
        // The write-once probe and the archive write create-only.
        store
            .put_opts(
                &Path::from("a/create"),
                PutPayload::from_static(b"krabka checksum probe"),
                PutOptions::from(PutMode::Create),
            )
            .await
            .unwrap();
    });
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:#?}");
    for put in &seen {
        assert_eq!(put.method, "PUT");
        assert_signed_checksum(put, PROBE_SHA256);
    }
    assert_eq!(seen[1].header("if-none-match"), Some("*"));
}

#[test]
fn multipart_uploads_carry_the_checksum_on_create_parts_and_complete() {
    let (endpoint, seen) = stand_in();
    let store = store(&endpoint);
    runtime().block_on(async {
        let mut upload = store.put_multipart(&Path::from("a/multi")).await.unwrap();
        upload
            .put_part(PutPayload::from(vec![b'a'; 1000]))
            .await
            .unwrap();
        upload
            .put_part(PutPayload::from(vec![b'b'; 1000]))
            .await
            .unwrap();
        upload.complete().await.unwrap();
    });
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:#?}");
    let (create, parts, complete) = (&seen[0], &seen[1..3], &seen[3]);
    assert!(create.target.contains("?uploads"), "{create:#?}");
    assert_eq!(create.header("x-amz-checksum-algorithm"), Some("SHA256"));
    assert!(
        create
            .signed_headers()
            .iter()
            .any(|h| h == "x-amz-checksum-algorithm")
    );
    for (part, expected) in parts.iter().zip([A1000_SHA256, B1000_SHA256]) {
        assert!(part.target.contains("partNumber="), "{part:#?}");
        assert_signed_checksum(part, expected);
    }
    let body = String::from_utf8(complete.body.clone()).unwrap();
    for expected in [A1000_SHA256, B1000_SHA256] {
        assert!(
            body.contains(&format!("<ChecksumSHA256>{expected}</ChecksumSHA256>")),
            "{body}"
        );
    }
}

/// A single PUT and a multipart upload through `store`; the requests that
/// create objects (the PUT and CreateMultipartUpload).
fn creating_requests(seen: &Mutex<Vec<Seen>>, store: &Arc<dyn ObjectStore>) -> Vec<Seen> {
    runtime().block_on(async {
        store
            .put(&Path::from("a/one"), PutPayload::from_static(b"one"))
            .await
            .unwrap();
        let mut upload = store.put_multipart(&Path::from("a/multi")).await.unwrap();
        upload
            .put_part(PutPayload::from(vec![b'a'; 1000]))
            .await
            .unwrap();
        upload.complete().await.unwrap();
    });
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:#?}");
    vec![seen[0].clone(), seen[1].clone()]
}

fn assert_signed_header(seen: &Seen, name: &str, value: Option<&str>) {
    assert_eq!(seen.header(name), value, "{name}: {seen:#?}");
    if value.is_some() {
        assert!(
            seen.signed_headers().iter().any(|h| h == name),
            "{name} must be signed: {seen:#?}"
        );
    }
}

#[test]
fn the_storage_class_is_on_every_object_creating_request() {
    let (endpoint, seen) = stand_in();
    let store = store_with(&endpoint, |c| {
        c.storage_class = Some("STANDARD_IA".to_owned())
    });
    for request in creating_requests(&seen, &store) {
        assert_signed_header(&request, "x-amz-storage-class", Some("STANDARD_IA"));
    }
    let (endpoint, seen) = stand_in();
    for request in creating_requests(&seen, &store_with(&endpoint, |_| {})) {
        assert_signed_header(&request, "x-amz-storage-class", None);
    }
}

#[test]
fn server_side_encryption_is_requested_as_configured() {
    let (endpoint, seen) = stand_in();
    let sse_s3 = store_with(&endpoint, |c| {
        c.server_side_encryption = S3ServerSideEncryption::S3Managed;
    });
    for request in creating_requests(&seen, &sse_s3) {
        assert_signed_header(&request, "x-amz-server-side-encryption", Some("AES256"));
        assert_signed_header(
            &request,
            "x-amz-server-side-encryption-aws-kms-key-id",
            None,
        );
    }
    let (endpoint, seen) = stand_in();
    let kms = store_with(&endpoint, |c| {
        c.server_side_encryption = S3ServerSideEncryption::Kms {
            key_id: Some("arn:aws:kms:eu-west-1:111122223333:key/tiered".to_owned()),
        };
    });
    for request in creating_requests(&seen, &kms) {
        assert_signed_header(&request, "x-amz-server-side-encryption", Some("aws:kms"));
        assert_signed_header(
            &request,
            "x-amz-server-side-encryption-aws-kms-key-id",
            Some("arn:aws:kms:eu-west-1:111122223333:key/tiered"),
        );
    }
    let (endpoint, seen) = stand_in();
    for request in creating_requests(&seen, &store(&endpoint)) {
        assert_signed_header(&request, "x-amz-server-side-encryption", None);
    }
}

#[test]
fn a_malformed_storage_class_or_empty_kms_key_is_refused() {
    for class in ["", "standard", "STANDARD IA"] {
        let mut config = S3Config::new("tier", "us-east-1");
        config.storage_class = Some(class.to_owned());
        let err = ObjectStoreConfig::S3(config).validate().unwrap_err();
        assert!(err.to_string().contains("storage_class"), "{class}: {err}");
    }
    let mut config = S3Config::new("tier", "us-east-1");
    config.server_side_encryption = S3ServerSideEncryption::Kms {
        key_id: Some(String::new()),
    };
    assert!(ObjectStoreConfig::S3(config).validate().is_err());
}
