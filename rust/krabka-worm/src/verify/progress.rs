//! Progress of a deep verification, for a caller that shows it while the
//! objects are re-hashed ([`verify_archive_observed`](crate::verify_archive_observed)).
//!
//! The totals are known from the one listing the verifier makes before it
//! reads anything: the size and number of the data objects (everything but
//! manifests and chain seals) in the partitions in scope. Objects no
//! manifest names are never hashed, and an object of the wrong size is
//! counted as done without being read, so the final figures can stay below
//! the totals; a missing object is in neither.

use std::sync::{Mutex, PoisonError};

/// Where a deep verification stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeepProgress {
    /// Bytes re-hashed so far.
    pub bytes_hashed: u64,
    /// Bytes of the data objects in scope, from the listing.
    pub bytes_total: u64,
    /// Objects checked so far (hashed, or found to be of the wrong size).
    pub objects_done: u64,
    /// Data objects in scope, from the listing.
    pub objects_total: u64,
    /// Set on the last report of a run, sent once every object is checked.
    pub finished: bool,
}

/// Receives [`DeepProgress`] reports during a deep verification.
///
/// # Contract
/// Called on the verifying task, synchronously and one call at a time: after
/// the listing (all counters zero but the totals), after every chunk read
/// while hashing (several objects are hashed at once, so their chunks
/// interleave),
/// after every object checked, and once with
/// [`finished`](DeepProgress::finished) set when the objects are done.
/// Chunk reports are frequent (one per network or file chunk), so an
/// observer that prints should rate-limit itself and return quickly. A
/// shallow verification reports nothing.
pub trait VerifyObserver: Sync {
    /// One report.
    fn deep_progress(&self, progress: &DeepProgress);
}

/// The observer of a caller that wants no progress.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl VerifyObserver for NoProgress {
    fn deep_progress(&self, _progress: &DeepProgress) {}
}

/// The counters of one run and the observer they go to. Shared by the
/// objects hashed at once: each report is made under its lock, so the
/// observer sees the counters only grow.
pub(super) struct Tracker<'a> {
    progress: Mutex<DeepProgress>,
    observer: &'a dyn VerifyObserver,
}

impl<'a> Tracker<'a> {
    pub(super) fn new(observer: &'a dyn VerifyObserver) -> Self {
        Self {
            progress: Mutex::new(DeepProgress::default()),
            observer,
        }
    }

    /// Counts the data objects in scope, by their listed `sizes`, into the
    /// totals and sends the first report.
    pub(super) fn start(&self, sizes: impl IntoIterator<Item = u64>) {
        self.update(|progress| {
            for size in sizes {
                progress.objects_total += 1;
                progress.bytes_total = progress.bytes_total.saturating_add(size);
            }
        });
    }

    /// Changes the counters with `change`, then sends them.
    fn update(&self, change: impl FnOnce(&mut DeepProgress)) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut progress);
        self.observer.deep_progress(&progress);
    }

    /// `bytes` more hashed.
    pub(super) fn hashed(&self, bytes: u64) {
        self.update(|progress| progress.bytes_hashed = progress.bytes_hashed.saturating_add(bytes));
    }

    /// One more object checked.
    pub(super) fn object_done(&self) {
        self.update(|progress| progress.objects_done = progress.objects_done.saturating_add(1));
    }

    /// The last report.
    pub(super) fn finish(&self) {
        self.update(|progress| progress.finished = true);
    }
}
