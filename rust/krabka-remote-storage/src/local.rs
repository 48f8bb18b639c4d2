//! `LocalTieredStorage`: a filesystem [`RemoteStorageManager`],
//! byte-compatible with Apache Kafka's own `LocalTieredStorage`.

use {
    crate::{
        chunked::{self, ChunkedFormat, ENVELOPE_SUFFIX, SegmentFormat, envelope_error},
        fs_publish,
    },
    krabka_envelope::{ObjectKind, SegmentCodec, SegmentSealer},
    krabka_kafka::{
        CancellationToken, CustomMetadata, DeleteOutcome, IndexType, LOG_FILE_SUFFIX,
        LogSegmentData, RemoteLogSegmentMetadata, RemoteStorageError, RemoteStorageManager, Result,
        SegmentReader, kafka_uuid, partition_dir_name, segment_file_name,
    },
    std::{
        fs::{self, File},
        io::{self, Read, Seek, SeekFrom},
        path::{Path, PathBuf},
        sync::Arc,
    },
};

/// Longest topic name Kafka accepts.
const MAX_TOPIC_LEN: usize = 249;

/// Largest buffer reserved up front for an index read; larger indexes grow
/// the buffer as they are read.
const MAX_INDEX_PREALLOC: u64 = 16 * 1024 * 1024;

/// The order in which a copy publishes a segment's files: every index, then
/// the `.log`, whose presence makes the segment visible.
const COPY_ORDER: [IndexType; 5] = [
    IndexType::Offset,
    IndexType::Timestamp,
    IndexType::Transaction,
    IndexType::ProducerSnapshot,
    IndexType::LeaderEpoch,
];

/// A filesystem [`RemoteStorageManager`] storing each segment as plain files
/// under `root`, in the layout of Kafka's own `LocalTieredStorage`.
///
/// Thread-safe and stateless: every location derives from the segment
/// metadata, so two instances on the same root (or a Kafka broker running
/// Kafka's implementation on it) see the same segments.
///
/// # Layout
///
/// ```text
/// <root>/<topic>-<partition>-<topicId>/<offset:020>-<segmentId>.log
///                                     /<offset:020>-<segmentId>.index
///                                     /<offset:020>-<segmentId>.timeindex
///                                     /<offset:020>-<segmentId>.txnindex                 (when the broker has one)
///                                     /<offset:020>-<segmentId>.snapshot                 (when the broker has one)
///                                     /<offset:020>-<segmentId>.leader_epoch_checkpoint
/// ```
///
/// Kafka's `LocalTieredStorage` (the `RemoteTopicPartitionDirectory` and
/// `RemoteLogSegmentFileset` test classes) uses the same names and suffixes,
/// with `<remote.log.storage.local.dir>/kafka-tiered-storage` as its root
/// ([`LocalTieredStorage::KAFKA_STORAGE_DIR_NAME`]): to share a tier with it,
/// pass that directory as `root`. Two differences, neither of which a Kafka
/// reader notices: Kafka skips the leader-epoch file when the checkpoint
/// bytes are empty while this tier always writes it (possibly empty), and
/// this tier never leaves a file of a failed copy behind. A crash in the
/// middle of a copy can leave a staging file (`.<file name>.<random>.tmp`)
/// beside the segment's files: this tier never reads one, and deleting the
/// segment removes it (Kafka's test-only `traverse` would reject the name).
///
/// # Visibility
///
/// Every file is published through the crate's staging helper (stage, fsync,
/// rename, fsync the directory), so no file is ever partial under its final
/// name. A copy publishes the indexes first and the `.log` **last**: a
/// segment exists exactly when its `.log` does. [`fetch_log_segment`] opens
/// only the `.log`, and [`fetch_index`] answers `NotFound` while the `.log`
/// is absent, so a copy in progress, a failed copy or a crash mid-copy never
/// shows a segment with missing indexes. A re-copy of an existing segment
/// first removes its `.log`, hiding the old segment until the new one is
/// complete (a failed re-copy leaves the segment absent, which Kafka treats
/// like a failed copy). Kafka never re-copies under the same segment id
/// (each attempt gets a new id), so the overlap where a concurrent index
/// fetch sees a new index of a hidden segment does not arise in practice.
///
/// [`fetch_log_segment`]: RemoteStorageManager::fetch_log_segment
/// [`fetch_index`]: RemoteStorageManager::fetch_index
#[derive(Debug, Clone)]
pub struct LocalTieredStorage {
    root: PathBuf,
    format: Arc<ChunkedFormat>,
}

/// Where one segment's files live.
#[derive(Debug)]
struct SegmentLayout {
    dir: PathBuf,
    /// Every file name of the segment without its suffix:
    /// `<offset:020>-<segmentId>`.
    stem: String,
}

impl SegmentLayout {
    fn name(&self, suffix: &str) -> String {
        format!("{}{suffix}", self.stem)
    }

    fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(self.name(suffix))
    }

    /// The names of every file a segment may have, `.log` first, its
    /// envelope last.
    fn all_names(&self) -> Vec<String> {
        std::iter::once(LOG_FILE_SUFFIX)
            .chain(COPY_ORDER.iter().map(|index| index.suffix()))
            .chain(std::iter::once(ENVELOPE_SUFFIX))
            .map(|suffix| self.name(suffix))
            .collect()
    }
}

impl LocalTieredStorage {
    /// Name of the directory Kafka's `LocalTieredStorage` creates under its
    /// `remote.log.storage.local.dir` and uses as its root.
    pub const KAFKA_STORAGE_DIR_NAME: &'static str = "kafka-tiered-storage";

    /// A tier rooted at `root`. Nothing is created until the first copy; a
    /// missing root simply holds no segments.
    #[must_use]
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            format: Arc::default(),
        }
    }

    /// This tier writing new segments with `codec`: Kafka's plain bytes
    /// (the default), or the chunked format, compressed and/or encrypted
    /// (see [`krabka_envelope`]). Whatever it writes, the tier reads both
    /// formats, each segment by what it holds; encrypted segments need the
    /// codec's keys.
    ///
    /// # Errors
    /// [`RemoteStorageError::Config`] for invalid codec settings.
    pub fn with_codec(self, codec: SegmentCodec) -> Result<Self> {
        Ok(Self {
            root: self.root,
            format: Arc::new(ChunkedFormat::new(codec)?),
        })
    }

    /// The root directory.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of the segment's file with `suffix` (`.log` or an
    /// [`IndexType::suffix`]), whether or not it exists.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] when the topic name is not a
    /// legal Kafka topic name (which also keeps every path inside the root)
    /// or the partition is negative.
    pub fn segment_path(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        suffix: &str,
    ) -> Result<PathBuf> {
        Ok(self.layout(metadata)?.path(suffix))
    }

    fn layout(&self, metadata: &RemoteLogSegmentMetadata) -> Result<SegmentLayout> {
        let tp = metadata.topic_id_partition();
        check_topic_name(&tp.topic)?;
        if tp.partition < 0 {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "partition {} of topic `{}` must not be negative",
                tp.partition, tp.topic
            )));
        }
        Ok(SegmentLayout {
            dir: self.root.join(partition_dir_name(metadata)),
            stem: segment_file_name(metadata, ""),
        })
    }

    fn copy_files(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        layout: &SegmentLayout,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let log = layout.path(LOG_FILE_SUFFIX);
        // Kafka records the segment as copied once this returns: a new
        // partition directory (and the root, on the first copy) must survive a
        // power loss as surely as the files published into it.
        fs_publish::create_dir_all_durable(&layout.dir)?;
        // A re-copy hides the old segment first, so no reader pairs the old
        // log with new indexes for longer than one index fetch.
        if remove_if_present(&log)? {
            fs_publish::sync_dir(&layout.dir)?;
        }
        remove_if_present(&layout.path(ENVELOPE_SUFFIX))?;
        if !self.format.codec().writes_plain() {
            return self.copy_chunked(metadata, layout, segment, cancel);
        }
        for index in COPY_ORDER {
            let target = layout.path(index.suffix());
            let source = match index {
                IndexType::Offset => Some(segment.offset_index.as_path()),
                IndexType::Timestamp => Some(segment.time_index.as_path()),
                IndexType::Transaction => segment.transaction_index.as_deref(),
                IndexType::ProducerSnapshot => segment.producer_snapshot_index.as_deref(),
                IndexType::LeaderEpoch => {
                    fs_publish::publish_bytes(&target, &segment.leader_epoch_index)?;
                    continue;
                }
            };
            match source {
                Some(source) => {
                    fs_publish::publish_file(&target, source, cancel)?;
                }
                // An optional index absent from this copy must not survive
                // from an earlier copy of the same segment.
                None => {
                    remove_if_present(&target)?;
                }
            }
        }
        let bytes = fs_publish::publish_file(&log, &segment.log_segment, cancel)?;
        // A cancel that lands as the log is published still cancels: the
        // caller removes the segment.
        cancel.check(|| format!("copy of {}", log.display()))?;
        tracing::debug!(bytes, path = %log.display(), "segment published");
        Ok(())
    }

    /// Copies the segment in the chunked format: every index encoded, the
    /// log encoded into a staging file, then the envelope, then the log
    /// published (last, as in the plain format).
    fn copy_chunked(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        layout: &SegmentLayout,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let id = metadata.remote_log_segment_id().id;
        let sealer = SegmentSealer::new(self.format.codec(), id).map_err(envelope_error)?;
        let mut objects = Vec::new();
        for index in COPY_ORDER {
            let target = layout.path(index.suffix());
            let kind = chunked::index_kind(index);
            let source: Box<dyn Read> = match index {
                IndexType::Offset => Box::new(open_source(&segment.offset_index)?),
                IndexType::Timestamp => Box::new(open_source(&segment.time_index)?),
                IndexType::Transaction | IndexType::ProducerSnapshot => {
                    let path = match index {
                        IndexType::Transaction => segment.transaction_index.as_deref(),
                        _ => segment.producer_snapshot_index.as_deref(),
                    };
                    match path {
                        Some(path) => Box::new(open_source(path)?),
                        None => {
                            remove_if_present(&target)?;
                            continue;
                        }
                    }
                }
                IndexType::LeaderEpoch => {
                    Box::new(io::Cursor::new(segment.leader_epoch_index.clone()))
                }
            };
            let (mut encoder, report) = sealer.encoder(kind, source);
            fs_publish::stage_reader(&target, &mut encoder, &target)
                .map_err(|err| cancelled_or(cancel, metadata, err))?
                .commit()?;
            objects.push(report.take(kind, id).map_err(envelope_error)?);
        }
        cancel.check(|| format!("copy of {}", metadata.remote_log_segment_id()))?;
        let log = layout.path(LOG_FILE_SUFFIX);
        let (mut encoder, report) = sealer.encoder(
            ObjectKind::Log,
            CancelCheckedRead::new(open_source(&segment.log_segment)?, cancel),
        );
        let staged = fs_publish::stage_reader(&log, &mut encoder, &segment.log_segment)
            .map_err(|err| cancelled_or(cancel, metadata, err))?;
        objects.insert(0, report.take(ObjectKind::Log, id).map_err(envelope_error)?);
        let envelope = sealer.envelope(objects).encode();
        fs_publish::publish_bytes(&layout.path(ENVELOPE_SUFFIX), &envelope)?;
        cancel.check(|| format!("copy of {}", metadata.remote_log_segment_id()))?;
        let stored = staged.len();
        staged.commit()?;
        tracing::debug!(stored, path = %log.display(), "chunked segment published");
        Ok(())
    }

    /// The format of the segment, from its envelope file (none: plain).
    fn format_of(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        layout: &SegmentLayout,
    ) -> Result<SegmentFormat> {
        self.format.format_of(metadata, || {
            let path = layout.path(ENVELOPE_SUFFIX);
            match fs::read(&path) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(err) => Err(RemoteStorageError::io("read", path, err)),
            }
        })
    }

    /// Removes every file of the segment (`.log` first, hiding it), the
    /// staging files a crash left for them, and the partition directory when
    /// it is left empty.
    fn remove_segment(&self, layout: &SegmentLayout) -> Result<()> {
        let names = layout.all_names();
        for name in &names {
            remove_if_present(&layout.dir.join(name))?;
        }
        fs_publish::remove_stale_staging(&layout.dir, &names)?;
        match fs_publish::sync_dir(&layout.dir) {
            Ok(()) => {}
            Err(RemoteStorageError::Io { source, .. })
                if source.kind() == io::ErrorKind::NotFound =>
            {
                return Ok(());
            }
            Err(err) => return Err(err),
        }
        // Best effort: another segment's copy may be filling the directory
        // right now, or another delete may have removed it already.
        match fs::remove_dir(&layout.dir) {
            Ok(()) => {
                if let Err(err) = fs_publish::sync_dir(&self.root) {
                    tracing::debug!(error = %err, "could not fsync the tier root");
                }
            }
            Err(err) => {
                tracing::trace!(error = %err, dir = %layout.dir.display(),
                    "partition directory kept");
            }
        }
        Ok(())
    }
}

impl RemoteStorageManager for LocalTieredStorage {
    #[tracing::instrument(
        name = "local_tier.copy",
        level = "debug",
        skip_all,
        fields(
            topic = %metadata.topic_id_partition().topic,
            partition = metadata.topic_id_partition().partition,
            segment = %kafka_uuid(metadata.remote_log_segment_id().id),
            start_offset = metadata.start_offset(),
        )
    )]
    fn copy_log_segment_data_cancellable(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>> {
        let layout = self.layout(metadata)?;
        self.format.forget(metadata);
        if let Err(err) = self.copy_files(metadata, &layout, segment, cancel) {
            // Like Kafka's implementation, leave no file of a failed copy.
            if let Err(cleanup) = self.remove_segment(&layout) {
                tracing::warn!(error = %cleanup, "could not clean up after a failed copy");
            }
            tracing::warn!(error = %err, "segment copy failed");
            return Err(err);
        }
        Ok(self.format.copy_metadata())
    }

    #[tracing::instrument(
        name = "local_tier.fetch_segment",
        level = "debug",
        skip_all,
        fields(
            topic = %metadata.topic_id_partition().topic,
            partition = metadata.topic_id_partition().partition,
            segment = %kafka_uuid(metadata.remote_log_segment_id().id),
            start_position,
            end_position,
        )
    )]
    fn fetch_log_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start_position: u64,
        end_position: Option<u64>,
    ) -> Result<SegmentReader> {
        if let Some(end) = end_position {
            if end < start_position {
                return Err(RemoteStorageError::InvalidArgument(format!(
                    "end_position {end} < start_position {start_position}"
                )));
            }
        }
        let layout = self.layout(metadata)?;
        let path = layout.path(LOG_FILE_SUFFIX);
        let mut file = open_existing(&path, || {
            format!("log of {}", metadata.remote_log_segment_id())
        })?;
        if let SegmentFormat::Chunked(opened) = self.format_of(metadata, &layout)? {
            let size = opened
                .original_size(ObjectKind::Log)
                .map_err(envelope_error)?;
            if start_position > size {
                return Err(RemoteStorageError::InvalidArgument(format!(
                    "start_position {start_position} exceeds segment length {size}"
                )));
            }
            let end = chunked::exclusive_end(end_position);
            let span = opened
                .span(ObjectKind::Log, start_position, end)
                .map_err(envelope_error)?;
            if span.stored.is_empty() {
                return Ok(Box::new(io::empty()));
            }
            // Each chunk from the tier's decoded chunks when held, otherwise
            // from the file, from that chunk to the span's end.
            let stored_end = span.stored.end;
            let open_at = move |file: &mut File, at: u64| -> io::Result<io::Take<File>> {
                file.seek(SeekFrom::Start(at))?;
                Ok(file.try_clone()?.take(stored_end - at))
            };
            let first = open_at(&mut file, span.stored.start)
                .map_err(|err| RemoteStorageError::io("seek", &path, err))?;
            let first_cached = self.format.decoded().get(&krabka_envelope::ChunkId {
                segment: opened.segment(),
                kind: ObjectKind::Log,
                chunk: span.chunks.start,
            });
            let reader = opened
                .cached_range_reader(
                    ObjectKind::Log,
                    (start_position, end),
                    Arc::clone(self.format.decoded()),
                    first_cached.is_none().then_some(first),
                    move |at| open_at(&mut file, at),
                )
                .map_err(envelope_error)?;
            return Ok(Box::new(reader));
        }
        let len = file
            .metadata()
            .map_err(|err| RemoteStorageError::io("stat", &path, err))?
            .len();
        if start_position > len {
            return Err(RemoteStorageError::InvalidArgument(format!(
                "start_position {start_position} exceeds segment length {len}"
            )));
        }
        let Some(last) = len.checked_sub(1).filter(|_| start_position < len) else {
            // start_position == len: nothing to read.
            return Ok(Box::new(io::empty()));
        };
        let end = end_position.map_or(last, |end| end.min(last));
        let count = end - start_position + 1;
        file.seek(SeekFrom::Start(start_position))
            .map_err(|err| RemoteStorageError::io("seek", &path, err))?;
        Ok(Box::new(file.take(count)))
    }

    #[tracing::instrument(
        name = "local_tier.fetch_index",
        level = "debug",
        skip_all,
        fields(
            topic = %metadata.topic_id_partition().topic,
            partition = metadata.topic_id_partition().partition,
            segment = %kafka_uuid(metadata.remote_log_segment_id().id),
            index = index.kafka_name(),
        )
    )]
    fn fetch_index(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        index: IndexType,
    ) -> Result<Vec<u8>> {
        let layout = self.layout(metadata)?;
        let log = layout.path(LOG_FILE_SUFFIX);
        match fs::symlink_metadata(&log) {
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Err(RemoteStorageError::not_found(
                    metadata.remote_log_segment_id().to_string(),
                ));
            }
            Err(err) => return Err(RemoteStorageError::io("stat", log, err)),
        }
        let path = layout.path(index.suffix());
        let mut file = open_existing(&path, || {
            format!(
                "{} index of {}",
                index.kafka_name(),
                metadata.remote_log_segment_id()
            )
        })?;
        let len = file
            .metadata()
            .map_err(|err| RemoteStorageError::io("stat", &path, err))?
            .len();
        let capacity = usize::try_from(len.min(MAX_INDEX_PREALLOC)).unwrap_or(0);
        let mut bytes = Vec::with_capacity(capacity);
        file.read_to_end(&mut bytes)
            .map_err(|err| RemoteStorageError::io("read", &path, err))?;
        match self.format_of(metadata, &layout)? {
            SegmentFormat::Plain => Ok(bytes),
            SegmentFormat::Chunked(opened) => opened
                .decode_object(chunked::index_kind(index), &bytes)
                .map_err(envelope_error),
        }
    }

    #[tracing::instrument(
        name = "local_tier.delete",
        level = "debug",
        skip_all,
        fields(
            topic = %metadata.topic_id_partition().topic,
            partition = metadata.topic_id_partition().partition,
            segment = %kafka_uuid(metadata.remote_log_segment_id().id),
        )
    )]
    fn delete_log_segment_data(
        &self,
        metadata: &RemoteLogSegmentMetadata,
    ) -> Result<DeleteOutcome> {
        let layout = self.layout(metadata)?;
        self.format.forget(metadata);
        self.remove_segment(&layout)?;
        Ok(DeleteOutcome::Deleted)
    }
}

/// Refuses what Kafka refuses as a topic name: empty, `.`, `..`, longer than
/// 249 bytes, or a character outside `[a-zA-Z0-9._-]`. This also keeps every
/// path of the tier inside its root.
fn check_topic_name(topic: &str) -> Result<()> {
    let legal = !topic.is_empty()
        && topic.len() <= MAX_TOPIC_LEN
        && topic != "."
        && topic != ".."
        && topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if legal {
        Ok(())
    } else {
        Err(RemoteStorageError::InvalidArgument(format!(
            "topic name {topic:?} is not a legal Kafka topic name (1 to {MAX_TOPIC_LEN} characters of [a-zA-Z0-9._-], not `.` or `..`)"
        )))
    }
}

/// Opens a file for reading; a missing file is `NotFound` for `resource`.
/// Opens a file of the broker's segment to copy it.
fn open_source(path: &Path) -> Result<File> {
    File::open(path).map_err(|err| RemoteStorageError::io("open", path, err))
}

/// A failed staging as the copy's outcome: cancelled once the token fired.
fn cancelled_or(
    cancel: &CancellationToken,
    metadata: &RemoteLogSegmentMetadata,
    err: RemoteStorageError,
) -> RemoteStorageError {
    match cancel.check(|| format!("copy of {}", metadata.remote_log_segment_id())) {
        Err(cancelled) => cancelled,
        Ok(()) => err,
    }
}

/// A reader that fails once its copy is cancelled, checked every read.
struct CancelCheckedRead<'a, R> {
    inner: R,
    cancel: &'a CancellationToken,
}

impl<'a, R> CancelCheckedRead<'a, R> {
    fn new(inner: R, cancel: &'a CancellationToken) -> Self {
        Self { inner, cancel }
    }
}

impl<R: Read> Read for CancelCheckedRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(io::Error::other("the copy was cancelled"));
        }
        self.inner.read(buf)
    }
}

fn open_existing(path: &Path, resource: impl FnOnce() -> String) -> Result<File> {
    File::open(path).map_err(|err| {
        if err.kind() == io::ErrorKind::NotFound {
            RemoteStorageError::not_found(resource())
        } else {
            RemoteStorageError::io("open", path, err)
        }
    })
}

/// Removes a file; `Ok(false)` when it was already absent.
fn remove_if_present(path: &Path) -> Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(RemoteStorageError::io("remove", path, err)),
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{
            RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentState, TopicIdPartition,
        },
        bytes::Bytes,
        krabka_ids::LeaderEpoch,
        std::collections::BTreeMap,
        uuid::Uuid,
    };

    /// A tiny segment of `partition` (files in `scratch`) and its metadata.
    fn segment_in(
        scratch: &Path,
        partition: &TopicIdPartition,
    ) -> (RemoteLogSegmentMetadata, LogSegmentData) {
        let id = RemoteLogSegmentId::new(partition.clone(), Uuid::new_v4());
        let details = RemoteLogSegmentDetails::new(
            3,
            RemoteLogSegmentState::CopySegmentStarted,
            BTreeMap::from([(LeaderEpoch(0), 0)]),
        );
        let metadata = RemoteLogSegmentMetadata::new(
            id,
            0,
            0,
            1_700_000_000_000,
            1,
            1_700_000_000_000,
            details,
        )
        .unwrap();
        fs::create_dir_all(scratch).unwrap();
        let put = |name: &str, bytes: &[u8]| {
            let path = scratch.join(name);
            fs::write(&path, bytes).unwrap();
            path
        };
        let segment = LogSegmentData {
            log_segment: put("s.log", b"log"),
            offset_index: put("s.index", b""),
            time_index: put("s.timeindex", b""),
            transaction_index: None,
            producer_snapshot_index: None,
            leader_epoch_index: Bytes::from_static(b"0\n1\n0 0\n"),
        };
        (metadata, segment)
    }

    #[test]
    fn a_first_copy_makes_the_new_root_and_partition_directory_durable() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("tier");
        let tier = LocalTieredStorage::new(root.clone());
        let partition = TopicIdPartition::new(Uuid::new_v4(), "orders", 0);
        let (metadata, segment) = segment_in(&base.path().join("scratch"), &partition);
        let dir = tier.layout(&metadata).unwrap().dir;

        let (result, synced) =
            fs_publish::sync_log::capture(|| tier.copy_log_segment_data(&metadata, &segment));
        result.unwrap();
        // The root's entry in its parent, the partition directory's entry in
        // the root, then one fsync of the partition directory per published
        // file (offset and time index, leader-epoch checkpoint, log).
        assert_eq!(synced[..2], [base.path().to_path_buf(), root.clone()]);
        assert_eq!(synced[2..], vec![dir.clone(); 4]);

        // A second segment of the partition finds both directories in place.
        let (metadata, segment) = segment_in(&base.path().join("scratch2"), &partition);
        let (result, synced) =
            fs_publish::sync_log::capture(|| tier.copy_log_segment_data(&metadata, &segment));
        result.unwrap();
        assert_eq!(synced, vec![dir; 4]);
    }

    #[test]
    fn topic_names_follow_kafka_rules() {
        for good in ["orders", "a.b_c-d", "x", &"t".repeat(249)] {
            assert!(check_topic_name(good).is_ok(), "{good:?}");
        }
        for bad in ["", ".", "..", "a/b", "../x", "a b", "é", &"t".repeat(250)] {
            assert!(
                matches!(
                    check_topic_name(bad),
                    Err(RemoteStorageError::InvalidArgument(_))
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn layout_lists_the_log_first() {
        let layout = SegmentLayout {
            dir: PathBuf::from("/r/t-0-x"),
            stem: "00000000000000000000-id".to_owned(),
        };
        let names = layout.all_names();
        assert_eq!(names.len(), 7);
        assert_eq!(names[0], "00000000000000000000-id.log");
        assert_eq!(names[6], "00000000000000000000-id.envelope");
        for index in IndexType::ALL {
            assert!(names.contains(&layout.name(index.suffix())), "{index:?}");
        }
    }
}
