//! RSA key pairs for the chunked format's tests, written as the PEM files
//! an operator makes with `openssl genpkey` / `openssl pkey -pubout`.

use {
    krabka_remote_storage::{
        Cipher, Compression, KeyPairFiles, KeyRing, RsaKeyPairs, SegmentCodec,
    },
    std::sync::Arc,
};

// Each test binary uses a different part of the support module.
#[allow(unused_imports)]
pub use krabka_remote_storage::envelope::testing::write_key_pair;

/// A key ring of `pairs` with `active` active.
pub fn ring(active: &str, pairs: &[KeyPairFiles]) -> Arc<dyn KeyRing> {
    Arc::new(RsaKeyPairs::load(active, pairs).unwrap())
}

/// A codec that compresses and encrypts with AES-256-GCM in chunks of
/// `chunk_size` bytes, under `keys`.
pub fn sealing_codec(chunk_size: u32, keys: Arc<dyn KeyRing>) -> SegmentCodec {
    SegmentCodec {
        chunk_size,
        compression: Some(Compression::default()),
        encryption: Some(Cipher::Aes256Gcm),
        keys: Some(keys),
    }
}
