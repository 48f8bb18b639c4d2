//! [`DecodingStore`]: a read view of a tier in which segments stored in the
//! chunked format (compressed, encrypted; docs/chunked-format.md) read as
//! Kafka's plain bytes, so listing, export and replay work on them unchanged.
//!
//! A segment is chunked when it has an `.envelope` object beside its log.
//! Its log and indexes then answer with their original sizes, and a read of
//! any range fetches only the chunks that cover it (one ranged GET per
//! chunk, decoded as it arrives). The envelope of each segment is read and
//! its data key unwrapped once. Every other object reads as it is stored.
//! Writes go to the underlying store unchanged (the tools do not write).

use {
    async_trait::async_trait,
    bytes::Bytes,
    futures_util::{StreamExt, TryStreamExt, stream::BoxStream},
    krabka_envelope::{
        ENVELOPE_SUFFIX, EnvelopeError, KeyRing, ObjectKind, OpenedSegment, SegmentEnvelope,
    },
    krabka_kafka::parse_segment_file_name,
    object_store::{
        CopyOptions, GetOptions, GetRange, GetResult, GetResultPayload, ListResult,
        MultipartUpload, ObjectMeta, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions,
        PutPayload, PutResult, Result, path::Path,
    },
    std::{
        collections::HashMap,
        fmt,
        ops::Range,
        sync::{Arc, Mutex, PoisonError},
    },
};

/// A tier's store in which segments in the chunked format read as Kafka's
/// plain bytes, with their original sizes; each segment's envelope is read
/// and opened once. Every other object, and every write, passes through.
pub struct DecodingStore {
    inner: Arc<dyn ObjectStore>,
    keys: Option<Arc<dyn KeyRing>>,
    /// Per segment (its key without suffix): its opened envelope, or `None`
    /// for a plain segment.
    opened: Arc<Mutex<HashMap<String, Option<Arc<OpenedSegment>>>>>,
}

impl fmt::Debug for DecodingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodingStore")
            .field("inner", &self.inner)
            .field("keys", &self.keys)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for DecodingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodingStore({})", self.inner)
    }
}

impl DecodingStore {
    /// A view of `inner`; `keys` unwrap the data keys of encrypted segments
    /// (without, reading one is an error naming its key id).
    #[must_use]
    pub fn new(inner: Arc<dyn ObjectStore>, keys: Option<Arc<dyn KeyRing>>) -> Self {
        Self {
            inner,
            keys,
            opened: Arc::default(),
        }
    }

    /// The store underneath, where objects read as they are stored (what an
    /// archive's manifests hold the digests of).
    #[must_use]
    pub fn raw(&self) -> &Arc<dyn ObjectStore> {
        &self.inner
    }

    /// The segment `location` is an object of, and the object's kind, when
    /// its name is a segment file of a kind the format encodes.
    fn segment_object(location: &Path) -> Option<(String, ObjectKind)> {
        let text = location.as_ref();
        let name = location.filename()?;
        let parsed = parse_segment_file_name(name)?;
        let kind = ObjectKind::of_suffix(parsed.suffix)?;
        let stem = &text[..text.len() - parsed.suffix.len()];
        Some((stem.to_owned(), kind))
    }

    /// The opened envelope of the segment `stem`, `None` when it has none.
    async fn opened(&self, stem: &str) -> Result<Option<Arc<OpenedSegment>>> {
        opened(&self.inner, self.keys.as_ref(), &self.opened, stem).await
    }
}

/// The decoded envelope of the segment `stem`, `None` when it has none.
async fn read_envelope(
    inner: &Arc<dyn ObjectStore>,
    stem: &str,
) -> Result<Option<SegmentEnvelope>> {
    let location = Path::from(format!("{stem}{ENVELOPE_SUFFIX}"));
    let bytes = match inner.get(&location).await {
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(err) => return Err(err),
        Ok(got) => got.bytes().await?,
    };
    let segment = Path::from(stem)
        .filename()
        .and_then(|name| parse_segment_file_name(&format!("{name}.log")).map(|p| p.segment_id))
        .unwrap_or_default();
    SegmentEnvelope::decode(&bytes, segment)
        .map(Some)
        .map_err(|err| format_error(&location, err))
}

async fn opened(
    inner: &Arc<dyn ObjectStore>,
    keys: Option<&Arc<dyn KeyRing>>,
    cache: &Mutex<HashMap<String, Option<Arc<OpenedSegment>>>>,
    stem: &str,
) -> Result<Option<Arc<OpenedSegment>>> {
    if let Some(known) = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(stem)
    {
        return Ok(known.clone());
    }
    let location = Path::from(format!("{stem}{ENVELOPE_SUFFIX}"));
    let opened = match read_envelope(inner, stem).await? {
        None => None,
        Some(envelope) => {
            let opened = OpenedSegment::open(envelope, keys.map(|keys| &**keys as &dyn KeyRing))
                .map_err(|err| format_error(&location, err))?;
            Some(Arc::new(opened))
        }
    };
    cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(stem.to_owned(), opened.clone());
    Ok(opened)
}

/// A format error as the store's error for `location`.
fn format_error(location: &Path, err: EnvelopeError) -> object_store::Error {
    object_store::Error::Generic {
        store: "chunked segment",
        source: format!("{location}: {err}").into(),
    }
}

/// The original range a request asks of an object of `size` bytes.
fn requested(range: Option<&GetRange>, size: u64, location: &Path) -> Result<Range<u64>> {
    let Some(range) = range else {
        return Ok(0..size);
    };
    range
        .as_range(size)
        .map_err(|err| object_store::Error::Generic {
            store: "chunked segment",
            source: format!("{location}: {err}").into(),
        })
}

/// Decoded bytes of `range` of `kind`, chunk by chunk: one ranged GET of
/// each chunk's stored bytes, opened and trimmed as it arrives.
fn decoded_stream(
    inner: Arc<dyn ObjectStore>,
    opened: Arc<OpenedSegment>,
    location: Path,
    kind: ObjectKind,
    range: Range<u64>,
) -> Result<BoxStream<'static, Result<Bytes>>> {
    let span = opened
        .span(kind, range.start, Some(range.end))
        .map_err(|err| format_error(&location, err))?;
    let object = opened
        .envelope()
        .object(kind)
        .map_err(|err| format_error(&location, err))?
        .clone();
    let chunk_size = u64::from(opened.envelope().chunk_size);
    let mut stored_at = span.stored.start;
    let chunks: Vec<(u32, Range<u64>)> = span
        .chunks
        .clone()
        .map(|index| {
            let len = u64::from(object.chunks[index as usize].stored_len);
            let stored = stored_at..stored_at + len;
            stored_at += len;
            (index, stored)
        })
        .collect();
    Ok(futures_util::stream::iter(chunks)
        .then(move |(index, stored)| {
            let (inner, opened, location) =
                (Arc::clone(&inner), Arc::clone(&opened), location.clone());
            let range = range.clone();
            async move {
                let sealed = inner.get_range(&location, stored).await?;
                let mut chunk = sealed.to_vec();
                opened
                    .open_chunk(kind, index, &mut chunk)
                    .map_err(|err| format_error(&location, err))?;
                let start = u64::from(index) * chunk_size;
                let from = range.start.saturating_sub(start).min(chunk.len() as u64);
                let to = (range.end - start).min(chunk.len() as u64);
                Ok(Bytes::from(chunk)
                    .slice(usize::try_from(from).unwrap_or(0)..usize::try_from(to).unwrap_or(0)))
            }
        })
        .boxed())
}

#[async_trait]
impl ObjectStore for DecodingStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let Some((stem, kind)) = Self::segment_object(location) else {
            return self.inner.get_opts(location, options).await;
        };
        let Some(opened) = self.opened(&stem).await? else {
            return self.inner.get_opts(location, options).await;
        };
        // The stored object must exist; its metadata, with the original size.
        let mut meta = self.inner.head(location).await?;
        meta.size = opened
            .original_size(kind)
            .map_err(|err| format_error(location, err))?;
        let range = requested(options.range.as_ref(), meta.size, location)?;
        let payload = if options.head || range.is_empty() {
            futures_util::stream::empty().boxed()
        } else {
            decoded_stream(
                Arc::clone(&self.inner),
                opened,
                location.clone(),
                kind,
                range.clone(),
            )?
        };
        Ok(GetResult {
            payload: GetResultPayload::Stream(payload),
            meta,
            range,
            attributes: object_store::Attributes::default(),
            extensions: object_store::Extensions::default(),
        })
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    /// The listing, collected first: the segments without an envelope are
    /// plain (and remembered so, with no request), the objects of those
    /// with one answer with their original sizes, read from the envelope
    /// (no key needed). An envelope that cannot be read leaves the stored
    /// sizes; reading the segment then says why.
    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let (inner, cache) = (Arc::clone(&self.inner), Arc::clone(&self.opened));
        let listing = self.inner.list(prefix);
        futures_util::stream::once(async move {
            let mut metas: Vec<ObjectMeta> = listing.try_collect().await?;
            let chunked: std::collections::HashSet<String> = metas
                .iter()
                .filter_map(|meta| {
                    meta.location
                        .as_ref()
                        .strip_suffix(ENVELOPE_SUFFIX)
                        .map(str::to_owned)
                })
                .collect();
            let mut envelopes: HashMap<String, Option<SegmentEnvelope>> = HashMap::new();
            for meta in &mut metas {
                let Some((stem, kind)) = Self::segment_object(&meta.location) else {
                    continue;
                };
                if !chunked.contains(&stem) {
                    cache
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(stem, None);
                    continue;
                }
                if !envelopes.contains_key(&stem) {
                    let envelope = read_envelope(&inner, &stem).await.ok().flatten();
                    envelopes.insert(stem.clone(), envelope);
                }
                if let Some(Some(envelope)) = envelopes.get(&stem) {
                    if let Ok(object) = envelope.object(kind) {
                        meta.size = object.original_size;
                    }
                }
            }
            Ok::<_, object_store::Error>(futures_util::stream::iter(metas.into_iter().map(Ok)))
        })
        .try_flatten()
        .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
