//! The write-once (WORM) archive layer: signed, hash-chained segment
//! manifests, independent of any store.
//!
//! Three layers, each closing the gap of the one below:
//!
//! 1. a **SHA-256 per object** ([`ObjectEntry::sha256`]) detects a change to
//!    one object's bytes;
//! 2. a **hash chain per partition** ([`manifest_head`], [`ChainWalk`]): each
//!    manifest hashes its canonical bytes onto the previous head under a
//!    sequence number, so no manifest can be rewritten, reordered or removed
//!    from the middle without breaking every later head;
//! 3. an **Ed25519 signature per manifest** ([`ManifestSigner`],
//!    [`verify_manifest_signature`]) over the head binds the chain to a key
//!    the bucket never holds.
//!
//! The byte formats are specified in `docs/worm-format.md`, with test
//! vectors the test suite checks. An archiver writes objects and manifests
//! through any store on top of this module; a verifier reads them back with
//! [`SegmentManifest::from_bytes`], [`verify_manifest_signature`] and
//! [`ChainWalk`].

#![forbid(unsafe_code)]

mod chain;
mod digest;
mod error;
pub(crate) mod hex;
mod keys;
mod manifest;
mod record;
mod seal;
mod signature;
mod stamp;
pub mod tlog;
#[cfg(feature = "verify")]
mod verify;

pub use {
    chain::ChainWalk,
    digest::{ChainHead, Sha256Digest},
    error::WormError,
    hex::HexBytes,
    keys::{ManifestSigner, TrustedManifestKeys},
    manifest::{
        MANIFEST_BODY_DOMAIN, MANIFEST_DOMAIN, MANIFEST_FORMAT_VERSION, MANIFEST_SUFFIX,
        MAX_MANIFEST_BYTES, ManifestBody, ManifestSignature, ObjectEntry, SegmentIdentity,
        SegmentManifest, canonical_manifest_bytes, manifest_head,
    },
    record::{WORM_CHAIN_RECORD_VERSION, WormChainRecord, next_chain_stamp},
    seal::{
        CHAIN_DIR, ForeignSeal, SEAL_SUFFIX, check_seal_size, detour_epoch, genesis_epoch,
        judge_seal, manifest_key, parse_seal_name, seal_key,
    },
    signature::{
        VerifiedManifest, manifest_signing_bytes, verify_manifest_bytes, verify_manifest_signature,
    },
    stamp::{ChainStamp, EpochId, ManifestSeq},
};

#[cfg(feature = "verify")]
pub use verify::{
    ArchiveVerifyReport, AuthenticatedArchive, BucketProtectionReport, ChainPosition,
    CheckpointSummary, ConsistencyProofReport, DeepProgress, EpochSpan, InclusionProofReport,
    LogVerifyReport, LogVerifyRequest, NoProgress, ObjectProtectionReport, OffsetGap, OffsetOf,
    PartitionVerifyReport, SegmentSummary, Severity, VerifyBreak, VerifyDepth, VerifyError,
    VerifyObserver, VerifyOutcome, VerifyRequest, WitnessSummary, authenticate_archive,
    verify_archive, verify_archive_config, verify_archive_config_observed, verify_archive_observed,
};

/// The key prefix (under the tier prefix) of the probe objects a start-up
/// writes to prove the bucket refuses a second create-only write; the
/// verifier skips it.
#[cfg(feature = "verify")]
pub use krabka_object_store::CREATE_ONLY_PROBE_DIR as WORM_PROBE_DIR;
