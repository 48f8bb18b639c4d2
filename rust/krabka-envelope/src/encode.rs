//! Writing the format: a segment's data key, and a streaming encoder per
//! object that turns the original bytes into stored chunks.

use {
    crate::{
        ChunkCipher, ChunkPlace, Cipher, EnvelopeError, ObjectKind, Result, SegmentCodec,
        WrappedKey,
        envelope::{ObjectChunks, STORED_MAGIC, SegmentEnvelope, StoredChunk},
        heuristic::producer_compressed,
    },
    std::{
        io::{self, Read},
        sync::{Arc, Mutex, PoisonError},
    },
    uuid::Uuid,
};

/// The writer's side of one segment: its fresh data key (wrapped by the
/// active key) and the settings every object is encoded with.
#[derive(Debug)]
pub struct SegmentSealer {
    segment: Uuid,
    chunk_size: u32,
    compression: Option<crate::Compression>,
    sealing: Option<(Cipher, Arc<ChunkCipher>, WrappedKey)>,
}

impl SegmentSealer {
    /// A sealer for `segment` under `codec`: a new random data key, wrapped
    /// by the key ring's active key when the codec encrypts.
    ///
    /// # Errors
    /// The codec's validation errors, or the key ring's.
    pub fn new(codec: &SegmentCodec, segment: Uuid) -> Result<Self> {
        codec.validate()?;
        let sealing = match (codec.encryption, &codec.keys) {
            (Some(cipher), Some(keys)) => {
                let (key, wrapped) = keys.generate()?;
                Some((cipher, Arc::new(ChunkCipher::new(cipher, &key)?), wrapped))
            }
            _ => None,
        };
        Ok(Self {
            segment,
            chunk_size: codec.chunk_size,
            compression: codec.compression,
            sealing,
        })
    }

    /// The segment.
    #[must_use]
    pub fn segment(&self) -> Uuid {
        self.segment
    }

    /// An encoder of one object read from `source`, and the handle that
    /// gives its chunk list once the encoder has reached the end.
    #[must_use]
    pub fn encoder<R: Read>(&self, kind: ObjectKind, source: R) -> (ObjectEncoder<R>, ChunkReport) {
        let report = ChunkReport::default();
        let encoder = ObjectEncoder {
            source,
            place: PlaceCounter {
                segment: self.segment,
                kind,
            },
            chunk_size: self.chunk_size as usize,
            compression: self
                .compression
                .map(|compression| (compression.level, compression.heuristic)),
            cipher: self
                .sealing
                .as_ref()
                .map(|(_, cipher, _)| Arc::clone(cipher)),
            out: STORED_MAGIC.to_vec(),
            out_at: 0,
            carry: None,
            original_size: 0,
            chunks: Vec::new(),
            done: false,
            report: report.clone(),
        };
        (encoder, report)
    }

    /// Encodes a small object in memory.
    ///
    /// # Errors
    /// The encoder's errors.
    pub fn encode_bytes(&self, kind: ObjectKind, bytes: &[u8]) -> Result<(Vec<u8>, ObjectChunks)> {
        let (mut encoder, report) = self.encoder(kind, bytes);
        let mut stored = Vec::new();
        encoder
            .read_to_end(&mut stored)
            .map_err(|err| io_to_envelope(err, kind, self.segment))?;
        Ok((stored, report.take(kind, self.segment)?))
    }

    /// The envelope listing `objects`.
    #[must_use]
    pub fn envelope(&self, objects: Vec<ObjectChunks>) -> SegmentEnvelope {
        let (cipher, key_id, wrapped_key) = match &self.sealing {
            Some((cipher, _, wrapped)) => {
                (Some(*cipher), wrapped.key_id.clone(), wrapped.bytes.clone())
            }
            None => (None, String::new(), Vec::new()),
        };
        SegmentEnvelope {
            segment: self.segment,
            cipher,
            chunk_size: self.chunk_size,
            key_id,
            wrapped_key,
            objects,
        }
    }
}

/// The error an encoder's I/O error stands for.
pub(crate) fn io_to_envelope(err: io::Error, kind: ObjectKind, segment: Uuid) -> EnvelopeError {
    if EnvelopeError::from_io(&err).is_some() {
        return *err
            .into_inner()
            .and_then(|inner| inner.downcast::<EnvelopeError>().ok())
            .unwrap_or_else(|| Box::new(EnvelopeError::Crypto("recovering an encoder error")));
    }
    EnvelopeError::Io {
        action: "reading",
        kind,
        segment,
        source: err,
    }
}

/// The chunk list of an object, filled in when its encoder reaches the end
/// of its source.
#[derive(Debug, Clone, Default)]
pub struct ChunkReport(Arc<Mutex<Option<ObjectChunks>>>);

impl ChunkReport {
    /// The object's chunks.
    ///
    /// # Errors
    /// [`EnvelopeError::MissingObject`] when the encoder did not reach the
    /// end of its source.
    pub fn take(&self, kind: ObjectKind, segment: Uuid) -> Result<ObjectChunks> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or(EnvelopeError::MissingObject { segment, kind })
    }
}

#[derive(Debug, Clone, Copy)]
struct PlaceCounter {
    segment: Uuid,
    kind: ObjectKind,
}

/// Reads an object's original bytes and yields its stored bytes: the
/// stored magic, then each chunk compressed (when that makes it smaller)
/// and sealed. Holds one chunk at a time.
#[derive(Debug)]
pub struct ObjectEncoder<R> {
    source: R,
    place: PlaceCounter,
    chunk_size: usize,
    /// zstd level and whether to judge the log's batches first; `None`
    /// once the heuristic said no.
    compression: Option<(i32, bool)>,
    cipher: Option<Arc<ChunkCipher>>,
    out: Vec<u8>,
    out_at: usize,
    /// One byte read past a full chunk, to learn whether it was the last.
    carry: Option<u8>,
    original_size: u64,
    chunks: Vec<StoredChunk>,
    done: bool,
    report: ChunkReport,
}

impl<R: Read> ObjectEncoder<R> {
    /// Fills `buf` with up to `max` bytes of the source (fewer only at its
    /// end); returns whether the source has more after them.
    fn fill(&mut self, buf: &mut Vec<u8>) -> io::Result<bool> {
        buf.clear();
        if let Some(byte) = self.carry.take() {
            buf.push(byte);
        }
        let want = self.chunk_size - buf.len();
        (&mut self.source).take(want as u64).read_to_end(buf)?;
        if buf.len() < self.chunk_size {
            return Ok(false);
        }
        let mut one = [0u8];
        loop {
            match self.source.read(&mut one) {
                Ok(0) => return Ok(false),
                Ok(_) => {
                    self.carry = Some(one[0]);
                    return Ok(true);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
    }

    /// The object's next stored bytes, each in its own buffer: the magic,
    /// then each sealed chunk; `None` at the end, once the chunk list is
    /// reported.
    ///
    /// # Errors
    /// The source's errors, and the format's as I/O errors
    /// ([`EnvelopeError::from_io`] recovers them).
    pub fn next_stored(&mut self) -> io::Result<Option<Vec<u8>>> {
        // What is left of the bytes in hand (at first the magic).
        let mut rest = std::mem::take(&mut self.out);
        rest.drain(..self.out_at.min(rest.len()));
        self.out_at = 0;
        if !rest.is_empty() {
            return Ok(Some(rest));
        }
        if self.done {
            return Ok(None);
        }
        let sealed = self.next_chunk()?;
        Ok((!sealed.is_empty()).then_some(sealed))
    }

    /// Encodes the next chunk; at the end of the source, reports the chunk
    /// list (and gives no bytes when the source had none left).
    fn next_chunk(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::with_capacity(self.chunk_size + crate::TAG_LEN);
        let more = self.fill(&mut body)?;
        if body.is_empty() {
            self.finish();
            return Ok(body);
        }
        let index = u32::try_from(self.chunks.len()).map_err(|_| {
            EnvelopeError::InvalidSetting("an object of more than 2^32 chunks".to_owned()).into_io()
        })?;
        let original_len = u32::try_from(body.len()).unwrap_or(u32::MAX);
        if let Some((_, true)) = self.compression {
            if self.place.kind == ObjectKind::Log && index == 0 && producer_compressed(&body) {
                self.compression = None;
            }
        }
        let mut compressed = false;
        if let Some((level, _)) = self.compression {
            let packed = zstd::bulk::compress(&body, level).map_err(|source| {
                EnvelopeError::Compression {
                    kind: self.place.kind,
                    chunk: index,
                    source,
                }
                .into_io()
            })?;
            if packed.len() < body.len() {
                body = packed;
                compressed = true;
            }
        }
        let place = ChunkPlace {
            segment: self.place.segment,
            kind: self.place.kind,
            chunk: index,
            last: !more,
            original_len,
            compressed,
        };
        if let Some(cipher) = &self.cipher {
            cipher
                .seal(&place, &mut body)
                .map_err(EnvelopeError::into_io)?;
        }
        self.original_size += u64::from(original_len);
        self.chunks.push(StoredChunk {
            stored_len: u32::try_from(body.len()).unwrap_or(u32::MAX),
            compressed,
        });
        if !more {
            self.finish();
        }
        Ok(body)
    }

    fn finish(&mut self) {
        self.done = true;
        *self.report.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(ObjectChunks {
            kind: self.place.kind,
            original_size: self.original_size,
            chunks: std::mem::take(&mut self.chunks),
        });
    }
}

impl<R: Read> Read for ObjectEncoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_at == self.out.len() {
            if self.done {
                return Ok(0);
            }
            self.out = self.next_chunk()?;
            self.out_at = 0;
        }
        let n = buf.len().min(self.out.len() - self.out_at);
        buf[..n].copy_from_slice(&self.out[self.out_at..self.out_at + n]);
        self.out_at += n;
        Ok(n)
    }
}
