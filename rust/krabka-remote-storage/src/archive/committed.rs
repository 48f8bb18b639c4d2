//! Which segment copies committed, and which object versions their
//! manifests pin: read once per segment, then served from a bounded cache.
//!
//! A fetch from the archive reads what the manifest recorded — the version
//! id the store gave each object when it was written — never whatever is
//! newest under the key: an object written over an archived key (possible
//! on a versioned bucket for anyone with `PutObject`) is not served.

use {
    crate::{segment_keys::SegmentKeys, store_bridge::spi_error},
    krabka_kafka::{RemoteLogSegmentMetadata, RemoteStorageError, Result},
    krabka_object_store::store::{
        StoreHandle,
        errors::to_store_error,
        fetch::{ObjectAt, read_prefix},
    },
    krabka_worm::{
        MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, SegmentManifest, TrustedManifestKeys,
        verify_manifest_signature,
    },
    object_store::path::Path,
    std::{
        collections::{HashMap, VecDeque},
        sync::{Arc, Mutex, PoisonError},
    },
    uuid::Uuid,
};

/// Segments remembered: a manifest's locators take a few hundred bytes, so
/// the cache stays around a megabyte.
const CAPACITY: usize = 4096;

/// The objects of one committed copy: suffix → pinned object.
#[derive(Debug)]
pub(super) struct Committed {
    objects: HashMap<String, ObjectAt>,
}

impl Committed {
    /// The pinned object with `suffix`, `None` when the copy has none (a
    /// segment without a transaction index).
    pub(super) fn object(&self, suffix: &str) -> Option<ObjectAt> {
        self.objects.get(suffix).cloned()
    }
}

/// Committed copies by segment id, first in first out.
#[derive(Debug, Default)]
pub(super) struct CommittedSegments {
    cache: Mutex<Cache>,
}

/// The cached copies, and their ids in insertion order.
#[derive(Debug, Default)]
struct Cache {
    by_id: HashMap<Uuid, Arc<Committed>>,
    order: VecDeque<Uuid>,
}

impl CommittedSegments {
    /// The committed copy of `metadata`'s segment, from the cache or its
    /// manifest.
    ///
    /// # Errors
    /// [`RemoteStorageError::NotFound`] when the copy never committed (no
    /// manifest); [`RemoteStorageError::Integrity`] when the manifest is not
    /// a manifest of this segment signed by a trusted key; the store's
    /// errors.
    pub(super) fn get(
        &self,
        store: &StoreHandle,
        keys: &SegmentKeys,
        metadata: &RemoteLogSegmentMetadata,
        trusted: &TrustedManifestKeys,
    ) -> Result<Arc<Committed>> {
        let id = metadata.remote_log_segment_id().id;
        if let Some(committed) = self.lock().by_id.get(&id) {
            return Ok(Arc::clone(committed));
        }
        let key = keys.with_suffix(MANIFEST_SUFFIX).map_err(spi_error)?;
        let bytes = read_manifest(store, key.clone(), metadata)?;
        let committed = Arc::new(decode(&bytes, &key, id, trusted)?);
        let mut cache = self.lock();
        if cache.by_id.insert(id, Arc::clone(&committed)).is_none() {
            cache.order.push_back(id);
            while cache.order.len() > CAPACITY {
                if let Some(oldest) = cache.order.pop_front() {
                    cache.by_id.remove(&oldest);
                }
            }
        }
        Ok(committed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The manifest's bytes, at most [`MAX_MANIFEST_BYTES`] + 1 of them.
fn read_manifest(
    store: &StoreHandle,
    key: Path,
    metadata: &RemoteLogSegmentMetadata,
) -> Result<Vec<u8>> {
    let resource = format!(
        "manifest of segment {} (its copy never committed)",
        metadata.remote_log_segment_id()
    );
    let objects = Arc::clone(store.store());
    let read = async move {
        read_prefix(objects.as_ref(), &key, MAX_MANIFEST_BYTES as u64 + 1)
            .await
            .map(|bytes| bytes.to_vec())
            .map_err(|err| to_store_error(err, "read of", &resource))
    };
    store.runtime().block_on(read).map_err(spi_error)
}

/// The pinned objects of the manifest `bytes` read at `key`, after checking
/// it is segment `id`'s, signed by a trusted key.
fn decode(bytes: &[u8], key: &Path, id: Uuid, trusted: &TrustedManifestKeys) -> Result<Committed> {
    let integrity = |err: krabka_worm::WormError| RemoteStorageError::Integrity {
        what: "archive manifest",
        source: Box::new(err),
    };
    let manifest = SegmentManifest::from_bytes(bytes).map_err(integrity)?;
    let verified = verify_manifest_signature(&manifest, trusted).map_err(integrity)?;
    let body = verified.body();
    if body.segment.segment_id != id {
        return Err(RemoteStorageError::Corrupt {
            format: "WORM manifest",
            detail: format!(
                "{key} describes segment {} instead",
                body.segment.segment_id
            ),
        });
    }
    let objects = body
        .objects
        .iter()
        .map(|entry| {
            let key = Path::parse(&entry.key).map_err(|err| RemoteStorageError::Corrupt {
                format: "WORM manifest",
                detail: format!("{key} names the invalid object key `{}`: {err}", entry.key),
            })?;
            Ok((
                entry.suffix.clone(),
                ObjectAt::version(key, entry.version_id.clone()),
            ))
        })
        .collect::<Result<_>>()?;
    Ok(Committed { objects })
}
