//! [`StoreHandle`]: one configured store with the key prefix, tuning and
//! runtime every tier built on it shares.

use {
    super::{
        cache::{CacheConfig, ChunkCache},
        error::{Result, StoreError},
        metered::{MeteredObjectStore, RequestMetrics},
        runtime::StoreRuntime,
        tuning::{CreateOnlyParts, Tuning},
    },
    crate::{ObjectStoreConfig, build_object_store},
    object_store::{ObjectStore, path::Path},
    std::{fmt, sync::Arc},
};

/// Worker threads of the runtime each handle owns.
const RUNTIME_WORKERS: usize = 2;

/// An object store, the prefix put before every key, the transfer tuning and
/// the runtime requests run on. Cloning shares the store and the runtime.
#[derive(Clone)]
pub struct StoreHandle {
    store: Arc<dyn ObjectStore>,
    prefix: Option<String>,
    tuning: Tuning,
    runtime: Arc<StoreRuntime>,
    config: Option<ObjectStoreConfig>,
    read_cache: Option<Arc<ChunkCache>>,
    requests: Arc<RequestMetrics>,
}

impl fmt::Debug for StoreHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreHandle")
            .field("store", &self.store.to_string())
            .field("prefix", &self.prefix)
            .field("tuning", &self.tuning)
            .field("read_cache", &self.read_cache.as_ref().map(|c| c.config()))
            .finish_non_exhaustive()
    }
}

impl StoreHandle {
    /// A handle over any object store, with default tuning. `prefix`
    /// (leading and trailing `/` trimmed, empty meaning none) is put before
    /// every key. Every request made through the handle (and its clones) is
    /// counted into its [`request_metrics`](Self::request_metrics).
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] for a prefix that is not a valid key
    /// path, [`StoreError::Backend`] when the runtime cannot start.
    pub fn new(store: Arc<dyn ObjectStore>, prefix: Option<String>) -> Result<Self> {
        let prefix = match prefix.as_deref().map(|p| p.trim_matches('/')) {
            None | Some("") => None,
            Some(prefix) => {
                Path::parse(prefix).map_err(|source| {
                    StoreError::InvalidArgument(format!(
                        "prefix `{prefix}` is not a valid key path: {source}"
                    ))
                })?;
                Some(prefix.to_owned())
            }
        };
        let requests = Arc::new(RequestMetrics::new());
        Ok(Self {
            store: Arc::new(MeteredObjectStore::new(store, Arc::clone(&requests))),
            prefix,
            tuning: Tuning::default(),
            runtime: Arc::new(StoreRuntime::new(RUNTIME_WORKERS)?),
            config: None,
            read_cache: None,
            requests,
        })
    }

    /// A handle on the backend `config` describes, with its prefix and
    /// multipart tuning, and for a cloud backend (S3, GCS, Azure) the read cache
    /// with its default sizes ([`CacheConfig::default`]).
    ///
    /// # Errors
    /// [`StoreError::Config`], whose cause names the bad field.
    pub fn from_config(config: &ObjectStoreConfig) -> Result<Self> {
        let store = build_object_store(config).map_err(StoreError::Config)?;
        let (prefix, multipart) = match config {
            ObjectStoreConfig::S3(s3) => (
                s3.prefix.clone(),
                Some((
                    s3.multipart_threshold,
                    s3.multipart_chunk_size,
                    s3.parts_in_flight,
                )),
            ),
            ObjectStoreConfig::Gcs(gcs) => (
                gcs.prefix.clone(),
                Some((
                    gcs.multipart_threshold,
                    gcs.multipart_chunk_size,
                    gcs.parts_in_flight,
                )),
            ),
            ObjectStoreConfig::Azure(azure) => (
                azure.prefix.clone(),
                Some((
                    azure.multipart_threshold,
                    azure.multipart_chunk_size,
                    azure.parts_in_flight,
                )),
            ),
            _ => (None, None),
        };
        let mut handle = Self::new(store, prefix)?;
        handle.config = Some(config.clone());
        if let Some((threshold, chunk, parts)) = multipart {
            handle.tuning = handle
                .tuning
                .with_multipart(threshold, chunk)
                .with_parts_in_flight(parts);
        }
        if matches!(
            config,
            ObjectStoreConfig::S3(_) | ObjectStoreConfig::Gcs(_) | ObjectStoreConfig::Azure(_)
        ) {
            handle.read_cache = Some(Arc::new(ChunkCache::new(CacheConfig::default())?));
        }
        if matches!(config, ObjectStoreConfig::Gcs(_)) {
            // A GCS bucket under Bucket Lock refuses to replace an object,
            // so a key cannot be reserved first (see `CreateOnlyParts`).
            handle.tuning = handle
                .tuning
                .with_create_only_parts(CreateOnlyParts::RetentionGuarded);
        }
        Ok(handle)
    }

    /// The same handle with `tuning`.
    #[must_use]
    pub fn with_tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// The same handle reading segment logs through a read cache of
    /// `config`'s sizes (a new one), or without a cache for `None`.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] for sizes that do not fit
    /// ([`CacheConfig::validated`]).
    pub fn with_read_cache(mut self, config: Option<CacheConfig>) -> Result<Self> {
        self.read_cache = match config {
            Some(config) => Some(Arc::new(ChunkCache::new(config)?)),
            None => None,
        };
        Ok(self)
    }

    /// The read cache segment logs are read through, when there is one.
    #[must_use]
    pub fn read_cache(&self) -> Option<&Arc<ChunkCache>> {
        self.read_cache.as_ref()
    }

    /// The requests made through this handle and its clones, by operation
    /// and outcome.
    #[must_use]
    pub fn request_metrics(&self) -> &Arc<RequestMetrics> {
        &self.requests
    }

    /// The object store (counting its requests into
    /// [`request_metrics`](Self::request_metrics)).
    #[must_use]
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The key prefix, if any.
    #[must_use]
    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// The transfer tuning.
    #[must_use]
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// The runtime requests run on.
    #[must_use]
    pub fn runtime(&self) -> &Arc<StoreRuntime> {
        &self.runtime
    }

    /// The configuration the handle was built from, when it was (a handle
    /// over a bare store cannot prove anything about its bucket).
    #[must_use]
    pub fn config(&self) -> Option<&ObjectStoreConfig> {
        self.config.as_ref()
    }

    /// `relative` under the prefix, as a key.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] when the result is not a valid key.
    pub fn key(&self, relative: &str) -> Result<Path> {
        let key = match &self.prefix {
            Some(prefix) => format!("{prefix}/{relative}"),
            None => relative.to_owned(),
        };
        Path::parse(&key).map_err(|source| {
            StoreError::InvalidArgument(format!("`{key}` is not a valid object key: {source}"))
        })
    }
}
