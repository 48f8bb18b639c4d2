use {
    super::*,
    std::{fs, os::unix::fs::PermissionsExt},
};

pub(crate) use crate::testing::write_key_pair;

#[test]
fn a_data_key_wrapped_by_the_active_pair_unwraps_with_it_and_with_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let old = write_key_pair(dir.path(), "old");
    let new = write_key_pair(dir.path(), "new");
    let ring = RsaKeyPairs::load("new", &[old.clone(), new.clone()]).unwrap();
    assert_eq!(ring.active_key_id(), "new");
    assert_eq!(ring.key_ids(), ["new", "old"]);

    let key = DataKey::generate().unwrap();
    let wrapped = ring.wrap(&key).unwrap();
    assert_eq!(wrapped.key_id, "new");
    assert_eq!(wrapped.bytes.len(), 256);
    let segment = Uuid::from_u128(1);
    assert_eq!(
        ring.unwrap(segment, &wrapped).unwrap().expose(),
        key.expose()
    );

    // Rotation: a ring whose active key is "old" still reads "new"'s keys.
    let rotated_back = RsaKeyPairs::load("old", &[old.clone(), new]).unwrap();
    assert_eq!(
        rotated_back.unwrap(segment, &wrapped).unwrap().expose(),
        key.expose()
    );

    // The same id with another key: the unwrap fails with a typed error.
    let other_dir = tempfile::tempdir().unwrap();
    let impostor = write_key_pair(other_dir.path(), "new");
    let wrong = RsaKeyPairs::load("new", &[impostor]).unwrap();
    assert!(matches!(
        wrong.unwrap(segment, &wrapped),
        Err(EnvelopeError::UnwrapFailed { key_id, .. }) if key_id == "new"
    ));
    // An id nobody configured.
    let only_old = RsaKeyPairs::load("old", &[old]).unwrap();
    let err = only_old.unwrap(segment, &wrapped).unwrap_err();
    assert!(
        matches!(&err, EnvelopeError::UnknownKey { known, .. } if known == "old"),
        "{err}"
    );
    // A flipped bit of the wrapped key.
    let mut flipped = wrapped.clone();
    flipped.bytes[10] ^= 1;
    assert!(matches!(
        ring.unwrap(segment, &flipped),
        Err(EnvelopeError::UnwrapFailed { .. })
    ));
}

#[test]
fn key_files_are_checked_once_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let pair = write_key_pair(dir.path(), "k1");
    let other = write_key_pair(dir.path(), "k2");

    let err = RsaKeyPairs::load("k9", std::slice::from_ref(&pair)).unwrap_err();
    assert!(err.to_string().contains("\"k9\" is not among"), "{err}");

    fs::set_permissions(&pair.private_key_file, fs::Permissions::from_mode(0o644)).unwrap();
    let err = RsaKeyPairs::load("k1", std::slice::from_ref(&pair)).unwrap_err();
    assert!(err.to_string().contains("mode 644"), "{err}");
    fs::set_permissions(&pair.private_key_file, fs::Permissions::from_mode(0o640)).unwrap();
    RsaKeyPairs::load("k1", std::slice::from_ref(&pair)).unwrap();

    let mismatched = KeyPairFiles {
        public_key_file: other.public_key_file.clone(),
        ..pair.clone()
    };
    let err = RsaKeyPairs::load("k1", &[mismatched]).unwrap_err();
    assert!(
        err.to_string().contains("is not the public key of"),
        "{err}"
    );

    let swapped = KeyPairFiles {
        public_key_file: pair.private_key_file.clone(),
        ..pair.clone()
    };
    let err = RsaKeyPairs::load("k1", &[swapped]).unwrap_err();
    assert!(
        err.to_string()
            .contains("where a \"PUBLIC KEY\" was expected"),
        "{err}"
    );

    let missing = KeyPairFiles {
        private_key_file: dir.path().join("nope.pem"),
        ..pair.clone()
    };
    assert!(matches!(
        RsaKeyPairs::load("k1", &[missing]),
        Err(EnvelopeError::KeyFile { .. })
    ));

    let garbage = dir.path().join("garbage.pem");
    fs::write(&garbage, "not a key").unwrap();
    fs::set_permissions(&garbage, fs::Permissions::from_mode(0o600)).unwrap();
    let err = RsaKeyPairs::load(
        "k1",
        &[KeyPairFiles {
            private_key_file: garbage,
            ..pair.clone()
        }],
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a PEM file"), "{err}");

    let pkcs1 = dir.path().join("pkcs1.pem");
    fs::write(
        &pkcs1,
        pem_rfc7468::encode_string("RSA PRIVATE KEY", pem_rfc7468::LineEnding::LF, b"x").unwrap(),
    )
    .unwrap();
    fs::set_permissions(&pkcs1, fs::Permissions::from_mode(0o600)).unwrap();
    let err = RsaKeyPairs::load(
        "k1",
        &[KeyPairFiles {
            private_key_file: pkcs1,
            ..pair.clone()
        }],
    )
    .unwrap_err();
    assert!(err.to_string().contains("openssl pkcs8 -topk8"), "{err}");

    let twice = RsaKeyPairs::load("k1", &[pair.clone(), pair]).unwrap_err();
    assert!(twice.to_string().contains("configured twice"), "{twice}");
}

#[test]
fn the_ring_never_prints_key_material() {
    let dir = tempfile::tempdir().unwrap();
    let pair = write_key_pair(dir.path(), "k1");
    let ring = RsaKeyPairs::load("k1", &[pair]).unwrap();
    assert_eq!(
        format!("{ring:?}"),
        r#"RsaKeyPairs { active: "k1", ids: ["k1"] }"#
    );
}

#[test]
fn a_pair_parses_from_its_command_line_form() {
    let pair = KeyPairFiles::parse("k1=/keys/pub.pem,/keys/priv.pem").unwrap();
    assert_eq!(pair.id, "k1");
    assert_eq!(pair.public_key_file, Path::new("/keys/pub.pem"));
    assert_eq!(pair.private_key_file, Path::new("/keys/priv.pem"));
    assert_eq!(KeyPairFiles::parse("k1"), None);
    assert_eq!(KeyPairFiles::parse("k1=/keys/pub.pem"), None);
}
