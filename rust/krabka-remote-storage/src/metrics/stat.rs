//! The lock-free accumulators metrics are made of.

pub use krabka_object_store::store::metered::TimeStat;
use {
    crate::{ErrorClass, RemoteStorageError},
    std::sync::atomic::{AtomicU64, Ordering},
};

/// The class a failed operation is counted under: the
/// [`ErrorClass`] of its error, with cancellations apart (a cancelled copy is
/// the broker's decision, not a fault of the tier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureClass {
    /// The segment or index does not exist.
    NotFound,
    /// A transient failure (throttling, timeouts, transport errors).
    Retryable,
    /// Stored bytes are corrupt or fail an integrity check.
    Integrity,
    /// The request was outside the contract (bad positions, bad config).
    InvalidInput,
    /// Refused by design (a write-once archive).
    Refused,
    /// Cancelled by the broker.
    Cancelled,
    /// Anything else, including an error while streaming fetched bytes.
    Other,
}

impl FailureClass {
    /// Every class, in the order of [`FailureClass::label`]s in snapshots.
    pub const ALL: [Self; 7] = [
        Self::NotFound,
        Self::Retryable,
        Self::Integrity,
        Self::InvalidInput,
        Self::Refused,
        Self::Cancelled,
        Self::Other,
    ];

    /// The class of `error`.
    #[must_use]
    pub fn of(error: &RemoteStorageError) -> Self {
        if matches!(error, RemoteStorageError::Cancelled(_)) {
            return Self::Cancelled;
        }
        match error.class() {
            ErrorClass::NotFound => Self::NotFound,
            ErrorClass::Retryable => Self::Retryable,
            ErrorClass::Integrity => Self::Integrity,
            ErrorClass::InvalidInput => Self::InvalidInput,
            ErrorClass::Refused => Self::Refused,
            _ => Self::Other,
        }
    }

    /// The value of the `error-class` tag.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::NotFound => "not-found",
            Self::Retryable => "retryable",
            Self::Integrity => "integrity",
            Self::InvalidInput => "invalid-input",
            Self::Refused => "refused",
            Self::Cancelled => "cancelled",
            Self::Other => "other",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// Failures counted by [`FailureClass`].
#[derive(Debug, Default)]
pub(super) struct Failures([AtomicU64; FailureClass::ALL.len()]);

impl Failures {
    /// Counts a failure with `error`.
    pub(super) fn record(&self, error: &RemoteStorageError) {
        self.record_class(FailureClass::of(error));
    }

    /// Counts a failure of `class`.
    pub(super) fn record_class(&self, class: FailureClass) {
        self.0[class.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// Failures of `class` so far.
    pub(super) fn get(&self, class: FailureClass) -> u64 {
        self.0[class.index()].load(Ordering::Relaxed)
    }
}
