//! Why a verification could not run: the archive could not be read, which
//! is never a finding about the archive itself.

use {
    super::report::{VerifyBreak, VerifyOutcome},
    krabka_object_store::{ObjectStoreBuildError, StoreError, StoreErrorClass},
    std::{io, path::PathBuf},
};

/// A verification that could not look at the archive, as opposed to a
/// finding in a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The store could not be listed or an object could not be read for a
    /// reason other than its absence.
    #[error("cannot read the archive")]
    Store(#[from] StoreError),
    /// The local archive directory does not exist (not an empty archive).
    #[error("archive directory `{}` does not exist", path.display())]
    MissingDirectory {
        /// The directory.
        path: PathBuf,
    },
    /// The store configuration is unusable.
    #[error("object store configuration is invalid")]
    Config(#[source] ObjectStoreBuildError),
    /// The verifier's runtime could not start.
    #[error("cannot start the verifier's runtime")]
    Runtime(#[source] io::Error),
    /// [`authenticate_archive`](crate::authenticate_archive) found the
    /// archive not authentic.
    #[error(
        "archive is not authentic: verification outcome {outcome:?}: {}",
        debug_list(findings)
    )]
    NotAuthentic {
        /// The verification's outcome.
        outcome: VerifyOutcome,
        /// Every finding above notice level.
        findings: Vec<VerifyBreak>,
    },
}

impl VerifyError {
    /// Whether the archive (or an object of it) was simply absent.
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        match self {
            Self::MissingDirectory { .. } => true,
            Self::Store(err) => err.class() == StoreErrorClass::NotFound,
            _ => false,
        }
    }
}

/// `findings` in their `Debug` form, separated by `; `.
fn debug_list(findings: &[VerifyBreak]) -> String {
    findings
        .iter()
        .map(|f| format!("{f:?}"))
        .collect::<Vec<_>>()
        .join("; ")
}
