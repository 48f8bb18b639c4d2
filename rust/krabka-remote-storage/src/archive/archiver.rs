//! [`WormArchiver`]: the write path of the archive mode.
//!
//! One copy, in order:
//!
//! 1. the **position**: the partition's next chain position, cached or
//!    derived from the bucket ([`derive_tip`](super::tip::derive_tip):
//!    only seals signed by a trusted key count, foreign objects are routed
//!    around, and the seal it extends gets its manifest finished first). A
//!    cached position is used only while it is still free (one HEAD) and
//!    no newer leader epoch has appeared, so a stale tip after a leadership
//!    bounce uploads nothing;
//! 2. every object is uploaded create-only and hashed in the same pass: a
//!    single-PUT object with `PutMode::Create`; a multipart object, on S3,
//!    first reserves its key with an empty create-only write, then is
//!    uploaded as a new version whose version id the manifest pins; on a GCS
//!    Bucket Lock bucket (no versioning) it is uploaded in parts directly,
//!    the bucket's retention refusing to replace an existing object, and its
//!    generation is pinned (the store layer's `Tuning::create_only_parts`);
//! 3. the **seal** — the signed manifest's bytes under
//!    `<partition>/_chain/<epoch id>/<seq:020>.seal` — is written
//!    create-only. It is the commit point and the fence: of two writers that
//!    take the same position only one can create the seal; the other fails
//!    with [`RemoteStorageError::Retryable`], forgets its cached tip, and its
//!    retry continues the chain after the winner;
//! 4. the **manifest** (the same bytes) is written create-only beside the
//!    segment (`….manifest`), finishing the commit. This write is never
//!    cancelled and is retried; a create-only write that finds identical
//!    bytes already there succeeds. If it still fails, the copy reports
//!    [`RemoteStorageError::Retryable`] and the next copy of the partition
//!    finishes it (step 1) before it extends the chain.
//!
//! A crash before step 3 leaves only unreferenced objects, never a manifest
//! naming missing ones; a crash between steps 3 and 4 leaves a committed
//! but unfinished copy that the next copy repairs and the verifier does not
//! mistake for tampering.

use {
    super::{log::ArchiveLog, tip::derive_tip},
    crate::{
        metrics::ArchiveMetrics,
        segment_keys::SegmentKeys,
        store_bridge::{spi_error, store_token},
    },
    bytes::Bytes,
    krabka_envelope::{ChunkReport, ENVELOPE_SUFFIX, ObjectKind, SegmentCodec, SegmentSealer},
    krabka_kafka::{
        CancellationToken, CustomMetadata, IndexType, LOG_FILE_SUFFIX, LogSegmentData,
        RemoteLogSegmentMetadata, RemoteStorageError, Result,
    },
    krabka_object_store::{
        StoreError, StoreErrorClass,
        store::{
            Tuning,
            errors::to_store_error,
            fetch::read_prefix,
            upload::{UploadSource, Uploaded, WriteMode, create_only_put, upload},
        },
    },
    krabka_worm::{
        ChainHead, ChainStamp, MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, ManifestBody, ManifestSigner,
        ObjectEntry, SegmentIdentity, SegmentManifest, Sha256Digest, TrustedManifestKeys,
        WormChainRecord, genesis_epoch, manifest_head, seal_key,
    },
    object_store::{ObjectStore, ObjectStoreExt, PutResult, path::Path},
    std::{
        collections::HashMap,
        sync::{Arc, Mutex, PoisonError},
        time::Duration,
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
    /// Whose seals the chain may build on: the signer's key and any key
    /// configured as trusted (brokers with different keys share a chain).
    trusted: TrustedManifestKeys,
    tuning: Tuning,
    /// Next chain position per partition directory.
    tips: Mutex<HashMap<String, CachedTip>>,
    /// Seals, fence losses and manifests, counted.
    metrics: Arc<ArchiveMetrics>,
    /// The archive log every seal gets a leaf in, when kept.
    log: Option<Arc<ArchiveLog>>,
    /// How copies are stored: Kafka's bytes, or the chunked format
    /// (compressed and/or encrypted, with its envelope as one more
    /// archived object).
    codec: SegmentCodec,
}

/// A cached next chain position.
#[derive(Debug, Clone, Copy)]
struct CachedTip {
    next: ChainStamp,
    /// The highest leader epoch of the copies that used it: a copy from a
    /// newer leader epoch means leadership moved, and another broker may
    /// have extended the chain meanwhile.
    leader_epoch: i32,
}

/// Attempts of the create-only manifest write that finishes a commit.
const FINISH_ATTEMPTS: u32 = 4;

impl WormArchiver {
    /// An archiver writing through `store` under `prefix` (already
    /// trimmed, as [`S3RemoteStorage::prefix`](crate::S3RemoteStorage::prefix)),
    /// signing with `signer` and trusting only its own seals.
    #[must_use]
    pub fn new(
        store: Arc<dyn ObjectStore>,
        prefix: Option<String>,
        signer: ManifestSigner,
    ) -> Self {
        let mut trusted = TrustedManifestKeys::new();
        trusted
            .insert(signer.key_id(), &signer.public_key())
            .expect("a signer's own key id and public key are valid");
        Self {
            store,
            prefix,
            signer,
            trusted,
            tuning: Tuning::default(),
            tips: Mutex::new(HashMap::new()),
            metrics: Arc::default(),
            log: None,
            codec: SegmentCodec::default(),
        }
    }

    /// The same archiver storing copies as `codec` says: in the chunked
    /// format, every object is archived as its stored (encoded) bytes and
    /// the segment's envelope is one more object of the manifest, so the
    /// manifest's digests, and all the verifier checks with them, are of
    /// the bytes in the bucket and need no key.
    #[must_use]
    pub fn with_codec(mut self, codec: SegmentCodec) -> Self {
        self.set_codec(codec);
        self
    }

    /// Stores copies from now on as `codec` says.
    pub(crate) fn set_codec(&mut self, codec: SegmentCodec) {
        self.codec = codec;
    }

    /// How copies are stored.
    #[must_use]
    pub fn codec(&self) -> &SegmentCodec {
        &self.codec
    }

    /// The same archiver giving every seal a leaf in `log`.
    #[must_use]
    pub fn with_log(mut self, log: Arc<ArchiveLog>) -> Self {
        self.set_log(log);
        self
    }

    /// Gives every seal from now on a leaf in `log`.
    pub(crate) fn set_log(&mut self, log: Arc<ArchiveLog>) {
        self.log = Some(log);
    }

    /// The archive log, when kept.
    #[must_use]
    pub fn log(&self) -> Option<&Arc<ArchiveLog>> {
        self.log.as_ref()
    }

    /// The signer of manifests (and of the log's checkpoints).
    #[must_use]
    pub fn signer(&self) -> &ManifestSigner {
        &self.signer
    }

    /// What this archiver committed: seals written, fence losses,
    /// manifests finished.
    #[must_use]
    pub fn metrics(&self) -> &Arc<ArchiveMetrics> {
        &self.metrics
    }

    /// The same archiver also building on seals signed by the keys of
    /// `others` (other brokers writing the same chains with their own keys).
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] when `others` holds the signer's key
    /// id with another public key.
    pub fn with_trusted_keys(mut self, others: &TrustedManifestKeys) -> Result<Self> {
        for key_id in others.key_ids() {
            let Some(public_key) = others.public_key(key_id) else {
                continue;
            };
            if self.trusted.public_key(key_id) == Some(public_key) {
                continue;
            }
            self.trusted
                .insert(key_id, &public_key)
                .map_err(|err| RemoteStorageError::Config {
                    what: "archive trusted keys",
                    source: Box::new(err),
                })?;
        }
        Ok(self)
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

    /// The keys whose seals the chain builds on.
    #[must_use]
    pub fn trusted(&self) -> &TrustedManifestKeys {
        &self.trusted
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
    /// took the chain position first (retrying continues the chain) or when
    /// the copy committed but its manifest could not be written (the next
    /// copy finishes it); [`RemoteStorageError::Refused`] when a multipart
    /// object comes back without a version id (the bucket is not
    /// versioned); [`RemoteStorageError::Corrupt`] when the partition's
    /// chain is forked; the store's errors.
    pub async fn archive(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<SealedManifest> {
        let keys = SegmentKeys::new(self.prefix.as_deref(), metadata);
        let dir = keys.partition_dir().to_owned();
        let cancel = store_token(cancel);
        let stamp = self.position(&dir, metadata).await?;
        let mut objects = Vec::new();
        let sealer = match self.codec.writes_plain() {
            true => None,
            false => Some(
                SegmentSealer::new(&self.codec, metadata.remote_log_segment_id().id)
                    .map_err(crate::chunked::envelope_error)?,
            ),
        };
        let mut reports = Vec::new();
        for (suffix, source) in sources_of(segment) {
            let key = keys.with_suffix(suffix).map_err(spi_error)?;
            let source = match &sealer {
                None => source,
                Some(sealer) => {
                    let (source, kind, report) = encoded(sealer, suffix, source)?;
                    reports.push((kind, report));
                    source
                }
            };
            objects.push(self.upload(suffix, &key, source, &cancel).await?);
        }
        if let Some(sealer) = &sealer {
            let mut chunks = Vec::with_capacity(reports.len());
            for (kind, report) in reports {
                let object = report
                    .take(kind, sealer.segment())
                    .map_err(crate::chunked::envelope_error)?;
                chunks.push(object);
            }
            let envelope = Bytes::from(sealer.envelope(chunks).encode());
            let suffix = ENVELOPE_SUFFIX;
            let key = keys.with_suffix(suffix).map_err(spi_error)?;
            objects.push(
                self.upload(suffix, &key, UploadSource::Bytes(envelope), &cancel)
                    .await?,
            );
        }
        let body = ManifestBody::new(SegmentIdentity::from_metadata(metadata), objects, stamp);
        let manifest = self.signer.seal(body);
        let head = manifest_head(&manifest.body);
        let bytes = Bytes::from(manifest.to_bytes());
        let seal = seal_key(&dir, stamp.epoch_id, stamp.seq);
        let committed = create_only_put(&*self.store, &Path::from(seal.as_str()), bytes.clone(), &cancel)
            .await
            .map_err(|err| match err {
                StoreError::AlreadyExists { source, .. } => {
                    self.metrics.fence_lost();
                    RemoteStorageError::Retryable {
                    message: format!(
                        "chain position {} of epoch {} in {dir} was taken by another writer; a retry continues the chain",
                        stamp.seq, stamp.epoch_id
                    ),
                    source,
                }
                }
                other => spi_error(other),
            });
        let committed =
            self.record_outcome(&dir, &stamp, head, leader_epoch(metadata), committed)?;
        self.metrics.seal_written();
        let manifest_path = keys.with_suffix(MANIFEST_SUFFIX).map_err(spi_error)?;
        let (finished, logged) = tokio::join!(
            self.finish_commit(manifest_path.as_ref(), bytes.clone()),
            self.log_seal(&seal, &bytes)
        );
        if let Err(err) = logged {
            self.forget_tip(&dir);
            return Err(RemoteStorageError::Retryable {
                message: format!(
                    "segment {} committed at {seal}, but its leaf in the archive log could not be claimed; the next copy of this partition logs it",
                    metadata.remote_log_segment_id()
                ),
                source: Some(Box::new(err)),
            });
        }
        if let Err(err) = finished {
            self.forget_tip(&dir);
            return Err(RemoteStorageError::Retryable {
                message: format!(
                    "segment {} committed at {seal}, but its manifest could not be written; the next copy of this partition finishes it",
                    metadata.remote_log_segment_id()
                ),
                source: Some(Box::new(err)),
            });
        }
        Ok(SealedManifest {
            manifest,
            head,
            manifest_key: manifest_path.to_string(),
            seal_key: seal,
            seal_version: committed.version,
        })
    }

    /// The chain position this copy takes: the cached one while it is
    /// still free and no newer leader epoch appeared, else derived from the
    /// bucket (finishing the commit of the seal it extends).
    async fn position(&self, dir: &str, metadata: &RemoteLogSegmentMetadata) -> Result<ChainStamp> {
        let leader_epoch = leader_epoch(metadata);
        let cached = self
            .tips
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(dir)
            .copied();
        if let Some(cached) = cached.filter(|c| c.leader_epoch >= leader_epoch) {
            if self.is_free(dir, &cached.next).await? {
                return Ok(cached.next);
            }
            tracing::info!(
                dir,
                seq = cached.next.seq.0,
                "the cached chain position was taken; deriving the tip from the bucket"
            );
        }
        let derived = derive_tip(&*self.store, dir, genesis_epoch(metadata), &self.trusted).await?;
        for foreign in &derived.foreign {
            tracing::warn!(
                key = %foreign.key,
                reason = %foreign.reason,
                "foreign object at a chain position: not a seal of this archive's writers; the chain routes around it"
            );
        }
        if let Some(tip) = &derived.extends {
            self.finish_commit(&tip.manifest_key, Bytes::from(tip.bytes.clone()))
                .await
                .map_err(|err| RemoteStorageError::Retryable {
                    message: format!(
                        "the manifest of {} (a committed copy) could not be finished; the chain is extended only after it is",
                        tip.seal_key
                    ),
                    source: Some(Box::new(err)),
                })?;
            if let Some(log) = &self.log {
                log.ensure_logged(&tip.seal_key, &tip.bytes).await?;
            }
        }
        self.tips
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                dir.to_owned(),
                CachedTip {
                    next: derived.next,
                    leader_epoch,
                },
            );
        Ok(derived.next)
    }

    /// Claims the seal's leaf in the archive log, when one is kept.
    async fn log_seal(&self, seal: &str, bytes: &[u8]) -> Result<()> {
        match &self.log {
            Some(log) => log.append(seal, bytes).await.map(|_| ()),
            None => Ok(()),
        }
    }

    /// Whether no object holds the seal position `stamp` of `dir`.
    async fn is_free(&self, dir: &str, stamp: &ChainStamp) -> Result<bool> {
        let key = seal_key(dir, stamp.epoch_id, stamp.seq);
        match self.store.head(&Path::from(key.as_str())).await {
            Ok(_) => Ok(false),
            Err(object_store::Error::NotFound { .. }) => Ok(true),
            Err(err) => Err(spi_error(to_store_error(
                err,
                "check of chain position",
                &key,
            ))),
        }
    }

    /// Writes the manifest that finishes a commit: create-only, never
    /// cancelled (the seal is in), retried on transient failures; identical
    /// bytes already there are success.
    async fn finish_commit(&self, key: &str, bytes: Bytes) -> std::result::Result<(), StoreError> {
        let path = Path::from(key);
        let never = tokio_util::sync::CancellationToken::new();
        let mut attempt = 0;
        loop {
            attempt += 1;
            match create_only_put(&*self.store, &path, bytes.clone(), &never).await {
                Ok(_) => {
                    self.metrics.manifest_written();
                    return Ok(());
                }
                Err(StoreError::AlreadyExists { .. }) => {
                    return self.check_existing_manifest(&path, &bytes).await;
                }
                Err(err)
                    if attempt < FINISH_ATTEMPTS && err.class() == StoreErrorClass::Retryable =>
                {
                    tracing::warn!(key, attempt, error = %err, "manifest write failed; retrying");
                    tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// A manifest key already holds an object: identical bytes finished the
    /// commit before; other bytes are left for the verifier to report.
    async fn check_existing_manifest(
        &self,
        path: &Path,
        bytes: &Bytes,
    ) -> std::result::Result<(), StoreError> {
        let existing = read_prefix(self.store.as_ref(), path, MAX_MANIFEST_BYTES as u64 + 1)
            .await
            .map_err(|err| to_store_error(err, "read of", path.as_ref()))?;
        if existing != *bytes {
            tracing::warn!(key = %path, "another object sits where this manifest belongs; the seal commits the copy and the verifier reports the mismatch");
        }
        Ok(())
    }

    /// Caches the next position after a commit, forgets it after a failure.
    fn record_outcome(
        &self,
        dir: &str,
        stamp: &ChainStamp,
        head: ChainHead,
        leader_epoch: i32,
        committed: Result<PutResult>,
    ) -> Result<PutResult> {
        let mut tips = self.tips.lock().unwrap_or_else(PoisonError::into_inner);
        match (&committed, stamp.next(head)) {
            (Ok(_), Some(next)) => {
                tips.insert(dir.to_owned(), CachedTip { next, leader_epoch });
            }
            _ => {
                tips.remove(dir);
            }
        }
        committed
    }

    fn forget_tip(&self, dir: &str) {
        self.tips
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(dir);
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

/// The highest leader epoch of the segment (`-1` without any).
fn leader_epoch(metadata: &RemoteLogSegmentMetadata) -> i32 {
    metadata
        .segment_leader_epochs()
        .keys()
        .next_back()
        .map_or(-1, |epoch| epoch.0)
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

/// `source` of the object with `suffix` through an encoder of `sealer`:
/// the stream to upload, its kind, and the report of its chunks.
fn encoded(
    sealer: &SegmentSealer,
    suffix: &str,
    source: UploadSource,
) -> Result<(UploadSource, ObjectKind, ChunkReport)> {
    let kind = ObjectKind::of_suffix(suffix).ok_or_else(|| {
        RemoteStorageError::InvalidArgument(format!("no object kind has suffix {suffix}"))
    })?;
    let name = format!("{suffix} of segment {} (encoded)", sealer.segment());
    let stream = match source {
        UploadSource::File(path) => {
            let file = std::fs::File::open(&path)
                .map_err(|err| RemoteStorageError::io("open", &path, err))?;
            crate::chunked::encoded_stream(sealer, kind, name, file)
        }
        UploadSource::Bytes(bytes) => {
            crate::chunked::encoded_stream(sealer, kind, name, std::io::Cursor::new(bytes))
        }
        UploadSource::Stream(_) => {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "the {suffix} of a copy is already a stream"
            )));
        }
    };
    Ok((UploadSource::Stream(stream.0), kind, stream.1))
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
