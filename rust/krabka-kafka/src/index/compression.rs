//! The codecs of compressed record batches, decompressed with a cap on the
//! output size.
//!
//! Kafka compresses the records section of a batch as one stream:
//!
//! | Id | Codec | Stream format Kafka writes |
//! |---|---|---|
//! | 1 | gzip | gzip members (`GZIPOutputStream`) |
//! | 2 | snappy | snappy-java's framing (`SnappyOutputStream`): 16-byte header, then chunks of a big-endian `i32` length and a raw snappy block |
//! | 3 | lz4 | the LZ4 frame format (`Lz4BlockOutputStream`, formerly `KafkaLZ4BlockOutputStream`): independent blocks, no content checksum |
//! | 4 | zstd | zstd frames (zstd-jni `ZstdOutputStream`) |
//!
//! The output grows only as bytes are actually produced and stops at the
//! caller's limit, so neither a length field nor a decompression bomb can
//! make the decoder allocate much more than that limit (the vector's
//! amortized growth aside).

use {
    super::corruption::Corruption,
    std::{fmt, io::Read},
};

/// Default cap on the decompressed size of one batch's records: 128 MiB.
///
/// Far above what a producer batch holds (Kafka's default
/// `max.message.bytes` is 1 MiB compressed), low enough that a
/// decompression bomb cannot exhaust memory.
pub const DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES: usize = 128 * 1024 * 1024;

/// The codec of a record batch: bits 0–2 of its attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Uncompressed records.
    None,
    /// gzip (id 1).
    Gzip,
    /// snappy in snappy-java's stream framing (id 2).
    Snappy,
    /// LZ4 frame format (id 3).
    Lz4,
    /// zstd (id 4).
    Zstd,
}

impl Compression {
    /// The codec for compression `id` (attribute bits 0–2).
    pub(crate) fn from_id(id: u8) -> Result<Self, Corruption> {
        match id {
            0 => Ok(Self::None),
            1 => Ok(Self::Gzip),
            2 => Ok(Self::Snappy),
            3 => Ok(Self::Lz4),
            4 => Ok(Self::Zstd),
            _ => Err(Corruption::UnknownCompression { id }),
        }
    }

    /// Kafka's name of the codec (`CompressionType.name`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Gzip => "gzip",
            Self::Snappy => "snappy",
            Self::Lz4 => "lz4",
            Self::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Decompresses `input` compressed with `codec`, refusing output larger
/// than `limit` bytes. [`Compression::None`] returns the input as is.
pub(crate) fn decompress(
    codec: Compression,
    input: &[u8],
    limit: usize,
) -> Result<Vec<u8>, Corruption> {
    match codec {
        Compression::None => {
            if input.len() > limit {
                return Err(Corruption::DecompressedTooLarge { codec, limit });
            }
            Ok(input.to_vec())
        }
        Compression::Gzip => read_capped(codec, flate2::read::MultiGzDecoder::new(input), limit),
        Compression::Snappy => snappy_java(input, limit),
        Compression::Lz4 => read_capped(codec, lz4_flex::frame::FrameDecoder::new(input), limit),
        Compression::Zstd => {
            let decoder =
                zstd::stream::read::Decoder::with_buffer(input).map_err(|e| failed(codec, &e))?;
            read_capped(codec, decoder, limit)
        }
    }
}

fn failed(codec: Compression, err: &dyn fmt::Display) -> Corruption {
    Corruption::Decompression {
        codec,
        reason: err.to_string(),
    }
}

/// Reads all of `reader` into a vector of at most `limit` bytes.
fn read_capped(codec: Compression, reader: impl Read, limit: usize) -> Result<Vec<u8>, Corruption> {
    let mut out = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(cap)
        .read_to_end(&mut out)
        .map_err(|e| failed(codec, &e))?;
    if out.len() > limit {
        return Err(Corruption::DecompressedTooLarge { codec, limit });
    }
    Ok(out)
}

/// snappy-java's stream magic (`SnappyCodec.MAGIC_HEADER`).
const SNAPPY_JAVA_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
/// Magic, then a big-endian `i32` version and minimum compatible version.
const SNAPPY_JAVA_HEADER_LEN: usize = 16;

/// Decodes snappy-java's `SnappyOutputStream` format the way its
/// `SnappyInputStream` does:
///
/// - Input that does not start with the 16-byte header is one raw snappy
///   block (what `Snappy.compress` produces).
/// - After the header, chunks follow: a big-endian `i32` compressed length
///   and a raw snappy block. A chunk length equal to the first four magic
///   bytes starts a concatenated stream's header, which is skipped.
/// - Fewer than four bytes at the end are ignored, as snappy-java ignores
///   them.
fn snappy_java(input: &[u8], limit: usize) -> Result<Vec<u8>, Corruption> {
    let codec = Compression::Snappy;
    let mut out = Vec::new();
    let framed = input.len() >= SNAPPY_JAVA_HEADER_LEN && input.starts_with(&SNAPPY_JAVA_MAGIC);
    if !framed {
        snappy_block(input, &mut out, limit)?;
        return Ok(out);
    }
    let mut rest = input.get(SNAPPY_JAVA_HEADER_LEN..).unwrap_or_default();
    while let Some((len_bytes, tail)) = rest.split_first_chunk::<4>() {
        if len_bytes == SNAPPY_JAVA_MAGIC.first_chunk::<4>().unwrap_or(&[0; 4]) {
            // A concatenated stream: its header must be complete and valid.
            let Some((header, after)) = rest.split_at_checked(SNAPPY_JAVA_HEADER_LEN) else {
                return Err(failed(codec, &"truncated header of a concatenated stream"));
            };
            if !header.starts_with(&SNAPPY_JAVA_MAGIC) {
                // snappy-java ends the stream at an invalid header.
                break;
            }
            rest = after;
            continue;
        }
        let len = i32::from_be_bytes(*len_bytes);
        let len = usize::try_from(len)
            .map_err(|_| failed(codec, &format_args!("negative chunk length {len}")))?;
        let Some((chunk, after)) = tail.split_at_checked(len) else {
            return Err(failed(
                codec,
                &format_args!("chunk of {len} bytes but {} remain", tail.len()),
            ));
        };
        snappy_block(chunk, &mut out, limit)?;
        rest = after;
    }
    Ok(out)
}

/// Appends one raw snappy block to `out`, checking its declared length
/// against `limit` before allocating.
fn snappy_block(block: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), Corruption> {
    let codec = Compression::Snappy;
    let len = snap::raw::decompress_len(block).map_err(|e| failed(codec, &e))?;
    let start = out.len();
    if len > limit.saturating_sub(start) {
        return Err(Corruption::DecompressedTooLarge { codec, limit });
    }
    out.resize(start + len, 0);
    let target = out.get_mut(start..).unwrap_or_default();
    let written = snap::raw::Decoder::new()
        .decompress(block, target)
        .map_err(|e| failed(codec, &e))?;
    if written != len {
        return Err(failed(
            codec,
            &format_args!("block declares {len} bytes but holds {written}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use {super::*, crate::index::test_encode::compress, proptest::prelude::*};

    const CODECS: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    fn sample(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8 ^ (i / 7) as u8).collect()
    }

    #[test]
    fn ids_map_to_codecs() {
        for (id, codec) in CODECS.iter().enumerate() {
            assert_eq!(Compression::from_id(id as u8), Ok(*codec));
        }
        for id in 5..8 {
            assert_eq!(
                Compression::from_id(id),
                Err(Corruption::UnknownCompression { id })
            );
        }
        assert_eq!(Compression::Lz4.to_string(), "lz4");
    }

    #[test]
    fn round_trips_every_codec_across_chunk_boundaries() {
        // 100 KiB spans several snappy-java chunks (32 KiB) and lz4 blocks (64 KiB).
        for codec in CODECS {
            for len in [0, 1, 1000, 100 * 1024] {
                let data = sample(len);
                let compressed = compress(codec, &data);
                assert_eq!(
                    decompress(codec, &compressed, 1 << 20),
                    Ok(data),
                    "{codec} {len}"
                );
            }
        }
    }

    #[test]
    fn output_over_the_limit_is_refused() {
        let data = sample(10_000);
        for codec in CODECS {
            let compressed = compress(codec, &data);
            assert_eq!(
                decompress(codec, &compressed, 9_999),
                Err(Corruption::DecompressedTooLarge {
                    codec,
                    limit: 9_999
                }),
                "{codec}"
            );
            assert_eq!(
                decompress(codec, &compressed, 10_000).map(|v| v.len()),
                Ok(10_000)
            );
        }
    }

    #[test]
    fn zstd_bomb_stops_at_the_limit() {
        let zeros = vec![0_u8; 8 << 20];
        let compressed = compress(Compression::Zstd, &zeros);
        assert!(compressed.len() < 4096);
        assert_eq!(
            decompress(Compression::Zstd, &compressed, 1 << 20),
            Err(Corruption::DecompressedTooLarge {
                codec: Compression::Zstd,
                limit: 1 << 20
            })
        );
    }

    #[test]
    fn garbage_is_a_decompression_error() {
        // For snappy: a raw block declaring 5 bytes, then an invalid copy.
        let garbage = [0x05, 0xfe, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03];
        for codec in [
            Compression::Gzip,
            Compression::Lz4,
            Compression::Zstd,
            Compression::Snappy,
        ] {
            assert!(
                matches!(
                    decompress(codec, &garbage, 1 << 20),
                    Err(Corruption::Decompression { .. })
                ),
                "{codec}"
            );
        }
    }

    #[test]
    fn snappy_java_accepts_a_raw_block() {
        let data = sample(500);
        let raw = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        assert_eq!(snappy_java(&raw, 1 << 20), Ok(data));
    }

    #[test]
    fn snappy_java_skips_concatenated_headers_and_short_tails() {
        let a = sample(300);
        let b = sample(700);
        let mut stream = compress(Compression::Snappy, &a);
        stream.extend_from_slice(&compress(Compression::Snappy, &b));
        stream.extend_from_slice(&[0, 0, 1]); // fewer than 4 bytes: ignored
        let mut expected = a;
        expected.extend_from_slice(&b);
        assert_eq!(snappy_java(&stream, 1 << 20), Ok(expected));
    }

    #[test]
    fn snappy_java_refuses_bad_chunks() {
        let mut stream = compress(Compression::Snappy, &sample(100));
        stream.truncate(stream.len() - 1);
        assert!(matches!(
            snappy_java(&stream, 1 << 20),
            Err(Corruption::Decompression { .. })
        ));

        let mut negative = SNAPPY_JAVA_MAGIC.to_vec();
        negative.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1]);
        negative.extend_from_slice(&(-5_i32).to_be_bytes());
        assert!(matches!(
            snappy_java(&negative, 1 << 20),
            Err(Corruption::Decompression { .. })
        ));

        let mut truncated_header = compress(Compression::Snappy, &sample(10));
        truncated_header.extend_from_slice(&SNAPPY_JAVA_MAGIC[..6]);
        assert!(matches!(
            snappy_java(&truncated_header, 1 << 20),
            Err(Corruption::Decompression { .. })
        ));
    }

    #[test]
    fn snappy_declared_length_is_checked_before_allocating() {
        // A raw block whose varint header claims 2^31 bytes.
        let block = [0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
        assert_eq!(
            snappy_java(&block, 1 << 20),
            Err(Corruption::DecompressedTooLarge {
                codec: Compression::Snappy,
                limit: 1 << 20
            })
        );
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512), id in 0u8..5) {
            let codec = Compression::from_id(id).unwrap();
            let _ = decompress(codec, &bytes, 1 << 16);
        }

        #[test]
        fn round_trips(data in proptest::collection::vec(any::<u8>(), 0..4096), id in 0u8..5) {
            let codec = Compression::from_id(id).unwrap();
            prop_assert_eq!(decompress(codec, &compress(codec, &data), 4096), Ok(data));
        }
    }
}
