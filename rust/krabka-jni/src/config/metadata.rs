//! The metadata manager's parser: where its history lives (the same store
//! keys as the storage manager's, so both can name one bucket or
//! directory) or the in-memory manager, refused unless its loss on restart
//! is accepted.

use {
    super::{
        ConfigError, azure_config, from_store_error, gcs_config,
        keys::{ConfigKey, Plugin},
        s3_config,
        settings::Settings,
    },
    krabka_remote_storage::{ObjectStoreConfig, StoreRlmmConfig},
    std::{path::PathBuf, time::Duration},
};

/// The entry the Java adapter adds with the broker's id (Kafka passes
/// `node.id`, or `broker.id` before 4.4): it names the broker's checkpoint.
/// The broker sets it, never an operator, so it is not in the key table.
pub const BROKER_ID_ENTRY: &str = "node.id";

/// Which metadata manager a `KrabkaRemoteLogMetadataManager` drives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataConfig {
    /// The durable manager, its history in `store`.
    Store {
        /// The store: the tier directory (`backend=filesystem`) or bucket.
        store: Box<ObjectStoreConfig>,
        /// Snapshot and polling settings.
        settings: StoreRlmmConfig,
    },
    /// The in-memory manager (tests; its loss on restart was accepted).
    InMemory,
}

/// Parses the metadata manager's configuration (`rlmm.config.*`).
///
/// With `metadata.manager=store` (the default) the store keys say where
/// the history lives, as they say where the storage manager's tier is:
/// `backend=filesystem` with `filesystem.root`, or an S3 / GCS bucket or an
/// Azure container.
/// `metadata.manager=memory` is refused unless
/// `metadata.memory.loss.on.restart.accepted` is true.
///
/// # Errors
/// [`ConfigError`] naming the first bad key.
pub fn parse_metadata(entries: &[(String, String)]) -> Result<MetadataConfig, ConfigError> {
    let (broker, entries): (Vec<_>, Vec<_>) = entries
        .iter()
        .cloned()
        .partition(|(key, _)| key == BROKER_ID_ENTRY);
    let broker_id = broker.last().and_then(|(_, value)| {
        let parsed = value.trim().parse::<i32>().ok();
        if parsed.is_none() {
            tracing::warn!(value = %value, "the broker's node.id is not a number: no remote log metadata checkpoint");
        }
        parsed
    });
    let settings = Settings::check(Plugin::MetadataManager, &entries)?;
    if settings.text(ConfigKey::MetadataManager) == Some("memory") {
        if !settings.flag(ConfigKey::MetadataMemoryLossOnRestartAccepted) {
            return Err(ConfigError::refused(
                ConfigKey::MetadataMemoryLossOnRestartAccepted,
                "false",
                "true with metadata.manager=memory (the in-memory manager forgets every tiered \
                 segment on a broker restart, and the tiered data becomes unreadable); use \
                 metadata.manager=store for a durable manager",
            ));
        }
        return Ok(MetadataConfig::InMemory);
    }
    let store = match settings.text(ConfigKey::Backend) {
        Some("filesystem") => ObjectStoreConfig::Local {
            root: PathBuf::from(settings.required(ConfigKey::FilesystemRoot, "filesystem")?),
        },
        Some("s3") => ObjectStoreConfig::S3(s3_config(&settings)?),
        Some("gcs") => ObjectStoreConfig::Gcs(gcs_config(&settings)?),
        Some("azure") => ObjectStoreConfig::Azure(azure_config(&settings)?),
        other => {
            return Err(ConfigError::invalid(
                ConfigKey::Backend,
                other.unwrap_or_default(),
            ));
        }
    };
    store
        .validate()
        .map_err(|err| from_store_error(&store, err))?;
    let poll_ms: u64 = settings.integer(ConfigKey::MetadataPollIntervalMs)?;
    Ok(MetadataConfig::Store {
        store: Box::new(store),
        settings: StoreRlmmConfig {
            snapshot_every: settings.integer(ConfigKey::MetadataSnapshotEveryRecords)?,
            poll_interval: Duration::from_millis(poll_ms),
            keep_history: settings.flag(ConfigKey::MetadataHistoryKeep),
            load_concurrency: settings.integer(ConfigKey::MetadataLoadConcurrency)?,
            broker_id,
            ..StoreRlmmConfig::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use {super::*, krabka_remote_storage::DEFAULT_RLMM_ROOT};

    fn entries(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn the_store_keys_name_where_the_history_lives() {
        let parsed = parse_metadata(&entries(&[
            ("backend", "filesystem"),
            ("filesystem.root", "/var/tier"),
            ("metadata.snapshot.every.records", "8"),
            ("metadata.poll.interval.ms", "250"),
            ("metadata.history.keep", "true"),
            ("metadata.load.concurrency", "200"),
            ("node.id", "3"),
        ]))
        .unwrap();
        assert_eq!(
            parsed,
            MetadataConfig::Store {
                store: Box::new(ObjectStoreConfig::Local {
                    root: PathBuf::from("/var/tier")
                }),
                settings: StoreRlmmConfig {
                    root: DEFAULT_RLMM_ROOT.to_owned(),
                    snapshot_every: 8,
                    poll_interval: Duration::from_millis(250),
                    keep_history: true,
                    load_concurrency: 200,
                    broker_id: Some(3),
                },
            }
        );
        let s3 = parse_metadata(&entries(&[
            ("backend", "s3"),
            ("s3.bucket", "bucket"),
            ("s3.region", "region"),
            ("prefix", "p"),
        ]))
        .unwrap();
        assert!(
            matches!(s3, MetadataConfig::Store { store, .. } if matches!(*store, ObjectStoreConfig::S3(ref c) if c.prefix.as_deref() == Some("p")))
        );
    }

    #[test]
    fn memory_needs_its_loss_accepted() {
        assert!(matches!(
            parse_metadata(&entries(&[("metadata.manager", "memory")])),
            Err(ConfigError::Refused {
                key: ConfigKey::MetadataMemoryLossOnRestartAccepted,
                ..
            })
        ));
        assert_eq!(
            parse_metadata(&entries(&[
                ("metadata.manager", "memory"),
                ("metadata.memory.loss.on.restart.accepted", "true"),
            ]))
            .unwrap(),
            MetadataConfig::InMemory
        );
    }

    #[test]
    fn bad_entries_name_their_key() {
        let cases = [
            (vec![("backend", "ftp")], ConfigKey::Backend),
            (vec![("backend", "filesystem")], ConfigKey::FilesystemRoot),
            (
                vec![
                    ("backend", "filesystem"),
                    ("filesystem.root", "/x"),
                    ("metadata.snapshot.every.records", "0"),
                ],
                ConfigKey::MetadataSnapshotEveryRecords,
            ),
        ];
        for (pairs, key) in cases {
            let named = match parse_metadata(&entries(&pairs)).unwrap_err() {
                ConfigError::Missing { key, .. }
                | ConfigError::Invalid { key, .. }
                | ConfigError::Refused { key, .. } => Some(key),
                _ => None,
            };
            assert_eq!(named, Some(key), "{pairs:?}");
        }
        // A storage manager's own key is not the metadata manager's.
        assert!(matches!(
            parse_metadata(&entries(&[("worm.enabled", "true")])),
            Err(ConfigError::Unknown { .. })
        ));
    }
}
