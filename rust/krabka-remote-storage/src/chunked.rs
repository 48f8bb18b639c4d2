//! The chunked segment format in the tiers: which segments are chunked,
//! their opened envelopes, and the errors they give the broker.
//!
//! A tier holds a [`ChunkedFormat`]: the [`SegmentCodec`] it writes with
//! (plain by default) and a bounded cache of what it learned about the
//! segments it read: a plain segment (no envelope object), or a chunked one
//! with its envelope parsed and its data key unwrapped, so a run of fetches
//! of one segment reads and unwraps its envelope once.
//!
//! # Which segments are chunked
//!
//! A chunked segment has an envelope object; a plain one has none. A copy
//! in the chunked format also returns [`CHUNKED_MARKER`] as the segment's
//! custom metadata, which Kafka keeps in its remote log metadata and hands
//! back with every fetch: a segment carrying it is read as chunked at once
//! (its envelope must exist). A segment without it is looked for an
//! envelope only by a tier that compresses, encrypts or holds keys; a tier
//! that never used the format sends no extra request.
//!
//! # Decoded chunks
//!
//! The format also keeps the last chunks it decoded ([`DecodedChunks`],
//! [`DECODED_CHUNK_BUDGET`] bytes), shared by every reader of the tier:
//! Kafka reads a remote segment in 1 MiB fetches, each its own stream, and
//! a chunk is 4 MiB, so the fetches after the first of a chunk copy its
//! plaintext from memory instead of decrypting and decompressing it again.

use {
    krabka_envelope::{
        ChunkReport, DecodedChunks, EnvelopeError, ObjectEncoder, ObjectKind, OpenedSegment,
        SegmentCodec, SegmentEnvelope, SegmentSealer,
    },
    krabka_kafka::{CustomMetadata, RemoteLogSegmentMetadata, RemoteStorageError, Result},
    krabka_object_store::store::{pieces::Pieces, upload::StreamSource},
    std::{
        collections::{HashMap, VecDeque},
        io::Read,
        sync::{Arc, Mutex, PoisonError},
    },
    uuid::Uuid,
};

pub use krabka_envelope::ENVELOPE_SUFFIX;

/// The custom metadata a copy in the chunked format returns to Kafka.
pub const CHUNKED_MARKER: &[u8] = b"krabka-chunked-v1";

/// Segments whose format a tier remembers.
const REMEMBERED_SEGMENTS: usize = 4096;

/// Bytes of decoded chunks a tier keeps: sixteen chunks of the default
/// size, room for a few readers catching up at once.
pub const DECODED_CHUNK_BUDGET: usize = 64 << 20;

/// What a tier knows about one segment's format.
#[derive(Debug, Clone)]
pub(crate) enum SegmentFormat {
    /// Kafka's plain bytes.
    Plain,
    /// The chunked format, opened.
    Chunked(Arc<OpenedSegment>),
}

/// A tier's codec and its memory of the segments it read.
#[derive(Debug)]
pub(crate) struct ChunkedFormat {
    codec: SegmentCodec,
    known: Mutex<Known>,
    decoded: Arc<DecodedChunks>,
}

impl Default for ChunkedFormat {
    fn default() -> Self {
        Self {
            codec: SegmentCodec::default(),
            known: Mutex::default(),
            decoded: Arc::new(DecodedChunks::new(DECODED_CHUNK_BUDGET)),
        }
    }
}

#[derive(Debug, Default)]
struct Known {
    formats: HashMap<Uuid, SegmentFormat>,
    order: VecDeque<Uuid>,
}

impl ChunkedFormat {
    /// A format that writes with `codec`.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] when the codec's settings are invalid.
    pub(crate) fn new(codec: SegmentCodec) -> Result<Self> {
        codec.validate().map_err(config_error)?;
        Ok(Self {
            codec,
            ..Self::default()
        })
    }

    /// The decoded chunks the tier's readers share.
    pub(crate) fn decoded(&self) -> &Arc<DecodedChunks> {
        &self.decoded
    }

    /// The codec new segments are written with.
    pub(crate) fn codec(&self) -> &SegmentCodec {
        &self.codec
    }

    /// The format of `metadata`'s segment: remembered, or learned from
    /// `read_envelope` (the envelope's bytes, `None` when the segment has
    /// none) and remembered.
    ///
    /// # Errors
    /// `read_envelope`'s errors; a malformed envelope or one whose data key
    /// does not unwrap, as [`envelope_error`] maps them.
    pub(crate) fn format_of(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        read_envelope: impl FnOnce() -> Result<Option<Vec<u8>>>,
    ) -> Result<SegmentFormat> {
        let segment = metadata.remote_log_segment_id().id;
        if let Some(known) = self.lock().formats.get(&segment) {
            return Ok(known.clone());
        }
        let marked = metadata
            .custom_metadata()
            .is_some_and(|custom| custom.0 == CHUNKED_MARKER);
        if !marked && !self.looks_for_envelopes() {
            return Ok(SegmentFormat::Plain);
        }
        let format = match read_envelope()? {
            None if marked => {
                return Err(RemoteStorageError::Integrity {
                    what: "chunked segment",
                    source: format!(
                        "segment {} is chunked by its metadata but its envelope object is missing",
                        metadata.remote_log_segment_id()
                    )
                    .into(),
                });
            }
            None => SegmentFormat::Plain,
            Some(bytes) => {
                let envelope = SegmentEnvelope::decode(&bytes, segment).map_err(envelope_error)?;
                let opened = OpenedSegment::open(envelope, self.codec.keys.as_deref())
                    .map_err(envelope_error)?;
                SegmentFormat::Chunked(Arc::new(opened))
            }
        };
        self.remember(segment, format.clone());
        Ok(format)
    }

    /// The format of a segment known to have an envelope (an archived copy
    /// whose manifest names one): remembered, or opened from
    /// `read_envelope`'s bytes and remembered.
    ///
    /// # Errors
    /// `read_envelope`'s errors; a malformed envelope or one whose data key
    /// does not unwrap.
    pub(crate) fn format_of_known(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        read_envelope: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<SegmentFormat> {
        let segment = metadata.remote_log_segment_id().id;
        if let Some(known @ SegmentFormat::Chunked(_)) = self.lock().formats.get(&segment) {
            return Ok(known.clone());
        }
        let envelope =
            SegmentEnvelope::decode(&read_envelope()?, segment).map_err(envelope_error)?;
        let opened =
            OpenedSegment::open(envelope, self.codec.keys.as_deref()).map_err(envelope_error)?;
        let format = SegmentFormat::Chunked(Arc::new(opened));
        self.remember(segment, format.clone());
        Ok(format)
    }

    fn remember(&self, segment: Uuid, format: SegmentFormat) {
        let mut known = self.lock();
        if known.formats.insert(segment, format).is_none() {
            known.order.push_back(segment);
            while known.order.len() > REMEMBERED_SEGMENTS {
                if let Some(oldest) = known.order.pop_front() {
                    known.formats.remove(&oldest);
                }
            }
        }
    }

    /// Whether segments without the marker are looked for an envelope.
    fn looks_for_envelopes(&self) -> bool {
        !self.codec.writes_plain() || self.codec.keys.is_some()
    }

    /// The custom metadata of a copy: the marker when the copy was chunked.
    pub(crate) fn copy_metadata(&self) -> Option<CustomMetadata> {
        (!self.codec.writes_plain()).then(|| CustomMetadata(CHUNKED_MARKER.to_vec()))
    }

    /// Forgets what was learned about `metadata`'s segment (it is being
    /// copied or deleted).
    pub(crate) fn forget(&self, metadata: &RemoteLogSegmentMetadata) {
        let segment = metadata.remote_log_segment_id().id;
        self.decoded.forget_segment(segment);
        let mut known = self.lock();
        if known.formats.remove(&segment).is_some() {
            known.order.retain(|id| *id != segment);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The stored bytes of `reader` encoded by `sealer` as `kind`, as an
/// upload source of pieces (each sealed chunk sent as it is, sealed a few
/// chunks ahead of the upload), and the report that lists its chunks once
/// uploaded. `name` says what it is in errors.
pub(crate) fn encoded_stream(
    sealer: &SegmentSealer,
    kind: ObjectKind,
    name: String,
    reader: impl Read + Send + 'static,
) -> (StreamSource, ChunkReport) {
    let (encoder, report) = sealer.encoder(kind, reader);
    (StreamSource::pieces(name, EncodedPieces(encoder)), report)
}

/// An encoder's stored bytes as upload pieces.
struct EncodedPieces<R>(ObjectEncoder<R>);

impl<R: Read + Send> Pieces for EncodedPieces<R> {
    fn next_piece(&mut self) -> std::io::Result<Option<bytes::Bytes>> {
        Ok(self.0.next_stored()?.map(bytes::Bytes::from))
    }
}

/// The end (exclusive) of a fetch ending at inclusive `end_position`.
pub(crate) fn exclusive_end(end_position: Option<u64>) -> Option<u64> {
    end_position.map(|end| end.saturating_add(1))
}

/// The object kind of a Kafka index.
pub(crate) fn index_kind(index: krabka_kafka::IndexType) -> ObjectKind {
    ObjectKind::of_index(index)
}

/// The broker's error for a format error: damaged or foreign bytes are an
/// integrity failure, missing or unusable keys a configuration error.
pub(crate) fn envelope_error(err: EnvelopeError) -> RemoteStorageError {
    match err {
        EnvelopeError::NoKeys { .. }
        | EnvelopeError::KeyService(_)
        | EnvelopeError::UnknownKey { .. }
        | EnvelopeError::KeyFile { .. }
        | EnvelopeError::KeyConfig(_)
        | EnvelopeError::InvalidSetting(_) => config_error(err),
        EnvelopeError::OutOfRange { .. } => RemoteStorageError::InvalidArgument(err.to_string()),
        EnvelopeError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            RemoteStorageError::not_found(err.to_string())
        }
        EnvelopeError::Io { .. } | EnvelopeError::Crypto(_) => RemoteStorageError::Backend {
            message: err.to_string(),
            source: Some(Box::new(err)),
        },
        _ => RemoteStorageError::Integrity {
            what: "chunked segment",
            source: Box::new(err),
        },
    }
}

fn config_error(err: EnvelopeError) -> RemoteStorageError {
    RemoteStorageError::Config {
        what: "segment compression and encryption",
        source: Box::new(err),
    }
}
