//! The `RemoteStorageManager` conformance suite: every tier (filesystem,
//! object store in memory, on S3 and GCS servers, and the write-once
//! archive over both) runs these same cases against the trait's `# Contract`.
//!
//! # Capabilities
//!
//! Where the contract lets tiers differ, a tier declares what it does in
//! [`Capabilities`], passed with it in a [`Subject`], and every case checks
//! the declared behaviour, whichever it is:
//!
//! - `overwrites`: a re-copy replaces the segment; without, it fails with
//!   `AlreadyExists` and the first copy stays intact.
//! - `deletes`: a delete answers `Deleted` and the segment is `NotFound`
//!   afterwards; without, it answers `RetainedByArchive` and the segment is
//!   still whole.
//! - `fetches`: fetches are served; without (a write-only archive), every
//!   fetch is `Refused`, so each read of a case checks that instead.
//! - `concurrent_copies`: copies of one partition run side by side; without
//!   (a chained archive), a copy may lose the partition's chain position to
//!   another with `Retryable`, and a retry under a new segment id succeeds.
//!
//! Cancellation is not a capability: the contract requires every tier to
//! honour it, and every tier runs both cancellation cases.
//!
//! A case that could not check what it is for returns [`Outcome::Skipped`]
//! (today only `copy_cancelled_while_running`, when every copy finished
//! before the other thread's cancel); the runner prints
//! `SKIPPED rsm conformance case <name>: <reason>` on the real stderr (past
//! the test harness's capture).
//!
//! Each case is a `pub fn(Subject, scratch) -> Outcome`: it makes its own
//! topic and segment ids, so cases can share one tier, and writes its local
//! segment files in a fresh directory under `scratch`. [`CASES`] lists them
//! all by name, and [`run_rsm_conformance`] runs them in order.

mod cancel;
mod reads;
mod subject;
mod writes;

pub use {cancel::*, reads::*, subject::Subject, writes::*};
use {
    krabka_remote_storage::RemoteStorageManager,
    std::{io::Write, path::Path},
};

/// What a tier does where the `RemoteStorageManager` contract lets tiers
/// differ. See the [module documentation](self) for what each case expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// A copy of a segment that exists replaces it, data and every index.
    /// Without: the re-copy fails with `AlreadyExists` and the first copy
    /// stays byte for byte.
    pub overwrites: bool,
    /// A delete removes the segment (`DeleteOutcome::Deleted`) and it is
    /// `NotFound` afterwards. Without: the delete answers
    /// `DeleteOutcome::RetainedByArchive` and the segment stays readable.
    pub deletes: bool,
    /// Fetches are served. Without (a write-only archive): every fetch of a
    /// log or an index is `Refused`, whether the segment exists or not.
    pub fetches: bool,
    /// Copies of different segments of one partition may run at once.
    /// Without (an archive chaining each partition's copies): a copy may lose
    /// the partition's chain position to a concurrent one with `Retryable`,
    /// and a retry under a new segment id, as Kafka's, continues the chain.
    pub concurrent_copies: bool,
}

impl Capabilities {
    /// A plain tier: re-copies overwrite, deletes delete, fetches are
    /// served, copies run concurrently.
    pub const PLAIN: Self = Self {
        overwrites: true,
        deletes: true,
        fetches: true,
        concurrent_copies: true,
    };

    /// The write-once archive: create-only copies chained per partition,
    /// deletes retained; with `write_only`, fetches refused.
    pub const fn archive(write_only: bool) -> Self {
        Self {
            overwrites: false,
            deletes: false,
            fetches: !write_only,
            concurrent_copies: false,
        }
    }
}

/// What a case did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It ran and every assertion held.
    Ran,
    /// It could not check anything on this tier, for the reason given.
    Skipped(String),
}

/// A conformance case.
pub type Case = fn(Subject<'_>, &Path) -> Outcome;

/// Every case, by name.
pub const CASES: &[(&str, Case)] = &[
    ("copy_and_full_fetch", copy_and_full_fetch),
    ("ranged_fetch_edges", ranged_fetch_edges),
    (
        "ranged_fetch_reference_vectors",
        ranged_fetch_reference_vectors,
    ),
    ("empty_segment", empty_segment),
    ("every_index_is_byte_exact", every_index_is_byte_exact),
    (
        "missing_optional_indexes_are_not_found",
        missing_optional_indexes_are_not_found,
    ),
    ("unknown_segment_is_not_found", unknown_segment_is_not_found),
    ("delete_is_idempotent", delete_is_idempotent),
    ("delete_keeps_other_segments", delete_keeps_other_segments),
    (
        "recopy_of_an_existing_segment",
        recopy_of_an_existing_segment,
    ),
    (
        "recopy_without_optional_indexes",
        recopy_without_optional_indexes,
    ),
    ("failed_copy_is_not_visible", failed_copy_is_not_visible),
    (
        "copy_cancelled_before_it_starts",
        copy_cancelled_before_it_starts,
    ),
    ("copy_cancelled_while_running", copy_cancelled_while_running),
    ("partial_read_then_drop", partial_read_then_drop),
    (
        "concurrent_copies_and_fetches",
        concurrent_copies_and_fetches,
    ),
];

/// Runs every case of [`CASES`] against `tier`, which declares `caps`.
pub fn run_rsm_conformance(tier: &dyn RemoteStorageManager, caps: Capabilities, scratch: &Path) {
    for (name, case) in CASES {
        run_case(name, *case, Subject::new(tier, caps), scratch);
    }
}

/// Runs one case, printing its name, and its reason when it skips.
pub fn run_case(name: &str, case: Case, subject: Subject<'_>, scratch: &Path) {
    eprintln!("rsm conformance: {name} ({:?})", subject.caps);
    if let Outcome::Skipped(reason) = case(subject, scratch) {
        // Straight to the process's stderr: the harness captures `eprintln!`.
        let _ = writeln!(
            std::io::stderr().lock(),
            "SKIPPED rsm conformance case {name}: {reason}"
        );
    }
}

/// A fresh directory for one case's local segment files.
fn case_dir(scratch: &Path) -> tempfile::TempDir {
    std::fs::create_dir_all(scratch).unwrap();
    tempfile::tempdir_in(scratch).unwrap()
}
