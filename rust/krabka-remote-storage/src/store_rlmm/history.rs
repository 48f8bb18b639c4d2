//! Reading and writing one partition's history in the store: records at
//! their sequence keys, written create-only, and snapshots. Every object is
//! small and written once and never replaced; objects are deleted only by
//! compaction (records and snapshots a newer snapshot covers) and by the
//! erasure of a deleted partition's history, both on a plain tier only.

use {
    super::keys::{KeyKind, PartitionKeys},
    crate::store_bridge::spi_error,
    bytes::Bytes,
    futures_util::{StreamExt, TryStreamExt, stream},
    krabka_kafka::{
        MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES, MetadataRecord, MetadataSnapshot, RemoteStorageError,
        Result, TopicIdPartition, decode_record, decode_snapshot, encode_record, encode_snapshot,
    },
    krabka_object_store::store::{
        Path, StoreError, StoreErrorClass, StoreHandle, delete::delete_keys,
        errors::to_store_error, upload::create_only_put,
    },
    object_store::{ObjectStore, ObjectStoreExt},
    std::sync::Arc,
    tokio_util::sync::CancellationToken,
};

/// Records read at once when a listing names them.
const READ_AHEAD: usize = 32;

/// What became of a create-only write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// The object is ours.
    Created,
    /// Another writer's object was already at the key.
    Lost,
}

/// What one listing of a partition's directory shows: the sequences of its
/// records and the `through` of its snapshots, each ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Listing {
    /// Record sequences.
    pub(super) records: Vec<u64>,
    /// Snapshot positions.
    pub(super) snapshots: Vec<u64>,
    /// Every key listed, ours or not (what an erasure deletes).
    pub(super) keys: Vec<Path>,
}

impl Listing {
    /// Adds `key`, listed under the partition's directory `dir`.
    pub(super) fn add(&mut self, dir: &Path, key: Path) {
        match PartitionKeys::kind_of(dir, &key) {
            Some(KeyKind::Record(sequence)) => self.records.push(sequence),
            Some(KeyKind::Snapshot(through)) => self.snapshots.push(through),
            None => {}
        }
        self.keys.push(key);
    }

    /// Puts the records and snapshots in ascending order (a listing's
    /// order is the store's).
    pub(super) fn sort(&mut self) {
        self.records.sort_unstable();
        self.snapshots.sort_unstable();
    }

    /// The newest snapshot's position (0: none).
    pub(super) fn newest_snapshot(&self) -> u64 {
        self.snapshots.last().copied().unwrap_or(0)
    }

    /// The records right after `after`, up to the first gap.
    pub(super) fn run_after(&self, after: u64) -> Vec<u64> {
        self.records
            .iter()
            .copied()
            .skip_while(|sequence| *sequence <= after)
            .zip(after + 1..)
            .take_while(|(listed, wanted)| listed == wanted)
            .map(|(listed, _)| listed)
            .collect()
    }
}

/// One partition's history in one store.
#[derive(Debug, Clone)]
pub(super) struct History {
    store: StoreHandle,
    keys: PartitionKeys,
    partition: TopicIdPartition,
}

impl History {
    /// The history of `partition` under `root` in `store`.
    pub(super) fn new(store: StoreHandle, root: &str, partition: TopicIdPartition) -> Self {
        Self {
            keys: PartitionKeys::new(root, &partition),
            store,
            partition,
        }
    }

    /// The partition.
    pub(super) fn partition(&self) -> &TopicIdPartition {
        &self.partition
    }

    /// Record `sequence`, or `None` when nobody wrote it yet.
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Corrupt`] for bytes that
    /// are not a record or a record of another partition or position (an
    /// object misfiled by hand).
    pub(super) fn read_record(&self, sequence: u64) -> Result<Option<MetadataRecord>> {
        let key = self.keys.record(&self.store, sequence).map_err(spi_error)?;
        let Some(bytes) = self.fetch(key.clone(), MAX_RECORD_BYTES)? else {
            return Ok(None);
        };
        self.decode_record_at(&key, sequence, &bytes).map(Some)
    }

    /// One listing of the partition's whole directory: its records and
    /// snapshots.
    ///
    /// # Errors
    /// The listing's errors.
    pub(super) fn scan(&self) -> Result<Listing> {
        let dir = self.keys.dir(&self.store).map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let listed = self.store.runtime().block_on(async move {
            let mut listing = Listing::default();
            let mut entries = store.list(Some(&dir));
            while let Some(meta) = entries
                .try_next()
                .await
                .map_err(|err| to_store_error(err, "listing of", dir.as_ref()))?
            {
                listing.add(&dir, meta.location);
            }
            listing.sort();
            Ok(listing)
        });
        listed.map_err(spi_error)
    }

    /// Records `sequences` (ascending, contiguous), read `READ_AHEAD` at a
    /// time; `None` when one of them is gone (compacted since it was
    /// listed), so the caller lists again.
    ///
    /// # Errors
    /// As [`read_record`](Self::read_record).
    pub(super) fn read_records(&self, sequences: &[u64]) -> Result<Option<Vec<MetadataRecord>>> {
        let keys = sequences
            .iter()
            .map(|sequence| {
                self.keys
                    .record(&self.store, *sequence)
                    .map(|key| (*sequence, key))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let fetched = self.store.runtime().run(async move {
            stream::iter(keys)
                .map(|(sequence, key)| {
                    let store = Arc::clone(&store);
                    async move {
                        let bytes = get_whole(store.as_ref(), &key, MAX_RECORD_BYTES).await;
                        (sequence, key, bytes)
                    }
                })
                .buffered(READ_AHEAD)
                .collect::<Vec<_>>()
                .await
        });
        let mut records = Vec::with_capacity(sequences.len());
        for (sequence, key, bytes) in fetched.map_err(spi_error)? {
            let Some(bytes) = bytes.map_err(spi_error)? else {
                return Ok(None);
            };
            records.push(self.decode_record_at(&key, sequence, &bytes)?);
        }
        Ok(Some(records))
    }

    /// Record `sequence` decoded from the `bytes` at `key`.
    fn decode_record_at(&self, key: &Path, sequence: u64, bytes: &[u8]) -> Result<MetadataRecord> {
        let record = decode_record(bytes)?;
        if record.partition != self.partition || record.sequence != sequence {
            return Err(RemoteStorageError::Corrupt {
                format: "remote log metadata record",
                detail: format!(
                    "`{key}` holds record {} of {}",
                    record.sequence, record.partition
                ),
            });
        }
        Ok(record)
    }

    /// Writes `record` at its sequence, create-only.
    ///
    /// # Errors
    /// The store's errors, and the encoder's for a record the format cannot
    /// hold.
    pub(super) fn write_record(&self, record: &MetadataRecord) -> Result<Written> {
        let key = self
            .keys
            .record(&self.store, record.sequence)
            .map_err(spi_error)?;
        self.create(key, encode_record(record)?)
    }

    /// Whether record `sequence`, just created, sits where compaction had
    /// already deleted the records: the one before it is gone (for the
    /// first record, a snapshot already covers it). A writer at the tip of
    /// the history always finds the record before its own: compaction only
    /// deletes what the snapshot before the newest covers.
    ///
    /// # Errors
    /// The store's errors.
    pub(super) fn below_compaction(&self, sequence: u64) -> Result<bool> {
        if sequence <= 1 {
            return Ok(self.scan()?.newest_snapshot() >= sequence);
        }
        let key = self
            .keys
            .record(&self.store, sequence - 1)
            .map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let head = self.store.runtime().run(async move {
            match store.head(&key).await {
                Ok(_) => Ok(false),
                Err(object_store::Error::NotFound { .. }) => Ok(true),
                Err(err) => Err(to_store_error(err, "existence check of", key.as_ref())),
            }
        });
        head.map_err(spi_error)?.map_err(spi_error)
    }

    /// The snapshot through `through`; `None` when it is gone (compacted
    /// since it was listed).
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Corrupt`] for a snapshot
    /// that is not what its key says.
    pub(super) fn read_snapshot(&self, through: u64) -> Result<Option<MetadataSnapshot>> {
        let key = self
            .keys
            .snapshot(&self.store, through)
            .map_err(spi_error)?;
        let Some(bytes) = self.fetch(key.clone(), MAX_SNAPSHOT_BYTES)? else {
            return Ok(None);
        };
        let snapshot = decode_snapshot(&bytes)?;
        if snapshot.partition != self.partition || snapshot.through != through {
            return Err(RemoteStorageError::Corrupt {
                format: "remote log metadata snapshot",
                detail: format!(
                    "`{key}` holds {} through {}",
                    snapshot.partition, snapshot.through
                ),
            });
        }
        Ok(Some(snapshot))
    }

    /// Deletes what the snapshot through `covered` makes unneeded, as
    /// `listing` shows it: the records up to `covered` and the snapshots
    /// before it. The number of objects deleted.
    ///
    /// # Errors
    /// The store's errors.
    pub(super) fn compact(&self, listing: &Listing, covered: u64) -> Result<usize> {
        self.delete_below(
            listing,
            covered.saturating_add(1),
            covered,
            "compacted remote log metadata",
        )
    }

    /// Deletes what the snapshot through `through`, the newest, makes
    /// unneeded but its last record, as `listing` shows it: the records
    /// before `through` and the snapshots before it. Record `through` stays:
    /// the next writer checks that the record before its own is there (a
    /// writer behind finds it gone and counts its write as lost). The number
    /// of objects deleted.
    ///
    /// # Errors
    /// The store's errors.
    pub(super) fn trim(&self, listing: &Listing, through: u64) -> Result<usize> {
        self.delete_below(
            listing,
            through,
            through,
            "remote log metadata before a partition's newest snapshot",
        )
    }

    /// Deletes the records of `listing` below `records` and its snapshots
    /// below `snapshots` (`what` names them in errors); the number deleted.
    fn delete_below(
        &self,
        listing: &Listing,
        records: u64,
        snapshots: u64,
        what: &'static str,
    ) -> Result<usize> {
        let mut doomed = Vec::new();
        for sequence in listing.records.iter().filter(|s| **s < records) {
            doomed.push(
                self.keys
                    .record(&self.store, *sequence)
                    .map_err(spi_error)?,
            );
        }
        for through in listing.snapshots.iter().filter(|t| **t < snapshots) {
            doomed.push(
                self.keys
                    .snapshot(&self.store, *through)
                    .map_err(spi_error)?,
            );
        }
        delete_objects(&self.store, doomed, what)
    }

    /// Deletes every object of the partition's directory (`listing`'s
    /// keys). The number of objects deleted.
    ///
    /// # Errors
    /// The store's errors.
    pub(super) fn erase(&self, listing: &Listing) -> Result<usize> {
        delete_objects(
            &self.store,
            listing.keys.clone(),
            "remote log metadata of a deleted partition",
        )
    }

    /// Writes `snapshot`, create-only; a snapshot already at its key holds
    /// the same state (it is a function of the records it includes), so
    /// losing that race is success.
    ///
    /// # Errors
    /// The store's errors, and the encoder's.
    pub(super) fn write_snapshot(&self, snapshot: &MetadataSnapshot) -> Result<()> {
        let key = self
            .keys
            .snapshot(&self.store, snapshot.through)
            .map_err(spi_error)?;
        self.create(key, encode_snapshot(snapshot)?).map(|_| ())
    }

    /// One create-only PUT of `bytes` at `key`.
    ///
    /// # Errors
    /// The store's errors, but not that the key exists: that is
    /// [`Written::Lost`].
    fn create(&self, key: Path, bytes: Vec<u8>) -> Result<Written> {
        let inner = Arc::clone(self.store.store());
        let put = self.store.runtime().run(async move {
            create_only_put(
                inner.as_ref(),
                &key,
                Bytes::from(bytes),
                &CancellationToken::new(),
            )
            .await
        });
        match put.map_err(spi_error)? {
            Ok(_) => Ok(Written::Created),
            Err(err) if err.class() == StoreErrorClass::AlreadyExists => Ok(Written::Lost),
            Err(err) => Err(spi_error(err)),
        }
    }

    /// The whole object at `key` if it exists and is at most `max` bytes.
    ///
    /// # Errors
    /// The store's errors; an object larger than `max`.
    fn fetch(&self, key: Path, max: usize) -> Result<Option<Vec<u8>>> {
        let inner: Arc<dyn ObjectStore> = Arc::clone(self.store.store());
        let fetched = self
            .store
            .runtime()
            .run(async move { get_whole(inner.as_ref(), &key, max).await });
        fetched.map_err(spi_error)?.map_err(spi_error)
    }
}

/// Deletes `keys` from `store` (`what` names them in errors); the number
/// deleted.
///
/// # Errors
/// The store's errors.
pub(super) fn delete_objects(
    store: &StoreHandle,
    keys: Vec<Path>,
    what: &'static str,
) -> Result<usize> {
    let count = keys.len();
    if count == 0 {
        return Ok(0);
    }
    let inner = Arc::clone(store.store());
    store
        .runtime()
        .run(async move { delete_keys(inner, keys, what).await })
        .map_err(spi_error)?
        .map_err(spi_error)?;
    Ok(count)
}

/// The whole object at `key` in `store` if it exists and is at most `max`
/// bytes.
pub(super) async fn get_whole(
    store: &dyn ObjectStore,
    key: &Path,
    max: usize,
) -> std::result::Result<Option<Vec<u8>>, StoreError> {
    let result = match store.get(key).await {
        Ok(result) => result,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(err) => return Err(to_store_error(err, "read of", key.as_ref())),
    };
    if usize::try_from(result.meta.size).unwrap_or(usize::MAX) > max {
        return Err(StoreError::InvalidArgument(format!(
            "`{key}` is {} bytes (valid: at most {max})",
            result.meta.size
        )));
    }
    let bytes = result
        .bytes()
        .await
        .map_err(|err| to_store_error(err, "read of", key.as_ref()))?;
    Ok(Some(bytes.to_vec()))
}
