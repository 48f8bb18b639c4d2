//! Reading and writing one partition's history in the store: records at
//! their sequence keys, written create-only, and snapshots. Every object is
//! small and written once; nothing here ever deletes or replaces one.

use {
    super::keys::{PartitionKeys, key_sequence},
    crate::store_bridge::spi_error,
    bytes::Bytes,
    futures_util::{StreamExt, TryStreamExt, stream},
    krabka_kafka::{
        MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES, MetadataRecord, MetadataSnapshot, RemoteStorageError,
        Result, TopicIdPartition, decode_record, decode_snapshot, encode_record, encode_snapshot,
    },
    krabka_object_store::store::{
        Path, StoreError, StoreErrorClass, StoreHandle, errors::to_store_error,
        upload::create_only_put,
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

    /// The records after `after` that a listing of the records shows, up to
    /// the first gap, read `READ_AHEAD` at a time: one listing and a few
    /// round trips instead of one read after the other, for a restarted
    /// broker replaying a tail. The listing may miss the newest records (a
    /// writer racing it); [`read_record`](Self::read_record) continues from
    /// where this stops.
    ///
    /// # Errors
    /// As [`read_record`](Self::read_record), and the listing's errors.
    pub(super) fn read_listed_records(&self, after: u64) -> Result<Vec<MetadataRecord>> {
        let dir = self.keys.record_dir(&self.store).map_err(spi_error)?;
        let start_after = self.keys.record(&self.store, after).map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let listed = self.store.runtime().block_on(async move {
            let mut sequences = Vec::new();
            let mut listing = store.list_with_offset(Some(&dir), &start_after);
            while let Some(meta) = listing
                .try_next()
                .await
                .map_err(|err| to_store_error(err, "listing of", dir.as_ref()))?
            {
                sequences.extend(key_sequence(&meta.location).filter(|s| *s > after));
            }
            Ok(sequences)
        });
        let mut sequences = listed.map_err(spi_error)?;
        sequences.sort_unstable();
        let run = sequences
            .iter()
            .zip(after + 1..)
            .take_while(|(listed, wanted)| *listed == wanted)
            .count();
        let keys = sequences[..run]
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
        let mut records = Vec::with_capacity(run);
        for (sequence, key, bytes) in fetched.map_err(spi_error)? {
            // Listed, then gone: only a store that lost an object does that;
            // the records up to it are still a prefix of the history.
            let Some(bytes) = bytes.map_err(spi_error)? else {
                break;
            };
            records.push(self.decode_record_at(&key, sequence, &bytes)?);
        }
        Ok(records)
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

    /// The snapshot with the highest `through`, if there is one.
    ///
    /// # Errors
    /// The store's errors; [`RemoteStorageError::Corrupt`] for a snapshot
    /// that is not what its key says.
    pub(super) fn latest_snapshot(&self) -> Result<Option<MetadataSnapshot>> {
        let dir = self.keys.snapshot_dir(&self.store).map_err(spi_error)?;
        let store = Arc::clone(self.store.store());
        let listed = self.store.runtime().block_on(async move {
            let mut newest = None;
            let mut listing = store.list(Some(&dir));
            while let Some(meta) = listing
                .try_next()
                .await
                .map_err(|err| to_store_error(err, "listing of", dir.as_ref()))?
            {
                newest = newest.max(key_sequence(&meta.location));
            }
            Ok(newest)
        });
        let Some(through) = listed.map_err(spi_error)? else {
            return Ok(None);
        };
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
    fn create(&self, key: Path, bytes: Vec<u8>) -> Result<Written> {
        let store = Arc::clone(self.store.store());
        let put = self.store.runtime().run(async move {
            create_only_put(
                store.as_ref(),
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
    fn fetch(&self, key: Path, max: usize) -> Result<Option<Vec<u8>>> {
        let store: Arc<dyn ObjectStore> = Arc::clone(self.store.store());
        let fetched = self
            .store
            .runtime()
            .run(async move { get_whole(store.as_ref(), &key, max).await });
        fetched.map_err(spi_error)?.map_err(spi_error)
    }
}

/// The whole object at `key` in `store` if it exists and is at most `max`
/// bytes.
async fn get_whole(
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
