//! [`rewrap_tier`]: puts every encrypted segment of a tier under the active
//! key pair by rewriting its envelope, never its data.
//!
//! Rotating keys is: configure a new pair as active (new segments are
//! wrapped by it), keep the old pairs configured so their segments stay
//! readable, run `krabka-tier rewrap` with every pair, then drop the old
//! pairs. Each envelope is read, its data key unwrapped with the pair that
//! wrapped it and wrapped again by the active pair, and the envelope
//! written back in one PUT: the chunks, the log and the indexes are
//! untouched, so a rewrap moves a few hundred bytes per segment.

use {
    crate::{PartitionListing, TierError},
    futures_util::TryStreamExt,
    krabka_envelope::{EnvelopeError, KeyRing, SegmentEnvelope, WrappedKey},
    krabka_object_store::CREATE_ONLY_PROBE_DIR,
    object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path},
    serde::Serialize,
};

pub use krabka_envelope::ENVELOPE_SUFFIX;

/// What a rewrap did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RewrapSummary {
    /// Envelopes now wrapped by the active pair that were not before.
    pub rewrapped: usize,
    /// Envelopes already wrapped by the active pair.
    pub already_active: usize,
    /// Envelopes of segments that are compressed only (no key to wrap).
    pub not_encrypted: usize,
    /// Envelopes that could not be rewrapped: key and reason. Nothing of
    /// them was written.
    pub failed: Vec<(String, String)>,
}

/// Whether the tier under `prefix` is a write-once archive: it holds the
/// create-only probes an archive writes when it starts.
///
/// # Errors
/// [`TierError::Store`] when the store cannot be listed.
pub async fn holds_archive(
    store: &dyn ObjectStore,
    prefix: Option<&str>,
) -> Result<bool, TierError> {
    let probes = Path::from(match prefix {
        Some(prefix) => format!("{prefix}/{CREATE_ONLY_PROBE_DIR}"),
        None => CREATE_ONLY_PROBE_DIR.to_owned(),
    });
    Ok(store
        .list(Some(&probes))
        .try_next()
        .await
        .map_err(|source| TierError::Store {
            operation: "listing of",
            key: probes.to_string(),
            source,
        })?
        .is_some())
}

/// Rewraps every envelope of `partitions` under `keys`' active pair; with
/// `dry_run`, counts what it would do and writes nothing.
///
/// # Errors
/// [`TierError::Store`] when an envelope cannot be read or written (a
/// refused or unusable envelope is a [`RewrapSummary::failed`] entry
/// instead, and the rewrap goes on).
pub async fn rewrap_tier(
    store: &dyn ObjectStore,
    prefix: Option<&str>,
    partitions: &[PartitionListing],
    keys: &dyn KeyRing,
    dry_run: bool,
) -> Result<RewrapSummary, TierError> {
    // An archive's envelopes are sealed by its manifests at the versions
    // they name: a new version would never be read, so nothing is written.
    if holds_archive(store, prefix).await? {
        return Err(TierError::Refused(
            "the tier is a write-once archive: its envelopes are sealed by its manifests and cannot be rewritten; keep every key pair that wrapped a retained segment configured until the retention of its segments ends (docs/chunked-format.md)".to_owned(),
        ));
    }
    let mut summary = RewrapSummary::default();
    for segment in partitions.iter().flat_map(|p| &p.segments) {
        let Some(key) = segment.file(ENVELOPE_SUFFIX) else {
            continue;
        };
        let path = Path::from(key);
        let bytes = store
            .get(&path)
            .await
            .map_err(|source| TierError::Store {
                operation: "read of",
                key: key.to_owned(),
                source,
            })?
            .bytes()
            .await
            .map_err(|source| TierError::Store {
                operation: "read of",
                key: key.to_owned(),
                source,
            })?;
        match rewrapped(&bytes, segment.segment_id, keys) {
            Ok(Rewrap::AlreadyActive) => summary.already_active += 1,
            Ok(Rewrap::NotEncrypted) => summary.not_encrypted += 1,
            Ok(Rewrap::New(envelope)) => {
                if !dry_run {
                    store
                        .put(&path, PutPayload::from(envelope))
                        .await
                        .map_err(|source| TierError::Store {
                            operation: "write of",
                            key: key.to_owned(),
                            source,
                        })?;
                }
                summary.rewrapped += 1;
            }
            Err(err) => summary.failed.push((key.to_owned(), err.to_string())),
        }
    }
    Ok(summary)
}

/// What one envelope needs.
enum Rewrap {
    AlreadyActive,
    NotEncrypted,
    New(Vec<u8>),
}

fn rewrapped(
    bytes: &[u8],
    segment: uuid::Uuid,
    keys: &dyn KeyRing,
) -> Result<Rewrap, EnvelopeError> {
    let mut envelope = SegmentEnvelope::decode(bytes, segment)?;
    if envelope.cipher.is_none() {
        return Ok(Rewrap::NotEncrypted);
    }
    if envelope.key_id == keys.active_key_id() {
        return Ok(Rewrap::AlreadyActive);
    }
    let wrapped = WrappedKey {
        key_id: envelope.key_id.clone(),
        bytes: envelope.wrapped_key.clone(),
    };
    let data_key = keys.unwrap(segment, &wrapped)?;
    let new = keys.wrap(&data_key)?;
    envelope.key_id = new.key_id;
    envelope.wrapped_key = new.bytes;
    Ok(Rewrap::New(envelope.encode()))
}
