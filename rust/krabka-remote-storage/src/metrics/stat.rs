//! The lock-free accumulators metrics are made of.

use {
    crate::{ErrorClass, RemoteStorageError},
    std::{
        sync::atomic::{AtomicU64, Ordering},
        time::Duration,
    },
};

/// Count, total and maximum of a duration, updated without a lock.
#[derive(Debug, Default)]
pub struct TimeStat {
    count: AtomicU64,
    total_nanos: AtomicU64,
    max_nanos: AtomicU64,
}

impl TimeStat {
    /// Records one duration.
    pub fn record(&self, elapsed: Duration) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.total_nanos.fetch_add(nanos, Ordering::Relaxed);
        self.max_nanos.fetch_max(nanos, Ordering::Relaxed);
    }

    /// How many durations were recorded.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The mean of the recorded durations in milliseconds, 0 when none.
    #[must_use]
    pub fn avg_ms(&self) -> f64 {
        let count = self.count();
        if count == 0 {
            return 0.0;
        }
        nanos_to_ms(self.total_nanos.load(Ordering::Relaxed)) / count as f64
    }

    /// The longest recorded duration in milliseconds, 0 when none.
    #[must_use]
    pub fn max_ms(&self) -> f64 {
        nanos_to_ms(self.max_nanos.load(Ordering::Relaxed))
    }
}

fn nanos_to_ms(nanos: u64) -> f64 {
    nanos as f64 / 1_000_000.0
}

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
