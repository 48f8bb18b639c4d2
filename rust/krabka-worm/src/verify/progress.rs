//! Progress of a deep verification, for a caller that shows it while the
//! objects are re-hashed ([`verify_archive_observed`](crate::verify_archive_observed)).
//!
//! The totals are known from the one listing the verifier makes before it
//! reads anything: the size and number of the data objects (everything but
//! manifests and chain seals) in the partitions in scope. Objects no
//! manifest names are never hashed, and an object of the wrong size is
//! counted as done without being read, so the final figures can stay below
//! the totals; a missing object is in neither.

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
/// Called on the verifying thread, synchronously: after the listing (all
/// counters zero but the totals), after every chunk read while hashing,
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

/// The counters of one run and the observer they go to.
pub(super) struct Tracker<'a> {
    progress: DeepProgress,
    observer: &'a dyn VerifyObserver,
}

impl<'a> Tracker<'a> {
    pub(super) fn new(observer: &'a dyn VerifyObserver) -> Self {
        Self {
            progress: DeepProgress::default(),
            observer,
        }
    }

    /// Counts the data objects in scope, by their listed `sizes`, into the
    /// totals and sends the first report.
    pub(super) fn start(&mut self, sizes: impl IntoIterator<Item = u64>) {
        for size in sizes {
            self.progress.objects_total += 1;
            self.progress.bytes_total = self.progress.bytes_total.saturating_add(size);
        }
        self.report();
    }

    /// Sends the current counters.
    fn report(&self) {
        self.observer.deep_progress(&self.progress);
    }

    /// `bytes` more hashed.
    pub(super) fn hashed(&mut self, bytes: u64) {
        self.progress.bytes_hashed = self.progress.bytes_hashed.saturating_add(bytes);
        self.report();
    }

    /// One more object checked.
    pub(super) fn object_done(&mut self) {
        self.progress.objects_done = self.progress.objects_done.saturating_add(1);
        self.report();
    }

    /// The last report.
    pub(super) fn finish(&mut self) {
        self.progress.finished = true;
        self.report();
    }
}
