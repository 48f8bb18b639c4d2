use {
    super::*,
    krabka_remote_storage::LocalTieredStorage,
    std::{env, fs, path::PathBuf},
};

#[test]
fn a_snapshot_has_one_value_per_catalog_entry() {
    let dir = tempfile::tempdir().unwrap();
    let storage = Storage::new(LocalTieredStorage::new(dir.path().to_owned()));
    assert_eq!(snapshot(&storage).len(), catalog().len());
    assert_eq!(java_catalog().lines().count(), catalog().len());
    for line in java_catalog().lines() {
        assert_eq!(line.split('\t').count(), 5, "{line}");
    }
}

#[test]
fn a_failed_fetch_moves_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let storage = Storage::new(LocalTieredStorage::new(dir.path().to_owned()));
    let metadata = crate::test_metadata::metadata();
    assert!(
        storage
            .manager()
            .fetch_log_segment(&metadata, 0, None)
            .is_err()
    );
    let values = snapshot(&storage);
    let defs = catalog();
    let at = |name: &str, tag: Option<&str>| {
        let i = defs
            .iter()
            .position(|d| d.name == name && d.tag.map(|(_, v)| v) == tag)
            .unwrap();
        values[i]
    };
    assert_eq!(at("fetch-total", None), 1.0);
    assert_eq!(at("fetch-failures-total", Some("not-found")), 1.0);
    assert_eq!(at("fetch-open-streams", None), 0.0);
}

#[test]
fn the_metrics_reference_is_up_to_date() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DOCS_PATH);
    let committed =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let rendered = docs(&committed).expect("docs/metrics.md lacks the table markers");
    if env::var_os("KRABKA_REGENERATE").is_some_and(|value| value == "1") {
        fs::write(&path, &rendered).unwrap();
    } else {
        assert!(
            committed == rendered,
            "{DOCS_PATH} differs from the metrics catalog; run `{REGENERATE}`\n--- rendered\n{rendered}"
        );
    }
    for def in catalog() {
        assert!(
            rendered.contains(&format!("`{}`", def.name)),
            "{}",
            def.name
        );
    }
}

#[test]
fn the_durable_metadata_managers_count_into_every_snapshot() {
    use {
        crate::{backend::open_metadata_manager, config::MetadataConfig},
        krabka_object_store::ObjectStoreConfig,
        krabka_remote_storage::StoreRlmmConfig,
    };
    let dir = tempfile::tempdir().unwrap();
    let storage = Storage::new(LocalTieredStorage::new(dir.path().join("tier")));
    let defs = catalog();
    let at = |values: &[f64], name: &str| values[defs.iter().position(|d| d.name == name).unwrap()];
    let before = snapshot(&storage);
    let manager = open_metadata_manager(MetadataConfig::Store {
        store: Box::new(ObjectStoreConfig::Local {
            root: dir.path().join("metadata"),
        }),
        settings: StoreRlmmConfig::default(),
    })
    .unwrap();
    let metadata = crate::test_metadata::metadata();
    manager
        .add_remote_log_segment_metadata(metadata.clone())
        .unwrap();
    let after = snapshot(&storage);
    // Other tests of this process may count too: at least this one's.
    for name in [
        "metadata-records-written-total",
        "metadata-partition-loads-total",
    ] {
        assert!(
            at(&after, name) >= at(&before, name) + 1.0,
            "{name}: {} then {}",
            at(&before, name),
            at(&after, name)
        );
    }
}
