//! The envelope object: what a reader needs to find and open a segment's
//! chunks. One per segment, stored beside its objects.
//!
//! ```text
//! magic            8   "KRBKENV" 0x01 (the last byte is the version)
//! segment id      16   the Kafka segment id (UUID bytes)
//! cipher           1   0 none, 1 AES-256-GCM, 2 ChaCha20-Poly1305
//! chunk size       4   original bytes per chunk (the last may be shorter)
//! key id           2+n length, UTF-8 (empty without encryption)
//! wrapped key      2+n length, the data key wrapped by that key
//! objects          1   count, then per object:
//!   kind           1   0 log, 1 offset, 2 time, 3 txn, 4 producer snapshot, 5 leader epoch
//!   original size  8
//!   chunks         4   count = ceil(original size / chunk size), then per chunk:
//!     stored len   4   bytes in the stored object (tag included)
//!     flags        1   bit 0: zstd-compressed
//! crc32c           4   of every byte before it
//! ```
//!
//! Integers are big-endian. The envelope is not secret and needs no MAC:
//! every chunk's associated data binds what the envelope says about it, so
//! an altered envelope makes chunks fail to open, and re-wrapping a data key
//! rewrites only this object.

use {
    crate::{EnvelopeError, ObjectKind, Result, cipher::Cipher},
    std::ops::Range,
    uuid::Uuid,
};

/// The envelope's magic, its last byte the format version.
pub const ENVELOPE_MAGIC: [u8; 8] = *b"KRBKENV\x01";

/// The magic that opens every stored log (and index) object of the format,
/// so a stored object is never mistaken for Kafka's plain bytes.
pub const STORED_MAGIC: [u8; 8] = *b"KRBKCHK\x01";

/// Smallest chunk size the format accepts.
pub const MIN_CHUNK_SIZE: u32 = 4 * 1024;

/// Largest chunk size the format accepts.
pub const MAX_CHUNK_SIZE: u32 = 64 * 1024 * 1024;

/// Longest key id.
pub const MAX_KEY_ID_LEN: usize = 255;

/// Longest wrapped data key (an RSA-8192 ciphertext is 1 KiB; a KMS
/// ciphertext blob is smaller).
pub const MAX_WRAPPED_KEY_LEN: usize = 4096;

/// Most chunks one object may have (16 TiB at the largest chunk size).
pub const MAX_CHUNKS: u32 = 1 << 22;

/// Bit of a chunk's flags: its body is zstd-compressed.
const FLAG_COMPRESSED: u8 = 1;

/// One stored chunk as the envelope lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredChunk {
    /// Its bytes in the stored object (tag included).
    pub stored_len: u32,
    /// Whether its body is zstd-compressed.
    pub compressed: bool,
}

/// One encoded object: its original size and its chunks in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectChunks {
    /// Which object.
    pub kind: ObjectKind,
    /// Its size before encoding.
    pub original_size: u64,
    /// Its chunks, in order.
    pub chunks: Vec<StoredChunk>,
}

/// The chunks of an object that cover a byte range, and where they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkSpan {
    /// The chunk numbers.
    pub chunks: Range<u32>,
    /// Their bytes in the stored object.
    pub stored: Range<u64>,
    /// The original offset of the first chunk.
    pub original_start: u64,
}

impl ObjectChunks {
    /// Bytes of the stored object (its magic included).
    #[must_use]
    pub fn stored_size(&self) -> u64 {
        STORED_MAGIC.len() as u64
            + self
                .chunks
                .iter()
                .map(|chunk| u64::from(chunk.stored_len))
                .sum::<u64>()
    }

    /// Original length of chunk `index` of an object cut in `chunk_size`
    /// chunks.
    #[must_use]
    pub fn original_len(&self, chunk_size: u32, index: u32) -> u32 {
        let start = u64::from(index) * u64::from(chunk_size);
        let len = self
            .original_size
            .saturating_sub(start)
            .min(u64::from(chunk_size));
        u32::try_from(len).unwrap_or(chunk_size)
    }

    /// The chunks covering original bytes `[start, end)` (`end` clamped to
    /// the object's size).
    ///
    /// # Errors
    /// [`EnvelopeError::OutOfRange`] when `start` is past the end (a start
    /// at the end of a non-empty object gives an empty span).
    pub fn span(&self, segment: Uuid, chunk_size: u32, start: u64, end: u64) -> Result<ChunkSpan> {
        let end = end.min(self.original_size);
        if start > self.original_size {
            return Err(EnvelopeError::OutOfRange {
                segment,
                kind: self.kind,
                position: start,
                size: self.original_size,
            });
        }
        let size = u64::from(chunk_size);
        let first = u32::try_from(start / size).unwrap_or(u32::MAX);
        let last = if end > start {
            u32::try_from(end.div_ceil(size)).unwrap_or(u32::MAX)
        } else {
            first
        };
        let first = first.min(self.chunk_count());
        let last = last.min(self.chunk_count());
        let stored_start = self.stored_offset(first);
        let stored_end = stored_start
            + self.chunks[first as usize..last as usize]
                .iter()
                .map(|chunk| u64::from(chunk.stored_len))
                .sum::<u64>();
        Ok(ChunkSpan {
            chunks: first..last,
            stored: stored_start..stored_end,
            original_start: u64::from(first) * size,
        })
    }

    /// Where chunk `index` starts in the stored object (past the magic);
    /// the stored size for an index past the last chunk.
    #[must_use]
    pub fn stored_offset(&self, index: u32) -> u64 {
        let before = (index as usize).min(self.chunks.len());
        STORED_MAGIC.len() as u64
            + self.chunks[..before]
                .iter()
                .map(|chunk| u64::from(chunk.stored_len))
                .sum::<u64>()
    }

    /// Number of chunks.
    #[must_use]
    pub fn chunk_count(&self) -> u32 {
        u32::try_from(self.chunks.len()).unwrap_or(u32::MAX)
    }
}

/// A segment's envelope: how its objects are encoded and the data key that
/// seals them, wrapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentEnvelope {
    /// The segment.
    pub segment: Uuid,
    /// The chunk cipher; `None` when chunks are only compressed.
    pub cipher: Option<Cipher>,
    /// Original bytes per chunk.
    pub chunk_size: u32,
    /// The id of the key that wrapped the data key (empty without
    /// encryption).
    pub key_id: String,
    /// The wrapped data key (empty without encryption).
    pub wrapped_key: Vec<u8>,
    /// The encoded objects.
    pub objects: Vec<ObjectChunks>,
}

impl SegmentEnvelope {
    /// The chunks of `kind`.
    ///
    /// # Errors
    /// [`EnvelopeError::MissingObject`] when the envelope does not list it.
    pub fn object(&self, kind: ObjectKind) -> Result<&ObjectChunks> {
        self.objects
            .iter()
            .find(|object| object.kind == kind)
            .ok_or(EnvelopeError::MissingObject {
                segment: self.segment,
                kind,
            })
    }

    /// The envelope's bytes.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let chunks: usize = self.objects.iter().map(|object| object.chunks.len()).sum();
        let mut out = Vec::with_capacity(64 + self.wrapped_key.len() + chunks * 5);
        out.extend_from_slice(&ENVELOPE_MAGIC);
        out.extend_from_slice(self.segment.as_bytes());
        out.push(self.cipher.map_or(0, Cipher::code));
        out.extend_from_slice(&self.chunk_size.to_be_bytes());
        put_short_bytes(&mut out, self.key_id.as_bytes());
        put_short_bytes(&mut out, &self.wrapped_key);
        out.push(u8::try_from(self.objects.len()).unwrap_or(u8::MAX));
        for object in &self.objects {
            out.push(object.kind.code());
            out.extend_from_slice(&object.original_size.to_be_bytes());
            out.extend_from_slice(&object.chunk_count().to_be_bytes());
            for chunk in &object.chunks {
                out.extend_from_slice(&chunk.stored_len.to_be_bytes());
                out.push(if chunk.compressed { FLAG_COMPRESSED } else { 0 });
            }
        }
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// Parses an envelope, checking every field against the format's
    /// bounds. `expected` is the segment the caller asked for: an envelope
    /// of another segment is refused.
    ///
    /// # Errors
    /// [`EnvelopeError::MalformedEnvelope`], saying what is wrong.
    pub fn decode(bytes: &[u8], expected: Uuid) -> Result<Self> {
        let bad = |reason: String| EnvelopeError::malformed(expected, reason);
        let Some((body, crc)) = bytes.split_last_chunk::<4>() else {
            return Err(bad(format!("{} bytes is too short", bytes.len())));
        };
        if crc32c::crc32c(body) != u32::from_be_bytes(*crc) {
            return Err(bad(
                "its checksum does not match (a damaged or truncated object)".into(),
            ));
        }
        let mut input = Input { bytes: body, at: 0 };
        let magic = input.take(8, "magic").map_err(&bad)?;
        if magic[..7] != ENVELOPE_MAGIC[..7] {
            return Err(bad("it does not start with the envelope magic".into()));
        }
        if magic[7] != ENVELOPE_MAGIC[7] {
            return Err(bad(format!(
                "format version {} is not supported (this build reads version {})",
                magic[7], ENVELOPE_MAGIC[7]
            )));
        }
        let segment = Uuid::from_slice(input.take(16, "segment id").map_err(&bad)?)
            .map_err(|err| bad(err.to_string()))?;
        if segment != expected {
            return Err(bad(format!("it belongs to segment {segment}")));
        }
        let cipher = match input.u8("cipher").map_err(&bad)? {
            0 => None,
            code => {
                Some(Cipher::from_code(code).ok_or_else(|| bad(format!("unknown cipher {code}")))?)
            }
        };
        let chunk_size = input.u32("chunk size").map_err(&bad)?;
        if !(MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&chunk_size) {
            return Err(bad(format!(
                "chunk size {chunk_size} is outside {MIN_CHUNK_SIZE}..={MAX_CHUNK_SIZE}"
            )));
        }
        let key_id = input.short_bytes("key id", MAX_KEY_ID_LEN).map_err(&bad)?;
        let key_id = String::from_utf8(key_id.to_vec())
            .map_err(|_| bad("the key id is not UTF-8".into()))?;
        let wrapped_key = input
            .short_bytes("wrapped key", MAX_WRAPPED_KEY_LEN)
            .map_err(&bad)?
            .to_vec();
        if cipher.is_some() == (key_id.is_empty() || wrapped_key.is_empty()) {
            return Err(bad(
                "a key id and a wrapped key go with a cipher, and only with one".into(),
            ));
        }
        let count = input.u8("object count").map_err(&bad)?;
        let mut objects: Vec<ObjectChunks> = Vec::with_capacity(usize::from(count.min(6)));
        for _ in 0..count {
            let code = input.u8("object kind").map_err(&bad)?;
            let kind = ObjectKind::from_code(code)
                .ok_or_else(|| bad(format!("unknown object kind {code}")))?;
            if objects.iter().any(|object| object.kind == kind) {
                return Err(bad(format!("it lists the {kind} twice")));
            }
            let original_size = input.u64("original size").map_err(&bad)?;
            let chunk_count = input.u32("chunk count").map_err(&bad)?;
            let expected_chunks = original_size.div_ceil(u64::from(chunk_size));
            if u64::from(chunk_count) != expected_chunks || chunk_count > MAX_CHUNKS {
                return Err(bad(format!(
                    "the {kind} of {original_size} bytes lists {chunk_count} chunks; {expected_chunks} (at most {MAX_CHUNKS}) expected"
                )));
            }
            if input.remaining() < chunk_count as usize * 5 {
                return Err(bad(format!("the chunk list of the {kind} is cut short")));
            }
            let mut object = ObjectChunks {
                kind,
                original_size,
                chunks: Vec::with_capacity(chunk_count as usize),
            };
            for index in 0..chunk_count {
                let stored_len = input.u32("stored length").map_err(&bad)?;
                let flags = input.u8("chunk flags").map_err(&bad)?;
                if flags & !FLAG_COMPRESSED != 0 {
                    return Err(bad(format!(
                        "chunk {index} of the {kind} has unknown flags {flags:#x}"
                    )));
                }
                let original = object.original_len(chunk_size, index);
                let tag = if cipher.is_some() {
                    crate::cipher::TAG_LEN as u32
                } else {
                    0
                };
                let compressed = flags & FLAG_COMPRESSED != 0;
                if stored_len > original + tag || (!compressed && stored_len != original + tag) {
                    return Err(bad(format!(
                        "chunk {index} of the {kind} claims {stored_len} stored bytes for {original} original bytes"
                    )));
                }
                object.chunks.push(StoredChunk {
                    stored_len,
                    compressed,
                });
            }
            objects.push(object);
        }
        if input.remaining() != 0 {
            return Err(bad(format!(
                "{} bytes follow the last object",
                input.remaining()
            )));
        }
        Ok(Self {
            segment,
            cipher,
            chunk_size,
            key_id,
            wrapped_key,
            objects,
        })
    }
}

fn put_short_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&u16::try_from(bytes.len()).unwrap_or(u16::MAX).to_be_bytes());
    out.extend_from_slice(bytes);
}

/// A cursor over the envelope's bytes whose reads name the field they miss.
struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, len: usize, field: &str) -> Result<&'a [u8], String> {
        let slice = self
            .bytes
            .get(self.at..self.at.saturating_add(len))
            .ok_or_else(|| format!("it ends inside the {field}"))?;
        self.at += len;
        Ok(slice)
    }

    fn u8(&mut self, field: &str) -> Result<u8, String> {
        Ok(self.take(1, field)?[0])
    }

    fn u32(&mut self, field: &str) -> Result<u32, String> {
        let bytes = self.take(4, field)?;
        Ok(u32::from_be_bytes(
            bytes.try_into().map_err(|_| field.to_owned())?,
        ))
    }

    fn u64(&mut self, field: &str) -> Result<u64, String> {
        let bytes = self.take(8, field)?;
        Ok(u64::from_be_bytes(
            bytes.try_into().map_err(|_| field.to_owned())?,
        ))
    }

    fn short_bytes(&mut self, field: &str, max: usize) -> Result<&'a [u8], String> {
        let len = self.take(2, field)?;
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        if len > max {
            return Err(format!("the {field} is {len} bytes, more than {max}"));
        }
        self.take(len, field)
    }
}

#[cfg(test)]
mod tests;
