//! The format end to end: objects encoded and decoded whole and by range,
//! under every setting, and every kind of tampering refused.

use {
    crate::{
        Cipher, Compression, EnvelopeError, KeyRing, ObjectKind, OpenedSegment, RsaKeyPairs,
        SegmentCodec, SegmentEnvelope, SegmentSealer, envelope::STORED_MAGIC,
        keyring::tests::write_key_pair,
    },
    std::{
        io::Read,
        sync::{Arc, OnceLock},
    },
    uuid::Uuid,
};

const CHUNK: u32 = 4096;

fn keys() -> Arc<dyn KeyRing> {
    static KEYS: OnceLock<(tempfile::TempDir, Arc<RsaKeyPairs>)> = OnceLock::new();
    let (_, ring) = KEYS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pair = write_key_pair(dir.path(), "k1");
        let ring = Arc::new(RsaKeyPairs::load("k1", &[pair]).unwrap());
        (dir, ring)
    });
    Arc::clone(ring) as Arc<dyn KeyRing>
}

fn codec(compress: bool, cipher: Option<Cipher>) -> SegmentCodec {
    SegmentCodec {
        chunk_size: CHUNK,
        compression: compress.then(Compression::default),
        encryption: cipher,
        keys: cipher.map(|_| keys()),
    }
}

/// Text-like bytes that compress well.
fn text(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| b"{\"event\":\"click\",\"user\":12345}\n"[i % 31] ^ u8::from(i % 977 == 0))
        .collect()
}

struct Written {
    envelope: Vec<u8>,
    stored: Vec<u8>,
    segment: Uuid,
}

fn write(codec: &SegmentCodec, original: &[u8]) -> Written {
    let segment = Uuid::new_v4();
    let sealer = SegmentSealer::new(codec, segment).unwrap();
    let (mut encoder, report) = sealer.encoder(ObjectKind::Log, original);
    let mut stored = Vec::new();
    encoder.read_to_end(&mut stored).unwrap();
    let log = report.take(ObjectKind::Log, segment).unwrap();
    assert_eq!(log.stored_size(), stored.len() as u64);
    Written {
        envelope: sealer.envelope(vec![log]).encode(),
        stored,
        segment,
    }
}

fn open(written: &Written, keys: Option<&dyn KeyRing>) -> crate::Result<Arc<OpenedSegment>> {
    let envelope = SegmentEnvelope::decode(&written.envelope, written.segment)?;
    Ok(Arc::new(OpenedSegment::open(envelope, keys)?))
}

fn read_range(
    opened: &Arc<OpenedSegment>,
    stored: &[u8],
    start: u64,
    end: Option<u64>,
) -> crate::Result<Vec<u8>> {
    let span = opened.span(ObjectKind::Log, start, end)?;
    let from = usize::try_from(span.stored.start)
        .unwrap()
        .min(stored.len());
    let mut reader = opened.range_reader(ObjectKind::Log, start, end, &stored[from..])?;
    let mut out = Vec::new();
    reader.read_to_end(&mut out).map_err(|err| {
        *err.into_inner()
            .unwrap()
            .downcast::<EnvelopeError>()
            .unwrap()
    })?;
    Ok(out)
}

#[test]
fn every_setting_round_trips_whole_and_by_range() {
    let ring = keys();
    for len in [0, 1, 4095, 4096, 4097, 3 * 4096, 20_000] {
        let original = text(len);
        for (compress, cipher) in [
            (true, None),
            (false, Some(Cipher::Aes256Gcm)),
            (true, Some(Cipher::Aes256Gcm)),
            (true, Some(Cipher::ChaCha20Poly1305)),
        ] {
            let written = write(&codec(compress, cipher), &original);
            assert_eq!(&written.stored[..8], &STORED_MAGIC);
            let opened = open(&written, Some(&*ring)).unwrap();
            assert_eq!(
                opened
                    .decode_object(ObjectKind::Log, &written.stored)
                    .unwrap(),
                original,
                "{len} {compress} {cipher:?}"
            );
            for (start, end) in [
                (0, None),
                (1, Some(2)),
                (4095, Some(4098)),
                (5000, None),
                (len as u64, None),
            ] {
                if start > len as u64 {
                    continue;
                }
                let got = read_range(&opened, &written.stored, start, end).unwrap();
                let end = end.map_or(len, |end| (end as usize).min(len));
                assert_eq!(
                    got,
                    &original[start as usize..end.max(start as usize)],
                    "{len} {start}..{end:?}"
                );
            }
        }
    }
}

#[test]
fn text_shrinks_and_encrypted_bytes_do_not_show_the_text() {
    let original = text(64 * 1024);
    let written = write(&codec(true, Some(Cipher::Aes256Gcm)), &original);
    assert!(
        written.stored.len() * 5 < original.len(),
        "{} of {}",
        written.stored.len(),
        original.len()
    );
    let plain_only = write(&codec(false, Some(Cipher::Aes256Gcm)), &original);
    assert_eq!(plain_only.stored.len(), 8 + original.len() + 16 * 16);
    let needle = b"\"event\":\"click\"";
    assert!(
        !plain_only
            .stored
            .windows(needle.len())
            .any(|window| window == needle)
    );
}

#[test]
fn a_log_compressed_by_its_producers_is_stored_as_it_is() {
    let batch = test_batch(4, &[0x5a; 3000]);
    let mut original = Vec::new();
    while original.len() < 20_000 {
        original.extend_from_slice(&batch);
    }
    let written = write(&codec(true, None), &original);
    let envelope = SegmentEnvelope::decode(&written.envelope, written.segment).unwrap();
    let log = envelope.object(ObjectKind::Log).unwrap();
    assert!(log.chunks.iter().all(|chunk| !chunk.compressed), "{log:?}");
    assert_eq!(written.stored.len(), 8 + original.len());

    // The same batches marked uncompressed are compressed.
    let batch = test_batch(0, &[0x5a; 3000]);
    let mut plain = Vec::new();
    while plain.len() < 20_000 {
        plain.extend_from_slice(&batch);
    }
    let written = write(&codec(true, None), &plain);
    assert!(written.stored.len() < plain.len() / 10);
}

/// A v2 record batch with `codec` in its attributes and `payload` as its
/// records section (the CRC is right; the records need not decode).
fn test_batch(codec: u16, payload: &[u8]) -> Vec<u8> {
    let mut batch = Vec::new();
    batch.extend_from_slice(&0i64.to_be_bytes());
    let length = i32::try_from(49 + payload.len()).unwrap();
    batch.extend_from_slice(&length.to_be_bytes());
    batch.extend_from_slice(&0i32.to_be_bytes());
    batch.push(2);
    batch.extend_from_slice(&[0; 4]);
    batch.extend_from_slice(&codec.to_be_bytes());
    batch.extend_from_slice(&0i32.to_be_bytes());
    batch.extend_from_slice(&0i64.to_be_bytes());
    batch.extend_from_slice(&0i64.to_be_bytes());
    batch.extend_from_slice(&(-1i64).to_be_bytes());
    batch.extend_from_slice(&(-1i16).to_be_bytes());
    batch.extend_from_slice(&(-1i32).to_be_bytes());
    batch.extend_from_slice(&1i32.to_be_bytes());
    batch.extend_from_slice(payload);
    let crc = crc32c::crc32c(&batch[21..]);
    batch[17..21].copy_from_slice(&crc.to_be_bytes());
    batch
}

#[test]
fn tampering_is_a_typed_error_naming_the_segment_never_wrong_bytes() {
    let ring = keys();
    let original = text(3 * 4096 + 100);
    for compress in [false, true] {
        let written = write(&codec(compress, Some(Cipher::Aes256Gcm)), &original);
        let opened = open(&written, Some(&*ring)).unwrap();
        let envelope = SegmentEnvelope::decode(&written.envelope, written.segment).unwrap();
        let lens: Vec<usize> = envelope.objects[0]
            .chunks
            .iter()
            .map(|c| c.stored_len as usize)
            .collect();

        let expect_corrupt = |stored: &[u8], what: &str| {
            let err = opened.decode_object(ObjectKind::Log, stored).unwrap_err();
            assert!(
                matches!(&err, EnvelopeError::CorruptChunk { segment, .. } | EnvelopeError::Truncated { segment, .. } if *segment == written.segment),
                "{what}: {err}"
            );
            assert!(
                err.to_string().contains(&written.segment.to_string()),
                "{what}: {err}"
            );
        };
        let mut flipped = written.stored.clone();
        flipped[20] ^= 0x10;
        expect_corrupt(&flipped, "a flipped bit");
        expect_corrupt(
            &written.stored[..written.stored.len() - 5],
            "a truncated object",
        );
        let mut no_magic = written.stored.clone();
        no_magic[0] = b'X';
        expect_corrupt(&no_magic, "a missing magic");
        if lens[0] == lens[1] {
            let mut swapped = written.stored[..8].to_vec();
            swapped.extend_from_slice(&written.stored[8 + lens[0]..8 + 2 * lens[0]]);
            swapped.extend_from_slice(&written.stored[8..8 + lens[0]]);
            swapped.extend_from_slice(&written.stored[8 + 2 * lens[0]..]);
            expect_corrupt(&swapped, "two chunks swapped");
        }
        // A chunk of another segment, at the same place.
        let other = write(&codec(compress, Some(Cipher::Aes256Gcm)), &original);
        let mut replayed = written.stored.clone();
        replayed[8..8 + lens[0]].copy_from_slice(&other.stored[8..8 + lens[0]]);
        expect_corrupt(&replayed, "a chunk of another segment");

        // An envelope cut to end after the second chunk: that chunk is not
        // the last one it was sealed as.
        let mut cut = envelope.clone();
        cut.objects[0].chunks.truncate(2);
        cut.objects[0].original_size = 2 * 4096;
        let cut = Arc::new(OpenedSegment::open(cut, Some(&*ring)).unwrap());
        let err = cut
            .decode_object(ObjectKind::Log, &written.stored[..8 + lens[0] + lens[1]])
            .unwrap_err();
        assert!(
            matches!(err, EnvelopeError::CorruptChunk { chunk: 1, .. }),
            "{err}"
        );
    }
}

#[test]
fn an_encrypted_segment_needs_its_keys() {
    let written = write(&codec(true, Some(Cipher::Aes256Gcm)), &text(100));
    let err = open(&written, None).unwrap_err();
    assert!(
        matches!(&err, EnvelopeError::NoKeys { key_id, .. } if key_id == "k1"),
        "{err}"
    );
    // A compressed-only segment needs none.
    let written = write(&codec(true, None), &text(10_000));
    let opened = open(&written, None).unwrap();
    assert_eq!(
        opened
            .decode_object(ObjectKind::Log, &written.stored)
            .unwrap(),
        text(10_000)
    );
}

#[test]
fn settings_are_checked() {
    let mut bad = codec(true, None);
    bad.chunk_size = 10;
    assert!(
        SegmentSealer::new(&bad, Uuid::nil())
            .unwrap_err()
            .to_string()
            .contains("chunk size 10")
    );
    let mut bad = codec(true, None);
    bad.compression = Some(Compression {
        level: 99,
        heuristic: true,
    });
    assert!(
        SegmentSealer::new(&bad, Uuid::nil())
            .unwrap_err()
            .to_string()
            .contains("zstd level 99")
    );
    let mut bad = codec(false, Some(Cipher::Aes256Gcm));
    bad.keys = None;
    assert!(
        SegmentSealer::new(&bad, Uuid::nil())
            .unwrap_err()
            .to_string()
            .contains("no key-encryption keys")
    );
    assert!(SegmentCodec::default().writes_plain());
}

/// A source that fails midway: the encoder reports the error, not a short
/// object.
#[test]
fn a_failing_source_is_an_error() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf.len().min(self.0);
            buf[..n].fill(1);
            self.0 -= n;
            Ok(n)
        }
    }
    let segment = Uuid::new_v4();
    let sealer = SegmentSealer::new(&codec(true, None), segment).unwrap();
    let (mut encoder, report) = sealer.encoder(ObjectKind::Log, Failing(5000));
    let err = encoder.read_to_end(&mut Vec::new()).unwrap_err();
    assert_eq!(err.to_string(), "disk gone");
    assert!(report.take(ObjectKind::Log, segment).is_err());
}

/// Reads `[start, end)` through `cache`, counting the stored reads opened.
fn read_cached(
    opened: &Arc<OpenedSegment>,
    stored: &Arc<Vec<u8>>,
    cache: &Arc<crate::DecodedChunks>,
    opens: &Arc<std::sync::atomic::AtomicUsize>,
    start: u64,
    end: Option<u64>,
) -> Vec<u8> {
    let span = opened.span(ObjectKind::Log, start, end).unwrap();
    let (stored, opens) = (Arc::clone(stored), Arc::clone(opens));
    let mut reader = opened
        .cached_range_reader(
            ObjectKind::Log,
            (start, end),
            Arc::clone(cache),
            None,
            move |at| {
                opens.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                assert!(at >= span.stored.start && at < span.stored.end);
                let to = usize::try_from(span.stored.end).unwrap();
                Ok(std::io::Cursor::new(
                    stored[usize::try_from(at).unwrap()..to].to_vec(),
                ))
            },
        )
        .unwrap();
    let mut out = Vec::new();
    reader.read_to_end(&mut out).unwrap();
    out
}

#[test]
fn cached_reads_decode_each_chunk_once_and_equal_the_original() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let ring = keys();
    let original = text(5 * CHUNK as usize + 100);
    let written = write(&codec(true, Some(Cipher::Aes256Gcm)), &original);
    let opened = open(&written, Some(&*ring)).unwrap();
    let stored = Arc::new(written.stored.clone());
    let cache = Arc::new(crate::DecodedChunks::new(64 * CHUNK as usize));
    let opens = Arc::new(AtomicUsize::new(0));

    // Kafka's way: pieces of a quarter chunk, each its own stream.
    let piece = u64::from(CHUNK / 4);
    let mut served = Vec::new();
    let mut at = 0u64;
    while at < original.len() as u64 {
        let end = (at + piece).min(original.len() as u64);
        served.extend(read_cached(&opened, &stored, &cache, &opens, at, Some(end)));
        at = end;
    }
    assert_eq!(served, original);
    // One stored read per chunk (6), not one per piece (21).
    assert_eq!(opens.load(Ordering::SeqCst), 6);
    assert_eq!(cache.usage().chunks, 6);

    // Everything is held now: a whole read opens nothing.
    let whole = read_cached(&opened, &stored, &cache, &opens, 0, None);
    assert_eq!(whole, original);
    assert_eq!(opens.load(Ordering::SeqCst), 6);

    // A gap in the cache: one stored read from the first missing chunk.
    cache.forget_segment(written.segment);
    let middle = read_cached(
        &opened,
        &stored,
        &cache,
        &opens,
        100,
        Some(3 * u64::from(CHUNK)),
    );
    assert_eq!(middle, original[100..3 * CHUNK as usize]);
    assert_eq!(opens.load(Ordering::SeqCst), 7);
}

#[test]
fn a_cached_read_of_a_tampered_chunk_fails_and_caches_nothing() {
    let ring = keys();
    let original = text(3 * CHUNK as usize);
    let mut written = write(&codec(false, Some(Cipher::Aes256Gcm)), &original);
    let flip = STORED_MAGIC.len() + CHUNK as usize + 100;
    written.stored[flip] ^= 1;
    let opened = open(&written, Some(&*ring)).unwrap();
    let stored = Arc::new(written.stored.clone());
    let cache = Arc::new(crate::DecodedChunks::new(64 * CHUNK as usize));
    let mut reader = opened
        .cached_range_reader(
            ObjectKind::Log,
            (0, None),
            Arc::clone(&cache),
            None,
            move |at| {
                Ok(std::io::Cursor::new(
                    stored[usize::try_from(at).unwrap()..].to_vec(),
                ))
            },
        )
        .unwrap();
    let mut out = Vec::new();
    let err = reader.read_to_end(&mut out).unwrap_err();
    assert!(
        matches!(
            crate::EnvelopeError::from_io(&err),
            Some(crate::EnvelopeError::CorruptChunk { chunk: 1, .. })
        ),
        "{err}"
    );
    // Chunk 0 decoded and is kept; chunk 1 is not.
    assert_eq!(cache.usage().chunks, 1);
}

#[test]
fn stored_pieces_equal_the_stored_stream() {
    let original = text(3 * CHUNK as usize + 17);
    let codec = codec(true, Some(Cipher::Aes256Gcm));
    let sealer = SegmentSealer::new(&codec, Uuid::new_v4()).unwrap();
    let (mut by_read, read_report) = sealer.encoder(ObjectKind::Log, &original[..]);
    let mut streamed = Vec::new();
    by_read.read_to_end(&mut streamed).unwrap();
    let (mut by_piece, piece_report) = sealer.encoder(ObjectKind::Log, &original[..]);
    let mut pieces = Vec::new();
    while let Some(piece) = by_piece.next_stored().unwrap() {
        pieces.push(piece);
    }
    // The magic, then one piece per chunk.
    assert_eq!(pieces.len(), 1 + 4);
    assert_eq!(pieces[0], STORED_MAGIC);
    let log = piece_report
        .take(ObjectKind::Log, sealer.segment())
        .unwrap();
    let lengths: Vec<u64> = log.chunks.iter().map(|c| u64::from(c.stored_len)).collect();
    assert_eq!(
        pieces[1..]
            .iter()
            .map(|p| p.len() as u64)
            .collect::<Vec<_>>(),
        lengths
    );
    // One sealer, one data key: the same bytes either way.
    assert_eq!(pieces.concat(), streamed);
    assert_eq!(
        read_report
            .take(ObjectKind::Log, sealer.segment())
            .unwrap()
            .chunks
            .len(),
        log.chunks.len()
    );
}
