//! WORM manifest reader: never panics; an accepted manifest is its own canonical encoding.
#![no_main]

use {
    krabka_worm::{SegmentManifest, TrustedManifestKeys, verify_manifest_signature},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(manifest) = SegmentManifest::from_bytes(data) {
        assert_eq!(manifest.to_bytes(), data);
        assert!(verify_manifest_signature(&manifest, &TrustedManifestKeys::new()).is_err());
    }
});
