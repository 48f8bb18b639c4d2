//! The segment manifest: what one segment copy wrote, chained and signed.
//!
//! A manifest is stored as one JSON object (`<segment>.manifest`) in its
//! single canonical form ([`SegmentManifest::to_bytes`]); a reader accepts
//! nothing else ([`SegmentManifest::from_bytes`]). The chain head is computed
//! over a separate canonical *binary* encoding of the body
//! ([`canonical_manifest_bytes`]), so the chain never depends on JSON.

mod body;
mod canonical;
mod json;
mod parse;

use {
    super::{HexBytes, WormError, keys::validate_key_id},
    serde::{Deserialize, Serialize},
};
pub use {
    body::{ManifestBody, ObjectEntry, SegmentIdentity},
    canonical::{canonical_manifest_bytes, manifest_head},
};

/// The manifest format this build writes and the only one it reads.
///
/// It versions both the JSON shape and the canonical byte layout. Version 1
/// was an earlier layout (no `create_precondition`, a different JSON shape);
/// it is refused.
pub const MANIFEST_FORMAT_VERSION: u32 = 2;

/// Prefix of the canonical body bytes, the chain-head preimage.
pub const MANIFEST_BODY_DOMAIN: &[u8] = b"krabka-worm-manifest-body-v2\0";

/// Prefix of the bytes a manifest signature signs.
pub const MANIFEST_DOMAIN: &[u8] = b"krabka-worm-manifest-v2\0";

/// Suffix of a manifest object's key: the `.log` key with `.log` replaced.
pub const MANIFEST_SUFFIX: &str = ".manifest";

/// The largest manifest object a reader accepts, in bytes; larger objects
/// are refused before they are decoded.
pub const MAX_MANIFEST_BYTES: usize = 1024 * 1024;

/// Length of an Ed25519 public key.
pub(crate) const PUBLIC_KEY_LEN: usize = 32;

/// Length of an Ed25519 signature.
pub(crate) const SIGNATURE_LEN: usize = 64;

/// A sealed segment copy: the body and, as a sibling, the signature over
/// the body's chain head.
///
/// A value of this type is *decoded*, not *trusted*: only
/// [`verify_manifest_signature`](crate::verify_manifest_signature) turns it
/// into a [`VerifiedManifest`](crate::VerifiedManifest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentManifest {
    /// The signed content.
    pub body: ManifestBody,
    /// The signature, or `None` for an unsigned archive (chain continuity
    /// without proof of authorship).
    pub signature: Option<ManifestSignature>,
}

impl SegmentManifest {
    /// The one canonical JSON encoding of this manifest: the bytes a writer
    /// stores and the only bytes [`SegmentManifest::from_bytes`] accepts.
    ///
    /// Fields in declaration order, no whitespace, integers in shortest
    /// decimal form, `null` for absent optional values, strings escaped only
    /// where JSON requires it (`"`, `\` and U+0000–U+001F, the latter as
    /// `\b \t \n \f \r` or `\u00xx` with lower-case hex).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        json::manifest_json(self)
    }

    /// Decodes untrusted manifest bytes.
    ///
    /// In order: the size cap, the format version (probed before the full
    /// decode, so a future shape is reported as a version problem), the
    /// strict decode (unknown fields refused), trailing bytes, canonical
    /// form, and the shape of the signature block. Never panics.
    ///
    /// # Errors
    /// [`WormError::ManifestTooLarge`], [`WormError::ManifestDecode`],
    /// [`WormError::UnsupportedFormatVersion`],
    /// [`WormError::ManifestTrailingBytes`],
    /// [`WormError::ManifestNotCanonical`], [`WormError::InvalidKeyId`],
    /// [`WormError::MalformedSignature`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WormError> {
        parse::parse_manifest(bytes)
    }
}

/// An Ed25519 signature over a manifest's chain head
/// ([`manifest_signing_bytes`](crate::manifest_signing_bytes)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestSignature {
    /// The id of the signing key; it is inside the signed bytes, so a
    /// signature cannot be moved to another key id.
    pub key_id: String,
    /// The signer's raw 32-byte public key. **Never used to verify**: a
    /// verifier looks the key up by `key_id` in its own trusted set, and
    /// only refuses a manifest whose carried key differs from that one.
    pub public_key: HexBytes,
    /// The raw 64-byte Ed25519 signature.
    pub signature: HexBytes,
}

impl ManifestSignature {
    /// Checks the key id syntax and the field lengths.
    pub(crate) fn check_shape(&self) -> Result<(), WormError> {
        validate_key_id(&self.key_id)?;
        for (field, len, expected) in [
            ("public_key", self.public_key.0.len(), PUBLIC_KEY_LEN),
            ("signature", self.signature.0.len(), SIGNATURE_LEN),
        ] {
            if len != expected {
                return Err(WormError::MalformedSignature {
                    key_id: self.key_id.clone(),
                    field,
                    len,
                    expected,
                });
            }
        }
        Ok(())
    }
}
