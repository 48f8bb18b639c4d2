//! [`Subject`]: a tier under test with its [`Capabilities`], and the
//! assertions that expect what those capabilities declare.

use {
    super::Capabilities,
    crate::support::{
        SegmentFiles, assert_deleted, assert_invalid_argument, assert_not_found, assert_refused,
        ok, read_all, segment_metadata,
    },
    krabka_remote_storage::{
        DeleteOutcome, IndexType, RemoteLogSegmentMetadata, RemoteStorageError,
        RemoteStorageManager, SegmentReader, TopicIdPartition,
    },
};

/// How often a copy on a tier without concurrent copies may lose its
/// partition's chain position before the case gives up: each loss is another
/// copy's win (or one stale cached tip), and the busiest case has 12 copies.
const MAX_CHAIN_LOSSES: usize = 30;

/// A tier under test and what it declares it does.
#[derive(Clone, Copy)]
pub struct Subject<'a> {
    /// The tier.
    pub tier: &'a dyn RemoteStorageManager,
    /// What it declares.
    pub caps: Capabilities,
}

impl<'a> Subject<'a> {
    /// `tier`, declaring `caps`.
    pub fn new(tier: &'a dyn RemoteStorageManager, caps: Capabilities) -> Self {
        Self { tier, caps }
    }

    /// Copies `segment` under `metadata`; the copy must succeed.
    #[track_caller]
    pub fn copy(&self, metadata: &RemoteLogSegmentMetadata, segment: &SegmentFiles, what: &str) {
        ok(
            self.tier.copy_log_segment_data(metadata, &segment.data),
            what,
        );
    }

    /// Copies `segment` as a new segment of `partition` from `start` and
    /// returns its metadata. On a tier without concurrent copies, a copy
    /// that loses the partition's chain position is `Retryable` and is
    /// retried under a new segment id, as Kafka retries it.
    #[track_caller]
    pub fn copy_new(
        &self,
        partition: &TopicIdPartition,
        start: i64,
        segment: &SegmentFiles,
        what: &str,
    ) -> RemoteLogSegmentMetadata {
        for _ in 0..=MAX_CHAIN_LOSSES {
            let metadata = segment_metadata(partition, start, segment.log.len());
            match self.tier.copy_log_segment_data(&metadata, &segment.data) {
                Ok(_) => return metadata,
                Err(RemoteStorageError::Retryable { .. }) if !self.caps.concurrent_copies => {}
                Err(err) => panic!("{what}: {err:?}"),
            }
        }
        panic!("{what}: lost the partition's chain position {MAX_CHAIN_LOSSES} times in a row");
    }

    /// Opens `[start, end]` of the log. On a tier without fetches, asserts
    /// that the fetch is `Refused` and returns `None`.
    #[track_caller]
    pub fn open_log(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start: u64,
        end: Option<u64>,
        what: &str,
    ) -> Option<SegmentReader> {
        let result = self.tier.fetch_log_segment(metadata, start, end);
        if self.caps.fetches {
            Some(ok(result, &format!("{what}: fetch [{start}, {end:?}]")))
        } else {
            assert_refused(result, what);
            None
        }
    }

    /// Asserts that `[start, end]` of the log is exactly `expected` (`Refused`
    /// on a tier without fetches).
    #[track_caller]
    pub fn expect_log(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        start: u64,
        end: Option<u64>,
        expected: &[u8],
        what: &str,
    ) {
        if let Some(reader) = self.open_log(metadata, start, end, what) {
            assert_same_bytes(&read_all(reader), expected, what);
        }
    }

    /// Asserts that `index` is exactly `expected` (`Refused` on a tier
    /// without fetches).
    #[track_caller]
    pub fn expect_index(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        index: IndexType,
        expected: &[u8],
        what: &str,
    ) {
        let result = self.tier.fetch_index(metadata, index);
        if self.caps.fetches {
            assert_same_bytes(&ok(result, what), expected, what);
        } else {
            assert_refused(result, what);
        }
    }

    /// Asserts that a fetch's `result` is `NotFound` (`Refused` on a tier
    /// without fetches).
    #[track_caller]
    pub fn expect_not_found<T>(&self, result: Result<T, RemoteStorageError>, what: &str) {
        if self.caps.fetches {
            assert_not_found(result, what);
        } else {
            assert_refused(result, what);
        }
    }

    /// Asserts that a fetch's `result` is `InvalidArgument` (`Refused` on a
    /// tier without fetches, which refuses before looking at positions).
    #[track_caller]
    pub fn expect_invalid_argument<T>(&self, result: Result<T, RemoteStorageError>, what: &str) {
        if self.caps.fetches {
            assert_invalid_argument(result, what);
        } else {
            assert_refused(result, what);
        }
    }

    /// Asserts that the segment holds exactly `segment`: its log and every
    /// index, an optional index it lacks `NotFound`.
    #[track_caller]
    pub fn expect_segment(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &SegmentFiles,
        what: &str,
    ) {
        self.expect_log(metadata, 0, None, &segment.log, &format!("{what}: log"));
        for index in IndexType::ALL {
            let what = format!("{what}: {index:?}");
            match segment.index(index) {
                Some(expected) => self.expect_index(metadata, index, expected, &what),
                None => self.expect_not_found(self.tier.fetch_index(metadata, index), &what),
            }
        }
    }

    /// Asserts that nothing of the segment can be fetched: neither the log,
    /// whole or ranged, nor any index.
    #[track_caller]
    pub fn expect_unknown(&self, metadata: &RemoteLogSegmentMetadata, what: &str) {
        self.expect_not_found(
            self.tier.fetch_log_segment(metadata, 0, None),
            &format!("{what}: log"),
        );
        self.expect_not_found(
            self.tier.fetch_log_segment(metadata, 0, Some(10)),
            &format!("{what}: ranged log"),
        );
        for index in IndexType::ALL {
            self.expect_not_found(
                self.tier.fetch_index(metadata, index),
                &format!("{what}: {index:?}"),
            );
        }
    }

    /// Deletes the segment and asserts the outcome the tier declares:
    /// `Deleted`, or `RetainedByArchive` on a tier without deletes.
    #[track_caller]
    pub fn delete(&self, metadata: &RemoteLogSegmentMetadata, what: &str) {
        let result = self.tier.delete_log_segment_data(metadata);
        if self.caps.deletes {
            assert_deleted(result, what);
        } else {
            let outcome = ok(result, what);
            assert!(
                matches!(outcome, DeleteOutcome::RetainedByArchive { .. }),
                "{what}: expected RetainedByArchive, got {outcome:?}"
            );
        }
    }

    /// After a delete of the copied `segment`: nothing of it is left on a
    /// tier that deletes; a tier that retains still serves all of it.
    #[track_caller]
    pub fn expect_deleted(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &SegmentFiles,
        what: &str,
    ) {
        if self.caps.deletes {
            self.expect_unknown(metadata, what);
        } else {
            self.expect_segment(metadata, segment, &format!("{what} (retained)"));
        }
    }
}

/// Asserts `got == expected`, naming the lengths and the first difference
/// rather than printing megabytes.
#[track_caller]
pub fn assert_same_bytes(got: &[u8], expected: &[u8], what: &str) {
    if got != expected {
        let first = got
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(expected.len()));
        panic!(
            "{what}: got {} bytes, expected {}; first difference at byte {first}",
            got.len(),
            expected.len()
        );
    }
}
