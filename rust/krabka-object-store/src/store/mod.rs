//! Object-store I/O and nothing else: the layer both remote tiers (the
//! plain object-store tier and the write-once archive) are built on.
//!
//! - [`StoreRuntime`]: a small Tokio runtime a tier owns, and the bridge from
//!   synchronous callers to it.
//! - [`upload`]: one local file to one key, a single PUT below the multipart
//!   threshold and a streamed multipart upload with bounded memory above it;
//!   optionally create-only, optionally hashed with SHA-256 in the same pass.
//! - [`fetch`] and [`reader`]: ranged reads pinned to one object version,
//!   streamed as a blocking [`std::io::Read`].
//! - [`delete`]: bulk deletes that tolerate missing keys.
//! - [`errors`]: classification of `object_store` failures into
//!   [`StoreError`]s by what a caller does about them.
//! - [`Tuning`]: part sizes, parts in flight and read-ahead.
//! - [`metered`]: every request counted by operation and outcome, with its
//!   latency ([`StoreHandle::request_metrics`]).
//!
//! Nothing here knows Kafka's SPI or the archive format: keys arrive as
//! [`object_store::path::Path`]s, cancellation as a
//! [`tokio_util::sync::CancellationToken`].

pub mod cache;
pub mod delete;
mod error;
pub mod errors;
pub mod fetch;
mod handle;
pub mod metered;
pub mod pieces;
pub mod reader;
mod runtime;
mod tuning;
pub mod upload;

pub use {
    error::{BoxedSource, Result, StoreError, StoreErrorClass},
    handle::StoreHandle,
    runtime::StoreRuntime,
    tuning::{
        CreateOnlyParts, DEFAULT_FETCH_CHUNK_SIZE, DEFAULT_FETCH_PARALLELISM,
        DEFAULT_PARTS_IN_FLIGHT, MAX_PARTS, PartPlan, Tuning,
    },
};

/// Keys of the object store, re-exported for callers of this layer.
pub use object_store::path::Path;
