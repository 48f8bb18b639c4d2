//! What a manifest signature signs, and the one function that checks it.

use {
    super::{
        ChainHead, EpochId, MANIFEST_DOMAIN, MANIFEST_FORMAT_VERSION, ManifestBody, ManifestSeq,
        SegmentManifest, TrustedManifestKeys, WormError, manifest_head,
    },
    ed25519_dalek::Signature,
};

/// The bytes a manifest signature signs:
/// `MANIFEST_DOMAIN ‖ len(key_id) as u64 BE ‖ key_id ‖ epoch_id (16 bytes) ‖
/// seq as u64 BE ‖ head (32 bytes)`.
///
/// The signature covers the head, which commits to every body field and to
/// the whole chain before it; the key id is inside the signed bytes, so a
/// signature cannot be relabelled as another key's.
#[must_use]
pub fn manifest_signing_bytes(
    key_id: &str,
    epoch_id: EpochId,
    seq: ManifestSeq,
    head: &ChainHead,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(MANIFEST_DOMAIN.len() + 8 + key_id.len() + 16 + 8 + 32);
    out.extend_from_slice(MANIFEST_DOMAIN);
    out.extend_from_slice(
        &u64::try_from(key_id.len())
            .unwrap_or(u64::MAX)
            .to_be_bytes(),
    );
    out.extend_from_slice(key_id.as_bytes());
    out.extend_from_slice(epoch_id.0.as_bytes());
    out.extend_from_slice(&seq.0.to_be_bytes());
    out.extend_from_slice(&head.0);
    out
}

/// A manifest whose signature verified against a trusted key.
///
/// Only [`verify_manifest_signature`] makes one, so code that takes a
/// `VerifiedManifest` cannot be handed a manifest nobody checked:
///
/// ```compile_fail
/// use krabka_worm::{ChainHead, SegmentManifest, VerifiedManifest};
/// fn forge(manifest: SegmentManifest) -> VerifiedManifest {
///     VerifiedManifest { manifest, head: ChainHead::GENESIS }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedManifest {
    manifest: SegmentManifest,
    head: ChainHead,
}

impl VerifiedManifest {
    /// The verified manifest.
    #[must_use]
    pub fn manifest(&self) -> &SegmentManifest {
        &self.manifest
    }

    /// The verified body.
    #[must_use]
    pub fn body(&self) -> &ManifestBody {
        &self.manifest.body
    }

    /// The chain head the signature covers.
    #[must_use]
    pub fn head(&self) -> ChainHead {
        self.head
    }

    /// The id of the trusted key that signed it.
    #[must_use]
    pub fn key_id(&self) -> &str {
        self.manifest
            .signature
            .as_ref()
            .map_or("", |signature| signature.key_id.as_str())
    }

    /// The manifest, giving up the proof.
    #[must_use]
    pub fn into_manifest(self) -> SegmentManifest {
        self.manifest
    }
}

/// Checks `manifest`'s signature against the key `trusted` holds under the
/// signature's key id, with strict Ed25519 verification (RFC 8032 plus the
/// refusal of non-canonical `S` and of small-order `R` and keys, so no
/// signature is malleable). The public key carried in the manifest is never
/// used to verify; it must merely equal the trusted key.
///
/// # Errors
/// In the order checked: [`WormError::UnsupportedFormatVersion`],
/// [`WormError::Unsigned`], [`WormError::InvalidKeyId`] /
/// [`WormError::MalformedSignature`], [`WormError::UntrustedKey`],
/// [`WormError::SignatureInvalid`], [`WormError::PublicKeyMismatch`].
pub fn verify_manifest_signature(
    manifest: &SegmentManifest,
    trusted: &TrustedManifestKeys,
) -> Result<VerifiedManifest, WormError> {
    if manifest.body.format_version != MANIFEST_FORMAT_VERSION {
        return Err(WormError::UnsupportedFormatVersion {
            found: manifest.body.format_version,
            supported: MANIFEST_FORMAT_VERSION,
        });
    }
    let signature = manifest.signature.as_ref().ok_or(WormError::Unsigned)?;
    signature.check_shape()?;
    let key = trusted
        .verifying_key(&signature.key_id)
        .ok_or_else(|| WormError::UntrustedKey {
            key_id: signature.key_id.clone(),
        })?;
    let invalid = || WormError::SignatureInvalid {
        key_id: signature.key_id.clone(),
    };
    let signature_bytes =
        Signature::from_slice(signature.signature.as_bytes()).map_err(|_| invalid())?;
    let head = manifest_head(&manifest.body);
    let message = manifest_signing_bytes(
        &signature.key_id,
        manifest.body.chain.epoch_id,
        manifest.body.chain.seq,
        &head,
    );
    key.verify_strict(&message, &signature_bytes)
        .map_err(|_| invalid())?;
    if signature.public_key.as_bytes() != key.as_bytes() {
        return Err(WormError::PublicKeyMismatch {
            key_id: signature.key_id.clone(),
        });
    }
    Ok(VerifiedManifest {
        manifest: manifest.clone(),
        head,
    })
}

/// Decodes untrusted manifest bytes and verifies their signature: the
/// usual way to read a manifest object.
///
/// # Errors
/// Those of [`SegmentManifest::from_bytes`], then those of
/// [`verify_manifest_signature`].
pub fn verify_manifest_bytes(
    bytes: &[u8],
    trusted: &TrustedManifestKeys,
) -> Result<VerifiedManifest, WormError> {
    verify_manifest_signature(&SegmentManifest::from_bytes(bytes)?, trusted)
}

#[cfg(test)]
mod tests {
    use {super::*, uuid::Uuid};

    #[test]
    fn signing_bytes_follow_the_documented_layout() {
        let bytes = manifest_signing_bytes(
            "kid",
            EpochId(Uuid::from_u128(1)),
            ManifestSeq(2),
            &ChainHead([3; 32]),
        );
        let mut expected = MANIFEST_DOMAIN.to_vec();
        expected.extend_from_slice(&3u64.to_be_bytes());
        expected.extend_from_slice(b"kid");
        expected.extend_from_slice(Uuid::from_u128(1).as_bytes());
        expected.extend_from_slice(&2u64.to_be_bytes());
        expected.extend_from_slice(&[3; 32]);
        assert_eq!(bytes, expected);
        assert_eq!(bytes.len(), MANIFEST_DOMAIN.len() + 8 + 3 + 16 + 8 + 32);
    }
}
