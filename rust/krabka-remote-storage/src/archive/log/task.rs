//! [`LogTask`]: the background publisher of an archive's log.

use {
    super::ArchiveLog,
    std::{
        sync::{Arc, Mutex, PoisonError, mpsc},
        time::Duration,
    },
    tokio::{runtime::Handle, sync::watch},
};

/// How long dropping a [`LogTask`] waits for its last checkpoint.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(20);

/// Publishes the log's checkpoints at most every
/// [`ArchiveLogConfig::interval`](super::ArchiveLogConfig::interval), on the
/// tier's runtime, and once more when dropped (so the last seals before a
/// shutdown are in a checkpoint, their `logged/` markers written first). Failures are logged, once per kind until
/// they clear, and never reach a copy.
#[derive(Debug)]
pub struct LogTask {
    stop: watch::Sender<bool>,
    done: Mutex<mpsc::Receiver<()>>,
}

impl LogTask {
    /// Starts publishing `log` on `runtime`.
    #[must_use]
    pub fn spawn(log: Arc<ArchiveLog>, runtime: &Handle) -> Self {
        let (stop, mut stopped) = watch::channel(false);
        let (done_tx, done) = mpsc::channel();
        let interval = log.config().interval.max(Duration::from_millis(10));
        runtime.spawn(async move {
            loop {
                let stopping = tokio::select! {
                    () = tokio::time::sleep(interval) => false,
                    _ = stopped.changed() => true,
                };
                if stopping {
                    log.flush_markers().await;
                }
                match log.publish().await {
                    Ok(_) => {
                        if log.failures.succeeded("publish") {
                            tracing::info!("archive log checkpoints are published again");
                        }
                    }
                    Err(err) => {
                        if log.failures.failed("publish") {
                            tracing::warn!(error = %err, "the archive log's checkpoint could not be published; retried every interval (logged once until it succeeds)");
                        }
                    }
                }
                if stopping {
                    break;
                }
            }
            let _ = done_tx.send(());
        });
        Self {
            stop,
            done: Mutex::new(done),
        }
    }
}

impl Drop for LogTask {
    fn drop(&mut self) {
        if self.stop.send(true).is_ok() {
            let done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = done.recv_timeout(SHUTDOWN_WAIT);
        }
    }
}
