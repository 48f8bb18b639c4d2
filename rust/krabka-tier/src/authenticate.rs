//! [`authenticate_partition`]: the archive verifier's deep checks on one
//! partition of a write-once archive, before anything of it is exported.

use {
    crate::{PartitionListing, TierError},
    krabka_worm::{
        Severity, TrustedManifestKeys, VerifyDepth, VerifyOutcome, VerifyRequest, verify_archive,
    },
    object_store::ObjectStore,
};

/// Whether a partition may be exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authenticity {
    /// Chain, signatures and every object's hash verified.
    Verified,
    /// It does not verify: the outcome and each finding above a notice, as
    /// JSON text.
    Refused(Vec<String>),
}

/// The trusted key set of `--key-id`/`--public-key` pairs (the same
/// position pairs them).
///
/// # Errors
/// A message when the pairs do not match or a key is not 64 hex digits.
pub fn trusted_keys(
    key_ids: &[String],
    public_keys: &[String],
) -> Result<TrustedManifestKeys, String> {
    if key_ids.len() != public_keys.len() {
        return Err("give each --key-id with one --public-key, in the same order".to_owned());
    }
    let mut trusted = TrustedManifestKeys::new();
    for (key_id, hex) in key_ids.iter().zip(public_keys) {
        trusted
            .insert_hex(key_id, hex)
            .map_err(|err| err.to_string())?;
    }
    Ok(trusted)
}

/// Verifies `partition` of the archive under `prefix` deep against
/// `trusted` (the checks of `krabka-worm-verify --deep`).
///
/// # Errors
/// [`TierError::Verify`] when the archive cannot be read.
pub async fn authenticate_partition(
    store: &dyn ObjectStore,
    partition: &PartitionListing,
    trusted: &TrustedManifestKeys,
    prefix: Option<&str>,
) -> Result<Authenticity, TierError> {
    let mut request = VerifyRequest::new(prefix.map(str::to_owned), trusted.clone());
    request.depth = VerifyDepth::Deep;
    request.topic = Some(partition.topic.clone());
    request.partition = Some(partition.partition);
    let report = verify_archive(store, &request)
        .await
        .map_err(TierError::Verify)?;
    if report.outcome() == VerifyOutcome::Verified {
        return Ok(Authenticity::Verified);
    }
    let mut findings = vec![format!("outcome: {:?}", report.outcome())];
    findings.extend(
        report
            .all_findings()
            .filter(|f| f.severity() > Severity::Notice)
            .map(|f| serde_json::to_string(f).unwrap_or_else(|err| err.to_string())),
    );
    Ok(Authenticity::Refused(findings))
}
