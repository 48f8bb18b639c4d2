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
    super::{
        ChainHead, ChainStamp, EpochId, MANIFEST_SUFFIX, ManifestBody, ManifestSeq, ManifestSigner,
        ObjectEntry, SegmentIdentity, SegmentManifest, Sha256Digest, WormChainRecord,
        manifest_head,
    },
    crate::{
        CustomMetadata, IndexType, LOG_FILE_SUFFIX, LogSegmentData, RemoteLogSegmentMetadata,
        RemoteStorageError, Result,
        s3::{
            CancellationToken,
            errors::to_remote_error,
            keys::SegmentKeys,
            tuning::Tuning,
            upload::{blocking, cancellable, read_chunk, upload_multipart},
        },
    },
    bytes::Bytes,
    futures_util::TryStreamExt,
    object_store::{
        ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, PutResult, path::Path,
    },
    sha2::{Digest, Sha256},
    std::{
        collections::{BTreeMap, HashMap},
        fs::File,
        path::PathBuf,
        sync::{Arc, Mutex, PoisonError},
    },
    uuid::Uuid,
};

/// The directory, inside a partition directory, holding the chain seals.
pub const CHAIN_DIR: &str = "_chain";

/// The suffix of a chain seal object.
pub const SEAL_SUFFIX: &str = ".seal";

/// The key of the seal at `(epoch_id, seq)` in `partition_dir`.
#[must_use]
pub fn seal_key(partition_dir: &str, epoch_id: EpochId, seq: ManifestSeq) -> String {
    format!(
        "{partition_dir}/{CHAIN_DIR}/{epoch_id}/{:020}{SEAL_SUFFIX}",
        seq.0
    )
}

/// Parses the part of a seal key after `<partition>/_chain/`.
#[must_use]
pub fn parse_seal_name(name: &str) -> Option<(EpochId, ManifestSeq)> {
    let (epoch, file) = name.split_once('/')?;
    let seq = file.strip_suffix(SEAL_SUFFIX)?;
    if seq.len() != 20 || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let uuid = Uuid::try_parse(epoch).ok()?;
    if uuid.hyphenated().to_string() != epoch {
        return None;
    }
    Some((EpochId(uuid), ManifestSeq(seq.parse().ok()?)))
}

/// The first chain epoch of a partition, the same for every writer: a
/// version-8 UUID from the first 16 bytes of
/// `SHA-256("krabka-worm-genesis-epoch-v1" ‖ 00 ‖ topic id ‖ i32(partition))`.
#[must_use]
pub fn genesis_epoch(metadata: &RemoteLogSegmentMetadata) -> EpochId {
    let partition = metadata.topic_id_partition();
    let mut hasher = Sha256::new();
    hasher.update(b"krabka-worm-genesis-epoch-v1\0");
    hasher.update(partition.topic_id.as_bytes());
    hasher.update(partition.partition.to_be_bytes());
    let digest: [u8; 32] = hasher.finalize().into();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    EpochId(Uuid::from_bytes(bytes))
}

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

/// What to upload for one object.
enum Source {
    File(PathBuf),
    Bytes(Bytes),
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
        self.tuning.multipart_threshold = threshold.max(1);
        self.tuning.multipart_chunk_size = chunk_size.max(1);
        self
    }

    pub(crate) fn with_tuning(mut self, tuning: Tuning) -> Self {
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
        let mut sources = vec![
            (
                IndexType::Offset.suffix(),
                Source::File(segment.offset_index.clone()),
            ),
            (
                IndexType::Timestamp.suffix(),
                Source::File(segment.time_index.clone()),
            ),
        ];
        if let Some(path) = &segment.transaction_index {
            sources.push((IndexType::Transaction.suffix(), Source::File(path.clone())));
        }
        if let Some(path) = &segment.producer_snapshot_index {
            sources.push((
                IndexType::ProducerSnapshot.suffix(),
                Source::File(path.clone()),
            ));
        }
        sources.push((
            IndexType::LeaderEpoch.suffix(),
            Source::Bytes(segment.leader_epoch_index.clone()),
        ));
        sources.push((LOG_FILE_SUFFIX, Source::File(segment.log_segment.clone())));
        let mut objects = Vec::with_capacity(sources.len());
        for (suffix, source) in sources {
            let key = keys.with_suffix(suffix)?;
            objects.push(self.upload(suffix, &key, source, cancel).await?);
        }
        let dir = keys.partition_dir().to_owned();
        let stamp = self.tip(&dir, genesis_epoch(metadata)).await?;
        let body = ManifestBody::new(SegmentIdentity::from_metadata(metadata), objects, stamp);
        let manifest = self.signer.seal(body);
        let head = manifest_head(&manifest.body);
        let bytes = Bytes::from(manifest.to_bytes());
        let seal = seal_key(&dir, stamp.epoch_id, stamp.seq);
        let seal_path = Path::from(seal.as_str());
        let committed = cancellable(cancel, &seal_path, async {
            self.store
                .put_opts(
                    &seal_path,
                    PutPayload::from(bytes.clone()),
                    PutOptions::from(PutMode::Create),
                )
                .await
                .map_err(|err| match err {
                    object_store::Error::AlreadyExists { .. } => RemoteStorageError::Retryable {
                        message: format!(
                            "chain position {} of epoch {} in {dir} was taken by another writer; a retry continues the chain",
                            stamp.seq, stamp.epoch_id
                        ),
                        source: None,
                    },
                    other => to_remote_error(other, "create-only write of chain seal", &seal),
                })
        })
        .await;
        let committed = self.record_outcome(&dir, &stamp, head, committed)?;
        let manifest_path = keys.with_suffix(MANIFEST_SUFFIX)?;
        self.store
            .put_opts(
                &manifest_path,
                PutPayload::from(bytes),
                PutOptions::from(PutMode::Create),
            )
            .await
            .map_err(|err| {
                create_error(err, "create-only write of manifest", manifest_path.as_ref())
            })?;
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
        source: Source,
        cancel: &CancellationToken,
    ) -> Result<ObjectEntry> {
        let (bytes, file) = match source {
            Source::Bytes(bytes) => (Some(bytes), None),
            Source::File(path) => {
                let (file, len) = blocking(path.clone(), |path| {
                    let file =
                        File::open(&path).map_err(|e| RemoteStorageError::io("open", &path, e))?;
                    let len = file
                        .metadata()
                        .map_err(|e| RemoteStorageError::io("stat", &path, e))?
                        .len();
                    Ok((file, len))
                })
                .await?;
                if len < self.tuning.multipart_threshold {
                    let max = usize::try_from(len).unwrap_or(usize::MAX);
                    (Some(read_chunk(file, path, max).await?.1), None)
                } else {
                    (None, Some((file, path, len)))
                }
            }
        };
        if let Some(bytes) = bytes {
            let sha256 = Sha256Digest(Sha256::digest(&bytes).into());
            let size = bytes.len() as u64;
            let result = self.create(key, bytes, cancel).await?;
            return Ok(entry(suffix, key, size, sha256, result, true));
        }
        let Some((file, path, len)) = file else {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "nothing to upload for {key}"
            )));
        };
        // Reserve the key: only one writer can ever create it.
        self.create(key, Bytes::new(), cancel).await?;
        let mut hasher = Sha256::new();
        let result = upload_multipart(
            &*self.store,
            key,
            file,
            path,
            len,
            self.tuning,
            cancel,
            Some(&mut hasher),
        )
        .await?;
        if result.version.is_none() {
            return Err(RemoteStorageError::Refused(format!(
                "the multipart upload of {key} came back without a version id: the bucket is not versioned, so the reserved key cannot be pinned"
            )));
        }
        let sha256 = Sha256Digest(hasher.finalize().into());
        Ok(entry(suffix, key, len, sha256, result, false))
    }

    async fn create(
        &self,
        key: &Path,
        bytes: Bytes,
        cancel: &CancellationToken,
    ) -> Result<PutResult> {
        cancellable(cancel, key, async {
            self.store
                .put_opts(
                    key,
                    PutPayload::from(bytes),
                    PutOptions::from(PutMode::Create),
                )
                .await
                .map_err(|err| create_error(err, "create-only write of", key.as_ref()))
        })
        .await
    }
}

fn entry(
    suffix: &str,
    key: &Path,
    size_bytes: u64,
    sha256: Sha256Digest,
    result: PutResult,
    create_precondition: bool,
) -> ObjectEntry {
    ObjectEntry {
        suffix: suffix.to_owned(),
        key: key.to_string(),
        size_bytes,
        sha256,
        e_tag: result.e_tag,
        version_id: result.version,
        create_precondition,
    }
}

fn create_error(err: object_store::Error, operation: &str, key: &str) -> RemoteStorageError {
    match err {
        object_store::Error::AlreadyExists { .. } => RemoteStorageError::AlreadyExists {
            resource: format!("archived object {key}"),
        },
        other => to_remote_error(other, operation, key),
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
        .map_err(|e| to_remote_error(e, "listing of", &chain_dir))?;
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
            .map_err(|e| to_remote_error(e, "read of chain seal", &key))?
            .bytes()
            .await
            .map_err(|e| to_remote_error(e, "read of chain seal", &key))?;
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
