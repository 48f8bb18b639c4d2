//! Cancelling a running copy from another thread.

/// A handle that cancels the operations it is passed to.
///
/// The JNI layer gives one to [`S3RemoteStorage::copy_log_segment_data_cancellable`]
/// and calls [`CancellationToken::cancel`] when Java interrupts the copying
/// thread. The copy stops at the next part boundary (in-flight part requests
/// are dropped at once), aborts its multipart upload and returns
/// [`RemoteStorageError::Cancelled`](crate::RemoteStorageError::Cancelled).
/// Clones share the same state.
///
/// [`S3RemoteStorage::copy_log_segment_data_cancellable`]: crate::S3RemoteStorage::copy_log_segment_data_cancellable
///
/// ```
/// use krabka_remote_storage::CancellationToken;
/// let token = CancellationToken::new();
/// let for_other_thread = token.clone();
/// for_other_thread.cancel();
/// assert!(token.is_cancelled());
/// ```
#[derive(Debug, Clone, Default)]
pub struct CancellationToken(tokio_util::sync::CancellationToken);

impl CancellationToken {
    /// A token that is not cancelled.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every operation this token (or a clone) was given.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether [`CancellationToken::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Resolves when the token is cancelled.
    pub(crate) async fn cancelled(&self) {
        self.0.cancelled().await;
    }
}
