//! Signatures of the chain's manifests against the trusted keys, never the
//! key a manifest carries.

use {
    super::{partition::Chain, report::VerifyBreak},
    crate::{error::WormError, keys::TrustedManifestKeys, signature::verify_manifest_signature},
};

/// A finding for every manifest of `chain` that is not signed by a key of
/// `trusted`, in chain order.
pub(super) fn check_signatures(
    chain: &Chain,
    trusted: &TrustedManifestKeys,
    findings: &mut Vec<VerifyBreak>,
) {
    for entry in chain.values() {
        match verify_manifest_signature(&entry.manifest, trusted) {
            Ok(_) => {}
            Err(WormError::Unsigned) => findings.push(VerifyBreak::Unsigned {
                key: entry.key.clone(),
            }),
            Err(WormError::UntrustedKey { key_id }) => findings.push(VerifyBreak::UntrustedKey {
                key: entry.key.clone(),
                key_id,
            }),
            Err(err @ WormError::UnsupportedFormatVersion { .. }) => {
                findings.push(VerifyBreak::UnsupportedFormat {
                    key: entry.key.clone(),
                    detail: err.to_string(),
                });
            }
            Err(err) => findings.push(VerifyBreak::SignatureInvalid {
                key: entry.key.clone(),
                detail: err.to_string(),
            }),
        }
    }
}
