//! The test vectors of `docs/chunked-format.md`: computed here and compared
//! with the document's generated section. `KRABKA_REGENERATE=1 cargo test -p
//! krabka-envelope --test vectors` rewrites the section.

use {
    krabka_envelope::{
        ChunkCipher, ChunkPlace, Cipher, DataKey, ObjectChunks, ObjectKind, OpenedSegment,
        SegmentEnvelope, StoredChunk, envelope::STORED_MAGIC,
    },
    std::{fmt::Write as _, path::PathBuf, sync::Arc},
    uuid::Uuid,
};

const BEGIN: &str = "<!-- BEGIN GENERATED vectors -->\n";
const END: &str = "<!-- END GENERATED vectors -->";
const ORIGINAL: &[u8] = b"Kafka tiered storage, sealed\n";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn segment() -> Uuid {
    Uuid::parse_str("11111111-2222-4333-8444-555555555555").unwrap()
}

fn data_key() -> DataKey {
    DataKey::from_bytes(&(0u8..32).collect::<Vec<_>>()).unwrap()
}

fn place() -> ChunkPlace {
    ChunkPlace {
        segment: segment(),
        kind: ObjectKind::Log,
        chunk: 0,
        last: true,
        original_len: u32::try_from(ORIGINAL.len()).unwrap(),
        compressed: false,
    }
}

fn sealed(cipher: Cipher) -> Vec<u8> {
    let mut body = ORIGINAL.to_vec();
    ChunkCipher::new(cipher, &data_key())
        .unwrap()
        .seal(&place(), &mut body)
        .unwrap();
    body
}

fn envelope() -> SegmentEnvelope {
    SegmentEnvelope {
        segment: segment(),
        cipher: Some(Cipher::Aes256Gcm),
        chunk_size: 4096,
        key_id: "k1".to_owned(),
        wrapped_key: vec![0xaa; 8],
        objects: vec![
            ObjectChunks {
                kind: ObjectKind::Log,
                original_size: ORIGINAL.len() as u64,
                chunks: vec![StoredChunk {
                    stored_len: u32::try_from(sealed(Cipher::Aes256Gcm).len()).unwrap(),
                    compressed: false,
                }],
            },
            ObjectChunks {
                kind: ObjectKind::OffsetIndex,
                original_size: 0,
                chunks: vec![],
            },
        ],
    }
}

/// The generated section of the document.
fn render() -> String {
    let place = place();
    let mut out = String::new();
    let mut line = |label: &str, value: String| {
        let _ = writeln!(out, "| {label} | `{value}` |");
    };
    line("segment id", segment().to_string());
    line("data key", hex(data_key().expose()));
    line(
        "original chunk (29 bytes, ASCII `Kafka tiered storage, sealed\\n`)",
        hex(ORIGINAL),
    );
    line("nonce (log, chunk 0)", hex(&place.nonce_bytes()));
    line(
        "associated data (last, 29 bytes, not compressed)",
        hex(&place.associated_data()),
    );
    line("sealed chunk, AES-256-GCM", hex(&sealed(Cipher::Aes256Gcm)));
    line(
        "sealed chunk, ChaCha20-Poly1305",
        hex(&sealed(Cipher::ChaCha20Poly1305)),
    );
    let mut stored = STORED_MAGIC.to_vec();
    stored.extend_from_slice(&sealed(Cipher::Aes256Gcm));
    line("stored log object (AES-256-GCM)", hex(&stored));
    line(
        "envelope (AES-256-GCM, key id `k1`, wrapped key 8 × `aa`, the log and an empty offset index)",
        hex(&envelope().encode()),
    );
    format!("| what | hex |\n|---|---|\n{out}")
}

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/chunked-format.md")
}

#[test]
fn the_vectors_decode_back() {
    let envelope = SegmentEnvelope::decode(&envelope().encode(), segment()).unwrap();
    struct FixedKey;
    impl std::fmt::Debug for FixedKey {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("FixedKey")
        }
    }
    impl krabka_envelope::KeyRing for FixedKey {
        fn active_key_id(&self) -> &str {
            "k1"
        }
        fn key_ids(&self) -> Vec<String> {
            vec!["k1".to_owned()]
        }
        fn wrap(&self, _: &DataKey) -> krabka_envelope::Result<krabka_envelope::WrappedKey> {
            Err(krabka_envelope::EnvelopeError::Crypto(
                "a test ring does not wrap",
            ))
        }
        fn unwrap(
            &self,
            _: Uuid,
            wrapped: &krabka_envelope::WrappedKey,
        ) -> krabka_envelope::Result<DataKey> {
            if wrapped.bytes == [0xaa; 8] {
                Ok(data_key())
            } else {
                Err(krabka_envelope::EnvelopeError::Crypto(
                    "an unexpected wrapped key",
                ))
            }
        }
    }
    let opened = Arc::new(OpenedSegment::open(envelope, Some(&FixedKey)).unwrap());
    let mut stored = STORED_MAGIC.to_vec();
    stored.extend_from_slice(&sealed(Cipher::Aes256Gcm));
    assert_eq!(
        opened.decode_object(ObjectKind::Log, &stored).unwrap(),
        ORIGINAL
    );
    assert_eq!(
        opened
            .decode_object(ObjectKind::OffsetIndex, &STORED_MAGIC)
            .unwrap(),
        b""
    );
}

#[test]
fn the_document_holds_the_vectors_the_code_computes() {
    let path = doc_path();
    let document = std::fs::read_to_string(&path).unwrap();
    let from = document.find(BEGIN).expect("begin marker") + BEGIN.len();
    let to = document[from..].find(END).expect("end marker") + from;
    let rendered = render();
    if std::env::var_os("KRABKA_REGENERATE").is_some() {
        let mut updated = document.clone();
        updated.replace_range(from..to, &rendered);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        document[from..to],
        rendered,
        "docs/chunked-format.md is stale: KRABKA_REGENERATE=1 cargo test -p krabka-envelope --test vectors"
    );
}
