//! Reading the format: a segment's opened envelope, and a streaming decoder
//! of a byte range of one object.

use {
    crate::{
        ChunkCipher, ChunkPlace, EnvelopeError, KeyRing, ObjectKind, Result, WrappedKey,
        chunk_cache::{ChunkId, DecodedChunks},
        envelope::{ChunkSpan, ObjectChunks, STORED_MAGIC, SegmentEnvelope},
    },
    bytes::Bytes,
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
        self.decoder(kind, start, end, Stored::Reader(stored))
    }

    /// A reader of original bytes `[start, end)` of `kind` that takes each
    /// chunk from `cache` when it holds it, and otherwise reads stored
    /// bytes and keeps what it decodes in `cache`. `first`, when given, is
    /// a reader already open at the span's first chunk (`stored.start`),
    /// used instead of the cache. Otherwise chunks come from the cache until
    /// the first it does not hold; `open` is then called, once, with that
    /// chunk's stored offset and must return a reader of the stored bytes
    /// from there to the span's `stored.end`, which serves the rest.
    ///
    /// # Errors
    /// As [`OpenedSegment::span`].
    pub fn cached_range_reader<R, F>(
        self: &Arc<Self>,
        kind: ObjectKind,
        (start, end): (u64, Option<u64>),
        cache: Arc<DecodedChunks>,
        first: Option<R>,
        open: F,
    ) -> Result<RangeDecoder<R>>
    where
        R: Read,
        F: FnMut(u64) -> io::Result<R> + Send + 'static,
    {
        self.decoder(
            kind,
            start,
            end,
            Stored::Cached {
                cache,
                open: Box::new(open),
                reader: first,
            },
        )
    }

    fn decoder<R: Read>(
        self: &Arc<Self>,
        kind: ObjectKind,
        start: u64,
        end: Option<u64>,
        stored: Stored<R>,
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
            out: Bytes::new(),
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
/// reader of its stored bytes (or taken from a cache of decoded chunks).
/// Holds one chunk at a time.
#[derive(Debug)]
pub struct RangeDecoder<R> {
    segment: Arc<OpenedSegment>,
    kind: ObjectKind,
    stored: Stored<R>,
    next_chunk: u32,
    end_chunk: u32,
    /// Original offset of `next_chunk`.
    chunk_start: u64,
    start: u64,
    end: u64,
    /// What is left to serve of the current chunk.
    out: Bytes,
}

/// Where a decoder's stored bytes come from.
enum Stored<R> {
    /// One reader, positioned at the first chunk.
    Reader(R),
    /// A cache of decoded chunks, and for the chunks it does not hold a
    /// reader opened at the first of them.
    Cached {
        cache: Arc<DecodedChunks>,
        open: Box<dyn FnMut(u64) -> io::Result<R> + Send>,
        reader: Option<R>,
    },
}

impl<R> std::fmt::Debug for Stored<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Reader(_) => f.write_str("Stored::Reader"),
            Self::Cached { reader, .. } => f
                .debug_struct("Stored::Cached")
                .field("reading", &reader.is_some())
                .finish_non_exhaustive(),
        }
    }
}

impl<R: Read> RangeDecoder<R> {
    fn next(&mut self) -> Result<()> {
        let index = self.next_chunk;
        let id = ChunkId {
            segment: self.segment.segment(),
            kind: self.kind,
            chunk: index,
        };
        let chunk = match &mut self.stored {
            Stored::Reader(reader) => self.segment.read_chunk(self.kind, index, reader)?,
            Stored::Cached {
                cache,
                open,
                reader,
            } => {
                // Once a reader is open it serves the rest of the span: it
                // is positioned at this chunk.
                let held = if reader.is_none() {
                    cache.get(&id)
                } else {
                    None
                };
                match held {
                    Some(chunk) => chunk,
                    None => {
                        let stored = match reader {
                            Some(stored) => stored,
                            None => {
                                let object = self.segment.envelope.object(self.kind)?;
                                let at = object.stored_offset(index);
                                let opened = open(at).map_err(|source| EnvelopeError::Io {
                                    action: "reading",
                                    kind: self.kind,
                                    segment: id.segment,
                                    source,
                                })?;
                                reader.insert(opened)
                            }
                        };
                        let chunk = self.segment.read_chunk(self.kind, index, stored)?;
                        cache.put(id, chunk.clone());
                        chunk
                    }
                }
            }
        };
        let chunk_end = self.chunk_start + chunk.len() as u64;
        let from = self.start.saturating_sub(self.chunk_start);
        let to = self.end.min(chunk_end) - self.chunk_start;
        let to = usize::try_from(to).unwrap_or(usize::MAX).min(chunk.len());
        let from = usize::try_from(from).unwrap_or(usize::MAX).min(to);
        self.out = chunk.slice(from..to);
        self.chunk_start = chunk_end;
        self.next_chunk += 1;
        Ok(())
    }
}

impl OpenedSegment {
    /// Reads chunk `index` of `kind` (its stored length) from `stored` and
    /// opens it.
    fn read_chunk(&self, kind: ObjectKind, index: u32, stored: &mut impl Read) -> Result<Bytes> {
        let object = self.envelope.object(kind)?;
        let stored_len = object.chunks[index as usize].stored_len;
        let mut chunk = Vec::with_capacity(stored_len as usize);
        let read = stored
            .take(u64::from(stored_len))
            .read_to_end(&mut chunk)
            .map_err(|source| EnvelopeError::Io {
                action: "reading",
                kind,
                segment: self.segment(),
                source,
            })?;
        if read < stored_len as usize {
            return Err(EnvelopeError::Truncated {
                segment: self.segment(),
                kind,
                chunk: index,
                expected: u64::from(stored_len),
                found: read as u64,
            });
        }
        self.open_chunk(kind, index, &mut chunk)?;
        Ok(Bytes::from(chunk))
    }
}

impl<R: Read> Read for RangeDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out.is_empty() {
            if self.next_chunk >= self.end_chunk || self.chunk_start >= self.end {
                return Ok(0);
            }
            self.next().map_err(EnvelopeError::into_io)?;
        }
        let n = buf.len().min(self.out.len());
        buf[..n].copy_from_slice(&self.out[..n]);
        bytes::Buf::advance(&mut self.out, n);
        Ok(n)
    }
}
