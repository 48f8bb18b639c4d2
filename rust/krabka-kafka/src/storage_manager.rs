//! The `RemoteStorageManager` SPI: copying, fetching and deleting segment
//! data and indexes on the remote tier.

pub use crate::codec::{
    PartitionDirName, SegmentFileName, decode_kafka_uuid, kafka_uuid, parse_partition_dir_name,
    parse_segment_file_name, partition_dir_name, segment_file_name,
};
use {
    crate::{CancellationToken, CustomMetadata, RemoteLogSegmentMetadata, Result},
    bytes::Bytes,
    serde::{Deserialize, Serialize},
    std::{io::Read, path::PathBuf},
};

/// Suffix of a segment's log file.
pub const LOG_FILE_SUFFIX: &str = ".log";

/// The indexes Kafka keeps beside a segment (Kafka's
/// `RemoteStorageManager.IndexType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum IndexType {
    /// Offset index (`.index`): relative offset → byte position.
    Offset,
    /// Time index (`.timeindex`): timestamp → relative offset.
    Timestamp,
    /// Producer state snapshot (`.snapshot`).
    ProducerSnapshot,
    /// Leader-epoch checkpoint text (`.leader_epoch_checkpoint`).
    LeaderEpoch,
    /// Aborted-transaction index (`.txnindex`); optional.
    Transaction,
}

impl IndexType {
    /// Every index type.
    pub const ALL: [Self; 5] = [
        Self::Offset,
        Self::Timestamp,
        Self::ProducerSnapshot,
        Self::LeaderEpoch,
        Self::Transaction,
    ];

    /// The file suffix Kafka's `LocalTieredStorage` uses for this index.
    ///
    /// ```
    /// use krabka_kafka::IndexType;
    /// assert_eq!(IndexType::Offset.suffix(), ".index");
    /// assert_eq!(IndexType::from_suffix(".txnindex"), Some(IndexType::Transaction));
    /// assert_eq!(IndexType::from_suffix(".log"), None);
    /// ```
    #[must_use]
    pub const fn suffix(self) -> &'static str {
        match self {
            Self::Offset => ".index",
            Self::Timestamp => ".timeindex",
            Self::ProducerSnapshot => ".snapshot",
            Self::LeaderEpoch => ".leader_epoch_checkpoint",
            Self::Transaction => ".txnindex",
        }
    }

    /// The index type with exactly this suffix (case-sensitive).
    #[must_use]
    pub fn from_suffix(suffix: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|index| index.suffix() == suffix)
    }

    /// Kafka's enum constant name (`OFFSET`, `TIMESTAMP`, …).
    #[must_use]
    pub const fn kafka_name(self) -> &'static str {
        match self {
            Self::Offset => "OFFSET",
            Self::Timestamp => "TIMESTAMP",
            Self::ProducerSnapshot => "PRODUCER_SNAPSHOT",
            Self::LeaderEpoch => "LEADER_EPOCH",
            Self::Transaction => "TRANSACTION",
        }
    }
}

/// The files of a closed local segment, as the broker hands them to a copy
/// (Kafka's `LogSegmentData`).
///
/// The paths point at the broker's live files: a copy reads them completely
/// before it returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSegmentData {
    /// The `.log` file.
    pub log_segment: PathBuf,
    /// The `.index` file.
    pub offset_index: PathBuf,
    /// The `.timeindex` file.
    pub time_index: PathBuf,
    /// The `.txnindex` file, present only when the broker has one.
    pub transaction_index: Option<PathBuf>,
    /// The producer snapshot (`.snapshot`) file, when there is one.
    pub producer_snapshot_index: Option<PathBuf>,
    /// The leader-epoch checkpoint text, passed in memory.
    pub leader_epoch_index: Bytes,
}

/// A stream of segment bytes returned by
/// [`RemoteStorageManager::fetch_log_segment`]. Dropping it early stops the
/// transfer.
pub type SegmentReader = Box<dyn Read + Send>;

/// Copies, fetches and deletes segment data on the remote tier (Kafka's
/// `RemoteStorageManager`).
///
/// # Contract
///
/// - **Synchronous and thread-safe.** Every method blocks until done and may
///   be called from many threads at once, as Kafka's copier, reader,
///   expiration and follower threads do.
/// - **Keys from metadata alone.** Every location derives from the segment
///   metadata, so a broker that did not copy a segment can fetch it.
/// - **Copy** reads the local files completely and returns only when the
///   segment and its indexes are durable and readable from any broker. A
///   copy of a segment that already exists overwrites it (except on a
///   write-once archive). The returned [`CustomMetadata`] is stored by Kafka
///   with the segment.
/// - **Fetch** positions are byte positions in the original `.log` file.
///   `start_position` is inclusive; `end_position`, when given, is
///   **inclusive** and clamped to the segment's last byte; without it the
///   stream runs to the end. `start_position` equal to the segment length
///   yields an empty stream; past it, or `end_position < start_position`, is
///   [`RemoteStorageError::InvalidArgument`](crate::RemoteStorageError::InvalidArgument).
///   The result is a stream: reading a prefix never reads or buffers the rest.
/// - **Missing data** — a segment, or any index including the optional
///   transaction index — is [`RemoteStorageError::NotFound`](crate::RemoteStorageError::NotFound).
/// - **Cancellation**: a copy given a [`CancellationToken`] stops soon
///   after the token is cancelled, removes what it wrote where the tier may
///   delete, and fails with
///   [`RemoteStorageError::Cancelled`](crate::RemoteStorageError::Cancelled).
/// - **Delete** is idempotent: deleting what is already gone succeeds. A tier
///   that must keep data (a write-once archive) answers
///   [`DeleteOutcome::RetainedByArchive`] instead of an error: the delete is
///   complete as far as Kafka is concerned, and the bytes stay.
pub trait RemoteStorageManager: Send + Sync {
    /// Copies a closed local segment and all its indexes to the remote tier,
    /// stopping early when `cancel` is cancelled.
    ///
    /// # Errors
    /// Any [`RemoteStorageError`](crate::RemoteStorageError), `Cancelled`
    /// after a cancel; nothing partial is visible as a complete segment after
    /// a failure.
    fn copy_log_segment_data_cancellable(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> Result<Option<CustomMetadata>>;

    /// Copies a closed local segment and all its indexes to the remote tier:
    /// [`RemoteStorageManager::copy_log_segment_data_cancellable`] with a
    /// token nobody cancels.
    ///
    /// # Errors
    /// Those of `copy_log_segment_data_cancellable`.
    fn copy_log_segment_data(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
    ) -> Result<Option<CustomMetadata>> {
        self.copy_log_segment_data_cancellable(metadata, segment, &CancellationToken::new())
    }

    /// Streams the segment's bytes from `start_position` to `end_position`
    /// (inclusive) or to the end.
    ///
    /// # Errors
    /// `NotFound` when the segment is absent, `InvalidArgument` for positions
    /// outside the segment.
    fn fetch_log_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start_position: u64,
        end_position: Option<u64>,
    ) -> Result<SegmentReader>;

    /// Returns one whole index of the segment.
    ///
    /// # Errors
    /// `NotFound` when the segment or that index is absent.
    fn fetch_index(&self, metadata: &RemoteLogSegmentMetadata, index: IndexType)
    -> Result<Vec<u8>>;

    /// Deletes the segment's data and indexes; succeeds when they are
    /// already gone. Says whether the bytes are gone or kept by the tier.
    ///
    /// # Errors
    /// A backend failure.
    fn delete_log_segment_data(&self, metadata: &RemoteLogSegmentMetadata)
    -> Result<DeleteOutcome>;
}

/// What [`RemoteStorageManager::delete_log_segment_data`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeleteOutcome {
    /// The segment's objects are gone (or were already).
    Deleted,
    /// The tier is a write-once archive: the objects stay until the store's
    /// retention releases them. Kafka may forget the segment; nothing is
    /// lost and nothing is wrong.
    RetainedByArchive {
        /// Why the objects stay, for the operator's log.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_are_exact_and_invertible() {
        for index in IndexType::ALL {
            assert_eq!(IndexType::from_suffix(index.suffix()), Some(index));
        }
        for bad in [".log", "", ".INDEX", "index", ".timeindex2"] {
            assert_eq!(IndexType::from_suffix(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn spi_traits_are_object_safe_and_thread_safe() {
        fn assert_send_sync<T: Send + Sync + ?Sized>() {}
        assert_send_sync::<dyn RemoteStorageManager>();
        assert_send_sync::<dyn crate::RemoteLogMetadataManager>();
    }
}
