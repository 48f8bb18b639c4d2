use {super::*, std::path::Path};

fn config(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
}

const K1: [(&str, &str); 2] = [
    (
        "encryption.key.pairs.k1.public.key.file",
        "/keys/k1.pub.pem",
    ),
    ("encryption.key.pairs.k1.private.key.file", "/keys/k1.pem"),
];

#[test]
fn defaults_write_plain_segments() {
    let format = parse_format(&config(&[("filesystem.root", "/t")])).unwrap();
    assert_eq!(
        format,
        FormatConfig {
            chunk_size: 4 * 1024 * 1024,
            compression: None,
            encryption: None,
            key_pairs: None,
            kms: None,
        }
    );
    assert!(format.codec().unwrap().writes_plain());
}

#[test]
fn the_plugin_keys_of_compression_and_encryption_parse() {
    let mut entries = config(&[
        ("chunk.size", "65536"),
        ("compression.enabled", "true"),
        ("compression.heuristic.enabled", "false"),
        ("compression.zstd.level", "9"),
        ("encryption.enabled", "true"),
        ("encryption.cipher", "chacha20-poly1305"),
        ("encryption.key.pair.id", "k1"),
        ("encryption.key.pairs", "k1, k0"),
        (
            "encryption.key.pairs.k0.public.key.file",
            "/keys/k0.pub.pem",
        ),
        ("encryption.key.pairs.k0.private.key.file", "/keys/k0.pem"),
    ]);
    entries.extend(config(&K1));
    let format = parse_format(&entries).unwrap();
    assert_eq!(format.chunk_size, 65536);
    assert_eq!(
        format.compression,
        Some(Compression {
            level: 9,
            heuristic: false
        })
    );
    assert_eq!(format.encryption, Some(Cipher::ChaCha20Poly1305));
    let (active, pairs) = format.key_pairs.unwrap();
    assert_eq!(active, "k1");
    assert_eq!(
        pairs
            .iter()
            .map(|pair| pair.id.as_str())
            .collect::<Vec<_>>(),
        ["k1", "k0"]
    );
    assert_eq!(pairs[0].private_key_file, Path::new("/keys/k1.pem"));
    assert_eq!(pairs[1].public_key_file, Path::new("/keys/k0.pub.pem"));
}

#[test]
fn every_inconsistency_names_its_key() {
    let refuse = |pairs: &[(&str, &str)], key: &str| {
        let err = parse_format(&config(pairs)).unwrap_err().to_string();
        assert!(err.contains(key), "{key}: {err}");
    };
    refuse(&[("encryption.enabled", "true")], "encryption.key.pairs");
    refuse(&[("encryption.key.pairs", "k1")], "encryption.key.pair.id");
    refuse(
        &[
            ("encryption.key.pairs", "k1"),
            ("encryption.key.pair.id", "k2"),
        ],
        "encryption.key.pair.id",
    );
    refuse(
        &[("encryption.key.pair.id", "k1")],
        "encryption.key.pair.id",
    );
    refuse(
        &[
            ("encryption.key.pairs", "k1"),
            ("encryption.key.pair.id", "k1"),
            K1[0],
        ],
        "encryption.key.pairs.k1.private.key.file",
    );
    refuse(
        &[
            ("encryption.key.pairs", "k1"),
            ("encryption.key.pair.id", "k1"),
            K1[0],
            K1[1],
            ("encryption.key.pairs.k2.public.key.file", "/x"),
        ],
        "encryption.key.pairs.k2.public.key.file",
    );
    refuse(
        &[("encryption.key.pairs.k1.public.key.fil", "/x")],
        "encryption.key.pairs.k1.public.key.fil",
    );
    refuse(&[("chunk.size", "100")], "chunk.size");
    refuse(
        &[("compression.zstd.level", "30")],
        "compression.zstd.level",
    );
    refuse(&[("encryption.cipher", "des")], "encryption.cipher");
}

#[test]
fn key_files_are_read_when_the_codec_opens() {
    let mut entries = config(&[
        ("encryption.key.pairs", "k1"),
        ("encryption.key.pair.id", "k1"),
    ]);
    entries.extend(config(&K1));
    let err = parse_format(&entries).unwrap().codec().unwrap_err();
    assert!(err.to_string().contains("/keys/k1.pem"), "{err}");
}

#[test]
fn a_kms_key_takes_the_s3_credentials_and_region() {
    let format = parse_format(&config(&[
        ("backend", "s3"),
        ("s3.region", "eu-west-1"),
        ("s3.access.key.id", "AKIA"),
        ("s3.secret.access.key", "hunter2"),
        ("encryption.enabled", "true"),
        ("encryption.kms.key.id", "alias/kafka-tier"),
        ("encryption.kms.endpoint", "http://127.0.0.1:4566"),
    ]))
    .unwrap();
    let kms = format.kms.unwrap();
    assert_eq!(
        (kms.key_id.as_str(), kms.region.as_str()),
        ("alias/kafka-tier", "eu-west-1")
    );
    assert_eq!(kms.endpoint.as_deref(), Some("http://127.0.0.1:4566"));
    assert!(matches!(
        kms.credentials,
        krabka_object_store::S3Credentials::Static { .. }
    ));
    assert!(!format!("{kms:?}").contains("hunter2"));
    let err = parse_format(&config(&[("encryption.kms.key.id", "k")]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("encryption.kms.region"), "{err}");
}
