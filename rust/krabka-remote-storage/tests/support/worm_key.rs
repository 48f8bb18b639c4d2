//! The archive signing key of the tests against real servers
//! (`tests/fixtures/worm/test-key-1.pem`) and the trusted set of its public
//! key.

use krabka_remote_storage::{TrustedManifestKeys, WormConfig};

/// The PKCS#8 PEM file of the key.
pub const KEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/worm/test-key-1.pem"
);

/// Its key id.
pub const KEY_ID: &str = "test-key-1";

/// Its public key, as operators publish it.
pub const KEY_1_PUBLIC: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

/// An archive configuration signing with the key.
pub fn worm_config() -> WormConfig {
    WormConfig::new(KEY, KEY_ID)
}

/// The trusted set holding only the key.
pub fn trusted() -> TrustedManifestKeys {
    let mut trusted = TrustedManifestKeys::new();
    trusted.insert_hex(KEY_ID, KEY_1_PUBLIC).unwrap();
    trusted
}
