//! RSA key pairs for the chunked format's tests, written as the PEM files
//! an operator makes with `openssl genpkey` / `openssl pkey -pubout`.

use {
    aws_lc_rs::{
        encoding::{AsDer, Pkcs8V1Der},
        rsa::{KeySize, PrivateDecryptingKey},
    },
    krabka_remote_storage::{
        Cipher, Compression, KeyPairFiles, KeyRing, RsaKeyPairs, SegmentCodec,
    },
    std::{fs, os::unix::fs::PermissionsExt, path::Path, sync::Arc},
};

/// Writes a fresh 2048-bit pair as `<id>.private.pem` (mode 600) and
/// `<id>.public.pem` in `dir`.
pub fn write_key_pair(dir: &Path, id: &str) -> KeyPairFiles {
    let private = PrivateDecryptingKey::generate(KeySize::Rsa2048).unwrap();
    let private_der = AsDer::<Pkcs8V1Der<'_>>::as_der(&private).unwrap();
    let public_der = private.public_key().as_der().unwrap();
    let files = KeyPairFiles {
        id: id.to_owned(),
        public_key_file: dir.join(format!("{id}.public.pem")),
        private_key_file: dir.join(format!("{id}.private.pem")),
    };
    let pem = |label, der: &[u8]| {
        pem_rfc7468::encode_string(label, pem_rfc7468::LineEnding::LF, der).unwrap()
    };
    fs::write(
        &files.private_key_file,
        pem("PRIVATE KEY", private_der.as_ref()),
    )
    .unwrap();
    fs::set_permissions(&files.private_key_file, fs::Permissions::from_mode(0o600)).unwrap();
    fs::write(
        &files.public_key_file,
        pem("PUBLIC KEY", public_der.as_ref()),
    )
    .unwrap();
    files
}

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
