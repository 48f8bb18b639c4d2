//! [`WormRemoteStorage`]: the write-once archive as a remote tier of its
//! own, over the store layer.
//!
//! The whole contract is on [`WormRemoteStorage`].

mod archiver;
mod committed;
mod config;
pub mod log;
mod tip;

use {
    crate::{
        chunked::{ChunkedFormat, ENVELOPE_SUFFIX, SegmentFormat},
        object_reads,
        segment_keys::SegmentKeys,
        store_bridge::spi_error,
    },
    committed::{Committed, CommittedSegments},
    futures_util::TryStreamExt,
    krabka_envelope::SegmentCodec,
    krabka_kafka::{
        CancellationToken, CustomMetadata, DeleteOutcome, IndexType, LOG_FILE_SUFFIX,
        LogSegmentData, RemoteLogSegmentMetadata, RemoteStorageError, RemoteStorageManager, Result,
        SegmentReader,
    },
    krabka_object_store::{
        CREATE_ONLY_PROBE_DIR, prove_write_once,
        store::{StoreHandle, errors::to_store_error, fetch::ObjectAt},
    },
    krabka_worm::ManifestSigner,
    std::sync::Arc,
};
pub use {
    archiver::{SealedManifest, WormArchiver},
    config::WormConfig,
    tip::{DerivedTip, ForeignObject, TipSeal, derive_tip},
};

/// A write-once archive tier: every copy is create-only and sealed onto a
/// signed per-partition hash chain, deletes are retained, and (optionally)
/// fetches are refused.
///
/// # Contract
///
/// On top of [`RemoteStorageManager`]'s contract:
///
/// - **Start-up proves the bucket write-once** ([`WormRemoteStorage::open`]):
///   on S3, versioning `Enabled` and Object Lock with a COMPLIANCE default
///   retention; on GCS, a locked retention policy (Bucket Lock) and no
///   versioning, which Google does not allow beside one, and an overwrite of
///   the probe object that the bucket refuses; on both, a
///   second create-only write of a fresh probe key must be refused. Anything
///   else is [`RemoteStorageError::Refused`], before any segment is written.
/// - **Copies are create-only** and sealed onto the partition's signed hash
///   chain ([`WormArchiver`]); a copy returns its chain receipt
///   ([`WormChainRecord`](krabka_worm::WormChainRecord), at most 128 bytes)
///   as custom metadata. A key that exists already is
///   [`RemoteStorageError::AlreadyExists`]: nothing is ever overwritten.
/// - **Deletes are refused without a request**: the answer is
///   [`DeleteOutcome::RetainedByArchive`], so Kafka's retention moves on
///   while the bucket's retention keeps the bytes.
/// - **Fetches serve committed copies only**: a segment whose manifest (the
///   last object a copy writes, after its seal) is absent is
///   [`RemoteStorageError::NotFound`], whatever a failed or cancelled copy
///   left under its keys.
/// - **Write-only** ([`WormConfig::write_only`]): every fetch is
///   [`RemoteStorageError::Refused`] without a request.
/// - **Cancellation** stops a copy between requests; what it uploaded stays
///   (nothing can be deleted) as unreferenced objects the verifier reports as
///   notices.
#[derive(Debug)]
pub struct WormRemoteStorage {
    /// Publishes the archive log's checkpoints (dropped first: its last
    /// checkpoint is written while the store is still there).
    log_task: Option<log::LogTask>,
    store: StoreHandle,
    archiver: Arc<WormArchiver>,
    /// Committed copies read by fetches.
    committed: CommittedSegments,
    /// How copies are stored, and what the tier learned of the segments it
    /// read (the envelope of a chunked one, opened).
    format: Arc<ChunkedFormat>,
    write_only: bool,
    /// What proved the bucket write-once at start-up.
    evidence: String,
}

impl WormRemoteStorage {
    /// An archive on `store`, after proving its bucket write-once.
    ///
    /// A handle over a bare store, or on a local directory, cannot prove
    /// anything and is refused.
    ///
    /// # Errors
    /// [`RemoteStorageError::Refused`] naming what the bucket lacks;
    /// [`RemoteStorageError::Config`] for an unusable signing key;
    /// [`RemoteStorageError::Retryable`] when the bucket cannot be reached.
    pub fn open(store: StoreHandle, config: WormConfig) -> Result<Self> {
        let signer = config.signer()?;
        let prove = prove_write_once(
            store.config().cloned(),
            Arc::clone(store.store()),
            store.prefix().map(str::to_owned),
        );
        let trusted = config.trusted()?;
        let evidence = store.runtime().block_on(prove).map_err(spi_error)?;
        tracing::info!(%evidence, key_id = signer.key_id(), write_only = config.write_only, "WORM archive tier on");
        let archiver = Self::archiver_on(&store, signer).with_trusted_keys(&trusted)?;
        let archive = Self::with_archiver(store, archiver, config.write_only, evidence);
        match config.log {
            Some(log) => archive.with_log(log),
            None => Ok(archive),
        }
    }

    /// The same archive keeping the archive log `config`: every seal from
    /// now on gets a leaf, and checkpoints are published in the background
    /// on the tier's runtime (see [`log::ArchiveLog`]).
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] for an origin that cannot name a note
    /// key (empty, with spaces or `+`) or a witness client that cannot be
    /// built.
    pub fn with_log(mut self, config: log::ArchiveLogConfig) -> Result<Self> {
        let bad_origin = |err: krabka_worm::tlog::LogError| RemoteStorageError::Config {
            what: "archive log origin",
            source: Box::new(err),
        };
        let signer = self
            .archiver
            .signer()
            .note_signer(&config.origin)
            .map_err(bad_origin)?;
        let trusted = self.archiver.trusted();
        let log_keys = trusted
            .key_ids()
            .filter_map(|id| trusted.public_key(id))
            .map(|key| {
                krabka_worm::tlog::NoteVerifier::new(
                    &config.origin,
                    krabka_worm::tlog::note::ED25519_TYPE,
                    key,
                )
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(bad_origin)?;
        let log = Arc::new(log::ArchiveLog::new(
            Arc::clone(self.store.store()),
            self.store.prefix().map(str::to_owned),
            signer,
            log_keys,
            config,
        )?);
        let archiver = Arc::get_mut(&mut self.archiver).ok_or_else(|| {
            RemoteStorageError::Refused(
                "the archive log must be set before the first copy".to_owned(),
            )
        })?;
        archiver.set_log(Arc::clone(&log));
        self.log_task = Some(log::LogTask::spawn(log, self.store.runtime().handle()));
        Ok(self)
    }

    /// The same archive storing copies in the chunked format `codec` says
    /// (compressed and/or encrypted; docs/chunked-format.md). Each object is
    /// archived as its stored bytes and the segment's envelope as one more
    /// object of its manifest: chain, signatures and digests verify without
    /// any key. The archive reads both formats, each segment by whether its
    /// manifest names an envelope.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] for invalid codec settings;
    /// [`RemoteStorageError::Refused`] after the first copy.
    pub fn with_codec(mut self, codec: SegmentCodec) -> Result<Self> {
        self.format = Arc::new(ChunkedFormat::new(codec.clone())?);
        let archiver = Arc::get_mut(&mut self.archiver).ok_or_else(|| {
            RemoteStorageError::Refused("the codec must be set before the first copy".to_owned())
        })?;
        archiver.set_codec(codec);
        Ok(self)
    }

    /// The format of the segment's committed copy: chunked when its
    /// manifest names an envelope (read at its pinned version, once).
    fn format_of(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        committed: &Committed,
    ) -> Result<SegmentFormat> {
        let Some(envelope) = committed.object(ENVELOPE_SUFFIX) else {
            return Ok(SegmentFormat::Plain);
        };
        self.format.format_of_known(metadata, || {
            object_reads::whole(&self.store, envelope, metadata, "envelope")
        })
    }

    /// Whether the bucket under `store`'s prefix holds a write-once archive:
    /// an archive tier opened there once (it leaves its create-only probe
    /// objects, which nothing may delete). The plain tier refuses such a
    /// bucket unless told otherwise, so that turning `worm.enabled` off
    /// cannot silently start overwriting and deleting beside an archive.
    ///
    /// # Errors
    /// The store's error when the prefix cannot be listed.
    pub fn holds_archive(store: &StoreHandle) -> Result<bool> {
        let probe_dir = store.key(CREATE_ONLY_PROBE_DIR).map_err(spi_error)?;
        let resource = format!("listing of {probe_dir}/");
        let objects = Arc::clone(store.store());
        let first = async move {
            objects
                .list(Some(&probe_dir))
                .try_next()
                .await
                .map_err(|err| to_store_error(err, "read of", &resource))
        };
        let first = store.runtime().block_on(first).map_err(spi_error)?;
        Ok(first.is_some())
    }

    /// The archive without the bucket proof: for tests over in-memory
    /// stores, and for callers that proved the protection some other way.
    #[must_use]
    pub fn unchecked(
        store: StoreHandle,
        signer: ManifestSigner,
        write_only: bool,
        evidence: String,
    ) -> Self {
        let archiver = Self::archiver_on(&store, signer);
        Self::with_archiver(store, archiver, write_only, evidence)
    }

    /// An archiver writing through `store`, signed by `signer`.
    fn archiver_on(store: &StoreHandle, signer: ManifestSigner) -> WormArchiver {
        WormArchiver::new(
            Arc::clone(store.store()),
            store.prefix().map(str::to_owned),
            signer,
        )
        .with_tuning(store.tuning())
    }

    fn with_archiver(
        store: StoreHandle,
        archiver: WormArchiver,
        write_only: bool,
        evidence: String,
    ) -> Self {
        Self {
            log_task: None,
            store,
            archiver: Arc::new(archiver),
            committed: CommittedSegments::default(),
            format: Arc::default(),
            write_only,
            evidence,
        }
    }

    /// What proved the bucket write-once.
    #[must_use]
    pub fn evidence(&self) -> &str {
        &self.evidence
    }

    /// The archiver that writes and seals copies.
    #[must_use]
    pub fn archiver(&self) -> &WormArchiver {
        &self.archiver
    }

    /// The key prefix, if any.
    #[must_use]
    pub fn prefix(&self) -> Option<&str> {
        self.store.prefix()
    }

    /// The underlying object store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn object_store::ObjectStore> {
        self.store.store()
    }

    /// The committed copy of the segment a fetch reads: refused in a
    /// write-only archive (before any request), `NotFound` unless the
    /// segment's copy committed.
    ///
    /// The manifest beside the segment is written last, after the seal that
    /// commits the copy. Without it, what lies under the segment's keys is
    /// left over from a copy that failed or was cancelled (and cannot be
    /// deleted): among it the empty create-only reservation of a multipart
    /// log, which must not read as an empty segment. The manifest is read
    /// once per segment (then cached) and names the version of each object
    /// to read.
    fn committed(&self, metadata: &RemoteLogSegmentMetadata) -> Result<Arc<Committed>> {
        if self.write_only {
            return Err(RemoteStorageError::Refused(format!(
                "segment {} is in a write-only archive: fetches are refused",
                metadata.remote_log_segment_id()
            )));
        }
        self.committed.get(
            &self.store,
            &self.keys(metadata),
            metadata,
            self.archiver.trusted(),
        )
    }

    /// The pinned object with `suffix` of the segment's committed copy.
    fn pinned(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        suffix: &str,
        what: &str,
    ) -> Result<ObjectAt> {
        self.committed(metadata)?
            .object(suffix)
            .ok_or_else(|| RemoteStorageError::NotFound {
                resource: format!(
                    "{what} of segment {} (its committed copy has none)",
                    metadata.remote_log_segment_id()
                ),
            })
    }

    fn keys(&self, metadata: &RemoteLogSegmentMetadata) -> SegmentKeys {
        SegmentKeys::new(self.store.prefix(), metadata)
    }
}

impl RemoteStorageManager for WormRemoteStorage {
    fn copy_log_segment_data_cancellable(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        cancel.check(|| format!("copy of {}", metadata.remote_log_segment_id()))?;
        let archiver = Arc::clone(&self.archiver);
        let metadata = metadata.clone();
        let segment = segment.clone();
        let cancel = cancel.clone();
        let archive = async move { archiver.archive(&metadata, &segment, &cancel).await };
        let sealed = self.store.runtime().run(archive).map_err(spi_error)??;
        Ok(Some(sealed.custom_metadata()))
    }

    fn fetch_log_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start_position: u64,
        end_position: Option<u64>,
    ) -> Result<SegmentReader> {
        let committed = self.committed(metadata)?;
        let log = self.pinned(metadata, LOG_FILE_SUFFIX, "log")?;
        // Archived objects are read at the versions their manifest names,
        // which a listing does not tell: nothing is warmed.
        match self.format_of(metadata, &committed)? {
            SegmentFormat::Plain => object_reads::log_range(
                &self.store,
                log,
                metadata,
                start_position,
                end_position,
                None,
            ),
            SegmentFormat::Chunked(opened) => object_reads::chunked_log_range(
                &self.store,
                log,
                metadata,
                &opened,
                self.format.decoded(),
                start_position,
                end_position,
                None,
            ),
        }
    }

    fn fetch_index(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        index: IndexType,
    ) -> Result<Vec<u8>> {
        let object = self.pinned(metadata, index.suffix(), index.kafka_name())?;
        match self.format_of(metadata, &*self.committed(metadata)?)? {
            SegmentFormat::Plain => object_reads::index(&self.store, object, metadata, index),
            SegmentFormat::Chunked(opened) => {
                object_reads::chunked_index(&self.store, object, metadata, &opened, index)
            }
        }
    }

    fn delete_log_segment_data(
        &self,
        metadata: &RemoteLogSegmentMetadata,
    ) -> Result<DeleteOutcome> {
        Ok(DeleteOutcome::RetainedByArchive {
            reason: format!(
                "segment {} is in a write-once archive: the bucket's retention decides when it may go",
                metadata.remote_log_segment_id()
            ),
        })
    }
}

#[cfg(test)]
mod tests;
