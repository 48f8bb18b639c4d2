//! Counting every request our code makes of an object store, by operation
//! and outcome, with its latency.
//!
//! [`MeteredObjectStore`] wraps any `object_store::ObjectStore` (the
//! [`StoreHandle`](super::StoreHandle) puts it around every store it holds)
//! and counts into [`RequestMetrics`]: one atomic add per outcome and three
//! for the latency, no lock. What one count is:
//!
//! - one call of the `ObjectStore` API, as our code made it: `object_store`
//!   retries transient failures (5xx, 429, timeouts, connection errors)
//!   inside that call, with backoff, up to the configured `max_retries`
//!   within `retry_timeout`. A call that succeeded after such retries is
//!   `ok` — those retries are not visible at this layer;
//! - its latency runs from the call to its answer (for a GET, to the
//!   response headers, not the end of the body; for a listing, to the end
//!   of the listing or its first error, or until it is dropped);
//! - a listing counts once however many pages it took, a batch delete once
//!   per object (its latency: the time since the previous object's answer).

mod stats;
mod store;

pub use {
    stats::{Operation, Outcome, RequestMetrics, TimeStat},
    store::MeteredObjectStore,
};

#[cfg(test)]
mod tests;
