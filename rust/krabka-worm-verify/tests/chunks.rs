//! An archive whose segments are stored compressed and encrypted (the
//! chunked format): the verifier checks it with no key at all, and with
//! `--deep --key-pair` opens every chunk.

mod common;

use {
    common::{archive_with, run_with},
    krabka_remote_storage::{
        Cipher, Compression, RsaKeyPairs, SegmentCodec, envelope::testing::write_key_pair,
    },
    std::sync::Arc,
};

fn sealed_archive() -> (tempfile::TempDir, tempfile::TempDir, String) {
    let keys = tempfile::tempdir().unwrap();
    let pair = write_key_pair(keys.path(), "k1");
    let codec = SegmentCodec {
        chunk_size: 4096,
        compression: Some(Compression::default()),
        encryption: Some(Cipher::Aes256Gcm),
        keys: Some(Arc::new(
            RsaKeyPairs::load("k1", std::slice::from_ref(&pair)).unwrap(),
        )),
    };
    let root = tempfile::tempdir().unwrap();
    let sealed = archive_with(root.path(), codec);
    assert!(
        sealed[0]
            .manifest
            .body
            .objects
            .iter()
            .any(|object| object.suffix == ".envelope")
    );
    let arg = format!(
        "k1={},{}",
        pair.public_key_file.display(),
        pair.private_key_file.display()
    );
    (root, keys, arg)
}

#[test]
fn an_encrypted_archive_verifies_without_keys_and_decodes_with_them() {
    let (root, _keys, pair) = sealed_archive();
    let (code, out, err) = run_with(root.path(), &["--deep"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run_with(root.path(), &["--deep", "--key-pair", &pair]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("chunks: 2 segment(s) in the chunked format"),
        "{err}"
    );
}

#[test]
fn a_key_pair_that_does_not_unwrap_leaves_the_chunks_unchecked() {
    let (root, _keys, _) = sealed_archive();
    let other = tempfile::tempdir().unwrap();
    let impostor = write_key_pair(other.path(), "k1");
    let arg = format!(
        "k1={},{}",
        impostor.public_key_file.display(),
        impostor.private_key_file.display()
    );
    let (code, out, err) = run_with(root.path(), &["--deep", "--key-pair", &arg, "--json"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("chunk_key_missing"), "{out}");
    // --key-pair needs --deep, and a well-formed value.
    let (code, _, _) = run_with(root.path(), &["--key-pair", &arg]);
    assert_eq!(code, 64);
    let (code, _, err) = run_with(root.path(), &["--deep", "--key-pair", "k1"]);
    assert_eq!(code, 64, "{err}");
}
