//! Fetching a byte range of a segment's log, or a whole index.

use {
    super::error::{Result, StoreError},
    super::{
        StoreRuntime,
        errors::{Failure, classify, to_store_error},
        reader::{RangeReader, Source, first_get_options, pin_of},
        tuning::Tuning,
    },
    object_store::{GetOptions, ObjectStore, path::Path},
    std::sync::Arc,
};

/// The object a read names: a key, and optionally the version of it to
/// read (an S3 version id, a GCS generation) instead of the newest.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectAt {
    /// The key.
    pub key: Path,
    /// The version to read; `None` reads the newest.
    pub version: Option<String>,
}

impl ObjectAt {
    /// `version` of `key`.
    #[must_use]
    pub fn version(key: Path, version: Option<String>) -> Self {
        Self { key, version }
    }
}

impl From<Path> for ObjectAt {
    fn from(key: Path) -> Self {
        Self { key, version: None }
    }
}

/// The first `limit` bytes of `key` (all of it when shorter) in one ranged
/// GET: a bounded read of a small object (a manifest, a seal) whose size a
/// listing or a writer may lie about. Errors are `object_store`'s, for the
/// caller to classify with its own resource name; some servers answer the
/// range of an empty object with 416.
pub async fn read_prefix(
    store: &dyn ObjectStore,
    key: &Path,
    limit: u64,
) -> std::result::Result<bytes::Bytes, object_store::Error> {
    let options = GetOptions {
        range: Some(object_store::GetRange::Bounded(0..limit)),
        ..GetOptions::default()
    };
    store.get_opts(key, options).await?.bytes().await
}

/// What [`open_range`] found.
pub enum Opened {
    /// The range is empty (`start` is the object's length).
    Empty,
    /// A reader over the range.
    Reader(Box<dyn std::io::Read + Send>),
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("Empty"),
            Self::Reader(_) => f.write_str("Reader"),
        }
    }
}

impl Opened {
    /// The range as a boxed blocking reader.
    pub fn into_reader(self) -> Box<dyn std::io::Read + Send> {
        match self {
            Self::Empty => Box::new(std::io::empty()),
            Self::Reader(reader) => reader,
        }
    }
}

/// Opens a reader over `[start, end]` (inclusive `end`, clamped to the
/// object) of `object` (its pinned version, if it names one), or to the end
/// of the object without `end`.
pub async fn open_range(
    runtime: Arc<StoreRuntime>,
    store: Arc<dyn ObjectStore>,
    object: impl Into<ObjectAt>,
    resource: String,
    start: u64,
    end: Option<u64>,
    tuning: Tuning,
) -> Result<Opened> {
    if let Some(end) = end {
        if end < start {
            return Err(StoreError::InvalidArgument(format!(
                "end_position {end} < start_position {start}"
            )));
        }
    }
    let ObjectAt { key, version } = object.into();
    let chunk = (tuning.fetch_chunk_size.max(1)) as u64;
    let wanted_end = end.map_or(u64::MAX, |end| end.saturating_add(1));
    let first_end = wanted_end.min(start.saturating_add(chunk));
    let mut first_options = first_get_options(start..first_end);
    first_options.version.clone_from(&version);
    match store.get_opts(&key, first_options).await {
        Ok(first) => {
            let size = first.meta.size;
            let first_range = first.range.clone();
            let end = wanted_end.min(size);
            let source = Source {
                runtime,
                pin: pin_of(&first),
                store,
                key,
                chunk_size: chunk,
                parallelism: tuning.fetch_parallelism,
            };
            Ok(Opened::Reader(Box::new(RangeReader::start(
                source,
                first,
                first_range,
                end,
            ))))
        }
        Err(err) => match classify(&err) {
            Failure::NotFound => Err(StoreError::not_found(resource)),
            // A range starting at or past the end is refused by the server
            // (416); the object's length tells an empty read from a bad one.
            Failure::Permanent => match head(&*store, &key, version).await {
                Ok(meta) if start == meta.size => Ok(Opened::Empty),
                Ok(meta) if start > meta.size => Err(StoreError::InvalidArgument(format!(
                    "start_position {start} is past the end of {resource} ({} bytes)",
                    meta.size
                ))),
                Err(head) if classify(&head) == Failure::NotFound => {
                    Err(StoreError::not_found(resource))
                }
                _ => Err(to_store_error(err, "read of", &resource)),
            },
            _ => Err(to_store_error(err, "read of", &resource)),
        },
    }
}

/// The metadata of `version` of `key` (the newest without one).
async fn head(
    store: &dyn ObjectStore,
    key: &Path,
    version: Option<String>,
) -> object_store::Result<object_store::ObjectMeta> {
    let options = GetOptions {
        head: true,
        version,
        ..GetOptions::default()
    };
    Ok(store.get_opts(key, options).await?.meta)
}

/// Reads a whole (small) object, at its pinned version if `object` names
/// one.
pub async fn fetch_whole(
    store: Arc<dyn ObjectStore>,
    object: impl Into<ObjectAt>,
    resource: String,
) -> Result<Vec<u8>> {
    let ObjectAt { key, version } = object.into();
    let options = GetOptions {
        version,
        ..GetOptions::default()
    };
    let fetched = async { store.get_opts(&key, options).await?.bytes().await }.await;
    fetched
        .map(|bytes| bytes.to_vec())
        .map_err(|e| to_store_error(e, "read of", &resource))
}
