//! Cases about cancelled copies: a copy given a cancelled token, or whose
//! token another thread cancels while it runs, fails with `Cancelled` and
//! leaves no readable segment, and Kafka's next copy of the segment works.

use {
    super::{Outcome, Subject, case_dir},
    crate::support::{
        SegmentFiles, SegmentSpec, assert_cancelled, new_partition, segment_metadata, write_segment,
    },
    krabka_remote_storage::{
        CancellationToken, CustomMetadata, RemoteLogSegmentMetadata, RemoteStorageError,
        RemoteStorageManager, TopicIdPartition,
    },
    std::{
        path::Path,
        sync::Barrier,
        time::{Duration, Instant},
    },
};

/// Length of the log the cancel-while-running case copies: above the default
/// multipart threshold (16 MiB), and three of the filesystem tier's
/// cancellation checks (every 8 MiB).
pub const LARGE_LOG: usize = 24 * 1024 * 1024;

/// Cancels after 1/2, 1/4, 1/8 and 1/16 of an uncancelled copy's time.
const ATTEMPTS: u32 = 4;

/// A copy whose token is cancelled before the call fails with `Cancelled`
/// and leaves nothing of the segment; the same copy without a cancel then
/// succeeds (nothing of the cancelled one is in its way).
pub fn copy_cancelled_before_it_starts(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let segment = write_segment(dir.path(), &SegmentSpec::seeded(27));
    let partition = new_partition("conformance-cancel-before", 0);
    let metadata = segment_metadata(&partition, 0, segment.log.len());
    let token = CancellationToken::new();
    token.cancel();
    assert_cancelled(
        s.tier
            .copy_log_segment_data_cancellable(&metadata, &segment.data, &token),
        "copy with a cancelled token",
    );
    s.expect_unknown(&metadata, "after a cancelled copy");
    s.copy(&metadata, &segment, "the same copy without a cancel");
    s.expect_segment(&metadata, &segment, "the same copy without a cancel");
    Outcome::Ran
}

/// A large copy whose token another thread cancels while it runs fails with
/// `Cancelled` and leaves no readable log; Kafka's next copy (the same
/// segment where the tier overwrites, a new segment id where it does not)
/// succeeds.
///
/// The cancel lands at a fraction of the time an uncancelled copy takes on
/// this tier. A copy that still finishes first is checked whole and the
/// cancel comes earlier; if every attempt finishes first the case is
/// skipped, saying so.
pub fn copy_cancelled_while_running(s: Subject<'_>, scratch: &Path) -> Outcome {
    let dir = case_dir(scratch);
    let spec = SegmentSpec {
        log_len: LARGE_LOG,
        ..SegmentSpec::seeded(28)
    };
    let segment = write_segment(dir.path(), &spec);
    let partition = new_partition("conformance-cancel-running", 0);

    let uncancelled = segment_metadata(&partition, 0, LARGE_LOG);
    let started = Instant::now();
    s.copy(&uncancelled, &segment, "uncancelled copy");
    let full = started.elapsed();
    s.expect_log(&uncancelled, 0, None, &segment.log, "uncancelled copy");
    s.delete(&uncancelled, "delete of the uncancelled copy");

    for attempt in 1..=ATTEMPTS {
        let delay = full / 2_u32.pow(attempt);
        let start = i64::from(attempt) * 100;
        let metadata = segment_metadata(&partition, start, LARGE_LOG);
        match copy_cancelled_after(s.tier, &metadata, &segment, delay) {
            Err(RemoteStorageError::Cancelled(_)) => {
                s.expect_not_found(
                    s.tier.fetch_log_segment(&metadata, 0, None),
                    &format!("log after a cancel {delay:?} into the copy"),
                );
                recopy_after_cancel(s, &partition, start, &metadata, &segment);
                return Outcome::Ran;
            }
            Ok(_) => {
                eprintln!(
                    "copy of {LARGE_LOG} bytes finished before its cancel {delay:?} in; cancelling earlier"
                );
                s.expect_log(
                    &metadata,
                    0,
                    None,
                    &segment.log,
                    "copy that beat its cancel",
                );
                s.delete(&metadata, "delete of the copy that beat its cancel");
            }
            Err(err) => panic!("copy cancelled {delay:?} in: expected Cancelled, got {err:?}"),
        }
    }
    Outcome::Skipped(format!(
        "every copy of {LARGE_LOG} bytes finished before a cancel from another thread \
         (an uncancelled copy took {full:?}); only the cancel before the copy was checked"
    ))
}

/// Copies `segment` under `metadata` while another thread cancels the token
/// `delay` after the call starts.
fn copy_cancelled_after(
    tier: &dyn RemoteStorageManager,
    metadata: &RemoteLogSegmentMetadata,
    segment: &SegmentFiles,
    delay: Duration,
) -> Result<Option<CustomMetadata>, RemoteStorageError> {
    let token = CancellationToken::new();
    let go = Barrier::new(2);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            go.wait();
            std::thread::sleep(delay);
            token.cancel();
        });
        go.wait();
        tier.copy_log_segment_data_cancellable(metadata, &segment.data, &token)
    })
}

/// Kafka's next copy after a cancel: the same segment on a tier that
/// overwrites, a new segment id on one that does not (what the cancelled
/// copy uploaded stays there).
fn recopy_after_cancel(
    s: Subject<'_>,
    partition: &TopicIdPartition,
    start: i64,
    cancelled: &RemoteLogSegmentMetadata,
    segment: &SegmentFiles,
) {
    let metadata = if s.caps.overwrites {
        cancelled.clone()
    } else {
        segment_metadata(partition, start, LARGE_LOG)
    };
    s.copy(&metadata, segment, "copy after a cancelled one");
    s.expect_log(
        &metadata,
        0,
        None,
        &segment.log,
        "copy after a cancelled one",
    );
    s.delete(&metadata, "delete of the copy after a cancelled one");
}
