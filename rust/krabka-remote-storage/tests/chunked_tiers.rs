//! The chunked segment format (compression and envelope encryption) in
//! both tiers: the whole RSM conformance suite through it, plain and
//! chunked segments side by side, key rotation, and every kind of damage
//! refused with a typed error instead of wrong bytes.

mod support;

use {
    krabka_remote_storage::{
        Cipher, Compression, ENVELOPE_SUFFIX, IndexType, LOG_FILE_SUFFIX, LocalTieredStorage,
        RemoteLogSegmentMetadata, RemoteStorageError, RemoteStorageManager, S3RemoteStorage,
        SegmentCodec,
    },
    object_store::{ObjectStore, ObjectStoreExt, PutPayload, memory::InMemory, path::Path as Key},
    std::{
        fs,
        io::Read,
        path::{Path, PathBuf},
        sync::{Arc, OnceLock},
    },
    support::{
        SegmentSpec, conformance,
        conformance::Capabilities,
        keys::{ring, sealing_codec, write_key_pair},
        new_partition, orders_segment, read_all, segment_metadata, write_segment,
        write_segment_with_log,
    },
};

/// Original bytes per chunk in these tests: small, so segments have many.
const CHUNK: u32 = 4096;

/// Two key pairs, written once for the whole binary.
fn key_dir() -> &'static (tempfile::TempDir, Vec<krabka_remote_storage::KeyPairFiles>) {
    static KEYS: OnceLock<(tempfile::TempDir, Vec<krabka_remote_storage::KeyPairFiles>)> =
        OnceLock::new();
    KEYS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pairs = vec![
            write_key_pair(dir.path(), "k1"),
            write_key_pair(dir.path(), "k2"),
        ];
        (dir, pairs)
    })
}

fn codec_with_active(active: &str) -> SegmentCodec {
    sealing_codec(CHUNK, ring(active, &key_dir().1))
}

fn local(root: &Path, codec: SegmentCodec) -> LocalTieredStorage {
    LocalTieredStorage::new(root.to_path_buf())
        .with_codec(codec)
        .unwrap()
}

#[test]
fn the_filesystem_tier_passes_the_suite_compressed_and_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let tier = local(&dir.path().join("tier"), codec_with_active("k1"));
    conformance::run_rsm_conformance(&tier, Capabilities::PLAIN, &dir.path().join("scratch"));
}

#[test]
fn the_filesystem_tier_passes_the_suite_compressed_only_with_chacha_reads() {
    let dir = tempfile::tempdir().unwrap();
    let codec = SegmentCodec {
        chunk_size: CHUNK,
        compression: Some(Compression::default()),
        ..SegmentCodec::default()
    };
    let tier = local(&dir.path().join("tier"), codec);
    conformance::run_rsm_conformance(&tier, Capabilities::PLAIN, &dir.path().join("scratch"));
    let chacha = SegmentCodec {
        encryption: Some(Cipher::ChaCha20Poly1305),
        ..codec_with_active("k2")
    };
    let tier = local(&dir.path().join("tier2"), chacha);
    conformance::run_rsm_conformance(&tier, Capabilities::PLAIN, &dir.path().join("scratch2"));
}

#[test]
fn the_object_store_tier_passes_the_suite_with_single_puts_and_multipart() {
    let scratch = tempfile::tempdir().unwrap();
    let tier = S3RemoteStorage::with_store(Arc::new(InMemory::new()), Some("tier".into()))
        .unwrap()
        .with_codec(codec_with_active("k1"))
        .unwrap();
    conformance::run_rsm_conformance(&tier, Capabilities::PLAIN, scratch.path());
    let multipart = S3RemoteStorage::with_store(Arc::new(InMemory::new()), None)
        .unwrap()
        .with_codec(codec_with_active("k1"))
        .unwrap()
        .with_multipart_tuning(16 * 1024, 8 * 1024)
        .with_upload_concurrency(3)
        .with_fetch_tuning(4 * 1024, 3);
    conformance::run_rsm_conformance(&multipart, Capabilities::PLAIN, scratch.path());
}

/// JSON-like text, as an uncompressed topic holds it.
fn text_log(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut n = 0u64;
    while out.len() < len {
        out.extend_from_slice(
            format!(
                "{{\"order\":{n},\"customer\":\"c{}\",\"status\":\"shipped\"}}\n",
                n % 97
            )
            .as_bytes(),
        );
        n += 1;
    }
    out.truncate(len);
    out
}

fn copy_text_segment(
    tier: &dyn RemoteStorageManager,
    scratch: &Path,
    len: usize,
) -> (RemoteLogSegmentMetadata, support::SegmentFiles) {
    let files = write_segment_with_log(scratch, &SegmentSpec::default(), text_log(len));
    let metadata = orders_segment(len);
    let custom = tier.copy_log_segment_data(&metadata, &files.data).unwrap();
    // As Kafka does: the copy's custom metadata comes back with every fetch.
    (metadata.with_custom_metadata(custom), files)
}

#[test]
fn stored_files_are_smaller_and_never_show_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tier");
    let tier = local(&root, codec_with_active("k1"));
    let (metadata, files) = copy_text_segment(&tier, &dir.path().join("scratch"), 200_000);
    let stored = fs::read(tier.segment_path(&metadata, LOG_FILE_SUFFIX).unwrap()).unwrap();
    assert!(
        stored.len() * 4 < files.log.len(),
        "{} of {}",
        stored.len(),
        files.log.len()
    );
    assert!(!stored.windows(8).any(|w| w == b"customer"));
    let offset_index = fs::read(
        tier.segment_path(&metadata, IndexType::Offset.suffix())
            .unwrap(),
    )
    .unwrap();
    assert!(
        !offset_index
            .windows(16)
            .any(|w| files.offset_index.windows(16).any(|o| o == w))
    );
    assert!(
        tier.segment_path(&metadata, ENVELOPE_SUFFIX)
            .unwrap()
            .exists()
    );
    assert_eq!(
        read_all(tier.fetch_log_segment(&metadata, 0, None).unwrap()),
        files.log
    );
    assert_eq!(
        read_all(
            tier.fetch_log_segment(&metadata, 5000, Some(150_000))
                .unwrap()
        ),
        files.log[5000..=150_000]
    );
    for index in IndexType::ALL {
        assert_eq!(
            tier.fetch_index(&metadata, index).unwrap(),
            files.index(index).unwrap(),
            "{index:?}"
        );
    }
    // A delete removes the envelope with the rest.
    tier.delete_log_segment_data(&metadata).unwrap();
    assert!(
        !tier
            .segment_path(&metadata, ENVELOPE_SUFFIX)
            .unwrap()
            .exists()
    );
}

#[test]
fn plain_and_chunked_segments_share_a_tier_and_keys_rotate() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tier");
    let scratch = dir.path().join("scratch");
    // Written before the format was turned on: Kafka's plain layout.
    let plain_tier = LocalTieredStorage::new(root.clone());
    let (plain, plain_files) = copy_text_segment(&plain_tier, &scratch, 30_000);
    assert!(
        !plain_tier
            .segment_path(&plain, ENVELOPE_SUFFIX)
            .unwrap()
            .exists()
    );
    // Then under k1, then under k2.
    let (under_k1, k1_files) =
        copy_text_segment(&local(&root, codec_with_active("k1")), &scratch, 30_000);
    let rotated = local(&root, codec_with_active("k2"));
    let (under_k2, k2_files) = copy_text_segment(&rotated, &scratch, 30_000);
    for (metadata, files) in [
        (&plain, &plain_files),
        (&under_k1, &k1_files),
        (&under_k2, &k2_files),
    ] {
        assert_eq!(
            read_all(rotated.fetch_log_segment(metadata, 100, None).unwrap()),
            files.log[100..]
        );
        assert_eq!(
            rotated.fetch_index(metadata, IndexType::Timestamp).unwrap(),
            files.time_index
        );
    }
    // A tier that writes plain bytes still reads every segment, given keys.
    let reader = local(
        &root,
        SegmentCodec {
            keys: Some(ring("k1", &key_dir().1)),
            ..SegmentCodec::default()
        },
    );
    assert_eq!(
        read_all(reader.fetch_log_segment(&under_k2, 0, None).unwrap()),
        k2_files.log
    );
    // Without k1 configured, k1's segment is a configuration error naming
    // the key; without any key, every encrypted segment is.
    let only_k2 = local(&root, sealing_codec(CHUNK, ring("k2", &key_dir().1[1..])));
    let err = only_k2
        .fetch_log_segment(&under_k1, 0, None)
        .map(drop)
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Config { .. }), "{err:?}");
    assert!(format!("{:?}", err).contains("\"k1\""), "{err:?}");
    let keyless = LocalTieredStorage::new(root.clone());
    let err = keyless
        .fetch_index(&under_k2, IndexType::Offset)
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Config { .. }), "{err:?}");
    assert_eq!(
        read_all(keyless.fetch_log_segment(&plain, 0, None).unwrap()),
        plain_files.log
    );
}

/// Reads `metadata`'s log from `tier` to the end; the error, if any.
fn read_error(tier: &dyn RemoteStorageManager, metadata: &RemoteLogSegmentMetadata) -> String {
    match tier.fetch_log_segment(metadata, 0, None) {
        Err(err) => format!("{err:?}"),
        Ok(mut reader) => {
            let mut out = Vec::new();
            match reader.read_to_end(&mut out) {
                Err(err) => err.to_string(),
                Ok(_) => panic!("damaged segment read as {} bytes", out.len()),
            }
        }
    }
}

#[test]
fn damaged_stored_bytes_are_refused_naming_the_segment() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tier");
    let tier = local(&root, codec_with_active("k1"));
    let scratch = dir.path().join("scratch");
    let segment_name = |metadata: &RemoteLogSegmentMetadata| {
        krabka_remote_storage::kafka_uuid(metadata.remote_log_segment_id().id)
    };
    type Damage = fn(&mut Vec<u8>);
    let damage: [(&str, Damage); 3] = [
        ("a flipped bit", |bytes| bytes[100] ^= 0x04),
        ("a truncated log", |bytes| bytes.truncate(bytes.len() - 7)),
        ("a chunk of zeros", |bytes| bytes[8..40].fill(0)),
    ];
    for (what, edit) in damage {
        let (metadata, _) = copy_text_segment(&tier, &scratch, 50_000);
        let path = tier.segment_path(&metadata, LOG_FILE_SUFFIX).unwrap();
        let mut bytes = fs::read(&path).unwrap();
        edit(&mut bytes);
        fs::write(&path, bytes).unwrap();
        let err = read_error(&tier, &metadata);
        let uuid = metadata.remote_log_segment_id().id.to_string();
        assert!(
            err.contains(&uuid) || err.contains(&segment_name(&metadata)),
            "{what}: {err}"
        );
    }
    // A damaged envelope.
    let (metadata, _) = copy_text_segment(&tier, &scratch, 50_000);
    let envelope = tier.segment_path(&metadata, ENVELOPE_SUFFIX).unwrap();
    let mut bytes = fs::read(&envelope).unwrap();
    bytes[30] ^= 1;
    fs::write(&envelope, bytes).unwrap();
    let fresh = local(&root, codec_with_active("k1"));
    let err = fresh
        .fetch_log_segment(&metadata, 0, None)
        .map(drop)
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::Integrity { .. }),
        "{err:?}"
    );
    // Another segment's envelope in its place.
    let (other, _) = copy_text_segment(&tier, &scratch, 50_000);
    let (victim, _) = copy_text_segment(&tier, &scratch, 50_000);
    fs::copy(
        tier.segment_path(&other, ENVELOPE_SUFFIX).unwrap(),
        tier.segment_path(&victim, ENVELOPE_SUFFIX).unwrap(),
    )
    .unwrap();
    let fresh = local(&root, codec_with_active("k1"));
    let err = fresh.fetch_index(&victim, IndexType::Offset).unwrap_err();
    assert!(format!("{err:?}").contains("belongs to segment"), "{err:?}");
    // Another segment's log in its place: chunks sealed for another segment.
    let (other, _) = copy_text_segment(&tier, &scratch, 50_000);
    let (victim, _) = copy_text_segment(&tier, &scratch, 50_000);
    fs::copy(
        tier.segment_path(&other, LOG_FILE_SUFFIX).unwrap(),
        tier.segment_path(&victim, LOG_FILE_SUFFIX).unwrap(),
    )
    .unwrap();
    let err = read_error(&fresh, &victim);
    assert!(
        err.contains("corrupt") || err.contains("truncated"),
        "{err}"
    );
}

#[test]
fn a_damaged_object_in_a_bucket_is_refused_too() {
    let store = Arc::new(InMemory::new());
    let tier = S3RemoteStorage::with_store(Arc::clone(&store) as Arc<dyn ObjectStore>, None)
        .unwrap()
        .with_codec(codec_with_active("k1"))
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let (metadata, files) = copy_text_segment(&tier, scratch.path(), 40_000);
    assert_eq!(
        read_all(tier.fetch_log_segment(&metadata, 10, Some(20_000)).unwrap()),
        files.log[10..=20_000]
    );
    let key = Key::from(format!(
        "{}/{}",
        krabka_remote_storage::partition_dir_name(&metadata),
        krabka_remote_storage::segment_file_name(&metadata, LOG_FILE_SUFFIX)
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut bytes = runtime
        .block_on(async { store.get(&key).await.unwrap().bytes().await.unwrap() })
        .to_vec();
    assert!(!bytes.windows(8).any(|w| w == b"customer"));
    bytes[50] ^= 0x80;
    runtime
        .block_on(store.put(&key, PutPayload::from(bytes)))
        .unwrap();
    let fresh = S3RemoteStorage::with_store(Arc::clone(&store) as Arc<dyn ObjectStore>, None)
        .unwrap()
        .with_codec(codec_with_active("k1"))
        .unwrap();
    let err = read_error(&fresh, &metadata);
    assert!(
        err.contains(&metadata.remote_log_segment_id().id.to_string()),
        "{err}"
    );
}

#[test]
fn the_copy_marks_chunked_segments_so_a_keyless_plain_tier_reads_compressed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tier");
    let compressing = local(
        &root,
        SegmentCodec {
            chunk_size: CHUNK,
            compression: Some(Compression::default()),
            ..SegmentCodec::default()
        },
    );
    let (metadata, files) = copy_text_segment(&compressing, &dir.path().join("scratch"), 20_000);
    assert_eq!(
        metadata.custom_metadata().map(|custom| custom.0.as_slice()),
        Some(&b"krabka-chunked-v1"[..])
    );
    let plain = LocalTieredStorage::new(root.clone());
    assert_eq!(
        read_all(plain.fetch_log_segment(&metadata, 7, None).unwrap()),
        files.log[7..]
    );
    // A plain copy returns no custom metadata.
    let scratch = dir.path().join("scratch2");
    let plain_files = write_segment(&scratch, &SegmentSpec::default());
    assert_eq!(
        plain
            .copy_log_segment_data(&orders_segment(4096), &plain_files.data)
            .unwrap(),
        None
    );
    // A marked segment whose envelope is gone is an integrity error.
    fs::remove_file(
        compressing
            .segment_path(&metadata, ENVELOPE_SUFFIX)
            .unwrap(),
    )
    .unwrap();
    let err = LocalTieredStorage::new(root)
        .fetch_log_segment(&metadata, 0, None)
        .map(drop)
        .unwrap_err();
    assert!(
        matches!(err, RemoteStorageError::Integrity { .. }),
        "{err:?}"
    );
}

#[test]
fn invalid_settings_are_configuration_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tier = LocalTieredStorage::new(PathBuf::from(dir.path()));
    let err = tier
        .with_codec(SegmentCodec {
            chunk_size: 1,
            compression: Some(Compression::default()),
            ..SegmentCodec::default()
        })
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Config { .. }), "{err:?}");
    let err = S3RemoteStorage::with_store(Arc::new(InMemory::new()), None)
        .unwrap()
        .with_codec(SegmentCodec {
            encryption: Some(Cipher::Aes256Gcm),
            ..SegmentCodec::default()
        })
        .unwrap_err();
    assert!(matches!(err, RemoteStorageError::Config { .. }), "{err:?}");
    let _ = (new_partition("t", 0), segment_metadata);
}
