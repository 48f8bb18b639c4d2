use {
    super::*,
    keys::ConfigKey::{
        AzureAccessKey, AzureAccount, AzureAllowHttp, AzureContainer, AzureEndpoint, AzureSasToken,
        Backend, FilesystemRoot, GcsAllowHttp, GcsBucket, GcsEndpoint, GcsServiceAccountKey,
        GcsServiceAccountPath, MaxRetries, MultipartChunkSizeBytes, MultipartPartsInFlight,
        MultipartThresholdBytes, NativeLibraryPath, Prefix, RequestTimeoutMs, S3AccessKeyId,
        S3AllowHttp, S3Bucket, S3Endpoint, S3PathStyle, S3Region, S3SecretAccessKey, S3SseKmsKeyId,
        S3StorageClass, WormAllowPlainOnArchive, WormEnabled, WormKeyId,
        WormLogCheckpointIntervalMs, WormLogOrigin, WormLogWitnesses, WormSigningKeyPath,
        WormTrustedKeys, WormWriteOnly,
    },
    krabka_object_store::{
        DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES, DEFAULT_MULTIPART_CHUNK_SIZE,
        DEFAULT_MULTIPART_THRESHOLD, DEFAULT_REQUEST_TIMEOUT, DEFAULT_RETRY_TIMEOUT,
        store::DEFAULT_PARTS_IN_FLIGHT,
    },
};

fn entries(pairs: &[(ConfigKey, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.name().to_owned(), (*v).to_owned()))
        .collect()
}

fn with(
    base: &[(ConfigKey, impl AsRef<str>)],
    more: &[(ConfigKey, &str)],
) -> Vec<(String, String)> {
    base.iter()
        .map(|(k, v)| (k.name().to_owned(), v.as_ref().to_owned()))
        .chain(entries(more))
        .collect()
}

const S3: [(ConfigKey, &str); 3] = [(Backend, "s3"), (S3Bucket, "archive"), (S3Region, "r")];

fn s3(config: BackendConfig) -> S3Config {
    let BackendConfig::ObjectStore {
        store, worm: None, ..
    } = config
    else {
        panic!("expected an object store config without WORM, got {config:?}");
    };
    let ObjectStoreConfig::S3(s3) = *store else {
        panic!("expected an S3 config, got {store:?}");
    };
    s3
}

#[test]
fn filesystem_is_the_default_backend_and_needs_a_root() {
    let config = parse_backend(&entries(&[(FilesystemRoot, "/tmp/tier")])).unwrap();
    assert_eq!(
        config,
        BackendConfig::Filesystem {
            root: PathBuf::from("/tmp/tier")
        }
    );
    assert_eq!(
        parse_backend(&entries(&[])),
        Err(ConfigError::Missing {
            key: FilesystemRoot,
            backend: "filesystem"
        })
    );
    // A blank value is unset.
    assert_eq!(
        parse_backend(&entries(&[(FilesystemRoot, "  ")])),
        Err(ConfigError::Missing {
            key: FilesystemRoot,
            backend: "filesystem"
        })
    );
}

#[test]
fn unknown_keys_are_named_and_the_valid_ones_listed() {
    let pairs = [
        (FilesystemRoot.name().to_owned(), "/x".to_owned()),
        ("s3.buckett".to_owned(), "b".to_owned()),
    ];
    let err = parse_backend(&pairs).unwrap_err();
    assert_eq!(
        err,
        ConfigError::Unknown {
            key: "s3.buckett".to_owned()
        }
    );
    let message = err.to_string();
    for key in ConfigKey::of(keys::Plugin::StorageManager) {
        assert!(message.contains(&format!(" {key}")), "{message}");
    }
    // Keys the broker adds are the Java adapter's business; it never passes them.
    let broker = [("node.id".to_owned(), "1".to_owned())];
    assert!(matches!(
        parse_backend(&broker),
        Err(ConfigError::Unknown { .. })
    ));
}

#[test]
fn the_loader_key_is_accepted_and_ignored() {
    assert_eq!(
        parse_backend(&entries(&[
            (FilesystemRoot, "/tier"),
            (NativeLibraryPath, "/opt/libkrabka_jni.so"),
        ])),
        Ok(BackendConfig::Filesystem {
            root: PathBuf::from("/tier")
        })
    );
}

#[test]
fn invalid_backends_are_named() {
    assert_eq!(
        parse_backend(&entries(&[(Backend, "hdfs")])),
        Err(ConfigError::Invalid {
            key: Backend,
            value: "hdfs".to_owned()
        })
    );
    // Backend names are case-sensitive, as in Kafka's ConfigDef.
    assert!(matches!(
        parse_backend(&entries(&[(Backend, "S3")])),
        Err(ConfigError::Invalid { key: Backend, .. })
    ));
}

#[test]
fn every_value_is_checked_whatever_the_backend() {
    for (key, value) in [
        (MaxRetries, "-1"),
        (MaxRetries, "2147483648"),
        (MultipartThresholdBytes, "0"),
        (MultipartThresholdBytes, "5368709121"),
        (MultipartChunkSizeBytes, "5242879"),
        (MultipartPartsInFlight, "0"),
        (MultipartPartsInFlight, "1025"),
        (RequestTimeoutMs, "0"),
        (RequestTimeoutMs, "soon"),
        (S3AllowHttp, "yes"),
        (WormKeyId, "no spaces"),
        (WormKeyId, &"k".repeat(65)),
    ] {
        assert_eq!(
            parse_backend(&entries(&[(FilesystemRoot, "/tier"), (key, value)])),
            Err(ConfigError::Invalid {
                key,
                value: value.to_owned()
            }),
            "{key}={value}"
        );
    }
    for (key, value) in [
        (MaxRetries, "0"),
        (MultipartThresholdBytes, "1"),
        (MultipartThresholdBytes, "5368709120"),
        (MultipartChunkSizeBytes, "5242880"),
        (MultipartPartsInFlight, "1"),
        (MultipartPartsInFlight, "1024"),
        (RequestTimeoutMs, " 1 "),
        (WormKeyId, "archive-2026_v1.2"),
        (WormKeyId, &"k".repeat(64)),
    ] {
        assert!(
            parse_backend(&entries(&[(FilesystemRoot, "/tier"), (key, value)])).is_ok(),
            "{key}={value}"
        );
    }
}

#[test]
fn s3_keys_fill_the_s3_config() {
    let s3 = s3(parse_backend(&entries(&[
        (Backend, "s3"),
        (S3Bucket, "tiered"),
        (S3Region, "us-east-1"),
        (S3Endpoint, "http://127.0.0.1:8333"),
        (S3AllowHttp, "true"),
        (S3PathStyle, "TRUE"),
        (S3AccessKeyId, "id"),
        (S3SecretAccessKey, "secret"),
        (Prefix, "kafka/cluster-1"),
        (MultipartThresholdBytes, "10485760"),
        (MultipartPartsInFlight, "32"),
        (RequestTimeoutMs, "1500"),
    ]))
    .unwrap());
    assert_eq!(s3.parts_in_flight, 32);
    assert_eq!(s3.bucket, "tiered");
    assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:8333"));
    assert!(s3.allow_http && s3.path_style);
    assert_eq!(s3.prefix.as_deref(), Some("kafka/cluster-1"));
    assert_eq!(s3.multipart_threshold, 10_485_760);
    assert_eq!(s3.request_timeout, Duration::from_millis(1500));
    assert!(matches!(s3.credentials, S3Credentials::Static { .. }));
}

#[test]
fn unset_tuning_keys_take_the_object_store_defaults() {
    let s3 = s3(parse_backend(&entries(&S3)).unwrap());
    assert_eq!(s3.multipart_threshold, DEFAULT_MULTIPART_THRESHOLD);
    assert_eq!(s3.multipart_chunk_size, DEFAULT_MULTIPART_CHUNK_SIZE);
    assert_eq!(s3.parts_in_flight, DEFAULT_PARTS_IN_FLIGHT);
    assert_eq!(s3.max_retries, DEFAULT_MAX_RETRIES);
    assert_eq!(s3.retry_timeout, DEFAULT_RETRY_TIMEOUT);
    assert_eq!(s3.request_timeout, DEFAULT_REQUEST_TIMEOUT);
    assert_eq!(s3.connect_timeout, DEFAULT_CONNECT_TIMEOUT);
    assert!(!s3.allow_http && !s3.path_style);
    assert!(matches!(s3.credentials, S3Credentials::Ambient));
    // What the Java adapter sends for unset keys: every default, as text.
    let BackendConfig::ObjectStore { store, .. } =
        parse_backend(&with(&defaults_as_java_sends_them(), &S3)).unwrap()
    else {
        panic!("expected an object store config");
    };
    assert_eq!(*store, ObjectStoreConfig::S3(s3));
}

/// Every native key with a default, set to it as text.
fn defaults_as_java_sends_them() -> Vec<(ConfigKey, String)> {
    ConfigKey::of(keys::Plugin::StorageManager)
        .filter(|key| key.spec().reader == keys::Reader::Native)
        .filter_map(|key| {
            let text = match key.default_value()? {
                keys::Value::Text(text) => text.to_owned(),
                keys::Value::Boolean(flag) => flag.to_string(),
                keys::Value::Integer(n) => n.to_string(),
            };
            Some((key, text))
        })
        .collect()
}

#[test]
fn s3_errors_name_the_configuration_key() {
    assert_eq!(
        parse_backend(&entries(&[(Backend, "s3"), (S3Region, "r")])),
        Err(ConfigError::Missing {
            key: S3Bucket,
            backend: "s3"
        })
    );
    assert_eq!(
        parse_backend(&with(&S3, &[(S3SecretAccessKey, "s")])),
        Err(ConfigError::Missing {
            key: S3AccessKeyId,
            backend: "s3"
        })
    );
    assert_eq!(
        parse_backend(&with(&S3, &[(S3AccessKeyId, "AKIA")])),
        Err(ConfigError::Missing {
            key: S3SecretAccessKey,
            backend: "s3"
        })
    );
    // The object store's own checks, mapped to the key.
    assert!(matches!(
        parse_backend(&with(&S3, &[(S3Endpoint, "http://127.0.0.1:1")])),
        Err(ConfigError::Refused {
            key: S3Endpoint,
            ..
        })
    ));
    assert!(matches!(
        parse_backend(&with(&S3, &[(Prefix, "/leading")])),
        Err(ConfigError::Refused { key: Prefix, .. })
    ));
    assert!(matches!(
        parse_backend(&with(&S3, &[(S3PathStyle, "yes")])),
        Err(ConfigError::Invalid {
            key: S3PathStyle,
            ..
        })
    ));
    assert!(matches!(
        parse_backend(&with(&S3, &[(MultipartChunkSizeBytes, "1024")])),
        Err(ConfigError::Invalid {
            key: MultipartChunkSizeBytes,
            ..
        })
    ));
    assert!(matches!(
        parse_backend(&entries(&[
            (Backend, "s3"),
            (S3Bucket, "Not_A_Bucket"),
            (S3Region, "r")
        ])),
        Err(ConfigError::Refused { key: S3Bucket, .. })
    ));
}

#[test]
fn gcs_keys_fill_the_gcs_config() {
    let config = parse_backend(&entries(&[
        (Backend, "gcs"),
        (GcsBucket, "tiered"),
        (GcsEndpoint, "http://127.0.0.1:4443"),
        (GcsAllowHttp, "true"),
        (GcsServiceAccountPath, "/etc/sa.json"),
    ]))
    .unwrap();
    let BackendConfig::ObjectStore {
        store, worm: None, ..
    } = config
    else {
        panic!("expected a GCS config without WORM, got {config:?}");
    };
    let ObjectStoreConfig::Gcs(gcs) = *store else {
        panic!("expected a GCS config, got {store:?}");
    };
    assert_eq!(gcs.bucket, "tiered");
    assert_eq!(
        gcs.service_account_path,
        Some(PathBuf::from("/etc/sa.json"))
    );
    assert!(gcs.allow_http);
}

#[test]
fn gcs_errors_name_the_gcs_key_and_hide_secrets() {
    assert_eq!(
        parse_backend(&entries(&[(Backend, "gcs")])),
        Err(ConfigError::Missing {
            key: GcsBucket,
            backend: "gcs"
        })
    );
    assert!(matches!(
        parse_backend(&entries(&[
            (Backend, "gcs"),
            (GcsBucket, "tiered"),
            (GcsEndpoint, "http://127.0.0.1:4443"),
        ])),
        Err(ConfigError::Refused {
            key: GcsEndpoint,
            ..
        })
    ));
    let err = parse_backend(&entries(&[
        (Backend, "gcs"),
        (GcsBucket, "tiered"),
        (GcsServiceAccountPath, "/etc/sa.json"),
        (GcsServiceAccountKey, "{\"private_key\":\"hunter2\"}"),
    ]))
    .unwrap_err();
    assert!(
        matches!(
            &err,
            ConfigError::Refused {
                key: GcsServiceAccountKey,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.to_string().contains("hunter2"), "{err}");
}

const AZURE: [(ConfigKey, &str); 4] = [
    (Backend, "azure"),
    (AzureAccount, "devstoreaccount1"),
    (AzureContainer, "tiered"),
    (AzureAccessKey, "a2V5"),
];

fn azure(config: BackendConfig) -> AzureConfig {
    let BackendConfig::ObjectStore {
        store, worm: None, ..
    } = config
    else {
        panic!("expected an Azure config without WORM, got {config:?}");
    };
    let ObjectStoreConfig::Azure(azure) = *store else {
        panic!("expected an Azure config, got {store:?}");
    };
    azure
}

#[test]
fn azure_keys_fill_the_azure_config() {
    let config = azure(
        parse_backend(&with(
            &AZURE,
            &[
                (AzureEndpoint, "http://127.0.0.1:10000/devstoreaccount1"),
                (AzureAllowHttp, "true"),
                (Prefix, "kafka/tier"),
                (MultipartChunkSizeBytes, "8388608"),
                (MultipartPartsInFlight, "3"),
                (RequestTimeoutMs, "1500"),
            ],
        ))
        .unwrap(),
    );
    assert_eq!(config.account, "devstoreaccount1");
    assert_eq!(config.container, "tiered");
    assert_eq!(
        config.endpoint.as_deref(),
        Some("http://127.0.0.1:10000/devstoreaccount1")
    );
    assert!(config.allow_http);
    assert_eq!(config.prefix.as_deref(), Some("kafka/tier"));
    assert_eq!(config.multipart_chunk_size, 8 * 1024 * 1024);
    assert_eq!(config.parts_in_flight, 3);
    assert_eq!(
        config.request_timeout,
        std::time::Duration::from_millis(1500)
    );
    assert_eq!(
        config.credentials,
        AzureCredentials::AccessKey(Secret::new("a2V5"))
    );
    let sas = azure(
        parse_backend(&entries(&[
            (Backend, "azure"),
            (AzureAccount, "account1"),
            (AzureContainer, "tiered"),
            (AzureSasToken, "?sv=2024-11-04&sig=abc"),
        ]))
        .unwrap(),
    );
    assert_eq!(
        sas.credentials,
        AzureCredentials::SasToken(Secret::new("?sv=2024-11-04&sig=abc"))
    );
}

#[test]
fn azure_errors_name_the_azure_key_and_hide_secrets() {
    for (missing, present) in [
        (
            AzureAccount,
            &[(AzureContainer, "tiered"), (AzureAccessKey, "a2V5")],
        ),
        (
            AzureContainer,
            &[(AzureAccount, "account1"), (AzureAccessKey, "a2V5")],
        ),
        (
            AzureAccessKey,
            &[(AzureAccount, "account1"), (AzureContainer, "tiered")],
        ),
    ] {
        let mut pairs = vec![(Backend, "azure")];
        pairs.extend_from_slice(present);
        assert_eq!(
            parse_backend(&entries(&pairs)),
            Err(ConfigError::Missing {
                key: missing,
                backend: "azure"
            }),
            "{missing:?}"
        );
    }
    for (key, value) in [
        (AzureAccount, "Not_An_Account"),
        (AzureContainer, "UPPER"),
        (AzureEndpoint, "http://127.0.0.1:10000/devstoreaccount1"),
    ] {
        let err = parse_backend(&with(&AZURE, &[(key, value)])).unwrap_err();
        assert!(
            matches!(&err, ConfigError::Refused { key: named, .. } if *named == key),
            "{key:?}: {err:?}"
        );
    }
    let err = parse_backend(&with(&AZURE, &[(AzureSasToken, "sv=1&sig=hunter2")])).unwrap_err();
    assert!(
        matches!(
            &err,
            ConfigError::Refused {
                key: AzureSasToken,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.to_string().contains("hunter2"), "{err}");
    let err = parse_backend(&entries(&[
        (Backend, "azure"),
        (AzureAccount, "account1"),
        (AzureContainer, "tiered"),
        (AzureSasToken, "sv=1&hunter2"),
    ]))
    .unwrap_err();
    assert!(
        matches!(
            &err,
            ConfigError::Refused {
                key: AzureSasToken,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.to_string().contains("hunter2"), "{err}");
    // A misspelt key is refused by name, whatever the backend.
    let err = parse_backend(&[("azure.acount".to_owned(), "x".to_owned())]).unwrap_err();
    assert_eq!(
        err,
        ConfigError::Unknown {
            key: "azure.acount".to_owned()
        }
    );
}

#[test]
fn secret_values_are_redacted_in_errors() {
    let err = ConfigError::invalid(S3SecretAccessKey, "hunter2");
    assert_eq!(
        err,
        ConfigError::Invalid {
            key: S3SecretAccessKey,
            value: "<redacted>".to_owned()
        }
    );
    assert!(!err.to_string().contains("hunter2"));
    let shown = ConfigError::invalid(S3AccessKeyId, "AKIA");
    assert!(shown.to_string().contains("AKIA"), "{shown}");
}

#[test]
fn worm_keys_fill_the_worm_config() {
    let config = parse_backend(&with(
        &S3,
        &[
            (WormEnabled, "true"),
            (WormSigningKeyPath, "/etc/krabka/worm-key.pem"),
            (WormKeyId, "archive-2026"),
            (WormWriteOnly, "true"),
        ],
    ))
    .unwrap();
    let BackendConfig::ObjectStore {
        worm: Some(worm), ..
    } = config
    else {
        panic!("expected an S3 config with WORM, got {config:?}");
    };
    assert_eq!(
        *worm,
        WormConfig::new("/etc/krabka/worm-key.pem", "archive-2026").write_only(true)
    );
    let BackendConfig::ObjectStore {
        worm: Some(worm), ..
    } = parse_backend(&with(
        &[(Backend, "gcs"), (GcsBucket, "archive")],
        &[
            (WormEnabled, "TRUE"),
            (WormSigningKeyPath, "/k.der"),
            (WormKeyId, "k1"),
        ],
    ))
    .unwrap()
    else {
        panic!("expected a GCS config with WORM");
    };
    assert!(!worm.write_only);
}

#[test]
fn trusted_keys_are_key_id_and_hex_public_key_pairs() {
    let worm_with = |pairs: &str| {
        parse_backend(&with(
            &S3,
            &[
                (WormEnabled, "true"),
                (WormSigningKeyPath, "/k.pem"),
                (WormKeyId, "k1"),
                (WormTrustedKeys, pairs),
            ],
        ))
    };
    let hex_a = "11".repeat(32);
    let hex_b = "aB".repeat(32);
    let BackendConfig::ObjectStore {
        worm: Some(worm), ..
    } = worm_with(&format!(" broker-2={hex_a} , broker-3 = {hex_b},")).unwrap()
    else {
        panic!("expected WORM");
    };
    assert_eq!(
        *worm,
        WormConfig::new("/k.pem", "k1")
            .with_trusted_key("broker-2", [0x11; 32])
            .with_trusted_key("broker-3", [0xab; 32])
    );
    for bad in [
        "broker-2".to_owned(),
        format!("={hex_a}"),
        format!("broker-2={}", &hex_a[2..]),
        format!("broker-2={}zz", &hex_a[2..]),
        format!("broker-2={}é", &hex_a[3..]),
    ] {
        let err = worm_with(&bad).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Refused {
                    key: WormTrustedKeys,
                    ..
                }
            ),
            "{bad}: {err:?}"
        );
    }
}

#[test]
fn the_archive_log_is_kept_with_an_origin_and_its_witnesses() {
    let worm_with = |more: &[(ConfigKey, &str)]| {
        let base = [
            (WormEnabled, "true"),
            (WormSigningKeyPath, "/k.pem"),
            (WormKeyId, "k1"),
        ];
        parse_backend(&with(&S3, &[&base[..], more].concat())).map(|config| match config {
            BackendConfig::ObjectStore {
                worm: Some(worm), ..
            } => worm.log,
            other => panic!("expected WORM, got {other:?}"),
        })
    };
    assert_eq!(worm_with(&[]).unwrap(), None);
    let vkey = krabka_remote_storage::tlog::NoteVerifier::new(
        "witness.example",
        krabka_remote_storage::tlog::note::COSIGNATURE_TYPE,
        krabka_remote_storage::ManifestSigner::from_secret_bytes(&[3; 32], "w")
            .unwrap()
            .public_key(),
    )
    .unwrap()
    .to_string();
    let witnesses = format!(" http://w1:7380/ {vkey} , https://w2.example {vkey},");
    let log = worm_with(&[
        (WormLogOrigin, "archive.example/orders"),
        (WormLogCheckpointIntervalMs, "2500"),
        (WormLogWitnesses, &witnesses),
    ])
    .unwrap()
    .unwrap();
    assert_eq!(log.origin, "archive.example/orders");
    assert_eq!(log.interval, Duration::from_millis(2500));
    let urls: Vec<&str> = log.witnesses.iter().map(|w| w.url.as_str()).collect();
    assert_eq!(urls, ["http://w1:7380", "https://w2.example"]);
    assert_eq!(log.witnesses[0].key.to_string(), vkey);
    assert_eq!(
        worm_with(&[(WormLogOrigin, "o")])
            .unwrap()
            .unwrap()
            .interval,
        krabka_remote_storage::DEFAULT_CHECKPOINT_INTERVAL
    );

    let refused = |more: &[(ConfigKey, &str)]| match worm_with(more) {
        Err(ConfigError::Refused { key, .. } | ConfigError::Invalid { key, .. }) => key,
        other => panic!("{more:?} was not refused: {other:?}"),
    };
    assert_eq!(refused(&[(WormLogOrigin, "has space")]), WormLogOrigin);
    assert_eq!(refused(&[(WormLogOrigin, "a+b")]), WormLogOrigin);
    assert_eq!(refused(&[(WormLogWitnesses, &witnesses)]), WormLogWitnesses);
    let o = (WormLogOrigin, "o");
    for bad in [
        "http://w1:7380".to_owned(),
        format!("w1:7380 {vkey}"),
        "http://w1 not-a-key".to_owned(),
        // A log key (type 01), not a cosignature key.
        format!(
            "http://w1 {}",
            krabka_remote_storage::tlog::NoteVerifier::new(
                "log.example",
                krabka_remote_storage::tlog::note::ED25519_TYPE,
                krabka_remote_storage::ManifestSigner::from_secret_bytes(&[4; 32], "l")
                    .unwrap()
                    .public_key(),
            )
            .unwrap()
        ),
    ] {
        assert_eq!(
            refused(&[o, (WormLogWitnesses, &bad)]),
            WormLogWitnesses,
            "{bad}"
        );
    }
    assert_eq!(
        refused(&[o, (WormLogCheckpointIntervalMs, "0")]),
        WormLogCheckpointIntervalMs
    );
}

#[test]
fn the_plain_tier_on_an_archive_is_an_explicit_choice() {
    let allowed = |entries: &[(ConfigKey, &str)]| match parse_backend(&with(&S3, entries)).unwrap()
    {
        BackendConfig::ObjectStore {
            allow_plain_on_archive,
            ..
        } => allow_plain_on_archive,
        other => panic!("not an object store: {other:?}"),
    };
    assert!(!allowed(&[]));
    assert!(allowed(&[(WormAllowPlainOnArchive, "true")]));
}

#[test]
fn worm_needs_a_key_path_and_a_key_id() {
    assert_eq!(
        parse_backend(&with(&S3, &[(WormEnabled, "true"), (WormKeyId, "k1")])),
        Err(ConfigError::MissingForWorm {
            key: WormSigningKeyPath
        })
    );
    assert_eq!(
        parse_backend(&with(
            &S3,
            &[
                (WormEnabled, "true"),
                (WormSigningKeyPath, "/k.pem"),
                (WormKeyId, "  "),
            ]
        )),
        Err(ConfigError::MissingForWorm { key: WormKeyId })
    );
}

#[test]
fn worm_is_refused_with_the_filesystem_backend() {
    for backend in [
        &[(Backend, "filesystem"), (FilesystemRoot, "/tier")][..],
        &[(FilesystemRoot, "/tier")][..],
    ] {
        assert!(matches!(
            parse_backend(&with(backend, &[(WormEnabled, "true")])),
            Err(ConfigError::Refused {
                key: WormEnabled,
                ..
            })
        ));
    }
}

#[test]
fn worm_keys_are_ignored_while_the_mode_is_off() {
    let extra = [
        (WormEnabled, "false"),
        (WormSigningKeyPath, "/k.pem"),
        (WormKeyId, "k1"),
        (WormWriteOnly, "true"),
    ];
    assert!(matches!(
        parse_backend(&with(&S3, &extra)),
        Ok(BackendConfig::ObjectStore { worm: None, .. })
    ));
    assert!(matches!(
        parse_backend(&with(&[(FilesystemRoot, "/tier")], &extra)),
        Ok(BackendConfig::Filesystem { .. })
    ));
    // Their values must still be valid.
    assert!(matches!(
        parse_backend(&with(&S3, &[(WormWriteOnly, "yes")])),
        Err(ConfigError::Invalid {
            key: WormWriteOnly,
            ..
        })
    ));
    assert!(matches!(
        parse_backend(&with(&S3, &[(WormEnabled, "on")])),
        Err(ConfigError::Invalid {
            key: WormEnabled,
            ..
        })
    ));
}

#[test]
fn s3_storage_class_and_encryption_reach_the_s3_config() {
    let s3 = |entries: &[(ConfigKey, &str)]| match parse_backend(&with(&S3, entries)) {
        Ok(BackendConfig::ObjectStore { store, .. }) => match *store {
            ObjectStoreConfig::S3(s3) => Ok(s3),
            other => panic!("not S3: {other:?}"),
        },
        Ok(other) => panic!("not an object store: {other:?}"),
        Err(err) => Err(err),
    };
    let plain = s3(&[]).unwrap();
    assert_eq!(plain.storage_class, None);
    assert_eq!(
        plain.server_side_encryption,
        krabka_object_store::S3ServerSideEncryption::BucketDefault
    );
    let configured = s3(&[
        (S3StorageClass, "STANDARD_IA"),
        (ConfigKey::S3ServerSideEncryption, "aws:kms"),
        (S3SseKmsKeyId, "alias/tiered"),
    ])
    .unwrap();
    assert_eq!(configured.storage_class.as_deref(), Some("STANDARD_IA"));
    assert_eq!(
        configured.server_side_encryption,
        krabka_object_store::S3ServerSideEncryption::Kms {
            key_id: Some("alias/tiered".to_owned())
        }
    );
    assert_eq!(
        s3(&[(ConfigKey::S3ServerSideEncryption, "AES256")])
            .unwrap()
            .server_side_encryption,
        krabka_object_store::S3ServerSideEncryption::S3Managed
    );
    assert!(s3(&[(ConfigKey::S3ServerSideEncryption, "aes256")]).is_err());
    let err = s3(&[(S3SseKmsKeyId, "alias/tiered")]).unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Refused {
                key: S3SseKmsKeyId,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(s3(&[(S3StorageClass, "standard ia")]).is_err());
    assert_eq!(plain.tls_ca_certificates, None);
    assert_eq!(
        s3(&[(ConfigKey::S3TlsCaCertificatesPath, "/etc/krabka/ca.pem")])
            .unwrap()
            .tls_ca_certificates,
        Some(PathBuf::from("/etc/krabka/ca.pem"))
    );
}

#[test]
fn the_archive_mode_is_refused_on_azure() {
    let err = parse_backend(&with(
        &AZURE,
        &[
            (WormEnabled, "true"),
            (WormSigningKeyPath, "/etc/kafka/worm.pem"),
            (WormKeyId, "broker-1"),
        ],
    ))
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Refused {
                key: WormEnabled,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("azure"), "{err}");
}

#[test]
fn the_read_cache_takes_its_sizes_from_the_fetch_keys() {
    use {
        ConfigKey::{FetchCacheChunkSizeBytes, FetchCacheSizeBytes, FetchPrefetchChunks},
        krabka_object_store::store::cache::CacheConfig,
    };
    let cache = |entries: &[(ConfigKey, &str)]| match parse_backend(&with(&S3, entries)) {
        Ok(BackendConfig::ObjectStore { read_cache, .. }) => Ok(read_cache),
        Ok(other) => panic!("not an object store: {other:?}"),
        Err(err) => Err(err),
    };
    assert_eq!(cache(&[]).unwrap(), Some(CacheConfig::default()));
    assert_eq!(cache(&[(FetchCacheSizeBytes, "0")]).unwrap(), None);
    let sized = cache(&[
        (FetchCacheSizeBytes, "67108864"),
        (FetchCacheChunkSizeBytes, "1048576"),
        (FetchPrefetchChunks, "4"),
    ])
    .unwrap()
    .unwrap();
    assert_eq!(
        (
            sized.capacity_bytes,
            sized.chunk_bytes,
            sized.prefetch_chunks
        ),
        (64 << 20, 1 << 20, 4)
    );
    // Too small for its read-ahead: refused, naming the cache size.
    let err = cache(&[(FetchCacheSizeBytes, "1048576")]).unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Refused {
                key: FetchCacheSizeBytes,
                ..
            }
        ),
        "{err:?}"
    );
    // A chunk below the minimum is refused by the table.
    let err = cache(&[(FetchCacheChunkSizeBytes, "100")]).unwrap_err();
    assert!(
        err.to_string().contains("fetch.cache.chunk.size.bytes"),
        "{err}"
    );
}

#[test]
fn the_read_cache_disk_tier_is_off_unless_a_path_is_set() {
    use {
        ConfigKey::{
            FetchCacheChunkSizeBytes, FetchCacheDiskPath, FetchCacheDiskSizeBytes,
            FetchCacheSizeBytes,
        },
        krabka_object_store::store::cache::{DEFAULT_DISK_CACHE_BYTES, DiskCacheConfig},
    };
    let disk = |entries: &[(ConfigKey, &str)]| match parse_backend(&with(&S3, entries)) {
        Ok(BackendConfig::ObjectStore { read_cache, .. }) => Ok(read_cache.and_then(|c| c.disk)),
        Ok(other) => panic!("not an object store: {other:?}"),
        Err(err) => Err(err),
    };
    assert_eq!(disk(&[]).unwrap(), None);
    assert_eq!(
        disk(&[(FetchCacheDiskPath, "/var/cache/krabka")]).unwrap(),
        Some(DiskCacheConfig {
            directory: "/var/cache/krabka".into(),
            size_bytes: DEFAULT_DISK_CACHE_BYTES,
        })
    );
    assert_eq!(
        disk(&[
            (FetchCacheDiskPath, "/var/cache/krabka"),
            (FetchCacheDiskSizeBytes, "0")
        ])
        .unwrap(),
        None
    );
    // Without the memory tier there is no disk tier either.
    assert_eq!(
        disk(&[
            (FetchCacheDiskPath, "/var/cache/krabka"),
            (FetchCacheSizeBytes, "0")
        ])
        .unwrap(),
        None
    );
    // Too small for two chunks: refused, naming the disk size.
    let err = disk(&[
        (FetchCacheDiskPath, "/var/cache/krabka"),
        (FetchCacheChunkSizeBytes, "1048576"),
        (FetchCacheDiskSizeBytes, "2097151"),
    ])
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Refused {
                key: FetchCacheDiskSizeBytes,
                ..
            }
        ),
        "{err:?}"
    );
}
