use {
    super::*,
    krabka_object_store::{ObjectStoreConfigError, S3Config},
    std::collections::BTreeSet,
};

#[test]
fn all_lists_every_key_once_in_declaration_order() {
    assert_eq!(
        ConfigKey::ALL.len(),
        ConfigKey::MetadataLoadConcurrency as usize + 1
    );
    for (index, key) in ConfigKey::ALL.into_iter().enumerate() {
        assert_eq!(key as usize, index, "{key:?}");
    }
}

#[test]
fn each_name_is_the_variant_in_dotted_lower_case() {
    // `S3AccessKeyId` is `s3.access.key.id`: the enum and the names cannot drift apart.
    for key in ConfigKey::ALL {
        let mut dotted = String::new();
        for c in format!("{key:?}").chars() {
            if c.is_ascii_uppercase() && !dotted.is_empty() {
                dotted.push('.');
            }
            dotted.push(c.to_ascii_lowercase());
        }
        assert_eq!(key.name(), dotted);
        assert_eq!(key.spec().name, key.name());
    }
}

#[test]
fn names_are_unique_and_looked_up_per_plugin() {
    let names: BTreeSet<&str> = ConfigKey::ALL.iter().map(|key| key.name()).collect();
    assert_eq!(names.len(), ConfigKey::ALL.len());
    for key in ConfigKey::ALL {
        for plugin in [Plugin::StorageManager, Plugin::MetadataManager] {
            let found = ConfigKey::of_plugin(plugin, key.name());
            assert_eq!(found.is_some(), key.spec().scope.includes(plugin), "{key}");
        }
    }
    // The metadata manager takes the store keys, never the tier's own.
    assert_eq!(
        ConfigKey::of_plugin(Plugin::MetadataManager, "backend"),
        Some(ConfigKey::Backend)
    );
    assert_eq!(
        ConfigKey::of_plugin(Plugin::MetadataManager, "worm.enabled"),
        None
    );
    assert_eq!(
        ConfigKey::of_plugin(Plugin::StorageManager, "metadata.manager"),
        None
    );
    assert_eq!(
        ConfigKey::of_plugin(Plugin::StorageManager, "node.id"),
        None
    );
}

#[test]
fn only_the_loader_key_stays_out_of_the_native_library() {
    for key in ConfigKey::ALL {
        let expected = if key == ConfigKey::NativeLibraryPath {
            Reader::Loader
        } else {
            Reader::Native
        };
        assert_eq!(key.spec().reader, expected, "{key}");
    }
    assert_eq!(
        ConfigKey::MetadataManager.spec().scope,
        Scope::MetadataManager
    );
    assert_eq!(ConfigKey::WormEnabled.spec().scope, Scope::StorageManager);
    assert_eq!(ConfigKey::S3Bucket.spec().scope, Scope::BothPlugins);
}

#[test]
fn every_default_is_valid_for_its_own_key() {
    for key in ConfigKey::ALL {
        let Some(default) = key.default_value() else {
            continue;
        };
        let text = match default {
            Value::Text(text) => text.to_owned(),
            Value::Boolean(flag) => flag.to_string(),
            Value::Integer(n) => n.to_string(),
        };
        assert_eq!(key.parse(&text), Some(default), "{key}");
    }
}

#[test]
fn defaults_are_the_object_store_defaults() {
    let expect = [
        (ConfigKey::MultipartThresholdBytes, 16 * 1024 * 1024),
        (ConfigKey::MultipartChunkSizeBytes, 5 * 1024 * 1024),
        (ConfigKey::MultipartPartsInFlight, 16),
        (ConfigKey::MaxRetries, 10),
        (ConfigKey::RetryTimeoutMs, 180_000),
        (ConfigKey::RequestTimeoutMs, 30_000),
        (ConfigKey::ConnectTimeoutMs, 5_000),
    ];
    for (key, value) in expect {
        assert_eq!(key.default_value(), Some(Value::Integer(value)), "{key}");
    }
    // docs/object-store.md: one copy holds at most max(threshold, parts in
    // flight x chunk); a threshold above the parts' budget would let a single
    // PUT hold more than a multipart upload does.
    let (Some(Value::Integer(threshold)), Some(Value::Integer(chunk)), Some(Value::Integer(parts))) = (
        ConfigKey::MultipartThresholdBytes.default_value(),
        ConfigKey::MultipartChunkSizeBytes.default_value(),
        ConfigKey::MultipartPartsInFlight.default_value(),
    ) else {
        panic!("the multipart keys are integers with defaults");
    };
    assert!(
        threshold <= chunk * parts,
        "threshold {threshold} above the parts' budget ({parts} x {chunk})"
    );
}

#[test]
fn multipart_bounds_are_the_object_store_bounds() {
    let check = |threshold: i64, chunk: i64| {
        let mut config = S3Config::new("tiered", "r");
        config.multipart_threshold = u64::try_from(threshold).unwrap();
        config.multipart_chunk_size = usize::try_from(chunk).unwrap();
        config.validate()
    };
    let Kind::Long {
        range: threshold, ..
    } = ConfigKey::MultipartThresholdBytes.spec().kind
    else {
        panic!("multipart.threshold.bytes is a long");
    };
    let Kind::Long { range: chunk, .. } = ConfigKey::MultipartChunkSizeBytes.spec().kind else {
        panic!("multipart.chunk.size.bytes is a long");
    };
    let (threshold_max, chunk_max) = (threshold.max.unwrap(), chunk.max.unwrap());
    assert_eq!(check(threshold.min, chunk.min), Ok(()));
    assert_eq!(check(threshold_max, chunk_max), Ok(()));
    for (t, c, field) in [
        (threshold.min - 1, chunk.min, "multipart_threshold"),
        (threshold_max + 1, chunk.min, "multipart_threshold"),
        (threshold.min, chunk.min - 1, "multipart_chunk_size"),
        (threshold.min, chunk_max + 1, "multipart_chunk_size"),
    ] {
        assert!(
            matches!(check(t, c), Err(ObjectStoreConfigError::Invalid { field: f, .. }) if f == field),
            "threshold {t}, chunk {c}"
        );
    }
}

#[test]
fn docs_are_one_plain_ascii_line() {
    for key in ConfigKey::ALL {
        let doc = key.spec().doc;
        assert!(doc.is_ascii(), "{key}");
        assert!(
            !doc.contains(['|', '\t', '\n', '\r', '\\', '"']) && !doc.contains("*/"),
            "{key}: {doc}"
        );
        assert!(doc.ends_with('.'), "{key}");
    }
}

#[test]
fn values_are_parsed_by_kind() {
    assert_eq!(
        ConfigKey::S3PathStyle.parse("TRUE"),
        Some(Value::Boolean(true))
    );
    assert_eq!(
        ConfigKey::S3PathStyle.parse("False"),
        Some(Value::Boolean(false))
    );
    assert_eq!(ConfigKey::S3PathStyle.parse("1"), None);
    assert_eq!(
        ConfigKey::MaxRetries.parse("2147483647"),
        Some(Value::Integer(2_147_483_647))
    );
    assert_eq!(ConfigKey::MaxRetries.parse("2147483648"), None);
    assert_eq!(ConfigKey::MaxRetries.parse("1.5"), None);
    assert_eq!(ConfigKey::Backend.parse("gcs"), Some(Value::Text("gcs")));
    assert_eq!(ConfigKey::Backend.parse("local"), None);
    assert_eq!(
        ConfigKey::S3SecretAccessKey.parse("any thing"),
        Some(Value::Text("any thing"))
    );
    assert!(ConfigKey::S3SecretAccessKey.is_secret());
    assert!(!ConfigKey::S3AccessKeyId.is_secret());
}

#[test]
fn expected_values_are_said_in_words() {
    let said = |key: ConfigKey| key.expected().to_string();
    assert_eq!(
        said(ConfigKey::Backend),
        "one of filesystem, s3, gcs, azure"
    );
    assert_eq!(said(ConfigKey::WormEnabled), "true or false");
    assert_eq!(
        said(ConfigKey::MaxRetries),
        "an integer from 0 to 2147483647"
    );
    assert_eq!(
        said(ConfigKey::MultipartChunkSizeBytes),
        "an integer from 5242880 to 5368709120"
    );
    assert_eq!(
        said(ConfigKey::WormKeyId),
        "1 to 64 characters of [A-Za-z0-9._-]"
    );
}
