//! What [`verify_archive`](crate::verify_archive) found.

use {
    crate::{
        digest::{ChainHead, Sha256Digest},
        keys::TrustedManifestKeys,
        stamp::{EpochId, ManifestSeq},
        tlog::NoteVerifier,
    },
    serde::Serialize,
};

/// How far a verification reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyDepth {
    /// Manifests, seals, signatures and chain; objects present with the
    /// recorded size.
    Shallow,
    /// As `Shallow`, and every object re-hashed by streaming it.
    Deep,
}

/// What to verify.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    /// The tier prefix the archive lives under (no leading or trailing `/`).
    pub prefix: Option<String>,
    /// The keys manifests must be signed with; never the key a manifest
    /// carries.
    pub trusted: TrustedManifestKeys,
    /// Shallow or deep.
    pub depth: VerifyDepth,
    /// Only partitions of this topic.
    pub topic: Option<String>,
    /// Only this partition number.
    pub partition: Option<i32>,
    /// The tip head recorded outside the archive by an earlier run; it
    /// detects tail truncation. Needs exactly one partition in scope.
    pub expect_head: Option<ChainHead>,
    /// How to check the archive log (checkpoints, witnesses).
    pub log: LogVerifyRequest,
}

impl VerifyRequest {
    /// A shallow verification of every partition under `prefix`.
    #[must_use]
    pub fn new(prefix: Option<String>, trusted: TrustedManifestKeys) -> Self {
        Self {
            prefix,
            trusted,
            depth: VerifyDepth::Shallow,
            topic: None,
            partition: None,
            expect_head: None,
            log: LogVerifyRequest::default(),
        }
    }
}

/// An offset of a partition, written `<topic>-<partition>@<offset>`
/// (`orders-3@1200`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetOf {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The offset.
    pub offset: i64,
}

impl std::str::FromStr for OffsetOf {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid =
            || format!("expected <topic>-<partition>@<offset>, e.g. orders-3@1200, got `{text}`");
        let (at, offset) = text.rsplit_once('@').ok_or_else(invalid)?;
        let (topic, partition) = at.rsplit_once('-').ok_or_else(invalid)?;
        if topic.is_empty() {
            return Err(invalid());
        }
        Ok(Self {
            topic: topic.to_owned(),
            partition: partition.parse().map_err(|_| invalid())?,
            offset: offset.parse().map_err(|_| invalid())?,
        })
    }
}

impl std::fmt::Display for OffsetOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}@{}", self.topic, self.partition, self.offset)
    }
}

/// How [`verify_archive`](crate::verify_archive) checks the archive log:
/// the Merkle tree over every sealed manifest, its signed checkpoints and
/// their witnesses' cosignatures (`docs/worm-format.md`, the archive log).
/// The log's checkpoints must be signed by a trusted manifest key under the
/// origin's name.
#[derive(Debug, Clone, Default)]
pub struct LogVerifyRequest {
    /// The log's origin; `None` takes the one the newest checkpoint names.
    pub origin: Option<String>,
    /// The witnesses whose cosignatures count (C2SP cosignature/v1 keys).
    pub witnesses: Vec<NoteVerifier>,
    /// Distinct witnesses that must cosign a checkpoint for it to count as
    /// witnessed; `0` means all of [`LogVerifyRequest::witnesses`].
    pub quorum: usize,
    /// Checkpoints held outside the archive (an earlier audit's, a
    /// witness's): `(where it came from, the signed note's bytes)`. The
    /// archive's tree must contain each.
    pub checkpoints: Vec<(String, Vec<u8>)>,
    /// Witness URLs to ask, over C2SP `tlog-witness`, which tree of the log
    /// they last cosigned; the archive's tree must be at least as large.
    pub ask_witnesses: Vec<String>,
    /// Segments to prove included in the newest checkpoint: the accepted
    /// segment covering each offset.
    pub prove: Vec<OffsetOf>,
}

impl LogVerifyRequest {
    /// Whether the request asks anything of the log.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.origin.is_some()
            || !self.witnesses.is_empty()
            || !self.checkpoints.is_empty()
            || !self.ask_witnesses.is_empty()
            || !self.prove.is_empty()
    }

    /// The cosignatures a checkpoint needs to count as witnessed.
    #[must_use]
    pub fn required_cosigners(&self) -> usize {
        if self.quorum == 0 {
            self.witnesses.len()
        } else {
            self.quorum
        }
    }
}

/// How grave a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; the archive still verifies (stray objects, offset
    /// gaps).
    Notice,
    /// The archive cannot be attested (unsigned or untrusted manifests, an
    /// unknown format version) but shows no tampering.
    Incomplete,
    /// Evidence that the archive was changed.
    Tampering,
}

/// One finding, with the object it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VerifyBreak {
    /// A manifest or seal that does not decode.
    ManifestUnreadable {
        /// Its key.
        key: String,
        /// Why.
        detail: String,
    },
    /// A manifest of a format version this build does not read.
    UnsupportedFormat {
        /// Its key.
        key: String,
        /// Why.
        detail: String,
    },
    /// A manifest without a signature.
    Unsigned {
        /// Its key.
        key: String,
    },
    /// A manifest signed by a key id the verifier does not trust.
    UntrustedKey {
        /// Its key.
        key: String,
        /// The key id.
        key_id: String,
    },
    /// A signature that does not verify against the trusted key of its id,
    /// or carries another public key.
    SignatureInvalid {
        /// Its key.
        key: String,
        /// Why.
        detail: String,
    },
    /// The chain of an epoch breaks (gap, fork, replay, head mismatch).
    ChainBroken {
        /// The epoch.
        epoch_id: EpochId,
        /// The key of the manifest where it breaks.
        key: String,
        /// Why.
        detail: String,
    },
    /// A seal whose bytes differ from the manifest beside the segment (a
    /// seal whose key names another position than its body is a
    /// [`VerifyBreak::ForeignObject`]).
    SealMismatch {
        /// The seal's key.
        key: String,
        /// Why.
        detail: String,
    },
    /// A manifest stored under another segment's key.
    ManifestMisplaced {
        /// Where it is.
        key: String,
        /// Where its body says it belongs.
        expected: String,
    },
    /// A chain seal whose manifest beside the segment is gone (or, on a
    /// versioned bucket, ever existed and is no longer current).
    ManifestMissing {
        /// The seal's key.
        seal: String,
        /// The manifest key the seal's body implies.
        manifest: String,
    },
    /// A committed copy whose manifest beside the segment was never
    /// written: the last seal of its epoch, from which no detour continues,
    /// and (on a versioned bucket) no version or delete marker of the
    /// manifest key. A writer crashed between its seal and its manifest;
    /// the next copy of the partition writes the manifest. Its objects are
    /// checked as usual.
    CommitUnfinished {
        /// The seal's key.
        seal: String,
        /// The manifest key the seal's body implies.
        manifest: String,
    },
    /// A manifest that no chain seal commits.
    NotInChain {
        /// The manifest's key.
        key: String,
    },
    /// An object a manifest names is missing.
    ObjectMissing {
        /// Its key.
        key: String,
    },
    /// An object has another size than recorded.
    SizeMismatch {
        /// Its key.
        key: String,
        /// The recorded size.
        expected: u64,
        /// The stored size.
        found: u64,
    },
    /// An object's bytes no longer hash to the recorded SHA-256.
    HashMismatch {
        /// Its key.
        key: String,
        /// Whether the pinned version still holds the original bytes:
        /// `None` when the manifest pins no version or it cannot be read.
        original_survives: Option<bool>,
    },
    /// The same object key named twice.
    DuplicateObject {
        /// The key.
        key: String,
        /// The manifest naming it again.
        manifest: String,
    },
    /// A manifest names an object outside its own segment.
    ObjectOutsideSegment {
        /// The object's key.
        key: String,
        /// The manifest.
        manifest: String,
    },
    /// An object under `_chain/` that is not a seal of the archive's
    /// writers: a name that is no seal position, an object larger than any
    /// manifest (never read), bytes that do not decode, a manifest of
    /// another position, or an unsigned or untrusted seal that a detour
    /// epoch routes around. Only the archive's writers may write there.
    ForeignObject {
        /// Its key.
        key: String,
        /// What it is, whether the chain routes around it, and whether the
        /// committed records are intact.
        detail: String,
    },
    /// The tip differs from the head recorded outside the archive.
    ExpectHeadMismatch {
        /// The recorded head.
        expected: ChainHead,
        /// The archive's tip, if it has one.
        found: Option<ChainHead>,
    },
    /// `expect_head` was given with other than one partition in scope.
    ExpectHeadAmbiguous {
        /// Partitions in scope.
        partitions: usize,
    },
    /// A newer version or a delete marker hides an archived object version
    /// (S3 only).
    Shadowed {
        /// The key.
        key: String,
        /// What hides it: `delete marker` or `newer version <id>`.
        by: String,
    },
    /// The current version of a key of a partition directory is a delete
    /// marker: a plain DeleteObject hid what was beneath (S3 only).
    DeleteMarker {
        /// The key.
        key: String,
        /// The delete marker's version.
        version_id: String,
    },
    /// A partition directory that exists only beneath delete markers: every
    /// key of it was deleted without a version id (S3 only).
    PartitionHidden {
        /// The directory, prefix included.
        dir: String,
        /// Its keys under a delete marker.
        keys: usize,
    },
    /// The object version a manifest pins is gone: deleted with a
    /// governance bypass, or the archive was copied to another bucket (S3
    /// only).
    PinnedVersionMissing {
        /// The key.
        key: String,
        /// The pinned version.
        version_id: String,
    },
    /// The bucket cannot attest the archive's protection: versioning not
    /// `Enabled`, no Object Lock, or a default retention other than
    /// COMPLIANCE (S3 only).
    BucketUnprotected {
        /// What the bucket says.
        detail: String,
    },
    /// A version carries Object Lock headers while its bucket has no Object
    /// Lock: the bucket cannot enforce them (an archive copied from a
    /// locked bucket; S3 only).
    RetentionWithoutBucketLock {
        /// The key.
        key: String,
        /// The version.
        version_id: String,
        /// The mode it carries.
        mode: String,
    },
    /// An archived object version not under COMPLIANCE retention (S3 only).
    RetentionWeak {
        /// The key.
        key: String,
        /// The version.
        version_id: String,
        /// The mode found, if any.
        mode: Option<String>,
    },
    /// An object no manifest names (a crashed or lost copy, or a stray).
    Orphan {
        /// Its key.
        key: String,
    },
    /// An object of the archive log that the tree or a checkpoint needs is
    /// missing (deleted or hidden: the log is written create-only and never
    /// deleted).
    LogObjectMissing {
        /// Its key.
        key: String,
    },
    /// An object of the archive log that does not decode (a checkpoint, a
    /// cosignature, a tile, an entry bundle or a leaf).
    LogObjectUnreadable {
        /// Its key.
        key: String,
        /// Why.
        detail: String,
    },
    /// A hash tile whose hashes are not those of the entries below it.
    LogTileMismatch {
        /// Its key.
        key: String,
    },
    /// A checkpoint without a valid signature by a trusted key under the
    /// log's origin, or of another origin.
    CheckpointUnsigned {
        /// Its key, or where a checkpoint held outside came from.
        key: String,
        /// Why.
        detail: String,
    },
    /// Checkpoints of one origin that cannot both be true: a root that is
    /// not the tree's at its size, a size smaller than an earlier
    /// checkpoint's, or (a split view) two signed checkpoints of different
    /// trees. The notes are the evidence.
    CheckpointInconsistent {
        /// The checkpoint's key, or where it came from.
        key: String,
        /// Why.
        detail: String,
        /// The signed notes involved, as stored.
        evidence: Vec<String>,
    },
    /// A cosignature that names a configured witness key but does not
    /// verify over its checkpoint (forged, or moved from another
    /// checkpoint).
    CosignatureInvalid {
        /// Its key.
        key: String,
        /// The witness key's name.
        witness: String,
    },
    /// A cosignature by a key the verifier was not given.
    CosignatureUnknown {
        /// Its key.
        key: String,
        /// The name on its signature line.
        name: String,
    },
    /// Evidence that the archive's newest history is gone: a checkpoint
    /// witnessed or held outside the archive is larger than the archive's
    /// tree (newest manifests, checkpoints and tiles removed, an older copy
    /// of the bucket restored, or a shorter history shown).
    LogTruncated {
        /// Where the larger tree is attested: a checkpoint's key, a file,
        /// or a witness's URL.
        source: String,
        /// Its size.
        attested_size: u64,
        /// The size of the archive's own tree.
        found_size: u64,
    },
    /// A leaf of the tree whose chain seal is not in the archive: a sealed
    /// manifest was removed.
    LeafWithoutSeal {
        /// The leaf's index.
        index: u64,
        /// The seal key it records.
        seal: String,
    },
    /// A leaf whose chain seal is in the archive with other bytes.
    LeafSealMismatch {
        /// The leaf's index.
        index: u64,
        /// The seal key it records.
        seal: String,
    },
    /// A seal logged twice (a writer crashed between its leaf's claim and
    /// marker, and the next writer logged it again).
    LeafDuplicate {
        /// The later leaf's index.
        index: u64,
        /// The seal key.
        seal: String,
    },
    /// A chain seal with no leaf in the tree nor a claim waiting for the
    /// next checkpoint: written before the archive kept its log, or its
    /// claim was lost.
    NotInLog {
        /// The seal's key.
        seal: String,
    },
    /// An archived object in the chunked format (compressed, encrypted)
    /// whose chunks do not all decode with the key pairs given (`--deep`
    /// with `--key-pair`): its stored bytes match the manifest, but they
    /// are not a sealed encoding of the segment's data.
    ChunkUndecodable {
        /// The object's key.
        key: String,
        /// Why.
        detail: String,
    },
    /// A segment in the chunked format whose data key no key pair given
    /// unwraps: its chunks were not checked.
    ChunkKeyMissing {
        /// The envelope's key.
        key: String,
        /// Why.
        detail: String,
    },
    /// The archive log cannot attest the archive: witnesses were given but
    /// no checkpoint has the quorum of their cosignatures, the log was
    /// asked for but is absent, or a witness could not be asked.
    LogUnattested {
        /// What is missing.
        detail: String,
    },
}

impl VerifyBreak {
    /// How grave the finding is.
    #[must_use]
    pub fn severity(&self) -> Severity {
        match self {
            Self::Orphan { .. }
            | Self::CommitUnfinished { .. }
            | Self::CosignatureUnknown { .. }
            | Self::LeafDuplicate { .. }
            | Self::NotInLog { .. } => Severity::Notice,
            Self::UnsupportedFormat { .. }
            | Self::ChunkKeyMissing { .. }
            | Self::LogUnattested { .. }
            | Self::Unsigned { .. }
            | Self::UntrustedKey { .. }
            | Self::ExpectHeadAmbiguous { .. }
            | Self::BucketUnprotected { .. }
            | Self::RetentionWeak { .. } => Severity::Incomplete,
            _ => Severity::Tampering,
        }
    }
}

/// The Object Lock state of one archived object version (S3 only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObjectProtectionReport {
    /// The key.
    pub key: String,
    /// The version checked: the pinned one, else the oldest.
    pub version_id: String,
    /// `COMPLIANCE`, `GOVERNANCE`, or none.
    pub mode: Option<String>,
    /// The retain-until date as the server wrote it.
    pub retain_until: Option<String>,
}

/// The bucket's own protection as found (S3 only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BucketProtectionReport {
    /// `Enabled`, `Suspended`, or `Off` (never enabled).
    pub versioning: String,
    /// Whether Object Lock is enabled on the bucket.
    pub object_lock: bool,
    /// The default retention mode, if a default rule is set.
    pub default_mode: Option<String>,
    /// The default retention period (`1 Days`, `7 Years`), if set.
    pub default_period: Option<String>,
}

/// One accepted segment of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentSummary {
    /// The key of its chain seal.
    pub seal: String,
    /// Its first offset.
    pub start_offset: i64,
    /// Its last offset.
    pub end_offset: i64,
    /// Its largest record timestamp.
    pub max_timestamp_ms: i64,
    /// Its size in bytes, as Kafka reported it.
    pub size_bytes: i64,
}

/// A run of offsets no accepted manifest covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OffsetGap {
    /// The last offset before the gap.
    pub after: i64,
    /// The first offset after the gap.
    pub next: i64,
}

/// One chain epoch of a partition, as walked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EpochSpan {
    /// The epoch.
    pub epoch_id: EpochId,
    /// Manifests accepted in order from seq 0.
    pub accepted: u64,
    /// The last accepted seq, if any.
    pub last_seq: Option<ManifestSeq>,
    /// The head after the last accepted manifest.
    pub head: ChainHead,
    /// For a detour epoch: the chain position of the foreign object it
    /// routes around (its seq 0 builds on the head before that position).
    pub detour_of: Option<ChainPosition>,
}

/// A position in a partition's chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ChainPosition {
    /// The epoch.
    pub epoch_id: EpochId,
    /// The seq in the epoch.
    pub seq: ManifestSeq,
}

/// What was found in one partition directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionVerifyReport {
    /// The partition directory, prefix included.
    pub dir: String,
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Manifest objects read.
    pub manifests: usize,
    /// Objects checked against manifests.
    pub objects: usize,
    /// Bytes re-hashed (deep only).
    pub bytes_hashed: u64,
    /// The chain epochs.
    pub epochs: Vec<EpochSpan>,
    /// The tip: head of the newest accepted manifest.
    pub tip: Option<ChainHead>,
    /// Offsets the accepted manifests do not cover.
    pub gaps: Vec<OffsetGap>,
    /// The accepted segments, in offset order (for reports that draw them;
    /// the JSON report carries their span only).
    #[serde(skip)]
    pub segments: Vec<SegmentSummary>,
    /// The first and last offset the accepted segments cover.
    pub offsets: Option<(i64, i64)>,
    /// The smallest and largest `max_timestamp_ms` of the accepted
    /// segments.
    pub time_span_ms: Option<(i64, i64)>,
    /// The findings.
    pub findings: Vec<VerifyBreak>,
    /// Object Lock state of every archived version (S3 sources only).
    pub protection: Vec<ObjectProtectionReport>,
    /// Archived keys with their pinned version (objects, manifests, seals).
    #[serde(skip)]
    pub(crate) archived: Vec<(String, Option<String>)>,
    /// The chain seals of accepted positions with the SHA-256 of their
    /// bytes, for the archive log's leaves.
    #[serde(skip)]
    pub(crate) seals: Vec<(String, Sha256Digest)>,
}

impl PartitionVerifyReport {
    /// The report of the directory `dir` of `topic`-`partition` before it
    /// is verified.
    pub(super) fn empty(dir: String, topic: String, partition: i32) -> Self {
        Self {
            dir,
            topic,
            partition,
            manifests: 0,
            objects: 0,
            bytes_hashed: 0,
            epochs: Vec::new(),
            tip: None,
            gaps: Vec::new(),
            segments: Vec::new(),
            offsets: None,
            time_span_ms: None,
            findings: Vec::new(),
            protection: Vec::new(),
            archived: Vec::new(),
            seals: Vec::new(),
        }
    }
}

/// The graded outcome of a verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyOutcome {
    /// Every manifest is signed by a trusted key, every chain and object
    /// checks out.
    Verified,
    /// Nothing was changed, but not everything can be attested.
    Incomplete,
    /// Evidence of tampering.
    Tampered,
}

/// What [`verify_archive`](crate::verify_archive) found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveVerifyReport {
    /// The depth of the run.
    pub depth: VerifyDepth,
    /// Objects listed.
    pub objects_listed: usize,
    /// One report per partition in scope, sorted by directory.
    pub partitions: Vec<PartitionVerifyReport>,
    /// Findings about the request as a whole (`expect_head`, the bucket).
    pub findings: Vec<VerifyBreak>,
    /// The bucket's versioning and Object Lock configuration (S3 sources
    /// only).
    pub bucket: Option<BucketProtectionReport>,
    /// The archive log as checked; `None` when the archive keeps none and
    /// the request asked nothing of it.
    pub log: Option<LogVerifyReport>,
}

/// A checkpoint as the verifier found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointSummary {
    /// Its key in the archive, or where it came from.
    pub source: String,
    /// Its tree size.
    pub size: u64,
    /// Its root hash, base64.
    pub root: String,
    /// The configured witnesses whose cosignatures verify, by key name.
    pub cosigners: Vec<String>,
}

/// What a witness said when asked for the tree it last cosigned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessSummary {
    /// Its URL.
    pub url: String,
    /// The size it has cosigned, if it said.
    pub size: Option<u64>,
    /// What it answered otherwise.
    pub detail: Option<String>,
}

/// The archive log as checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogVerifyReport {
    /// The origin checked.
    pub origin: Option<String>,
    /// Checkpoints in the archive.
    pub checkpoints: u64,
    /// The newest checkpoint in the archive.
    pub newest: Option<CheckpointSummary>,
    /// The largest checkpoint with the quorum of cosignatures.
    pub witnessed: Option<CheckpointSummary>,
    /// Cosignatures required for a checkpoint to count as witnessed.
    pub quorum: usize,
    /// Leaves read back from the entry bundles and checked.
    pub leaves: u64,
    /// Claims after the newest checkpoint, waiting for the next.
    pub pending: u64,
    /// Hash tiles compared with the entries.
    pub tiles_checked: u64,
    /// Checkpoints held outside the archive, as checked.
    pub external: Vec<CheckpointSummary>,
    /// Witnesses asked.
    pub witnesses: Vec<WitnessSummary>,
    /// Consistency proofs from the witnessed and the held checkpoints to the
    /// newest.
    pub consistency: Vec<ConsistencyProofReport>,
    /// Inclusion proofs of the segments asked for.
    pub inclusion: Vec<InclusionProofReport>,
}

/// A consistency proof (RFC 9162) between two checkpoints of the log,
/// produced from the archive's tiles and checked from the proof alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsistencyProofReport {
    /// The older checkpoint's key, or where it came from.
    pub from: String,
    /// Its tree size.
    pub old_size: u64,
    /// The newest checkpoint's tree size.
    pub new_size: u64,
    /// The proof's hashes, base64.
    pub proof: Vec<String>,
    /// Whether it proves the older tree a prefix of the newer.
    pub verified: bool,
    /// Why not, when not.
    pub detail: Option<String>,
}

/// An inclusion proof (RFC 9162) of a segment's chain seal in the newest
/// checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InclusionProofReport {
    /// What was asked: `<topic>-<partition>@<offset>`.
    pub segment: String,
    /// The seal of the segment covering it, if one does.
    pub seal: String,
    /// Its leaf index.
    pub index: Option<u64>,
    /// The tree size the proof is for.
    pub size: u64,
    /// The audit path, base64.
    pub proof: Vec<String>,
    /// Whether the proof checks against the newest checkpoint's root.
    pub verified: bool,
    /// Why not, when not.
    pub detail: Option<String>,
}

impl ArchiveVerifyReport {
    /// Every finding, archive-wide and per partition.
    pub fn all_findings(&self) -> impl Iterator<Item = &VerifyBreak> {
        self.findings
            .iter()
            .chain(self.partitions.iter().flat_map(|p| p.findings.iter()))
    }

    /// The graded outcome: the gravest finding decides.
    #[must_use]
    pub fn outcome(&self) -> VerifyOutcome {
        match self.all_findings().map(VerifyBreak::severity).max() {
            Some(Severity::Tampering) => VerifyOutcome::Tampered,
            Some(Severity::Incomplete) => VerifyOutcome::Incomplete,
            _ => VerifyOutcome::Verified,
        }
    }
}

/// An archive that passed verification with nothing short of
/// [`VerifyOutcome::Verified`]; only
/// [`authenticate_archive`](crate::authenticate_archive) makes one.
#[derive(Debug, Clone)]
pub struct AuthenticatedArchive {
    pub(super) report: ArchiveVerifyReport,
}

impl AuthenticatedArchive {
    /// The verification report.
    #[must_use]
    pub fn report(&self) -> &ArchiveVerifyReport {
        &self.report
    }

    /// The tip of each partition, by directory.
    pub fn tips(&self) -> impl Iterator<Item = (&str, Option<ChainHead>)> {
        self.report
            .partitions
            .iter()
            .map(|p| (p.dir.as_str(), p.tip))
    }
}

#[cfg(test)]
mod tests {
    use super::OffsetOf;

    #[test]
    fn an_offset_of_a_partition_reads_as_written() {
        let at: OffsetOf = "orders-eu-3@1200".parse().unwrap();
        assert_eq!(
            at,
            OffsetOf {
                topic: "orders-eu".to_owned(),
                partition: 3,
                offset: 1200
            }
        );
        assert_eq!(at.to_string(), "orders-eu-3@1200");
        for bad in ["orders@1", "-3@1", "orders-x@1", "orders-3@", "orders-3"] {
            assert!(bad.parse::<OffsetOf>().is_err(), "{bad}");
        }
    }
}
