//! Reading the format: a segment's opened envelope, and a streaming decoder
//! of a byte range of one object.

use {
    crate::{
        ChunkCipher, ChunkPlace, EnvelopeError, KeyRing, ObjectKind, Result, WrappedKey,
        envelope::{ChunkSpan, ObjectChunks, STORED_MAGIC, SegmentEnvelope},
    },
    std::{
        io::{self, Read},
        sync::Arc,
    },
    uuid::Uuid,
};

/// A segment's envelope with its data key unwrapped: everything needed to
/// decode any range of its objects.
#[derive(Debug)]
pub struct OpenedSegment {
    envelope: SegmentEnvelope,
    cipher: Option<ChunkCipher>,
}

impl OpenedSegment {
    /// Opens `envelope`, unwrapping its data key with `keys` when its chunks
    /// are encrypted.
    ///
    /// # Errors
    /// [`EnvelopeError::NoKeys`] for an encrypted segment without a key
    /// ring; the key ring's errors.
    pub fn open(envelope: SegmentEnvelope, keys: Option<&dyn KeyRing>) -> Result<Self> {
        let cipher = match envelope.cipher {
            None => None,
            Some(cipher) => {
                let keys = keys.ok_or_else(|| EnvelopeError::NoKeys {
                    segment: envelope.segment,
                    key_id: envelope.key_id.clone(),
                })?;
                let wrapped = WrappedKey {
                    key_id: envelope.key_id.clone(),
                    bytes: envelope.wrapped_key.clone(),
                };
                let key = keys.unwrap(envelope.segment, &wrapped)?;
                Some(ChunkCipher::new(cipher, &key)?)
            }
        };
        Ok(Self { envelope, cipher })
    }

    /// The envelope.
    #[must_use]
    pub fn envelope(&self) -> &SegmentEnvelope {
        &self.envelope
    }

    /// The segment.
    #[must_use]
    pub fn segment(&self) -> Uuid {
        self.envelope.segment
    }

    /// The original size of `kind`.
    ///
    /// # Errors
    /// [`EnvelopeError::MissingObject`].
    pub fn original_size(&self, kind: ObjectKind) -> Result<u64> {
        Ok(self.envelope.object(kind)?.original_size)
    }

    /// The chunks (and stored bytes) covering original `[start, end)` of
    /// `kind`; `end` of `None` means to the object's end.
    ///
    /// # Errors
    /// [`EnvelopeError::MissingObject`], [`EnvelopeError::OutOfRange`].
    pub fn span(&self, kind: ObjectKind, start: u64, end: Option<u64>) -> Result<ChunkSpan> {
        let object = self.envelope.object(kind)?;
        object.span(
            self.envelope.segment,
            self.envelope.chunk_size,
            start,
            end.unwrap_or(u64::MAX),
        )
    }

    /// A reader of original bytes `[start, end)` of `kind`, from `stored`:
    /// a reader of the object's stored bytes starting at the span's
    /// `stored.start` (from [`OpenedSegment::span`]).
    ///
    /// # Errors
    /// As [`OpenedSegment::span`].
    pub fn range_reader<R: Read>(
        self: &Arc<Self>,
        kind: ObjectKind,
        start: u64,
        end: Option<u64>,
        stored: R,
    ) -> Result<RangeDecoder<R>> {
        let span = self.span(kind, start, end)?;
        let object_end = self.original_size(kind)?;
        Ok(RangeDecoder {
            segment: Arc::clone(self),
            kind,
            stored,
            next_chunk: span.chunks.start,
            end_chunk: span.chunks.end,
            chunk_start: span.original_start,
            start,
            end: end.unwrap_or(object_end).min(object_end),
            out: Vec::new(),
            out_at: 0,
        })
    }

    /// Decodes a whole stored object held in memory (an index).
    ///
    /// # Errors
    /// [`EnvelopeError::CorruptChunk`] for a missing magic or a chunk that
    /// does not open, [`EnvelopeError::Truncated`], and as
    /// [`OpenedSegment::span`].
    pub fn decode_object(self: &Arc<Self>, kind: ObjectKind, stored: &[u8]) -> Result<Vec<u8>> {
        let object = self.envelope.object(kind)?;
        let magic = stored.get(..STORED_MAGIC.len());
        if magic != Some(&STORED_MAGIC[..]) {
            return Err(EnvelopeError::CorruptChunk {
                segment: self.segment(),
                kind,
                chunk: 0,
                reason: "the stored object does not start with the chunked format's magic",
            });
        }
        if stored.len() as u64 > object.stored_size() {
            return Err(EnvelopeError::CorruptChunk {
                segment: self.segment(),
                kind,
                chunk: object.chunk_count(),
                reason: "the stored object is longer than its chunks",
            });
        }
        let mut out = Vec::with_capacity(
            usize::try_from(object.original_size)
                .unwrap_or(0)
                .min(64 << 20),
        );
        let mut reader = self.range_reader(kind, 0, None, &stored[STORED_MAGIC.len()..])?;
        reader
            .read_to_end(&mut out)
            .map_err(|err| match EnvelopeError::from_io(&err) {
                Some(_) => crate::encode::io_to_envelope(err, kind, self.segment()),
                None => EnvelopeError::Io {
                    action: "decoding",
                    kind,
                    segment: self.segment(),
                    source: err,
                },
            })?;
        Ok(out)
    }

    /// Opens chunk `index` of `kind` from its stored bytes, leaving its
    /// original bytes in `chunk`.
    ///
    /// # Errors
    /// [`EnvelopeError::CorruptChunk`] when it does not open, decompress,
    /// or come out at its original length.
    pub fn open_chunk(&self, kind: ObjectKind, index: u32, chunk: &mut Vec<u8>) -> Result<()> {
        let object = self.envelope.object(kind)?;
        let place = place_of(&self.envelope, object, index);
        if let Some(cipher) = &self.cipher {
            cipher.open(&place, chunk)?;
        }
        if place.compressed {
            let original = zstd::bulk::decompress(chunk, place.original_len as usize)
                .map_err(|_| place.corrupt("it does not decompress to its original length"))?;
            *chunk = original;
        }
        if chunk.len() != place.original_len as usize {
            return Err(place.corrupt("its length differs from the envelope's"));
        }
        Ok(())
    }
}

fn place_of(envelope: &SegmentEnvelope, object: &ObjectChunks, index: u32) -> ChunkPlace {
    let stored = object.chunks[index as usize];
    ChunkPlace {
        segment: envelope.segment,
        kind: object.kind,
        chunk: index,
        last: index + 1 == object.chunk_count(),
        original_len: object.original_len(envelope.chunk_size, index),
        compressed: stored.compressed,
    }
}

/// Original bytes of a range of one object, decoded chunk by chunk from a
/// reader of its stored bytes. Holds one chunk at a time.
#[derive(Debug)]
pub struct RangeDecoder<R> {
    segment: Arc<OpenedSegment>,
    kind: ObjectKind,
    stored: R,
    next_chunk: u32,
    end_chunk: u32,
    /// Original offset of `next_chunk`.
    chunk_start: u64,
    start: u64,
    end: u64,
    out: Vec<u8>,
    out_at: usize,
}

impl<R: Read> RangeDecoder<R> {
    fn next(&mut self) -> Result<()> {
        let segment = &self.segment;
        let object = segment.envelope.object(self.kind)?;
        let index = self.next_chunk;
        let stored_len = object.chunks[index as usize].stored_len;
        self.out.clear();
        self.out.reserve(stored_len as usize);
        let read = (&mut self.stored)
            .take(u64::from(stored_len))
            .read_to_end(&mut self.out)
            .map_err(|source| EnvelopeError::Io {
                action: "reading",
                kind: self.kind,
                segment: segment.segment(),
                source,
            })?;
        if read < stored_len as usize {
            return Err(EnvelopeError::Truncated {
                segment: segment.segment(),
                kind: self.kind,
                chunk: index,
                expected: u64::from(stored_len),
                found: read as u64,
            });
        }
        segment.open_chunk(self.kind, index, &mut self.out)?;
        let chunk_end = self.chunk_start + self.out.len() as u64;
        let from = self.start.saturating_sub(self.chunk_start);
        let to = self.end.min(chunk_end) - self.chunk_start;
        self.out.truncate(usize::try_from(to).unwrap_or(usize::MAX));
        self.out_at = usize::try_from(from)
            .unwrap_or(usize::MAX)
            .min(self.out.len());
        self.chunk_start = chunk_end;
        self.next_chunk += 1;
        Ok(())
    }
}

impl<R: Read> Read for RangeDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_at == self.out.len() {
            if self.next_chunk >= self.end_chunk || self.chunk_start >= self.end {
                return Ok(0);
            }
            self.next().map_err(EnvelopeError::into_io)?;
        }
        let n = buf.len().min(self.out.len() - self.out_at);
        buf[..n].copy_from_slice(&self.out[self.out_at..self.out_at + n]);
        self.out_at += n;
        Ok(n)
    }
}
