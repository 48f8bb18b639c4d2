//! [`ArchiveLog`]: the writer of the archive log — a Merkle tree over every
//! sealed manifest of the archive (all partitions, in the order their
//! leaves are claimed), its C2SP tiles, signed checkpoints, and the
//! cosignatures of witnesses.
//!
//! The protocol, every object create-only (layout in
//! [`LogLayout`](krabka_worm::tlog::LogLayout)):
//!
//! 1. **Claim** ([`ArchiveLog::append`]): after a copy's seal, its writer
//!    creates `claims/<n>` at the first free index `n` holding the seal's
//!    [`LogEntry`]; of two writers only one creates an index, the other
//!    takes the next (the index this writer expects to be free is tried
//!    first, so a claim is one request). Then `logged/<seal>` records, in the
//!    background, that the seal has its leaf, so a writer that takes over a
//!    partition after a crash between seal and claim logs the seal it
//!    extends ([`ArchiveLog::ensure_logged`]).
//! 2. **Publish** ([`ArchiveLog::publish`], at most every
//!    [`ArchiveLogConfig::interval`] and at shutdown): the publisher loads
//!    the tree's right edge from the newest checkpoint's partial tiles
//!    (checking that they give its root and that a key of the log signed
//!    it), appends the claims after it, writes the tiles and entry bundles
//!    they fill and the partial ones at the new size, and creates the next
//!    checkpoint number. A tree is a function of the claims, so two
//!    publishers write the same tiles; a checkpoint number another
//!    publisher took is read and must be consistent with this tree, else
//!    publishing stops with an integrity error (a fork is never signed).
//! 3. **Witness**: each new checkpoint goes to every witness with a
//!    consistency proof from the size it last cosigned (learnt from its 409
//!    answer when unknown), and the cosignature it returns is stored under
//!    `cosignatures/<checkpoint>/`. A witness that is down delays only its
//!    cosignature: copies never wait for it.

mod config;
mod failures;
mod task;

pub use {
    config::{ArchiveLogConfig, DEFAULT_CHECKPOINT_INTERVAL, WitnessConfig},
    krabka_worm::tlog::witness::WitnessAnswer,
    task::LogTask,
};

use {
    crate::store_bridge::spi_error,
    bytes::Bytes,
    failures::FailureLog,
    futures_util::{StreamExt, stream},
    krabka_kafka::{RemoteStorageError, Result},
    krabka_object_store::{
        StoreError, StoreErrorClass,
        store::{errors::to_store_error, upload::create_only_put},
    },
    krabka_worm::tlog::witness,
    krabka_worm::tlog::{
        Checkpoint, LogEntry, LogHash, LogLayout, NoteSigner, NoteVerifier, ProofRequest,
        SignedNote, TileId, TreeEdge,
        proof::{consistency_proof, tree_root},
        store::{
            LogReadError, MAX_CLAIM_BYTES, StoredCheckpoint, exists, find_end, read_bounded,
            read_bundle, read_checkpoint, read_tile, tiles_for_proof,
        },
        tile::{TILE_WIDTH, encode_bundle, encode_tile},
    },
    object_store::{ObjectStore, path::Path},
    std::{
        collections::{HashMap, HashSet},
        sync::{Arc, Mutex, PoisonError},
        time::Duration,
    },
};

/// Attempts of one create-only write of the log before it fails.
const WRITE_ATTEMPTS: u32 = 4;

/// Claims read at once by a publisher.
const CLAIM_BATCH: usize = 32;

/// The writer of an archive's log.
#[derive(Debug)]
pub struct ArchiveLog {
    store: Arc<dyn ObjectStore>,
    prefix: Option<String>,
    layout: LogLayout,
    signer: NoteSigner,
    /// The keys whose checkpoints this writer builds on: its own and every
    /// trusted writer's, under the origin's name.
    log_keys: Vec<NoteVerifier>,
    config: ArchiveLogConfig,
    /// The first claim index not known to be taken.
    next_claim: Mutex<u64>,
    /// The tree as last published; `None` until loaded. One publisher at a
    /// time.
    tree: tokio::sync::Mutex<Option<Published>>,
    /// The size each witness last cosigned, when known.
    witness_sizes: Mutex<HashMap<String, u64>>,
    /// `logged/` markers being written in the background, and the tasks
    /// writing them ([`ArchiveLog::flush_markers`] waits for them).
    markers_in_flight: Arc<Mutex<HashSet<String>>>,
    marker_writes: Mutex<tokio::task::JoinSet<()>>,
    client: reqwest::Client,
    failures: FailureLog,
}

/// The tree at the newest checkpoint.
#[derive(Debug, Clone)]
struct Published {
    edge: TreeEdge,
    /// Entries of the rightmost, not yet full bundle.
    bundle: Vec<Vec<u8>>,
    /// The newest checkpoint; `None` for a log without one.
    checkpoint: Option<StoredCheckpoint>,
}

impl Published {
    fn next_seq(&self) -> u64 {
        self.checkpoint.as_ref().map_or(0, |c| c.seq + 1)
    }
}

/// A create-only write of `bytes` to `key`, retried on transient failures.
async fn create_retried(
    store: &dyn ObjectStore,
    key: &str,
    bytes: Bytes,
) -> std::result::Result<(), StoreError> {
    let never = tokio_util::sync::CancellationToken::new();
    let path = Path::from(key);
    let mut attempt = 0;
    loop {
        attempt += 1;
        match create_only_put(store, &path, bytes.clone(), &never).await {
            Ok(_) => return Ok(()),
            Err(err) if attempt < WRITE_ATTEMPTS && err.class() == StoreErrorClass::Retryable => {
                tokio::time::sleep(Duration::from_millis(50 << attempt)).await;
            }
            Err(err) => return Err(err),
        }
    }
}

/// A failed read of the log as the SPI's error.
fn read_error(err: LogReadError) -> RemoteStorageError {
    match err {
        LogReadError::Store { key, source } => spi_error(to_store_error(source, "read of", &key)),
        other => RemoteStorageError::Integrity {
            what: "archive log",
            source: Box::new(other),
        },
    }
}

fn integrity(message: String) -> RemoteStorageError {
    RemoteStorageError::Integrity {
        what: "archive log",
        source: message.into(),
    }
}

impl ArchiveLog {
    /// The log of the archive under `prefix` in `store`, checkpoints signed
    /// by `signer` (named after the origin), building on checkpoints of
    /// `log_keys` too (other writers' keys under the same name).
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] when the HTTP client for witnesses
    /// cannot be built.
    pub fn new(
        store: Arc<dyn ObjectStore>,
        prefix: Option<String>,
        signer: NoteSigner,
        mut log_keys: Vec<NoteVerifier>,
        config: ArchiveLogConfig,
    ) -> Result<Self> {
        log_keys.push(signer.verifier().clone());
        let client =
            witness::client(config.witness_timeout).map_err(|err| RemoteStorageError::Config {
                what: "archive log witness client",
                source: Box::new(err),
            })?;
        Ok(Self {
            layout: LogLayout::new(prefix.as_deref()),
            store,
            prefix,
            signer,
            log_keys,
            config,
            next_claim: Mutex::new(0),
            tree: tokio::sync::Mutex::new(None),
            witness_sizes: Mutex::new(HashMap::new()),
            markers_in_flight: Arc::default(),
            marker_writes: Mutex::default(),
            client,
            failures: FailureLog::default(),
        })
    }

    /// The log's configuration.
    #[must_use]
    pub fn config(&self) -> &ArchiveLogConfig {
        &self.config
    }

    /// The verifier key of this writer's checkpoints (what a witness is
    /// told to trust for the origin).
    #[must_use]
    pub fn verifier(&self) -> &NoteVerifier {
        self.signer.verifier()
    }

    /// Where the log lives.
    #[must_use]
    pub fn layout(&self) -> &LogLayout {
        &self.layout
    }

    fn relative<'k>(&self, key: &'k str) -> &'k str {
        match self.prefix.as_deref().map(|p| p.trim_matches('/')) {
            Some(prefix) if !prefix.is_empty() => key
                .strip_prefix(prefix)
                .and_then(|k| k.strip_prefix('/'))
                .unwrap_or(key),
            _ => key,
        }
    }

    /// Claims the next leaf for the seal stored under `seal_key` (prefix
    /// included) with `bytes`, then marks the seal logged; returns the
    /// leaf's index.
    ///
    /// # Errors
    /// The store's errors once retries are spent.
    pub async fn append(&self, seal_key: &str, bytes: &[u8]) -> Result<u64> {
        let relative = self.relative(seal_key);
        let entry = LogEntry::of_seal(relative, bytes)
            .to_bytes()
            .map_err(|err| integrity(err.to_string()))?;
        let entry = Bytes::from(entry);
        let mut failures = 0;
        // The next index this writer expects to be free is tried first: one
        // request when no other writer claimed it meanwhile.
        let mut index = *self
            .next_claim
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        loop {
            match self.create(&self.layout.claim(index), entry.clone()).await {
                Ok(()) => break,
                Err(StoreError::AlreadyExists { .. }) => {
                    index = find_end(&*self.store, |i| self.layout.claim(i), index + 1)
                        .await
                        .map_err(read_error)?;
                }
                Err(err)
                    if err.class() == StoreErrorClass::Retryable && failures < WRITE_ATTEMPTS =>
                {
                    failures += 1;
                    tokio::time::sleep(Duration::from_millis(100 << failures)).await;
                }
                Err(err) => return Err(spi_error(err)),
            }
        }
        self.set_next_claim(index + 1);
        self.mark_logged(self.layout.logged(relative), index);
        Ok(index)
    }

    /// Writes the marker that a seal has leaf `index` in the background: the
    /// copy does not wait for it. Until it is written this writer knows the
    /// seal is logged; were it lost (the process killed first), a writer
    /// taking over logs the seal again, a duplicate leaf the verifier reports
    /// as a notice.
    fn mark_logged(&self, marker: String, index: u64) {
        self.markers_in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(marker.clone());
        let store = Arc::clone(&self.store);
        let in_flight = Arc::clone(&self.markers_in_flight);
        let mut writes = self
            .marker_writes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Finished writes are reaped as new ones start.
        while writes.try_join_next().is_some() {}
        writes.spawn(async move {
            match create_retried(&*store, &marker, Bytes::from(index.to_string())).await {
                Ok(()) | Err(StoreError::AlreadyExists { .. }) => {}
                Err(err) => tracing::debug!(
                    marker,
                    error = %err,
                    "the archive log's marker of a logged seal could not be written; a writer taking over logs the seal again"
                ),
            }
            in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&marker);
        });
    }

    /// Waits for the `logged/` markers being written in the background (the
    /// publisher does before the last checkpoint of a shutdown, so a
    /// graceful stop loses none).
    pub async fn flush_markers(&self) {
        let mut writes = std::mem::take(
            &mut *self
                .marker_writes
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        while writes.join_next().await.is_some() {}
    }

    /// Logs the seal under `seal_key` unless its `logged/` marker exists: a
    /// writer that extends a seal it did not write (after a crash or a
    /// leadership change) makes sure it has its leaf. A crash between a
    /// claim and its marker leaves the seal with two leaves, which the
    /// verifier reports as a notice.
    ///
    /// # Errors
    /// Those of [`ArchiveLog::append`].
    pub async fn ensure_logged(&self, seal_key: &str, bytes: &[u8]) -> Result<()> {
        let marker = self.layout.logged(self.relative(seal_key));
        let writing = self
            .markers_in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&marker);
        if writing || exists(&*self.store, &marker).await.map_err(read_error)? {
            return Ok(());
        }
        tracing::info!(
            seal_key,
            "a committed seal has no leaf in the archive log yet; logging it"
        );
        self.append(seal_key, bytes).await.map(|_| ())
    }

    fn set_next_claim(&self, next: u64) {
        let mut hint = self
            .next_claim
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *hint = (*hint).max(next);
    }

    /// A create-only write, retried on transient failures.
    async fn create(&self, key: &str, bytes: Bytes) -> std::result::Result<(), StoreError> {
        create_retried(&*self.store, key, bytes).await
    }

    /// A create-only write of deterministic content: an object already
    /// there with the same bytes is success, other bytes an integrity error.
    async fn create_same(&self, key: &str, bytes: Bytes) -> Result<()> {
        match self.create(key, bytes.clone()).await {
            Ok(()) => Ok(()),
            Err(StoreError::AlreadyExists { .. }) => {
                let existing = read_bounded(&*self.store, key, bytes.len())
                    .await
                    .map_err(read_error)?;
                if existing.as_deref() == Some(&bytes[..]) {
                    Ok(())
                } else {
                    Err(integrity(format!(
                        "{key} holds other bytes than the tree gives it"
                    )))
                }
            }
            Err(err) => Err(spi_error(err)),
        }
    }

    /// The tree at the newest checkpoint in the bucket, checked.
    async fn load(&self) -> Result<Published> {
        let end = find_end(&*self.store, |i| self.layout.checkpoint(i), 0)
            .await
            .map_err(read_error)?;
        if end == 0 {
            return Ok(Published {
                edge: TreeEdge::new(),
                bundle: Vec::new(),
                checkpoint: None,
            });
        }
        let stored = read_checkpoint(&*self.store, &self.layout, end - 1)
            .await
            .map_err(read_error)?
            .ok_or_else(|| integrity(format!("checkpoint {} vanished", end - 1)))?;
        self.check_checkpoint(&stored)?;
        let size = stored.checkpoint.size;
        let mut partial = HashMap::new();
        for id in TreeEdge::partial_tile_ids(size) {
            let hashes = read_tile(&*self.store, &self.layout, id)
                .await
                .map_err(read_error)?;
            partial.insert(id, hashes);
        }
        let edge =
            TreeEdge::from_partial_tiles(size, |id| Ok(partial.remove(&id).unwrap_or_default()))
                .map_err(|err| integrity(err.to_string()))?;
        if edge.root() != stored.checkpoint.root {
            return Err(integrity(format!(
                "the tiles of checkpoint {} do not give its root",
                stored.seq
            )));
        }
        let width = (size % TILE_WIDTH as u64) as u16;
        let bundle = if width == 0 {
            Vec::new()
        } else {
            read_bundle(&*self.store, &self.layout, size / TILE_WIDTH as u64, width)
                .await
                .map_err(read_error)?
        };
        self.set_next_claim(size);
        Ok(Published {
            edge,
            bundle,
            checkpoint: Some(stored),
        })
    }

    fn check_checkpoint(&self, stored: &StoredCheckpoint) -> Result<()> {
        if stored.checkpoint.origin != self.config.origin {
            return Err(integrity(format!(
                "checkpoint {} is of origin {:?}, this log is {:?}",
                stored.seq, stored.checkpoint.origin, self.config.origin
            )));
        }
        if !stored.note.is_signed_by_any(&self.log_keys) {
            return Err(integrity(format!(
                "checkpoint {} carries no valid signature by a key of the log",
                stored.seq
            )));
        }
        Ok(())
    }

    /// The claims from `from` on, until the first index not yet claimed.
    async fn new_claims(&self, from: u64) -> Result<Vec<Vec<u8>>> {
        let mut claims = Vec::new();
        // As many as this writer claimed past `from`, and one more for
        // another writer's; doubled while batches come back full. An idle
        // log costs one read per publication.
        let claimed = self
            .next_claim
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .saturating_sub(from);
        let mut batch_len = (claimed + 1).min(CLAIM_BATCH as u64);
        loop {
            let start = from + claims.len() as u64;
            let batch: Vec<_> = stream::iter(start..start + batch_len)
                .map(|i| {
                    let key = self.layout.claim(i);
                    async move { read_bounded(&*self.store, &key, MAX_CLAIM_BYTES).await }
                })
                .buffered(8)
                .collect()
                .await;
            for claim in batch {
                match claim {
                    Ok(Some(bytes)) => claims.push(bytes.to_vec()),
                    Ok(None) => return Ok(claims),
                    Err(LogReadError::Invalid { key, .. }) => {
                        // An oversized object at a claim index is no entry of
                        // ours; the tree still takes the index (as an empty
                        // leaf) and the verifier reports it.
                        tracing::warn!(key, "an object at a claim index is larger than any entry");
                        claims.push(Vec::new());
                    }
                    Err(err) => return Err(read_error(err)),
                }
            }
            batch_len = (batch_len * 2).min(CLAIM_BATCH as u64);
        }
    }

    /// Publishes a checkpoint of every claim made so far, when there is
    /// anything new, and submits the newest checkpoint to the witnesses
    /// that have not cosigned it. Returns the newest checkpoint.
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Integrity`] when the log
    /// in the bucket is not what its checkpoints say (nothing is published
    /// on top of it).
    pub async fn publish(&self) -> Result<Option<Checkpoint>> {
        let mut guard = self.tree.lock().await;
        let mut published = match guard.take() {
            Some(published) => published,
            None => self.load().await?,
        };
        let claims = self.new_claims(published.edge.size()).await?;
        if !claims.is_empty() {
            published = self.extend(published, claims).await?;
        }
        let newest = published.checkpoint.clone();
        *guard = Some(published);
        drop(guard);
        if let Some(stored) = &newest {
            self.witness_all(stored).await;
        }
        Ok(newest.map(|stored| stored.checkpoint))
    }

    /// Appends `claims`, writes the tiles, creates the next checkpoint.
    async fn extend(&self, old: Published, claims: Vec<Vec<u8>>) -> Result<Published> {
        let mut edge = old.edge.clone();
        let mut bundle = old.bundle.clone();
        let mut writes: Vec<(String, Bytes)> = Vec::new();
        for claim in claims {
            for tile in edge.push(LogHash::leaf(&claim)) {
                writes.push((
                    self.layout.tile(tile.id),
                    Bytes::from(encode_tile(&tile.hashes)),
                ));
            }
            bundle.push(claim);
            if bundle.len() == TILE_WIDTH {
                let id = TileId {
                    level: TileId::ENTRIES,
                    index: edge.size() / TILE_WIDTH as u64 - 1,
                    width: TILE_WIDTH as u16,
                };
                writes.push((self.layout.tile(id), self.bundle_bytes(&bundle)?));
                bundle.clear();
            }
        }
        for tile in edge.partial_tiles() {
            writes.push((
                self.layout.tile(tile.id),
                Bytes::from(encode_tile(&tile.hashes)),
            ));
        }
        if !bundle.is_empty() {
            let id = TileId {
                level: TileId::ENTRIES,
                index: edge.size() / TILE_WIDTH as u64,
                width: bundle.len() as u16,
            };
            writes.push((self.layout.tile(id), self.bundle_bytes(&bundle)?));
        }
        let results: Vec<Result<()>> = stream::iter(writes)
            .map(|(key, bytes)| async move { self.create_same(&key, bytes).await })
            .buffer_unordered(8)
            .collect()
            .await;
        results.into_iter().collect::<Result<Vec<()>>>()?;
        let checkpoint = Checkpoint::new(&self.config.origin, edge.size(), edge.root());
        let text = checkpoint.to_text();
        let note_text = self
            .signer
            .sign(&text)
            .map_err(|err| integrity(err.to_string()))?;
        let note =
            SignedNote::parse(note_text.as_bytes()).map_err(|err| integrity(err.to_string()))?;
        let mut seq = old.next_seq();
        loop {
            match self
                .create(&self.layout.checkpoint(seq), Bytes::from(note_text.clone()))
                .await
            {
                Ok(()) => break,
                Err(StoreError::AlreadyExists { .. }) => {
                    let theirs = read_checkpoint(&*self.store, &self.layout, seq)
                        .await
                        .map_err(read_error)?
                        .ok_or_else(|| integrity(format!("checkpoint {seq} vanished")))?;
                    self.check_checkpoint(&theirs)?;
                    self.check_consistent(&theirs, &checkpoint).await?;
                    if theirs.checkpoint.size >= checkpoint.size {
                        // Another publisher got as far or further: build on its
                        // checkpoint next time.
                        return self.load().await;
                    }
                    seq += 1;
                }
                Err(err) => return Err(spi_error(err)),
            }
        }
        tracing::debug!(
            seq,
            size = checkpoint.size,
            "archive log checkpoint published"
        );
        Ok(Published {
            edge,
            bundle,
            checkpoint: Some(StoredCheckpoint {
                seq,
                note,
                checkpoint,
            }),
        })
    }

    fn bundle_bytes(&self, bundle: &[Vec<u8>]) -> Result<Bytes> {
        encode_bundle(bundle)
            .map(Bytes::from)
            .map_err(|err| integrity(err.to_string()))
    }

    /// Another publisher's checkpoint must be a prefix of (or extend) this
    /// tree: the root at the smaller size, computed from the tiles, must be
    /// the same.
    async fn check_consistent(&self, theirs: &StoredCheckpoint, ours: &Checkpoint) -> Result<()> {
        let size = theirs.checkpoint.size.min(ours.size);
        let tiles = tiles_for_proof(&*self.store, &self.layout, size, ProofRequest::Root(size))
            .await
            .map_err(read_error)?;
        let mut tiles = tiles;
        let root = tree_root(&mut tiles, size).map_err(|err| integrity(err.to_string()))?;
        let expected = if theirs.checkpoint.size == size {
            theirs.checkpoint.root
        } else {
            ours.root
        };
        if root != expected {
            return Err(integrity(format!(
                "checkpoint {} (size {}) is not consistent with the tree of the claims: refusing to fork the log",
                theirs.seq, theirs.checkpoint.size
            )));
        }
        Ok(())
    }

    /// Submits `stored` to every witness that has not cosigned it.
    async fn witness_all(&self, stored: &StoredCheckpoint) {
        for witness in &self.config.witnesses {
            let key = self.layout.cosignature(stored.seq, &witness.key);
            let kind = format!("witness {}", witness.url);
            match self.witness_one(witness, stored, &key).await {
                Ok(()) => {
                    if self.failures.succeeded(&kind) {
                        tracing::info!(witness = %witness.url, "the witness cosigns again");
                    }
                }
                Err(detail) => {
                    if self.failures.failed(&kind) {
                        tracing::warn!(
                            witness = %witness.url,
                            seq = stored.seq,
                            size = stored.checkpoint.size,
                            %detail,
                            "witness did not cosign the archive log's checkpoint; retried at the next checkpoint (further failures of this witness are logged at debug level)"
                        );
                    } else {
                        tracing::debug!(witness = %witness.url, %detail, "witness did not cosign");
                    }
                }
            }
        }
    }

    async fn witness_one(
        &self,
        witness: &config::WitnessConfig,
        stored: &StoredCheckpoint,
        key: &str,
    ) -> std::result::Result<(), String> {
        let size = stored.checkpoint.size;
        let known = self
            .witness_sizes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&witness.url)
            .copied();
        if known == Some(size) {
            return Ok(());
        }
        let note = stored.note.to_text();
        let mut old = known.unwrap_or(0);
        for _ in 0..2 {
            if old > size {
                // The witness saw a larger tree: another publisher is ahead.
                self.remember_witness(witness, old);
                return Ok(());
            }
            let proof = self.consistency(old, size).await?;
            let answer =
                witness::submit(&self.client, &witness.url, &witness.key, old, &proof, &note)
                    .await
                    .map_err(|err| format!("unreachable: {err}"))?;
            match answer {
                WitnessAnswer::Cosigned { signature, .. } => {
                    let line = Bytes::from(signature.line());
                    match self.create(key, line).await {
                        Ok(()) | Err(StoreError::AlreadyExists { .. }) => {}
                        Err(err) => {
                            return Err(format!("its cosignature could not be stored: {err}"));
                        }
                    }
                    self.remember_witness(witness, size);
                    return Ok(());
                }
                WitnessAnswer::Conflict { known } => old = known,
                WitnessAnswer::Refused { detail } => return Err(detail),
            }
        }
        Err(format!(
            "the witness's tree size kept changing (last {old})"
        ))
    }

    fn remember_witness(&self, witness: &config::WitnessConfig, size: u64) {
        self.witness_sizes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(witness.url.clone(), size);
    }

    async fn consistency(&self, old: u64, new: u64) -> std::result::Result<Vec<LogHash>, String> {
        if old == 0 || old == new {
            return Ok(Vec::new());
        }
        let mut tiles = tiles_for_proof(
            &*self.store,
            &self.layout,
            new,
            ProofRequest::Consistency { old, new },
        )
        .await
        .map_err(|err| format!("tiles for the proof: {err}"))?;
        consistency_proof(&mut tiles, old, new).map_err(|err| err.to_string())
    }
}

#[cfg(test)]
mod tests;
