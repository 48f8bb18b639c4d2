//! Counters of what a tier does, for the operator's metrics.
//!
//! [`MeteredStorage`] wraps any [`RemoteStorageManager`](crate::RemoteStorageManager)
//! and counts its copies, fetches, index fetches and deletes into a
//! [`TierMetrics`]: atomic counters and time accumulators, no lock on the
//! path of an operation. [`TierMetrics::snapshot`] reads them all at once,
//! in a fixed order described by [`TierMetrics::catalog`], so a reader (the
//! JNI layer's one call per metric read) gets every value in one pass.
//!
//! Beside them, parts of the tier count their own work and are attached to
//! the tier's metrics: the object-store requests of its
//! [`StoreHandle`](krabka_object_store::store::StoreHandle), the read cache,
//! the write-once archive's commits ([`ArchiveMetrics`]) and the durable
//! metadata manager's store traffic ([`MetadataMetrics`]).
//!
//! Values are cumulative since the tier was opened: counters only grow,
//! averages are over every operation so far, maxima are the largest so far.

mod archive;
mod metadata;
mod metered;
mod stat;
mod tier;

pub use {
    archive::ArchiveMetrics,
    metadata::MetadataMetrics,
    metered::MeteredStorage,
    stat::{FailureClass, TimeStat},
    tier::{MetricDef, MetricKind, TierMetrics},
};
