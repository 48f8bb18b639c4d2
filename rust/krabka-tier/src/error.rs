//! [`TierError`]: why a tier could not be read at all.

/// A tier that could not be read (a finding about one segment is an
/// [`ExportProblem`](crate::ExportProblem) instead, and the export goes on).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TierError {
    /// The store could not be listed or an object could not be read.
    #[error("{operation} {key}")]
    Store {
        /// What was being done (`listing of`, `read of`).
        operation: &'static str,
        /// The key or prefix.
        key: String,
        /// The store's error.
        #[source]
        source: object_store::Error,
    },
    /// The store configuration was refused.
    #[error("invalid tier configuration")]
    Config(#[source] krabka_object_store::ObjectStoreBuildError),
    /// Writing the exported records failed.
    #[error("writing the export")]
    Output(#[source] std::io::Error),
    /// A write-once archive could not be read to verify it.
    #[error("verifying the archive")]
    Verify(#[source] krabka_worm::VerifyError),
    /// The tier refuses what was asked (a rewrap of a write-once archive).
    #[error("refused: {0}")]
    Refused(String),
    /// No partition of the tier matches the selection.
    #[error("no partition of the tier matches {0}")]
    NoSuchPartition(String),
}
