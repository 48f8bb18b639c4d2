//! Segment copies that the Java caller can abandon when its thread is
//! interrupted.
//!
//! Kafka cancels a partition's copy task with `Future.cancel(true)` when
//! leadership moves, which interrupts the copier thread; native code blocked
//! in I/O never sees a Java interrupt. So a copy runs on its own native
//! thread, and the Java caller waits for it in short slices, checking
//! `Thread.interrupted()` between them. On an interrupt it cancels the
//! operation's [`CancellationToken`] and returns at once. The tier honours
//! the token (the SPI's cancellation contract): it stops, and a tier that
//! may delete removes what the attempt wrote. The worker only reports the
//! copy as cancelled.

use {
    crate::error::{BridgeError, panic_message},
    krabka_remote_storage::{
        CancellationToken, CustomMetadata, LogSegmentData, RemoteLogSegmentMetadata,
        RemoteStorageError,
    },
    std::{
        panic::{AssertUnwindSafe, catch_unwind},
        sync::{
            Arc, Condvar, Mutex, PoisonError,
            atomic::{AtomicBool, Ordering},
        },
        thread,
        time::Duration,
    },
};

/// Topics whose name starts with this make a copy panic, in builds with the
/// `panic-injection` feature only (the end-to-end test of panic handling).
#[cfg(feature = "panic-injection")]
pub const PANIC_TOPIC_PREFIX: &str = "krabka-inject-panic";

/// Topics whose name starts with this hold a copy after the tier wrote it
/// and before the broker hears of it, in builds with the `panic-injection`
/// feature only: the end-to-end test of a leader killed mid-copy.
#[cfg(feature = "panic-injection")]
pub const STALL_TOPIC_PREFIX: &str = "krabka-inject-stall";

/// The file whose existence holds the copies of [`STALL_TOPIC_PREFIX`]
/// topics is named by this environment variable of the broker process.
#[cfg(feature = "panic-injection")]
pub const STALL_FILE_VARIABLE: &str = "KRABKA_INJECT_STALL_FILE";

/// The file whose existence holds the deletes of [`STALL_TOPIC_PREFIX`]
/// topics (after the tier deleted the segment, before the broker records
/// `DELETE_SEGMENT_FINISHED`) is named by this environment variable.
#[cfg(feature = "panic-injection")]
pub const DELETE_STALL_FILE_VARIABLE: &str = "KRABKA_INJECT_DELETE_STALL_FILE";

/// What a finished copy produced.
pub type CopyResult = Result<Option<CustomMetadata>, BridgeError>;

/// What a copy runs against: a tier that copies, honouring `cancel`.
pub trait Copier: Send + Sync + 'static {
    /// Copies the segment; may stop early with `Cancelled` once `cancel` is
    /// cancelled.
    ///
    /// # Errors
    /// The tier's error.
    fn copy(
        &self,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
        cancel: &CancellationToken,
    ) -> krabka_remote_storage::Result<Option<CustomMetadata>>;
}

/// One copy in flight, shared by its worker thread and its Java handle.
#[derive(Debug, Default)]
pub struct CopyOperation {
    cancelled: AtomicBool,
    token: CancellationToken,
    result: Mutex<Option<CopyResult>>,
    finished: Condvar,
}

/// Holds the `action` (`copy` or `delete`) of a segment of a
/// [`STALL_TOPIC_PREFIX`] topic while the file named by the environment
/// variable `variable` exists (at most ten minutes), after logging one
/// WARN the test waits for: the tier has done its part, the broker has not
/// been told, so a leader killed now dies mid-copy or mid-delete.
#[cfg(feature = "panic-injection")]
pub fn stall_while_injected(metadata: &RemoteLogSegmentMetadata, action: &str, variable: &str) {
    if !metadata
        .topic_id_partition()
        .topic
        .starts_with(STALL_TOPIC_PREFIX)
    {
        return;
    }
    let Some(file) = std::env::var_os(variable).map(std::path::PathBuf::from) else {
        return;
    };
    if !file.exists() {
        return;
    }
    tracing::warn!(
        "injected stall: {action} of {} done in the tier, held until {} is removed",
        metadata.remote_log_segment_id(),
        file.display()
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    while file.exists() && std::time::Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
}

impl CopyOperation {
    /// Starts copying `segment` on a new native thread.
    ///
    /// # Errors
    /// [`BridgeError::Storage`] when the thread cannot be started.
    pub fn start(
        storage: Arc<dyn Copier>,
        metadata: RemoteLogSegmentMetadata,
        segment: LogSegmentData,
    ) -> Result<Arc<Self>, BridgeError> {
        let operation = Arc::new(Self::default());
        let worker = Arc::clone(&operation);
        thread::Builder::new()
            .name("krabka-copy".to_owned())
            .spawn(move || worker.run(storage.as_ref(), &metadata, &segment))
            .map_err(|err| RemoteStorageError::io("spawn copy thread for", "krabka-copy", err))?;
        Ok(operation)
    }

    fn run(
        &self,
        storage: &dyn Copier,
        metadata: &RemoteLogSegmentMetadata,
        segment: &LogSegmentData,
    ) {
        let _span = crate::logging::segment_span("copy", metadata).entered();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            #[cfg(feature = "panic-injection")]
            if metadata
                .topic_id_partition()
                .topic
                .starts_with(PANIC_TOPIC_PREFIX)
            {
                panic!(
                    "injected panic copying {}",
                    metadata.remote_log_segment_id()
                );
            }
            let copied = storage.copy(metadata, segment, &self.token);
            #[cfg(feature = "panic-injection")]
            stall_while_injected(metadata, "copy", STALL_FILE_VARIABLE);
            copied
        }));
        let mut result = match outcome {
            Ok(copied) => copied.map_err(BridgeError::from),
            Err(payload) => Err(BridgeError::Panic(panic_message(payload.as_ref()))),
        };
        if self.cancelled.load(Ordering::SeqCst) {
            // The caller gave up and told the broker the copy failed; the
            // tier cleaned up after its token. Report what the broker saw.
            result = Err(RemoteStorageError::Cancelled(format!(
                "copy of {} was interrupted",
                metadata.remote_log_segment_id()
            ))
            .into());
        }
        let mut slot = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        *slot = Some(result);
        self.finished.notify_all();
    }

    /// Waits up to `timeout` for the copy to finish; `true` once it has.
    pub fn wait(&self, timeout: Duration) -> bool {
        let slot = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        let (slot, _) = self
            .finished
            .wait_timeout_while(slot, timeout, |result| result.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        slot.is_some()
    }

    /// The result of a finished copy; `None` while it runs or once taken.
    pub fn take_result(&self) -> Option<CopyResult> {
        self.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Tells the worker its caller has given up.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.token.cancel();
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::test_metadata::metadata,
        bytes::Bytes,
        std::{path::PathBuf, sync::mpsc},
    };

    /// A storage manager whose copy blocks until released and records
    /// whether it saw the cancel.
    struct Gate {
        release: Mutex<mpsc::Receiver<()>>,
        saw_cancel: Mutex<bool>,
        panic: bool,
    }

    impl Copier for Gate {
        #[allow(clippy::panic_in_result_fn)] // The panic is the point of the test.
        fn copy(
            &self,
            _: &RemoteLogSegmentMetadata,
            _: &LogSegmentData,
            cancel: &CancellationToken,
        ) -> krabka_remote_storage::Result<Option<CustomMetadata>> {
            let _ = self.release.lock().unwrap().recv();
            assert!(!self.panic, "copy exploded at offset {}", 42);
            *self.saw_cancel.lock().unwrap() = cancel.is_cancelled();
            Ok(Some(CustomMetadata(vec![7])))
        }
    }

    fn gate(panic: bool) -> (Arc<Gate>, mpsc::Sender<()>) {
        let (tx, rx) = mpsc::channel();
        let gate = Arc::new(Gate {
            release: Mutex::new(rx),
            saw_cancel: Mutex::new(false),
            panic,
        });
        (gate, tx)
    }

    fn segment() -> LogSegmentData {
        LogSegmentData {
            log_segment: PathBuf::from("/nonexistent/0.log"),
            offset_index: PathBuf::from("/nonexistent/0.index"),
            time_index: PathBuf::from("/nonexistent/0.timeindex"),
            transaction_index: None,
            producer_snapshot_index: None,
            leader_epoch_index: Bytes::new(),
        }
    }

    #[test]
    fn a_finished_copy_hands_back_its_custom_metadata_once() {
        let (storage, release) = gate(false);
        let op = CopyOperation::start(storage.clone(), metadata(), segment()).unwrap();
        assert!(!op.wait(Duration::from_millis(20)));
        release.send(()).unwrap();
        assert!(op.wait(Duration::from_secs(10)));
        let result = op.take_result().unwrap().unwrap();
        assert_eq!(result, Some(CustomMetadata(vec![7])));
        assert!(op.take_result().is_none());
        assert!(!*storage.saw_cancel.lock().unwrap());
    }

    #[test]
    fn a_cancelled_copy_hands_the_cancel_to_the_tier_and_reports_cancelled() {
        let (storage, release) = gate(false);
        let op = CopyOperation::start(storage.clone(), metadata(), segment()).unwrap();
        op.cancel();
        release.send(()).unwrap();
        assert!(op.wait(Duration::from_secs(10)));
        let err = op.take_result().unwrap().unwrap_err();
        assert!(matches!(
            err,
            BridgeError::Storage(RemoteStorageError::Cancelled(_))
        ));
        assert!(
            *storage.saw_cancel.lock().unwrap(),
            "the tier saw the token"
        );
    }

    #[test]
    fn a_panicking_copy_becomes_a_panic_error_with_its_message() {
        let (storage, release) = gate(true);
        let op = CopyOperation::start(storage, metadata(), segment()).unwrap();
        release.send(()).unwrap();
        assert!(op.wait(Duration::from_secs(10)));
        match op.take_result().unwrap() {
            Err(BridgeError::Panic(message)) => {
                assert!(message.contains("copy exploded at offset 42"), "{message}");
            }
            other => panic!("expected a panic error, got {other:?}"),
        }
    }
}
