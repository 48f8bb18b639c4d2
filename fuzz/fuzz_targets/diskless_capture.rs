//! Capture reader: never panics; an accepted capture is valid and survives a JSON round trip.
#![no_main]

use {
    krabka_diskless::DisklessWalCapture,
    krabka_worm::{ChainHead, TrustedManifestKeys},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(capture) = DisklessWalCapture::from_slice(data) {
        assert!(capture.validate().is_ok());
        let bytes = capture.to_vec().expect("a decoded capture encodes");
        assert_eq!(DisklessWalCapture::from_slice(&bytes).ok(), Some(capture.clone()));
        let _ = capture.authenticate(&TrustedManifestKeys::new(), &ChainHead::GENESIS);
    }
});
