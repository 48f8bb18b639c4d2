//! Key pairs for tests of the crates that use the format (feature
//! `test-support`): written as the PEM files an operator makes with
//! `openssl genpkey -algorithm RSA` and `openssl pkey -pubout`.

use {
    crate::KeyPairFiles,
    aws_lc_rs::{
        encoding::{AsDer, Pkcs8V1Der},
        rsa::{KeySize, PrivateDecryptingKey},
    },
    std::{fs, path::Path},
};

/// Writes a fresh 2048-bit RSA key pair into `dir` as `<id>.private.pem`
/// (PKCS #8, mode 600) and `<id>.public.pem` (SubjectPublicKeyInfo).
///
/// # Panics
/// When the key cannot be generated or the files cannot be written (a
/// test helper).
#[must_use]
pub fn write_key_pair(dir: &Path, id: &str) -> KeyPairFiles {
    let private = PrivateDecryptingKey::generate(KeySize::Rsa2048).expect("an RSA key");
    let private_der = AsDer::<Pkcs8V1Der<'_>>::as_der(&private).expect("its PKCS #8 DER");
    let public_der = private.public_key().as_der().expect("its SPKI DER");
    let files = KeyPairFiles {
        id: id.to_owned(),
        public_key_file: dir.join(format!("{id}.public.pem")),
        private_key_file: dir.join(format!("{id}.private.pem")),
    };
    let pem = |label, der: &[u8]| {
        pem_rfc7468::encode_string(label, pem_rfc7468::LineEnding::LF, der).expect("PEM")
    };
    fs::write(
        &files.private_key_file,
        pem("PRIVATE KEY", private_der.as_ref()),
    )
    .expect("a key file");
    set_private_mode(&files.private_key_file);
    fs::write(
        &files.public_key_file,
        pem("PUBLIC KEY", public_der.as_ref()),
    )
    .expect("a key file");
    files
}

#[cfg(unix)]
fn set_private_mode(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod 600");
}

#[cfg(not(unix))]
fn set_private_mode(_path: &Path) {}
