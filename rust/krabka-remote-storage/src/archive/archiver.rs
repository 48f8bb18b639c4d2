//! [`WormArchiver`]: the write path of the archive mode.
//!
//! One copy, in order:
//!
//! 1. every object is uploaded create-only and hashed in the same pass: a
//!    single-PUT object with `PutMode::Create`; a multipart object first
//!    reserves its key with an empty create-only write, then is uploaded as
//!    a new version whose version id the manifest pins;
//! 2. the manifest is sealed at the partition's chain tip, derived from the
//!    bucket (the `_chain/` seals) and cached per partition;
//! 3. the **seal** — the manifest's bytes under
//!    `<partition>/_chain/<epoch id>/<seq:020>.seal` — is written
//!    create-only. It is the commit point and the fence: of two writers that
//!    take the same position only one can create the seal; the other fails
//!    with [`RemoteStorageError::Retryable`], forgets its cached tip, and its
//!    retry continues the chain after the winner;
//! 4. the manifest is written create-only beside the segment
//!    (`….manifest`).
//!
//! A crash before step 3 leaves only unreferenced objects, never a manifest
//! naming missing ones.

use {
    crate::{
        segment_keys::SegmentKeys,
        store_bridge::{spi_error, store_token},
    },
    bytes::Bytes,
    futures_util::TryStreamExt,
    krabka_kafka::{
        CancellationToken, CustomMetadata, IndexType, LOG_FILE_SUFFIX, LogSegmentData,
        RemoteLogSegmentMetadata, RemoteStorageError, Result,
    },
    krabka_object_store::{
        StoreError,
        store::{
            Tuning,
            errors::to_store_error,
            upload::{UploadSource, Uploaded, WriteMode, create_only_put, upload},
        },
    },
    krabka_worm::{
        CHAIN_DIR, ChainHead, ChainStamp, EpochId, MANIFEST_SUFFIX, ManifestBody, ManifestSeq,
        ManifestSigner, ObjectEntry, SegmentIdentity, SegmentManifest, Sha256Digest,
        WormChainRecord, genesis_epoch, manifest_head, parse_seal_name, seal_key,
    },
    object_store::{ObjectStore, ObjectStoreExt, PutResult, path::Path},
    std::{
        collections::{BTreeMap, HashMap},
        sync::{Arc, Mutex, PoisonError},
    },
};

/// A committed segment copy: the signed manifest, its chain head and where
/// it is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedManifest {
    /// The signed manifest.
    pub manifest: SegmentManifest,
    /// Its chain head.
    pub head: ChainHead,
    /// The key of the manifest object beside the segment.
    pub manifest_key: String,
    /// The key of the chain seal (the commit point).
    pub seal_key: String,
    /// The version id the store gave the seal, if any.
    pub seal_version: Option<String>,
}

impl SealedManifest {
    /// The compact chain receipt (at most [`WormChainRecord::MAX_BYTES`]).
    #[must_use]
    pub fn chain_record(&self) -> WormChainRecord {
        let record = WormChainRecord::receipt(&self.manifest.body.chain, self.head);
        match &self.seal_version {
            Some(version) => record.with_manifest_version(version),
            None => record,
        }
    }

    /// The chain receipt as Kafka custom metadata.
    #[must_use]
    pub fn custom_metadata(&self) -> CustomMetadata {
        self.chain_record().to_custom_metadata()
    }
}

/// Writes segment copies as sealed, chained, create-only archive entries.
#[derive(Debug)]
pub struct WormArchiver {
    store: Arc<dyn ObjectStore>,
    prefix: Option<String>,
    signer: ManifestSigner,
    tuning: Tuning,
    /// Next chain position per partition directory.
    tips: Mutex<HashMap<String, ChainStamp>>,
}

impl WormArchiver {
    /// An archiver writing through `store` under `prefix` (already
    /// trimmed, as [`S3RemoteStorage::prefix`](crate::S3RemoteStorage::prefix)),
    /// signing with `signer`.
    #[must_use]
    pub fn new(
        store: Arc<dyn ObjectStore>,
        prefix: Option<String>,
        signer: ManifestSigner,
    ) -> Self {
        Self {
            store,
            prefix,
            signer,
            tuning: Tuning::default(),
            tips: Mutex::new(HashMap::new()),
        }
    }

    /// Multipart threshold and part size (as
    /// [`S3RemoteStorage::with_multipart_tuning`](crate::S3RemoteStorage::with_multipart_tuning)).
    #[must_use]
    pub fn with_multipart_tuning(mut self, threshold: u64, chunk_size: usize) -> Self {
        self.tuning = self.tuning.with_multipart(threshold, chunk_size);
        self
    }

    /// The same archiver with the store layer's transfer `tuning`.
    #[must_use]
    pub fn with_tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// The signer's key id.
    #[must_use]
    pub fn key_id(&self) -> &str {
        self.signer.key_id()
    }

    /// Forgets every cached chain tip (after a leadership change): the next
    /// copy of each partition re-derives its tip from the bucket.
    pub fn forget_tips(&self) {
        self.tips
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Archives one segment copy and commits it to its partition's chain.
    ///
    /// # Errors
    /// [`RemoteStorageError::AlreadyExists`] when an object key of this copy
    /// exists already; [`RemoteStorageError::Retryable`] when another writer
    /// took the chain position first (retrying continues the chain);
    /// [`RemoteStorageError::Refused`] when a multipart object comes back
    /// without a version id (the bucket is not versioned); the store's
    /// errors otherwise.
    pub async fn archive(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<SealedManifest> {
        let keys = SegmentKeys::new(self.prefix.as_deref(), metadata);
        let cancel = store_token(cancel);
        let mut objects = Vec::new();
        for (suffix, source) in sources_of(segment) {
            let key = keys.with_suffix(suffix).map_err(spi_error)?;
            objects.push(self.upload(suffix, &key, source, &cancel).await?);
        }
        let dir = keys.partition_dir().to_owned();
        let stamp = self.tip(&dir, genesis_epoch(metadata)).await?;
        let body = ManifestBody::new(SegmentIdentity::from_metadata(metadata), objects, stamp);
        let manifest = self.signer.seal(body);
        let head = manifest_head(&manifest.body);
        let bytes = Bytes::from(manifest.to_bytes());
        let seal = seal_key(&dir, stamp.epoch_id, stamp.seq);
        let committed = create_only_put(&*self.store, &Path::from(seal.as_str()), bytes.clone(), &cancel)
            .await
            .map_err(|err| match err {
                StoreError::AlreadyExists { source, .. } => RemoteStorageError::Retryable {
                    message: format!(
                        "chain position {} of epoch {} in {dir} was taken by another writer; a retry continues the chain",
                        stamp.seq, stamp.epoch_id
                    ),
                    source,
                },
                other => spi_error(other),
            });
        let committed = self.record_outcome(&dir, &stamp, head, committed)?;
        let manifest_path = keys.with_suffix(MANIFEST_SUFFIX).map_err(spi_error)?;
        create_only_put(&*self.store, &manifest_path, bytes, &cancel)
            .await
            .map_err(archived_object_error)?;
        Ok(SealedManifest {
            manifest,
            head,
            manifest_key: manifest_path.to_string(),
            seal_key: seal,
            seal_version: committed.version,
        })
    }

    /// Caches the next position after a commit, forgets it after a failure.
    fn record_outcome(
        &self,
        dir: &str,
        stamp: &ChainStamp,
        head: ChainHead,
        committed: Result<PutResult>,
    ) -> Result<PutResult> {
        let mut tips = self.tips.lock().unwrap_or_else(PoisonError::into_inner);
        match (&committed, stamp.next(head)) {
            (Ok(_), Some(next)) => {
                tips.insert(dir.to_owned(), next);
            }
            _ => {
                tips.remove(dir);
            }
        }
        committed
    }

    /// The next chain position of `dir`: cached, or derived from the seals
    /// in the bucket.
    async fn tip(&self, dir: &str, genesis: EpochId) -> Result<ChainStamp> {
        if let Some(stamp) = self
            .tips
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(dir)
        {
            return Ok(*stamp);
        }
        let stamp = derive_tip(&*self.store, dir, genesis).await?;
        self.tips
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dir.to_owned(), stamp);
        Ok(stamp)
    }

    async fn upload(
        &self,
        suffix: &str,
        key: &Path,
        source: UploadSource,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<ObjectEntry> {
        let uploaded = upload(
            &*self.store,
            key,
            source,
            self.tuning,
            WriteMode::CreateOnly,
            true,
            cancel,
        )
        .await
        .map_err(archived_object_error)?;
        Ok(entry(suffix, key, uploaded))
    }
}

/// The objects of one segment copy, in upload order: the indexes, then the
/// log last.
fn sources_of(segment: &LogSegmentData) -> Vec<(&'static str, UploadSource)> {
    let mut sources = vec![
        (
            IndexType::Offset.suffix(),
            UploadSource::File(segment.offset_index.clone()),
        ),
        (
            IndexType::Timestamp.suffix(),
            UploadSource::File(segment.time_index.clone()),
        ),
    ];
    if let Some(path) = &segment.transaction_index {
        sources.push((
            IndexType::Transaction.suffix(),
            UploadSource::File(path.clone()),
        ));
    }
    if let Some(path) = &segment.producer_snapshot_index {
        sources.push((
            IndexType::ProducerSnapshot.suffix(),
            UploadSource::File(path.clone()),
        ));
    }
    sources.push((
        IndexType::LeaderEpoch.suffix(),
        UploadSource::Bytes(segment.leader_epoch_index.clone()),
    ));
    sources.push((
        LOG_FILE_SUFFIX,
        UploadSource::File(segment.log_segment.clone()),
    ));
    sources
}

fn entry(suffix: &str, key: &Path, uploaded: Uploaded) -> ObjectEntry {
    ObjectEntry {
        suffix: suffix.to_owned(),
        key: key.to_string(),
        size_bytes: uploaded.size,
        sha256: Sha256Digest(uploaded.sha256.unwrap_or_default()),
        e_tag: uploaded.result.e_tag,
        version_id: uploaded.result.version,
        create_precondition: uploaded.single_put,
    }
}

/// A failed create-only write of an archived object: an existing key says
/// which object, everything else is the store's error.
fn archived_object_error(err: StoreError) -> RemoteStorageError {
    match err {
        StoreError::AlreadyExists { resource, .. } => RemoteStorageError::AlreadyExists {
            resource: format!("archived object {resource}"),
        },
        other => spi_error(other),
    }
}

/// Derives the next chain position of `dir` from its seals: the newest seal
/// of each epoch is read, and the one with the greatest
/// `(segment start offset, seq)` gives the tip; without seals the chain
/// starts at seq 0 of `genesis` (the partition's [`genesis_epoch`], so two
/// writers starting an empty partition contend for the same first seal).
///
/// # Errors
/// [`RemoteStorageError::Corrupt`] when the newest seal does not decode or
/// does not match its key (the writer stops rather than fork the chain);
/// the store's errors.
pub async fn derive_tip(
    store: &dyn ObjectStore,
    dir: &str,
    genesis: EpochId,
) -> Result<ChainStamp> {
    let chain_dir = format!("{dir}/{CHAIN_DIR}/");
    let listed: Vec<_> = store
        .list(Some(&Path::from(format!("{dir}/{CHAIN_DIR}"))))
        .try_collect()
        .await
        .map_err(|e| spi_error(to_store_error(e, "listing of", &chain_dir)))?;
    let mut newest: BTreeMap<EpochId, ManifestSeq> = BTreeMap::new();
    for meta in &listed {
        let Some((epoch, seq)) = meta
            .location
            .as_ref()
            .strip_prefix(&chain_dir)
            .and_then(parse_seal_name)
        else {
            continue;
        };
        let slot = newest.entry(epoch).or_insert(seq);
        *slot = (*slot).max(seq);
    }
    let mut best: Option<((i64, ManifestSeq), ChainStamp)> = None;
    for (epoch, seq) in newest {
        let key = seal_key(dir, epoch, seq);
        let bytes = store
            .get(&Path::from(key.as_str()))
            .await
            .map_err(|e| spi_error(to_store_error(e, "read of chain seal", &key)))?
            .bytes()
            .await
            .map_err(|e| spi_error(to_store_error(e, "read of chain seal", &key)))?;
        let manifest = SegmentManifest::from_bytes(&bytes)?;
        let chain = manifest.body.chain;
        if chain.epoch_id != epoch || chain.seq != seq {
            return Err(RemoteStorageError::Corrupt {
                format: "WORM manifest",
                detail: format!(
                    "chain seal {key} records epoch {} seq {}",
                    chain.epoch_id, chain.seq
                ),
            });
        }
        let head = manifest_head(&manifest.body);
        let Some(next) = chain.next(head) else {
            continue;
        };
        let rank = (manifest.body.segment.start_offset, seq);
        if best.as_ref().is_none_or(|(best, _)| rank > *best) {
            best = Some((rank, next));
        }
    }
    Ok(best.map_or_else(|| ChainStamp::genesis(genesis), |(_, stamp)| stamp))
}
