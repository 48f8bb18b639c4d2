//! Decoding a stored object of the chunked format against a valid
//! envelope: whatever the stored bytes (flipped, cut, swapped, foreign),
//! decoding answers bytes of the original's length or a typed error, never
//! a panic. The envelope's shape comes from the first bytes of the input,
//! its chunks are sealed (AES-256-GCM under a fixed key) or plain.
#![no_main]

use {
    krabka_envelope::{
        ChunkCipher, ChunkPlace, Cipher, DataKey, EnvelopeError, KeyRing, ObjectChunks,
        ObjectKind, OpenedSegment, SegmentEnvelope, StoredChunk, WrappedKey,
        envelope::{MIN_CHUNK_SIZE, STORED_MAGIC},
    },
    libfuzzer_sys::fuzz_target,
    std::sync::Arc,
    uuid::Uuid,
};

#[derive(Debug)]
struct FixedKey;

impl KeyRing for FixedKey {
    fn active_key_id(&self) -> &str {
        "k"
    }
    fn key_ids(&self) -> Vec<String> {
        vec!["k".to_owned()]
    }
    fn wrap(&self, _: &DataKey) -> krabka_envelope::Result<WrappedKey> {
        Err(EnvelopeError::Crypto("the fuzz ring does not wrap"))
    }
    fn unwrap(&self, _: Uuid, _: &WrappedKey) -> krabka_envelope::Result<DataKey> {
        DataKey::from_bytes(&[7; 32])
    }
}

fuzz_target!(|data: &[u8]| {
    let [shape, flags, rest @ ..] = data else {
        return;
    };
    let encrypted = flags & 1 == 1;
    let chunk_size = MIN_CHUNK_SIZE;
    let chunks = u32::from(shape % 4);
    let tail = u64::from(*shape / 4).min(u64::from(chunk_size - 1)) + 1;
    let original_size = if chunks == 0 { 0 } else { u64::from(chunks - 1) * u64::from(chunk_size) + tail };
    let segment = Uuid::from_u128(42);
    let tag = if encrypted { 16 } else { 0 };
    let object = ObjectChunks {
        kind: ObjectKind::Log,
        original_size,
        chunks: (0..chunks)
            .map(|index| {
                let compressed = flags >> (1 + index) & 1 == 1;
                let original = u32::try_from(original_size - u64::from(index) * u64::from(chunk_size))
                    .unwrap_or(chunk_size)
                    .min(chunk_size);
                let stored_len = if compressed { original / 2 + tag } else { original + tag };
                StoredChunk { stored_len, compressed }
            })
            .collect(),
    };
    let envelope = SegmentEnvelope {
        segment,
        cipher: encrypted.then_some(Cipher::Aes256Gcm),
        chunk_size,
        key_id: if encrypted { "k".to_owned() } else { String::new() },
        wrapped_key: if encrypted { vec![1] } else { Vec::new() },
        objects: vec![object],
    };
    let envelope = SegmentEnvelope::decode(&envelope.encode(), segment).unwrap();
    let opened = Arc::new(OpenedSegment::open(envelope, Some(&FixedKey)).unwrap());
    // The stored object: the magic, then the input (often a well-sealed
    // first chunk, so decoding gets past it and meets the damage later).
    let mut stored = STORED_MAGIC.to_vec();
    if encrypted && chunks > 0 && flags & 0x80 != 0 {
        let first = opened.envelope().objects[0].chunks[0];
        let original = opened.envelope().objects[0].original_len(chunk_size, 0);
        if !first.compressed {
            let mut body = rest.iter().copied().cycle().take(original as usize).collect::<Vec<_>>();
            if body.len() == original as usize {
                let place = ChunkPlace { segment, kind: ObjectKind::Log, chunk: 0, last: chunks == 1, original_len: original, compressed: false };
                ChunkCipher::new(Cipher::Aes256Gcm, &DataKey::from_bytes(&[7; 32]).unwrap())
                    .unwrap()
                    .seal(&place, &mut body)
                    .unwrap();
                stored.extend_from_slice(&body);
            }
        }
    }
    stored.extend_from_slice(rest);
    if let Ok(decoded) = opened.decode_object(ObjectKind::Log, &stored) {
        assert_eq!(decoded.len() as u64, original_size);
    }
});
