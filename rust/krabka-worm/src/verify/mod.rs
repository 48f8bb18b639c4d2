//! [`verify_archive`]: an auditor's check of a finished archive with nothing
//! but the bucket and trusted public keys.
//!
//! Lists the prefix once ([`listing`]), groups the keys by partition
//! directory, and per partition ([`partition`]): reads every manifest and
//! chain seal ([`read`]), cross-checks manifests with their seals
//! ([`crosscheck`]), checks signatures against the trusted set
//! ([`signatures`]), walks every chain epoch ([`epochs`]), checks the
//! objects each manifest names ([`objects`]: present with the recorded size;
//! deep: re-hashed by streaming, and on a mismatch the pinned version is
//! re-read), and reports stray objects and offset gaps ([`coverage`]).
//! Along the way: chain epochs that detour around foreign objects under
//! `_chain/` are resumed from the head they route around ([`epochs`]), the
//! foreign objects reported ([`foreign`]), and seals without manifests told
//! apart into unfinished commits and removed manifests ([`unfinished`]). On
//! S3 it then reads the bucket's own lock ([`bucket`]), lists every version
//! once, reports delete markers and hidden partitions ([`markers`]) and
//! checks every archived version and its retention ([`protection`]).
//! Last, the archive log ([`log`]): its tree rebuilt from the entry
//! bundles and held against the tiles, every checkpoint, the witnesses'
//! cosignatures, checkpoints held outside and witnesses asked, and every
//! leaf against the seals read. A
//! deep run reports its progress to a [`VerifyObserver`]
//! ([`verify_archive_observed`]).

mod bucket;
mod coverage;
mod crosscheck;
mod epochs;
mod error;
mod foreign;
mod hashing;
mod listing;
mod log;
mod markers;
mod objects;
mod partition;
mod progress;
mod protection;
mod read;
mod report;
mod signatures;
mod unfinished;

pub use error::VerifyError;

/// Results of the verifier.
type Result<T, E = VerifyError> = std::result::Result<T, E>;

pub use progress::{DeepProgress, NoProgress, VerifyObserver};

pub use report::{
    ArchiveVerifyReport, AuthenticatedArchive, BucketProtectionReport, ChainPosition,
    CheckpointSummary, ConsistencyProofReport, EpochSpan, InclusionProofReport, LogVerifyReport,
    LogVerifyRequest, ObjectProtectionReport, OffsetGap, OffsetOf, PartitionVerifyReport,
    SegmentSummary, Severity, VerifyBreak, VerifyDepth, VerifyOutcome, VerifyRequest,
    WitnessSummary,
};
use {
    crate::digest::ChainHead,
    listing::{Listing, archive_prefix},
    object_store::ObjectStore,
    progress::Tracker,
};

/// Verifies the archive under `request.prefix` in `store`.
///
/// # Errors
/// [`VerifyError::Store`] when the store cannot be listed or an object
/// cannot be read for a reason other than its absence: the archive could
/// not be read, which is not a finding.
pub async fn verify_archive(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
) -> Result<ArchiveVerifyReport> {
    verify_archive_observed(store, request, &NoProgress).await
}

/// [`verify_archive`], reporting the progress of a deep run to `observer`
/// (see [`VerifyObserver`] for when; a shallow run reports nothing).
///
/// # Errors
/// Those of [`verify_archive`].
pub async fn verify_archive_observed(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
    observer: &dyn VerifyObserver,
) -> Result<ArchiveVerifyReport> {
    let prefix = archive_prefix(request);
    let mut listing = Listing::read(store, prefix).await?;
    let mut report = ArchiveVerifyReport {
        depth: request.depth,
        objects_listed: listing.objects_listed,
        partitions: Vec::new(),
        findings: Vec::new(),
        bucket: None,
        log: None,
    };
    let in_scope = listing.in_scope(request);
    let deep = request.depth == VerifyDepth::Deep;
    let tracker = Tracker::new(observer);
    if deep {
        tracker.start(in_scope.iter().flat_map(|dir| dir.data_object_sizes()));
    }
    for dir in in_scope {
        let mut partition = PartitionVerifyReport::empty(
            dir.full_dir(prefix),
            dir.parsed.topic,
            dir.parsed.partition,
        );
        partition::verify_partition(store, request, &dir.names, &mut partition, &tracker).await?;
        report.partitions.push(partition);
    }
    if deep {
        tracker.finish();
    }
    if let Some(expected) = request.expect_head {
        check_expect_head(expected, &mut report);
    }
    log::verify_log(store, request, &listing.log, &mut report).await?;
    Ok(report)
}

/// Compares the tip of the one partition in scope with the head recorded
/// outside the archive: a mismatch is tail truncation (or another history).
fn check_expect_head(expected: ChainHead, report: &mut ArchiveVerifyReport) {
    match report.partitions.as_slice() {
        [only] if only.tip == Some(expected) => {}
        [only] => report.findings.push(VerifyBreak::ExpectHeadMismatch {
            expected,
            found: only.tip,
        }),
        [] => report.findings.push(VerifyBreak::ExpectHeadMismatch {
            expected,
            found: None,
        }),
        more => report.findings.push(VerifyBreak::ExpectHeadAmbiguous {
            partitions: more.len(),
        }),
    }
}

/// [`verify_archive`] on the store `config` describes, on a runtime of its
/// own (for command-line tools and the JVM). A local directory that does
/// not exist is [`VerifyError::MissingDirectory`], not an empty archive.
///
/// # Errors
/// [`VerifyError::Config`] for a bad configuration; those of
/// [`verify_archive`].
pub fn verify_archive_config(
    config: &krabka_object_store::ObjectStoreConfig,
    request: &VerifyRequest,
) -> Result<ArchiveVerifyReport> {
    verify_archive_config_observed(config, request, &NoProgress)
}

/// [`verify_archive_config`], reporting the progress of a deep run to
/// `observer` as [`verify_archive_observed`] does.
///
/// # Errors
/// Those of [`verify_archive_config`].
pub fn verify_archive_config_observed(
    config: &krabka_object_store::ObjectStoreConfig,
    request: &VerifyRequest,
    observer: &dyn VerifyObserver,
) -> Result<ArchiveVerifyReport> {
    if let krabka_object_store::ObjectStoreConfig::Local { root } = config {
        if !root.is_dir() {
            return Err(VerifyError::MissingDirectory { path: root.clone() });
        }
    }
    let store = krabka_object_store::build_object_store(config).map_err(VerifyError::Config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(VerifyError::Runtime)?;
    runtime.block_on(async {
        let mut report = verify_archive_observed(&*store, request, observer).await?;
        if let krabka_object_store::ObjectStoreConfig::S3(s3) = config {
            protection::s3_protection(s3, request, &mut report).await?;
        }
        Ok(report)
    })
}

/// Verifies, and yields an [`AuthenticatedArchive`] only when the outcome
/// is [`VerifyOutcome::Verified`].
///
/// # Errors
/// Those of [`verify_archive`]; [`VerifyError::NotAuthentic`] with the
/// findings when the outcome is anything else.
pub async fn authenticate_archive(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
) -> Result<AuthenticatedArchive> {
    let report = verify_archive(store, request).await?;
    if report.outcome() == VerifyOutcome::Verified {
        return Ok(AuthenticatedArchive { report });
    }
    let findings: Vec<VerifyBreak> = report
        .all_findings()
        .filter(|f| f.severity() > Severity::Notice)
        .cloned()
        .collect();
    Err(VerifyError::NotAuthentic {
        outcome: report.outcome(),
        findings,
    })
}
