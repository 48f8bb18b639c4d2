//! What the write-once archive's writer did.

use std::sync::atomic::{AtomicU64, Ordering};

/// The write-once archive's commits, counted by its
/// [`WormArchiver`](crate::WormArchiver); reported through
/// [`TierMetrics::attach_archive`](super::TierMetrics::attach_archive).
#[derive(Debug, Default)]
pub struct ArchiveMetrics {
    seals: AtomicU64,
    fence_losses: AtomicU64,
    manifests: AtomicU64,
}

impl ArchiveMetrics {
    /// New metrics, all zero.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts a seal written create-only (a copy committed to its chain).
    pub fn seal_written(&self) {
        self.seals.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a seal write that found its chain position taken by another
    /// writer (the copy fails as retryable).
    pub fn fence_lost(&self) {
        self.fence_losses.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a manifest written beside its segment (finishing a commit),
    /// including one a later copy writes to repair an unfinished commit.
    pub fn manifest_written(&self) {
        self.manifests.fetch_add(1, Ordering::Relaxed);
    }

    /// Seals written.
    #[must_use]
    pub fn seals(&self) -> u64 {
        self.seals.load(Ordering::Relaxed)
    }

    /// Seal writes that lost their chain position.
    #[must_use]
    pub fn fence_losses(&self) -> u64 {
        self.fence_losses.load(Ordering::Relaxed)
    }

    /// Manifests written.
    #[must_use]
    pub fn manifests(&self) -> u64 {
        self.manifests.load(Ordering::Relaxed)
    }
}
