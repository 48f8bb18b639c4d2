//! What the S3 client built by `build_object_store` puts on the wire for
//! uploads, captured by a minimal S3 stand-in on loopback: every PutObject
//! (plain and create-only) and UploadPart carries a signed
//! `x-amz-checksum-sha256` of its body, CreateMultipartUpload asks for
//! SHA256, and CompleteMultipartUpload lists each part's checksum. Amazon S3
//! refuses uploads into an Object Lock bucket without such a header.

#![allow(missing_docs)]

use {
    krabka_object_store::{ObjectStoreConfig, S3Config, S3Credentials, Secret, build_object_store},
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
