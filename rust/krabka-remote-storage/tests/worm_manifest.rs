//! Reading, verifying and chaining manifests: every way verification can
//! fail has its own test, and untrusted bytes never panic the reader.

#[path = "worm/vectors.rs"]
mod vectors;

use {
    krabka_remote_storage::{
        ChainHead, ChainStamp, ChainWalk, EpochId, ForeignSeal, HexBytes, MANIFEST_DOMAIN,
        MAX_MANIFEST_BYTES, ManifestBody, ManifestSeq, ManifestSignature, ObjectEntry,
        SegmentIdentity, SegmentManifest, Sha256Digest, TrustedManifestKeys, WormError,
        canonical_manifest_bytes, check_seal_size, detour_epoch, judge_seal, manifest_head,
        verify_manifest_bytes, verify_manifest_signature,
    },
    proptest::prelude::*,
    std::collections::BTreeMap,
    uuid::Uuid,
    vectors::*,
};

fn verify(bytes: &[u8]) -> Result<ChainHead, WormError> {
    thread_local! {
        static TRUSTED: TrustedManifestKeys = trusted();
    }
    TRUSTED.with(|trusted| verify_manifest_bytes(bytes, trusted).map(|verified| verified.head()))
}

#[test]
fn vectors_decode_to_the_manifests_that_wrote_them() {
    for manifest in [manifest_0(), manifest_1(), manifest_2()] {
        let bytes = manifest.to_bytes();
        assert_eq!(SegmentManifest::from_bytes(&bytes).unwrap(), manifest);
        assert_eq!(verify(&bytes).unwrap(), manifest_head(&manifest.body));
    }
}

#[test]
fn verified_manifest_exposes_the_proof() {
    let verified = verify_manifest_bytes(&manifest_1().to_bytes(), &trusted()).unwrap();
    assert_eq!(verified.key_id(), KEY_ID_2);
    assert_eq!(verified.head(), manifest_head(&body_1()));
    assert_eq!(verified.body(), &body_1());
    assert_eq!(verified.manifest(), &manifest_1());
    assert_eq!(verified.into_manifest(), manifest_1());
}

#[test]
fn every_single_bit_flip_of_a_stored_manifest_is_refused() {
    let bytes = manifest_0().to_bytes();
    for index in 0..bytes.len() {
        for bit in [0x01u8, 0x20, 0x80] {
            let mut flipped = bytes.clone();
            flipped[index] ^= bit;
            assert!(
                verify(&flipped).is_err(),
                "flipping bit {bit:#04x} of byte {index} went unnoticed"
            );
        }
    }
}

#[test]
fn every_truncation_is_refused() {
    let bytes = manifest_0().to_bytes();
    for len in 0..bytes.len() {
        assert!(
            matches!(
                SegmentManifest::from_bytes(&bytes[..len]),
                Err(WormError::ManifestDecode { .. })
            ),
            "truncation to {len} bytes"
        );
    }
}

#[test]
fn oversized_manifest_is_refused_before_decoding() {
    let huge = vec![b' '; MAX_MANIFEST_BYTES + 1];
    assert!(matches!(
        SegmentManifest::from_bytes(&huge),
        Err(WormError::ManifestTooLarge { size, max })
            if size == MAX_MANIFEST_BYTES + 1 && max == MAX_MANIFEST_BYTES
    ));
}

#[test]
fn empty_and_non_json_input_does_not_decode() {
    for input in [
        &b""[..],
        b"   ",
        b"null",
        b"[]",
        b"{}",
        b"\xff\xfe",
        b"{\"body\":{}}",
    ] {
        assert!(
            matches!(
                SegmentManifest::from_bytes(input),
                Err(WormError::ManifestDecode { .. })
            ),
            "{input:?}"
        );
    }
}

#[test]
fn leading_whitespace_is_not_canonical() {
    let bytes = [b" ".as_slice(), &manifest_0().to_bytes()].concat();
    assert!(matches!(
        SegmentManifest::from_bytes(&bytes),
        Err(WormError::ManifestNotCanonical { offset: 0 })
    ));
}

#[test]
fn non_canonical_uuid_forms_are_refused() {
    let good = String::from_utf8(manifest_0().to_bytes()).unwrap();
    for (from, to) in [
        (
            "00112233-4455-6677-8899-aabbccddeeff",
            "00112233-4455-6677-8899-AABBCCDDEEFF",
        ),
        (
            "00112233-4455-6677-8899-aabbccddeeff",
            "00112233445566778899aabbccddeeff",
        ),
    ] {
        let bytes = good.replacen(from, to, 1).into_bytes();
        assert!(matches!(
            SegmentManifest::from_bytes(&bytes),
            Err(WormError::ManifestNotCanonical { .. })
        ));
    }
}

#[test]
fn duplicate_member_does_not_decode() {
    let good = String::from_utf8(manifest_0().to_bytes()).unwrap();
    let bytes = good
        .replacen("\"partition\":3", "\"partition\":3,\"partition\":3", 1)
        .into_bytes();
    assert!(matches!(
        SegmentManifest::from_bytes(&bytes),
        Err(WormError::ManifestDecode { .. })
    ));
}

#[test]
fn in_memory_manifest_of_another_format_version_is_refused() {
    let mut manifest = manifest_0();
    manifest.body.format_version = 1;
    assert!(matches!(
        verify_manifest_signature(&manifest, &trusted()),
        Err(WormError::UnsupportedFormatVersion {
            found: 1,
            supported: 2
        })
    ));
}

#[test]
fn rotation_needs_both_keys_trusted() {
    let only_first = TrustedManifestKeys::single(KEY_ID_1, &unhex::<32>(KEY_1_PUBLIC)).unwrap();
    assert!(verify_manifest_signature(&manifest_0(), &only_first).is_ok());
    assert!(matches!(
        verify_manifest_signature(&manifest_1(), &only_first),
        Err(WormError::UntrustedKey { key_id }) if key_id == KEY_ID_2
    ));
    assert!(verify_manifest_signature(&manifest_1(), &trusted()).is_ok());
}

#[test]
fn empty_trusted_set_trusts_nothing() {
    assert!(matches!(
        verify_manifest_signature(&manifest_0(), &TrustedManifestKeys::new()),
        Err(WormError::UntrustedKey { .. })
    ));
}

#[test]
fn signature_moved_to_another_key_id_is_refused() {
    // Key 1's signature relabelled as key 2's: the key id is in the signed bytes.
    let mut manifest = manifest_0();
    let trusted = TrustedManifestKeys::from_pairs([
        (KEY_ID_1, unhex::<32>(KEY_1_PUBLIC)),
        ("alias-of-key-1", unhex::<32>(KEY_1_PUBLIC)),
    ])
    .unwrap();
    if let Some(signature) = &mut manifest.signature {
        signature.key_id = "alias-of-key-1".to_owned();
    }
    assert!(matches!(
        verify_manifest_signature(&manifest, &trusted),
        Err(WormError::SignatureInvalid { .. })
    ));
}

#[test]
fn signature_over_other_bytes_of_the_same_head_is_refused() {
    // Signatures by the right key over the head without the domain, and over
    // the canonical body bytes, must not pass for a manifest signature.
    let key = ed25519_dalek::SigningKey::from_bytes(&unhex::<32>(KEY_1_SECRET));
    let body = body_0();
    let head = manifest_head(&body);
    for message in [head.0.to_vec(), canonical_manifest_bytes(&body)] {
        use ed25519_dalek::Signer;
        let manifest = SegmentManifest {
            body: body.clone(),
            signature: Some(ManifestSignature {
                key_id: KEY_ID_1.to_owned(),
                public_key: HexBytes(unhex::<32>(KEY_1_PUBLIC).to_vec()),
                signature: HexBytes(key.sign(&message).to_bytes().to_vec()),
            }),
        };
        assert!(matches!(
            verify_manifest_signature(&manifest, &trusted()),
            Err(WormError::SignatureInvalid { .. })
        ));
    }
    assert!(MANIFEST_DOMAIN.ends_with(b"\0"));
}

/// The order of the Ed25519 group, little-endian.
const ORDER_L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

#[test]
fn malleated_signature_with_s_plus_l_is_refused() {
    // (R, S + L) satisfies the verification equation of lax verifiers; strict
    // verification refuses the non-canonical S.
    let mut manifest = manifest_0();
    let signature = manifest.signature.as_mut().unwrap();
    let mut carry = 0u16;
    for (byte, l) in signature.signature.0[32..].iter_mut().zip(ORDER_L) {
        let sum = u16::from(*byte) + u16::from(l) + carry;
        *byte = u8::try_from(sum & 0xff).unwrap();
        carry = sum >> 8;
    }
    assert_eq!(carry, 0, "S + L overflowed 256 bits");
    assert!(matches!(
        verify_manifest_signature(&manifest, &trusted()),
        Err(WormError::SignatureInvalid { .. })
    ));
}

#[test]
fn in_memory_signature_of_the_wrong_length_is_malformed() {
    let mut manifest = manifest_0();
    if let Some(signature) = &mut manifest.signature {
        signature.public_key.0.push(0);
    }
    assert!(matches!(
        verify_manifest_signature(&manifest, &trusted()),
        Err(WormError::MalformedSignature {
            field: "public_key",
            len: 33,
            expected: 32,
            ..
        })
    ));
}

#[test]
fn invalid_key_id_in_a_stored_manifest_is_refused() {
    let mut manifest = manifest_0();
    if let Some(signature) = &mut manifest.signature {
        signature.key_id = "bad key".to_owned();
    }
    assert!(matches!(
        SegmentManifest::from_bytes(&manifest.to_bytes()),
        Err(WormError::InvalidKeyId { .. })
    ));
}

#[test]
fn unsigned_chain_walks_without_signatures() {
    let mut walk = ChainWalk::new(body_0().chain.epoch_id);
    walk.accept(&body_0()).unwrap();
    walk.accept(&body_1()).unwrap();
    assert_eq!(walk.len(), 2);
    assert_eq!(walk.head(), manifest_head(&body_1()));
    assert_eq!(walk.next_stamp().unwrap(), manifest_2().body.chain);
}

#[test]
fn refused_manifest_leaves_the_walk_unchanged() {
    let mut walk = ChainWalk::new(body_0().chain.epoch_id);
    walk.accept(&body_0()).unwrap();
    let before = walk.clone();
    assert!(walk.accept(&manifest_1_wrong_prev().body).is_err());
    assert!(walk.accept(&manifest_2().body).is_err());
    assert!(walk.accept(&body_0()).is_err());
    assert_eq!(walk, before);
    walk.accept(&body_1()).unwrap();
}

#[test]
fn a_seal_is_a_trusted_manifest_at_its_own_position() {
    let manifest = manifest_1();
    let chain = manifest.body.chain;
    let bytes = manifest.to_bytes();
    let verified = judge_seal(&bytes, chain.epoch_id, chain.seq, &trusted()).unwrap();
    assert_eq!(verified.head(), manifest_head(&manifest.body));
    let elsewhere = judge_seal(&bytes, chain.epoch_id, ManifestSeq(7), &trusted());
    assert!(matches!(
        elsewhere.unwrap_err(),
        ForeignSeal::Misplaced { epoch_id, seq } if (epoch_id, seq) == (chain.epoch_id, chain.seq)
    ));
    let stranger = judge_seal(
        &bytes,
        chain.epoch_id,
        chain.seq,
        &TrustedManifestKeys::new(),
    );
    assert!(matches!(
        stranger.unwrap_err(),
        ForeignSeal::NotTrusted(WormError::UntrustedKey { .. })
    ));
    let unsigned = SegmentManifest {
        signature: None,
        ..manifest.clone()
    };
    let unsigned = judge_seal(&unsigned.to_bytes(), chain.epoch_id, chain.seq, &trusted());
    assert!(matches!(
        unsigned.unwrap_err(),
        ForeignSeal::NotTrusted(WormError::Unsigned)
    ));
    let garbage = judge_seal(b"\x00garbage", chain.epoch_id, chain.seq, &trusted());
    assert!(matches!(garbage.unwrap_err(), ForeignSeal::NotTrusted(_)));
}

#[test]
fn an_object_larger_than_any_manifest_is_foreign_unread() {
    check_seal_size(MAX_MANIFEST_BYTES as u64).unwrap();
    let size = MAX_MANIFEST_BYTES as u64 + 1;
    assert!(matches!(
        check_seal_size(size).unwrap_err(),
        ForeignSeal::Oversized { size: found } if found == size
    ));
    assert!(check_seal_size(u64::MAX).is_err());
}

#[test]
fn a_detour_epoch_is_the_same_for_every_writer_and_differs_by_position() {
    let epoch = body_0().chain.epoch_id;
    let head = manifest_head(&body_0());
    let detour = detour_epoch(epoch, ManifestSeq(1), head);
    assert_eq!(detour, detour_epoch(epoch, ManifestSeq(1), head));
    assert_ne!(detour, epoch);
    assert_ne!(detour, detour_epoch(epoch, ManifestSeq(2), head));
    assert_ne!(
        detour,
        detour_epoch(epoch, ManifestSeq(1), ChainHead::GENESIS)
    );
    assert_ne!(detour, detour_epoch(detour, ManifestSeq(1), head));
    assert_eq!(detour.0.get_version_num(), 8);
}

#[test]
fn a_detour_walk_continues_from_the_head_it_routes_around() {
    let epoch = body_0().chain.epoch_id;
    let head = manifest_head(&body_0());
    let detour = detour_epoch(epoch, ManifestSeq(1), head);
    let mut continued = body_1();
    continued.chain = ChainStamp {
        epoch_id: detour,
        seq: ManifestSeq(0),
        prev_head: head,
    };
    let mut from_genesis = ChainWalk::new(detour);
    assert!(matches!(
        from_genesis.accept(&continued),
        Err(WormError::ChainHeadMismatch { .. })
    ));
    let mut walk = ChainWalk::resume(detour, head);
    assert!(walk.is_empty());
    assert_eq!(walk.next_stamp().unwrap(), continued.chain);
    walk.accept(&continued).unwrap();
    assert_eq!(walk.head(), manifest_head(&continued));
}

#[test]
fn fresh_walk_expects_genesis() {
    let epoch = EpochId(Uuid::from_u128(9));
    let walk = ChainWalk::new(epoch);
    assert!(walk.is_empty());
    assert_eq!(walk.epoch_id(), epoch);
    assert_eq!(walk.next_stamp().unwrap(), ChainStamp::genesis(epoch));
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9._/-]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
        proptest::collection::vec(0u32..0x80, 0..8)
            .prop_map(|cs| cs.into_iter().filter_map(char::from_u32).collect()),
    ]
}

fn arb_object() -> impl Strategy<Value = ObjectEntry> {
    (
        arb_text(),
        arb_text(),
        any::<u64>(),
        any::<[u8; 32]>(),
        proptest::option::of(arb_text()),
        proptest::option::of(arb_text()),
        any::<bool>(),
    )
        .prop_map(
            |(suffix, key, size_bytes, sha, e_tag, version_id, create)| ObjectEntry {
                suffix,
                key,
                size_bytes,
                sha256: Sha256Digest(sha),
                e_tag,
                version_id,
                create_precondition: create,
            },
        )
}

fn arb_manifest() -> impl Strategy<Value = SegmentManifest> {
    let identity = (
        arb_text(),
        any::<u128>(),
        any::<i32>(),
        any::<u128>(),
        any::<[i64; 5]>(),
        any::<i32>(),
        proptest::collection::btree_map(any::<i32>(), any::<i64>(), 0..4),
        any::<bool>(),
    )
        .prop_map(
            |(topic, topic_id, partition, segment_id, numbers, broker_id, epochs, txn)| {
                SegmentIdentity {
                    topic,
                    topic_id: Uuid::from_u128(topic_id),
                    partition,
                    segment_id: Uuid::from_u128(segment_id),
                    start_offset: numbers[0],
                    end_offset: numbers[1],
                    max_timestamp_ms: numbers[2],
                    broker_id,
                    event_timestamp_ms: numbers[3],
                    segment_size_bytes: numbers[4],
                    leader_epochs: epochs.into_iter().collect::<BTreeMap<_, _>>(),
                    txn_index_empty: txn,
                }
            },
        );
    let stamp = (any::<u128>(), any::<u64>(), any::<[u8; 32]>()).prop_map(|(e, s, h)| ChainStamp {
        epoch_id: EpochId(Uuid::from_u128(e)),
        seq: ManifestSeq(s),
        prev_head: ChainHead(h),
    });
    (
        identity,
        proptest::collection::vec(arb_object(), 0..4),
        stamp,
        any::<bool>(),
    )
        .prop_map(|(segment, objects, chain, signed)| {
            let body = ManifestBody::new(segment, objects, chain);
            if signed {
                signer_1().seal(body)
            } else {
                SegmentManifest {
                    body,
                    signature: None,
                }
            }
        })
}

proptest! {
    #[test]
    fn canonical_bytes_decode_to_the_same_manifest(manifest in arb_manifest()) {
        let bytes = manifest.to_bytes();
        prop_assert_eq!(SegmentManifest::from_bytes(&bytes).unwrap(), manifest.clone());
        // The hand-written canonical writer agrees with serde's encoding.
        prop_assert_eq!(serde_json::to_vec(&manifest).unwrap(), bytes);
        if manifest.signature.is_some() {
            prop_assert!(verify_manifest_signature(&manifest, &trusted()).is_ok());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_reader(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = verify_manifest_bytes(&bytes, &trusted());
    }

    #[test]
    fn random_byte_replacement_is_refused(index in 0usize..2014, value in any::<u8>()) {
        let mut bytes = manifest_0().to_bytes();
        let index = index % bytes.len();
        prop_assume!(bytes[index] != value);
        bytes[index] = value;
        prop_assert!(verify(&bytes).is_err());
    }
}
