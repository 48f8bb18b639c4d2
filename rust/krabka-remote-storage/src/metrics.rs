//! Counters of what a tier does, for the operator's metrics.
//!
//! [`MeteredStorage`] wraps any [`RemoteStorageManager`](crate::RemoteStorageManager)
//! and counts its copies, fetches, index fetches and deletes into a
//! [`TierMetrics`]: atomic counters and time accumulators, no lock on the
//! path of an operation. [`TierMetrics::snapshot`] reads them all at once,
//! in a fixed order described by [`TierMetrics::catalog`], so a reader (the
//! JNI layer's one call per metric read) gets every value in one pass.
//!
//! Values are cumulative since the tier was opened: counters only grow,
//! averages are over every operation so far, maxima are the largest so far.

mod metered;
mod stat;
mod tier;

pub use {
    metered::MeteredStorage,
    stat::{FailureClass, TimeStat},
    tier::{MetricDef, MetricKind, TierMetrics},
};
