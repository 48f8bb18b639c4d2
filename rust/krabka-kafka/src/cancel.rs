//! Cancelling a running copy from another thread, without any runtime.

use std::{
    fmt,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
};

/// A callback run once when a token is cancelled.
type Listener = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    listeners: Mutex<Vec<Listener>>,
}

/// A handle that cancels the copies it is passed to
/// ([`RemoteStorageManager::copy_log_segment_data_cancellable`]).
///
/// Kafka interrupts its copier thread when leadership of a partition moves;
/// the JNI layer then calls [`CancellationToken::cancel`]. A tier checks
/// [`CancellationToken::is_cancelled`] between steps (the filesystem tier
/// between buffers of a file) or registers a listener with
/// [`CancellationToken::on_cancel`] to stop asynchronous work at once (the
/// object-store tiers drop their in-flight requests). A cancelled copy
/// cleans up what it wrote and fails with
/// [`RemoteStorageError::Cancelled`](crate::RemoteStorageError::Cancelled).
/// Clones share the same state; the type needs no async runtime.
///
/// [`RemoteStorageManager::copy_log_segment_data_cancellable`]: crate::RemoteStorageManager::copy_log_segment_data_cancellable
///
/// ```
/// use {krabka_kafka::CancellationToken, std::sync::{Arc, atomic::{AtomicBool, Ordering}}};
/// let token = CancellationToken::new();
/// let heard = Arc::new(AtomicBool::new(false));
/// let flag = Arc::clone(&heard);
/// token.on_cancel(move || flag.store(true, Ordering::SeqCst));
/// token.clone().cancel();
/// assert!(token.is_cancelled());
/// assert!(heard.load(Ordering::SeqCst));
/// ```
#[derive(Clone, Default)]
pub struct CancellationToken(Arc<Inner>);

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl CancellationToken {
    /// A token that is not cancelled.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every operation this token (or a clone) was given, and runs
    /// the registered listeners once, on this thread. Later calls do nothing.
    pub fn cancel(&self) {
        if self.0.cancelled.swap(true, Ordering::SeqCst) {
            return;
        }
        let listeners = std::mem::take(&mut *self.listeners());
        for listener in listeners {
            listener();
        }
    }

    /// Whether [`CancellationToken::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// `Ok` while the token is not cancelled; otherwise
    /// [`RemoteStorageError::Cancelled`](crate::RemoteStorageError::Cancelled)
    /// naming the operation `what` describes (built only then).
    ///
    /// # Errors
    /// `Cancelled` once [`CancellationToken::cancel`] was called.
    pub fn check(&self, what: impl FnOnce() -> String) -> crate::Result<()> {
        if self.is_cancelled() {
            return Err(crate::RemoteStorageError::Cancelled(what()));
        }
        Ok(())
    }

    /// Runs `listener` when the token is cancelled: at once, on this thread,
    /// if it already is; otherwise once, on the thread that cancels it.
    /// A listener must be quick and must not block.
    pub fn on_cancel(&self, listener: impl FnOnce() + Send + 'static) {
        let mut listeners = self.listeners();
        // Checked under the lock `cancel` takes to drain the list, so a
        // listener is either drained by `cancel` or run here, never lost.
        if self.is_cancelled() {
            drop(listeners);
            listener();
        } else {
            listeners.push(Box::new(listener));
        }
    }

    fn listeners(&self) -> std::sync::MutexGuard<'_, Vec<Listener>> {
        // A listener that panicked leaves the list usable: it holds nothing
        // that a panic can leave half-updated.
        self.0
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        std::sync::atomic::{AtomicUsize, Ordering::SeqCst},
    };

    #[test]
    fn listeners_run_exactly_once_whether_registered_before_or_after() {
        let token = CancellationToken::new();
        let runs = Arc::new(AtomicUsize::new(0));
        let before = Arc::clone(&runs);
        token.on_cancel(move || {
            before.fetch_add(1, SeqCst);
        });
        assert_eq!(runs.load(SeqCst), 0);
        token.cancel();
        token.cancel();
        assert_eq!(runs.load(SeqCst), 1);
        let after = Arc::clone(&runs);
        token.on_cancel(move || {
            after.fetch_add(1, SeqCst);
        });
        assert_eq!(runs.load(SeqCst), 2);
    }

    #[test]
    fn check_fails_only_after_a_cancel() {
        let token = CancellationToken::new();
        assert!(
            token
                .check(|| unreachable!("built only when cancelled"))
                .is_ok()
        );
        token.cancel();
        assert!(matches!(
            token.check(|| "copy of x".to_owned()),
            Err(crate::RemoteStorageError::Cancelled(what)) if what == "copy of x"
        ));
    }

    #[test]
    fn cancelling_from_another_thread_is_seen() {
        let token = CancellationToken::new();
        let other = token.clone();
        std::thread::spawn(move || other.cancel())
            .join()
            .expect("thread");
        assert!(token.is_cancelled());
    }
}
