//! The WORM manifest test vectors of `docs/worm-format.md`, built from
//! fixed keys and inputs. Shared by the `worm_vectors` test (which checks
//! the document and the fixtures against them) and by the `worm_vectors`
//! example (which regenerates the fixtures and prints the document's
//! vector blocks).

#![allow(dead_code)]

use {
    ed25519_dalek::pkcs8::{EncodePrivateKey, spki::der::pem::LineEnding},
    krabka_ids::LeaderEpoch,
    krabka_remote_storage::{
        ChainHead, ChainStamp, ChainWalk, EpochId, HexBytes, ManifestBody, ManifestSeq,
        ManifestSigner, ObjectEntry, RemoteLogSegmentDetails, RemoteLogSegmentId,
        RemoteLogSegmentMetadata, RemoteLogSegmentState, SegmentIdentity, SegmentManifest,
        Sha256Digest, TopicIdPartition, TrustedManifestKeys, WormChainRecord, WormError,
        canonical_manifest_bytes, manifest_head, manifest_signing_bytes, partition_dir_name,
        seal_key, segment_file_name,
        tlog::{Checkpoint, LogEntry, LogHash},
        verify_manifest_bytes,
    },
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// RFC 8032 §7.1 TEST 1 secret key.
pub const KEY_1_SECRET: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
/// RFC 8032 §7.1 TEST 1 public key.
pub const KEY_1_PUBLIC: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
/// RFC 8032 §7.1 TEST 2 secret key.
pub const KEY_2_SECRET: &str = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
/// RFC 8032 §7.1 TEST 2 public key.
pub const KEY_2_PUBLIC: &str = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";
/// RFC 8032 §7.1 TEST 3 secret key (a key nobody trusts).
pub const KEY_3_SECRET: &str = "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7";

pub const KEY_ID_1: &str = "test-key-1";
pub const KEY_ID_2: &str = "test-key-2";
pub const KEY_ID_3: &str = "test-key-3";

pub const TOPIC_ID: u128 = 0x0011_2233_4455_6677_8899_aabb_ccdd_eeff;
pub const EPOCH_ID: u128 = 0x6ba7_b810_9dad_41d1_80b4_00c0_4fd4_30c8;
pub const OTHER_EPOCH_ID: u128 = 0x0bad_0bad_0bad_4bad_8bad_0bad_0bad_0bad;
pub const KEY_PREFIX: &str = "archive/";
pub const MULTIPART_VERSION_ID: &str = "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY";
pub const MULTIPART_ETAG: &str = "\"d41d8cd98f00b204e9800998ecf8427e-2\"";

pub fn unhex<const N: usize>(text: &str) -> [u8; N] {
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect();
    bytes.try_into().unwrap()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn signer(secret: &str, key_id: &str) -> ManifestSigner {
    ManifestSigner::from_secret_bytes(&unhex::<32>(secret), key_id).unwrap()
}

pub fn signer_1() -> ManifestSigner {
    signer(KEY_1_SECRET, KEY_ID_1)
}

pub fn signer_2() -> ManifestSigner {
    signer(KEY_2_SECRET, KEY_ID_2)
}

/// The auditor's trusted set: keys 1 and 2 (a rotation), not key 3.
pub fn trusted() -> TrustedManifestKeys {
    TrustedManifestKeys::from_pairs([
        (KEY_ID_1, unhex::<32>(KEY_1_PUBLIC)),
        (KEY_ID_2, unhex::<32>(KEY_2_PUBLIC)),
    ])
    .unwrap()
}

/// Deterministic object contents: `len` bytes of `i % 251`, salted.
pub fn content(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| u8::try_from(i % 251).unwrap() ^ salt)
        .collect()
}

fn metadata(
    segment: u128,
    start: i64,
    end: i64,
    epochs: &[(i32, i64)],
) -> RemoteLogSegmentMetadata {
    let partition = TopicIdPartition::new(Uuid::from_u128(TOPIC_ID), "orders", 3);
    RemoteLogSegmentMetadata::new(
        RemoteLogSegmentId::new(partition, Uuid::from_u128(segment)),
        start,
        end,
        1_700_000_000_000 + start,
        1,
        1_700_000_000_500 + start,
        RemoteLogSegmentDetails::new(
            4096,
            RemoteLogSegmentState::CopySegmentStarted,
            epochs.iter().map(|(e, o)| (LeaderEpoch(*e), *o)).collect(),
        ),
    )
    .unwrap()
    .with_txn_index_empty(true)
}

fn objects(md: &RemoteLogSegmentMetadata, salt: u8) -> Vec<ObjectEntry> {
    let dir = partition_dir_name(md);
    let entry = |suffix: &str, bytes: Vec<u8>, multipart: bool| ObjectEntry {
        suffix: suffix.to_owned(),
        key: format!("{KEY_PREFIX}{dir}/{}", segment_file_name(md, suffix)),
        size_bytes: u64::try_from(bytes.len()).unwrap(),
        sha256: Sha256Digest::of(&bytes),
        e_tag: multipart.then(|| MULTIPART_ETAG.to_owned()),
        version_id: multipart.then(|| MULTIPART_VERSION_ID.to_owned()),
        create_precondition: !multipart,
    };
    vec![
        entry(".log", content(4096, salt), true),
        entry(".index", content(16, salt ^ 1), false),
        entry(".timeindex", content(24, salt ^ 2), false),
        entry(".leader_epoch_checkpoint", b"0\n1\n0 0\n".to_vec(), false),
    ]
}

pub fn metadata_0() -> RemoteLogSegmentMetadata {
    metadata(
        0x1111_1111_2222_4333_8444_5555_5555_5555,
        0,
        99,
        &[(0, 0), (2, 50)],
    )
}

pub fn metadata_1() -> RemoteLogSegmentMetadata {
    metadata(
        0x6666_6666_7777_4888_9999_aaaa_aaaa_aaaa,
        100,
        199,
        &[(2, 100)],
    )
}

pub fn body_0() -> ManifestBody {
    let md = metadata_0();
    ManifestBody::new(
        SegmentIdentity::from_metadata(&md),
        objects(&md, 0),
        ChainStamp::genesis(EpochId(Uuid::from_u128(EPOCH_ID))),
    )
}

/// Manifest 0: seq 0 on genesis, signed by key 1.
pub fn manifest_0() -> SegmentManifest {
    signer_1().seal(body_0())
}

pub fn body_1() -> ManifestBody {
    let md = metadata_1();
    let stamp = ChainStamp::genesis(EpochId(Uuid::from_u128(EPOCH_ID)))
        .next(manifest_head(&body_0()))
        .unwrap();
    ManifestBody::new(
        SegmentIdentity::from_metadata(&md),
        objects(&md, 0x5a),
        stamp,
    )
}

/// Manifest 1: seq 1 on manifest 0's head, signed by key 2 (after a key
/// rotation).
pub fn manifest_1() -> SegmentManifest {
    signer_2().seal(body_1())
}

/// The receipt a copy of manifest 1 returns to Kafka.
pub fn receipt_1() -> WormChainRecord {
    WormChainRecord::receipt(&body_1().chain, manifest_head(&body_1()))
        .with_manifest_version(MULTIPART_VERSION_ID)
}

/// Named vectors as they appear in the document: hex or text, compared
/// with whitespace removed; `manifest-0-pretty` is compared as a JSON value.
pub fn named_vectors() -> Vec<(String, String)> {
    let mut out = Vec::new();
    out.push(("key-1-public".to_owned(), hex(&signer_1().public_key())));
    out.push(("key-2-public".to_owned(), hex(&signer_2().public_key())));
    for (n, manifest) in [(0, manifest_0()), (1, manifest_1())] {
        let body = &manifest.body;
        let head = manifest_head(body);
        let signature = manifest.signature.clone().unwrap();
        let name = |what: &str| format!("manifest-{n}-{what}");
        out.push((name("canonical-body"), hex(&canonical_manifest_bytes(body))));
        out.push((name("head"), head.to_string()));
        out.push((
            name("signing-bytes"),
            hex(&manifest_signing_bytes(
                &signature.key_id,
                body.chain.epoch_id,
                body.chain.seq,
                &head,
            )),
        ));
        out.push((name("signature"), signature.signature.to_string()));
        out.push((
            name("file-sha256"),
            Sha256Digest::of(&manifest.to_bytes()).to_string(),
        ));
    }
    out.push((
        "manifest-0-pretty".to_owned(),
        pretty(&String::from_utf8(manifest_0().to_bytes()).unwrap()),
    ));
    out.push((
        "receipt-1".to_owned(),
        hex(receipt_1().to_custom_metadata().as_bytes()),
    ));
    out.extend(log_vectors());
    out
}

/// The archive log's origin in the vectors.
pub const LOG_ORIGIN: &str = "archive.example/orders";

/// The log entries of manifests 0 and 1, sealed as their chain seals.
pub fn log_entries() -> Vec<LogEntry> {
    [(metadata_0(), manifest_0()), (metadata_1(), manifest_1())]
        .iter()
        .map(|(metadata, manifest)| {
            let chain = manifest.body.chain;
            let key = seal_key(&partition_dir_name(metadata), chain.epoch_id, chain.seq);
            LogEntry::of_seal(&key, &manifest.to_bytes())
        })
        .collect()
}

/// The archive log's vectors: the two entries, their leaf hashes, the
/// root of the tree of both, and its checkpoint signed by key 1 under the
/// origin (Ed25519 note signatures are deterministic).
pub fn log_vectors() -> Vec<(String, String)> {
    let entries: Vec<Vec<u8>> = log_entries()
        .iter()
        .map(|e| e.to_bytes().unwrap())
        .collect();
    let leaves: Vec<LogHash> = entries.iter().map(|e| LogHash::leaf(e)).collect();
    let root = LogHash::node(&leaves[0], &leaves[1]);
    let signer = signer_1().note_signer(LOG_ORIGIN).unwrap();
    let note = signer
        .sign(&Checkpoint::new(LOG_ORIGIN, 2, root).to_text())
        .unwrap();
    vec![
        ("log-entry-0".to_owned(), hex(&entries[0])),
        ("log-leaf-0".to_owned(), leaves[0].to_hex()),
        ("log-leaf-1".to_owned(), leaves[1].to_hex()),
        ("log-root-2".to_owned(), root.to_hex()),
        ("log-vkey".to_owned(), signer.verifier().to_string()),
        ("log-checkpoint-2-note".to_owned(), note),
    ]
}

/// Indents canonical JSON for reading, keeping its key order.
pub fn pretty(json: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    for c in json.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                depth += 1;
                newline(&mut out, depth);
            }
            '}' | ']' => {
                depth -= 1;
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

/// Removes the whitespace outside strings that [`pretty`] added.
pub fn minify(json: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            out.push(c);
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// How a negative vector must fail.
pub type Expect = fn(&WormError) -> bool;

/// One negative manifest vector: the bytes a verifier must refuse.
pub struct Negative {
    pub name: &'static str,
    pub bytes: Vec<u8>,
    pub expect: Expect,
    pub outcome: &'static str,
}

fn replace_once(text: &str, from: &str, to: &str) -> Vec<u8> {
    assert!(text.contains(from), "{from} not in the manifest");
    text.replacen(from, to, 1).into_bytes()
}

/// Every way a single manifest object can fail verification against
/// [`trusted`], as bytes.
pub fn negative_manifests() -> Vec<Negative> {
    let good = String::from_utf8(manifest_0().to_bytes()).unwrap();
    let log_sha = body_0().objects[0].sha256.to_string();
    let mut flipped_sha = log_sha.clone().into_bytes();
    flipped_sha[0] ^= 0x01; // one bit of one hex digit; still lower-case hex
    let flipped_sha = String::from_utf8(flipped_sha).unwrap();

    let mut wrong_key = manifest_0();
    let forged = signer(KEY_2_SECRET, KEY_ID_1).sign_body(&wrong_key.body);
    wrong_key.signature = Some(krabka_remote_storage::ManifestSignature {
        public_key: HexBytes(unhex::<32>(KEY_1_PUBLIC).to_vec()),
        ..forged
    });

    let mut other_public_key = manifest_0();
    if let Some(signature) = &mut other_public_key.signature {
        signature.public_key = HexBytes(unhex::<32>(KEY_2_PUBLIC).to_vec());
    }

    let mut unsigned = manifest_0();
    unsigned.signature = None;
    let mut short_signature = manifest_0();
    if let Some(signature) = &mut short_signature.signature {
        signature.signature.0.pop();
    }

    vec![
        Negative {
            name: "bit-flip",
            bytes: replace_once(&good, &log_sha, &flipped_sha),
            expect: |e| matches!(e, WormError::SignatureInvalid { .. }),
            outcome: "signature does not verify (`SignatureInvalid`)",
        },
        Negative {
            name: "wrong-key",
            bytes: wrong_key.to_bytes(),
            expect: |e| matches!(e, WormError::SignatureInvalid { .. }),
            outcome: "signed by key 2 under key id `test-key-1`: signature does not verify (`SignatureInvalid`)",
        },
        Negative {
            name: "public-key-rewritten",
            bytes: other_public_key.to_bytes(),
            expect: |e| matches!(e, WormError::PublicKeyMismatch { .. }),
            outcome: "valid signature, but the carried public key is key 2's (`PublicKeyMismatch`)",
        },
        Negative {
            name: "unknown-key",
            bytes: signer(KEY_3_SECRET, KEY_ID_3).seal(body_0()).to_bytes(),
            expect: |e| matches!(e, WormError::UntrustedKey { .. }),
            outcome: "key id `test-key-3` is not trusted (`UntrustedKey`)",
        },
        Negative {
            name: "unsigned",
            bytes: unsigned.to_bytes(),
            expect: |e| matches!(e, WormError::Unsigned),
            outcome: "no signature (`Unsigned`)",
        },
        Negative {
            name: "short-signature",
            bytes: short_signature.to_bytes(),
            expect: |e| matches!(e, WormError::MalformedSignature { .. }),
            outcome: "63-byte signature (`MalformedSignature`)",
        },
        Negative {
            name: "bumped-format-version",
            bytes: replace_once(&good, "\"format_version\":2", "\"format_version\":3"),
            expect: |e| matches!(e, WormError::UnsupportedFormatVersion { found: 3, .. }),
            outcome: "format version 3 (`UnsupportedFormatVersion`)",
        },
        Negative {
            name: "trailing-garbage",
            bytes: [good.as_bytes(), b"garbage"].concat(),
            expect: |e| matches!(e, WormError::ManifestTrailingBytes { .. }),
            outcome: "bytes after the JSON value (`ManifestTrailingBytes`)",
        },
        Negative {
            name: "trailing-newline",
            bytes: [good.as_bytes(), b"\n"].concat(),
            expect: |e| matches!(e, WormError::ManifestTrailingBytes { .. }),
            outcome: "a newline after the JSON value (`ManifestTrailingBytes`)",
        },
        Negative {
            name: "non-canonical-whitespace",
            bytes: replace_once(&good, "\"format_version\":2", "\"format_version\": 2"),
            expect: |e| matches!(e, WormError::ManifestNotCanonical { .. }),
            outcome: "a space after a colon (`ManifestNotCanonical`)",
        },
        Negative {
            name: "non-canonical-hex-case",
            bytes: replace_once(&good, &log_sha, &log_sha.to_uppercase()),
            expect: |e| matches!(e, WormError::ManifestDecode { .. }),
            outcome: "upper-case hex in a digest (`ManifestDecode`)",
        },
        Negative {
            name: "non-canonical-escape",
            bytes: replace_once(&good, "\"topic\":\"orders\"", "\"topic\":\"\\u006frders\""),
            expect: |e| matches!(e, WormError::ManifestNotCanonical { .. }),
            outcome: "an unneeded `\\u` escape (`ManifestNotCanonical`)",
        },
        Negative {
            name: "non-canonical-key-order",
            bytes: replace_once(
                &good,
                "\"topic\":\"orders\",\"topic_id\":\"00112233-4455-6677-8899-aabbccddeeff\"",
                "\"topic_id\":\"00112233-4455-6677-8899-aabbccddeeff\",\"topic\":\"orders\"",
            ),
            expect: |e| matches!(e, WormError::ManifestNotCanonical { .. }),
            outcome: "two keys swapped (`ManifestNotCanonical`)",
        },
        Negative {
            name: "non-canonical-number",
            bytes: replace_once(&good, "\"partition\":3", "\"partition\":3.0"),
            expect: |e| matches!(e, WormError::ManifestDecode { .. }),
            outcome: "`3.0` for an integer (`ManifestDecode`)",
        },
        Negative {
            name: "unknown-field",
            bytes: replace_once(
                &good,
                "\"format_version\":2",
                "\"format_version\":2,\"extra\":1",
            ),
            expect: |e| matches!(e, WormError::ManifestDecode { .. }),
            outcome: "an unknown field (`ManifestDecode`)",
        },
    ]
}

/// One negative chain vector: a sequence of manifests a walk must refuse
/// at its last element.
pub struct NegativeChain {
    pub name: &'static str,
    pub manifests: Vec<(&'static str, SegmentManifest)>,
    pub expect: Expect,
    pub outcome: &'static str,
}

/// A manifest at seq 1 on manifest 0 whose body differs from manifest 1.
pub fn manifest_1_fork() -> SegmentManifest {
    let mut body = body_1();
    body.segment.end_offset = 150;
    signer_2().seal(body)
}

/// A manifest at seq 1 that does not build on manifest 0's head.
pub fn manifest_1_wrong_prev() -> SegmentManifest {
    let mut body = body_1();
    body.chain.prev_head = ChainHead([0x11; 32]);
    signer_2().seal(body)
}

/// Manifest 1's body moved to another epoch.
pub fn manifest_1_other_epoch() -> SegmentManifest {
    let mut body = body_1();
    body.chain.epoch_id = EpochId(Uuid::from_u128(OTHER_EPOCH_ID));
    signer_2().seal(body)
}

pub fn negative_chains() -> Vec<NegativeChain> {
    vec![
        NegativeChain {
            name: "reorder",
            manifests: vec![("manifest-1", manifest_1()), ("manifest-0", manifest_0())],
            expect: |e| {
                matches!(
                    e,
                    WormError::ChainGap {
                        expected: ManifestSeq(0),
                        found: ManifestSeq(1),
                        ..
                    }
                )
            },
            outcome: "seq 1 where seq 0 is expected (`ChainGap`)",
        },
        NegativeChain {
            name: "replay",
            manifests: vec![
                ("manifest-0", manifest_0()),
                ("manifest-1", manifest_1()),
                ("manifest-1", manifest_1()),
            ],
            expect: |e| {
                matches!(
                    e,
                    WormError::ChainReplay {
                        seq: ManifestSeq(1),
                        ..
                    }
                )
            },
            outcome: "the same manifest twice (`ChainReplay`)",
        },
        NegativeChain {
            name: "fork",
            manifests: vec![
                ("manifest-0", manifest_0()),
                ("manifest-1", manifest_1()),
                ("manifest-1-fork", manifest_1_fork()),
            ],
            expect: |e| {
                matches!(
                    e,
                    WormError::ChainFork {
                        seq: ManifestSeq(1),
                        ..
                    }
                )
            },
            outcome: "a second, different manifest at seq 1 (`ChainFork`)",
        },
        NegativeChain {
            name: "wrong-prev-head",
            manifests: vec![
                ("manifest-0", manifest_0()),
                ("manifest-1-wrong-prev", manifest_1_wrong_prev()),
            ],
            expect: |e| {
                matches!(
                    e,
                    WormError::ChainHeadMismatch {
                        seq: ManifestSeq(1),
                        ..
                    }
                )
            },
            outcome: "seq 1 on a head other than manifest 0's (`ChainHeadMismatch`)",
        },
        NegativeChain {
            name: "deleted-middle",
            manifests: vec![("manifest-0", manifest_0()), ("manifest-2", manifest_2())],
            expect: |e| {
                matches!(
                    e,
                    WormError::ChainGap {
                        expected: ManifestSeq(1),
                        found: ManifestSeq(2),
                        ..
                    }
                )
            },
            outcome: "manifest 1 missing (`ChainGap`)",
        },
        NegativeChain {
            name: "other-epoch",
            manifests: vec![
                ("manifest-0", manifest_0()),
                ("manifest-1-other-epoch", manifest_1_other_epoch()),
            ],
            expect: |e| matches!(e, WormError::ChainEpochMismatch { .. }),
            outcome: "a manifest of another epoch (`ChainEpochMismatch`)",
        },
    ]
}

/// Manifest 2: seq 2 on manifest 1's head, signed by key 2.
pub fn manifest_2() -> SegmentManifest {
    let md = metadata(
        0x7777_7777_8888_4999_aaaa_bbbb_bbbb_bbbb,
        200,
        299,
        &[(2, 200)],
    );
    let stamp = body_1().chain.next(manifest_head(&body_1())).unwrap();
    signer_2().seal(ManifestBody::new(
        SegmentIdentity::from_metadata(&md),
        objects(&md, 0x33),
        stamp,
    ))
}

/// Walks `manifests` in order: decode, verify, chain.
pub fn walk(manifests: &[SegmentManifest]) -> Result<ChainHead, WormError> {
    let trusted = trusted();
    let first = manifests.first().map(|m| m.body.chain.epoch_id);
    let mut walk = ChainWalk::new(first.unwrap_or(EpochId(Uuid::nil())));
    for manifest in manifests {
        let verified = verify_manifest_bytes(&manifest.to_bytes(), &trusted)?;
        walk.accept(verified.body())?;
    }
    Ok(walk.head())
}

/// Fixture files: name → bytes.
pub fn fixture_files() -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    files.insert("manifest-0.json".to_owned(), manifest_0().to_bytes());
    files.insert("manifest-1.json".to_owned(), manifest_1().to_bytes());
    files.insert("manifest-2.json".to_owned(), manifest_2().to_bytes());
    files.insert(
        "manifest-1-fork.json".to_owned(),
        manifest_1_fork().to_bytes(),
    );
    files.insert(
        "manifest-1-wrong-prev.json".to_owned(),
        manifest_1_wrong_prev().to_bytes(),
    );
    files.insert(
        "manifest-1-other-epoch.json".to_owned(),
        manifest_1_other_epoch().to_bytes(),
    );
    let key_1 = ed25519_dalek::SigningKey::from_bytes(&unhex::<32>(KEY_1_SECRET));
    files.insert(
        "test-key-1.pk8".to_owned(),
        key_1.to_pkcs8_der().unwrap().as_bytes().to_vec(),
    );
    files.insert(
        "test-key-1.pem".to_owned(),
        key_1
            .to_pkcs8_pem(LineEnding::LF)
            .unwrap()
            .as_bytes()
            .to_vec(),
    );
    for negative in negative_manifests() {
        files.insert(format!("negative/{}.json", negative.name), negative.bytes);
    }
    files
}
