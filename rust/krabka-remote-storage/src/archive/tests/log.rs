//! The archive log kept by the archive tier: every seal gets a leaf, and
//! the tier's last checkpoint covers every copy before it is dropped.

use {
    super::*,
    crate::archive::log::ArchiveLogConfig,
    krabka_worm::tlog::{
        LogEntry, LogLayout,
        store::{find_end, read_bundle, read_checkpoint},
    },
    std::time::Duration,
};

const ORIGIN: &str = "archive.example/unit";

#[test]
fn every_seal_is_a_leaf_and_the_last_checkpoint_covers_every_copy() {
    let store = instrumented();
    let dir = tempfile::tempdir().unwrap();
    let config = ArchiveLogConfig::new(ORIGIN).with_interval(Duration::from_secs(3600));
    let tier = plain_tier(&store)
        .with_worm_unchecked(signer(), false, "test".to_owned())
        .with_log(config)
        .unwrap();
    let log = pattern(3000, 2);
    let data = segment(dir.path(), &log, true);
    for id in 1..=3 {
        tier.copy_log_segment_data(&metadata(id), &data).unwrap();
    }
    let runtime = Arc::clone(tier.store.runtime());
    let prefix = tier.prefix().map(str::to_owned);
    drop(tier);

    let layout = LogLayout::new(prefix.as_deref());
    let inner = Arc::clone(&store);
    let (checkpoint, entries, checkpoints) = runtime
        .block_on(async move {
            let checkpoints = find_end(&inner.inner, |i| layout.checkpoint(i), 0)
                .await
                .unwrap();
            let checkpoint = read_checkpoint(&inner.inner, &layout, checkpoints - 1)
                .await
                .unwrap()
                .unwrap();
            let entries = read_bundle(&inner.inner, &layout, 0, 3).await.unwrap();
            Ok((checkpoint, entries, checkpoints))
        })
        .unwrap();
    // The interval is an hour: the only checkpoint is the one written when
    // the tier was dropped.
    assert_eq!(checkpoints, 1);
    assert_eq!(checkpoint.checkpoint.origin, ORIGIN);
    assert_eq!(checkpoint.checkpoint.size, 3);
    let note_key = signer().note_signer(ORIGIN).unwrap();
    assert_eq!(
        checkpoint.note.verified_by(note_key.verifier()).unwrap(),
        Some(None)
    );
    let seal_keys: Vec<String> = entries
        .iter()
        .map(|e| LogEntry::from_bytes(e).unwrap().seal_key)
        .collect();
    assert!(
        seal_keys
            .iter()
            .all(|k| k.contains("/_chain/") && !k.starts_with("tier/"))
    );
    assert_eq!(seal_keys.len(), 3);
}

#[test]
fn a_bad_origin_is_a_configuration_error() {
    let store = instrumented();
    let tier = plain_tier(&store).with_worm_unchecked(signer(), false, "test".to_owned());
    let Err(err) = tier.with_log(ArchiveLogConfig::new("has space")) else {
        panic!("an origin with a space was accepted");
    };
    assert_eq!(err.class(), ErrorClass::InvalidInput);
}
