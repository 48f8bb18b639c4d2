//! Signatures of the chain's manifests against the trusted keys, never the
//! key a manifest carries.

use {
    super::{
        partition::{Chain, Position},
        report::VerifyBreak,
    },
    crate::{error::WormError, keys::TrustedManifestKeys, signature::verify_manifest_signature},
    std::collections::BTreeMap,
};

/// A finding for every manifest of `chain` that is not signed by a key of
/// `trusted`, by chain position. The caller reports them, unless a detour
/// routes around the position (then the seal there is foreign).
pub(super) fn check_signatures(
    chain: &Chain,
    trusted: &TrustedManifestKeys,
) -> BTreeMap<Position, VerifyBreak> {
    let mut untrusted = BTreeMap::new();
    for (position, entry) in chain {
        let key = entry.key.clone();
        let finding = match verify_manifest_signature(&entry.manifest, trusted) {
            Ok(_) => continue,
            Err(WormError::Unsigned) => VerifyBreak::Unsigned { key },
            Err(WormError::UntrustedKey { key_id }) => VerifyBreak::UntrustedKey { key, key_id },
            Err(err @ WormError::UnsupportedFormatVersion { .. }) => {
                VerifyBreak::UnsupportedFormat {
                    key,
                    detail: err.to_string(),
                }
            }
            Err(err) => VerifyBreak::SignatureInvalid {
                key,
                detail: err.to_string(),
            },
        };
        untrusted.insert(*position, finding);
    }
    untrusted
}
