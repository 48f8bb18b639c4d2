use {
    super::{
        layer::{NativeLayer, submit_log_record},
        queue::Record,
        render::{REDACTED, scrub},
        targets::{RateLimit, TokenBucket},
        *,
    },
    crate::config::{keys::ConfigKey, parse_backend},
    std::{
        fmt,
        sync::atomic::{AtomicUsize, Ordering},
        time::Duration,
    },
    tracing_subscriber::layer::SubscriberExt,
};

const NO_LIMIT: RateLimit = RateLimit {
    burst: 1_000_000,
    per_second: 1_000_000,
};

/// Runs `body` with a subscriber that feeds `log`.
fn with_layer(log: &Arc<NativeLog>, body: impl FnOnce()) {
    let subscriber = tracing_subscriber::registry().with(NativeLayer::new(Arc::clone(log)));
    tracing::subscriber::with_default(subscriber, body);
}

fn drain_all(log: &NativeLog) -> Vec<Record> {
    log.drain(usize::MAX, Duration::ZERO).records
}

/// A value that counts how often it is formatted.
struct Counting<'a>(&'a AtomicUsize);

impl fmt::Display for Counting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fetch_add(1, Ordering::SeqCst);
        f.write_str("counted")
    }
}

const TARGET: &str = "krabka_jni::logging::tests";

#[test]
fn a_full_queue_drops_and_counts_and_the_next_batch_says_so() {
    let log = NativeLog::new(4, NO_LIMIT);
    for i in 0..10 {
        log.submit("t", LogLevel::Warn, |out| {
            out.push_str(&format!("record {i}"))
        });
    }
    assert_eq!(
        log.stats(),
        LogStats {
            queued: 4,
            dropped: 6,
            suppressed: 0
        }
    );
    let records = drain_all(&log);
    assert_eq!(records.len(), 5);
    assert_eq!(records[0].level, LogLevel::Warn);
    assert_eq!(&*records[0].target, OWN_TARGET);
    assert!(
        records[0]
            .message
            .starts_with("6 native log records were dropped")
    );
    let kept: Vec<_> = records[1..].iter().map(|r| r.message.as_str()).collect();
    assert_eq!(kept, ["record 0", "record 1", "record 2", "record 3"]);
    // The report is made once; the queue has room again.
    log.submit("t", LogLevel::Warn, |out| out.push_str("later"));
    let records = drain_all(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].message, "later");
}

#[test]
fn a_drain_returns_at_most_the_batch_asked_for_and_waits_only_when_empty() {
    let log = NativeLog::new(16, NO_LIMIT);
    for i in 0..5 {
        log.submit("t", LogLevel::Info, |out| out.push_str(&i.to_string()));
    }
    assert_eq!(log.drain(2, Duration::ZERO).records.len(), 2);
    assert_eq!(log.drain(10, Duration::ZERO).records.len(), 3);
    let started = Instant::now();
    let batch = log.drain(10, Duration::from_millis(50));
    assert!(batch.records.is_empty());
    assert!(started.elapsed() >= Duration::from_millis(50));
}

#[test]
fn disabled_levels_are_filtered_before_any_formatting() {
    let log = Arc::new(NativeLog::new(64, NO_LIMIT));
    log.set_levels(LogLevel::Warn, &[]);
    rebuild_interest(&log);
    let formatted = AtomicUsize::new(0);
    with_layer(&log, || {
        tracing::debug!(target: TARGET, value = %Counting(&formatted), "debug");
        tracing::info!(target: TARGET, value = %Counting(&formatted), "info");
        tracing::warn!(target: TARGET, value = %Counting(&formatted), "warn");
    });
    assert_eq!(formatted.load(Ordering::SeqCst), 1);
    let records = drain_all(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].level, LogLevel::Warn);
    assert_eq!(&*records[0].target, TARGET);
    assert_eq!(records[0].message, "warn value=counted");
}

#[test]
fn a_level_change_from_java_takes_effect_per_target() {
    let log = Arc::new(NativeLog::new(64, NO_LIMIT));
    log.set_levels(LogLevel::Warn, &[]);
    rebuild_interest(&log);
    let other = "krabka_jni::logging::other";
    let emit = |log: &Arc<NativeLog>| {
        with_layer(log, || {
            tracing::debug!(target: TARGET, "debug here");
            tracing::debug!(target: "krabka_jni::logging::other", "debug there");
        });
    };
    emit(&log);
    assert!(drain_all(&log).is_empty());
    // Java sends the levels in table order: both targets are known now.
    let names = log.targets_from(0);
    let levels: Vec<_> = names
        .iter()
        .map(|name| {
            if &**name == TARGET {
                LogLevel::Debug
            } else {
                LogLevel::Warn
            }
        })
        .collect();
    assert!(names.iter().any(|n| &**n == other));
    assert!(log.set_levels(LogLevel::Warn, &levels));
    rebuild_interest(&log);
    assert!(
        !log.set_levels(LogLevel::Warn, &levels),
        "no change the second time"
    );
    emit(&log);
    let records = drain_all(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].message, "debug here");
    assert_eq!(records[0].level, LogLevel::Debug);
    // And off again.
    log.set_levels(LogLevel::Warn, &vec![LogLevel::Off; names.len()]);
    rebuild_interest(&log);
    emit(&log);
    assert!(drain_all(&log).is_empty());
}

#[test]
fn log_crate_records_are_filtered_and_queued_like_events() {
    let log = NativeLog::new(8, NO_LIMIT);
    log.set_levels(LogLevel::Info, &[]);
    let record = |level: log::Level| {
        let args = format_args!("jni says {}", 42);
        submit_log_record(
            &log,
            &log::Record::builder()
                .args(args)
                .level(level)
                .target("jni::wrapper::env")
                .build(),
        );
    };
    record(log::Level::Debug);
    record(log::Level::Warn);
    let records = drain_all(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(&*records[0].target, "jni::wrapper::env");
    // `jni` is known from the start, so Java can enable its DEBUG before it logs;
    // its modules inherit the level.
    let names = log.targets_from(0);
    let levels: Vec<_> = names
        .iter()
        .map(|name| {
            if &**name == "jni" {
                LogLevel::Debug
            } else {
                LogLevel::Info
            }
        })
        .collect();
    log.set_levels(LogLevel::Info, &levels);
    assert_eq!(log.max_level(), LogLevel::Debug);
    submit_log_record(
        &log,
        &log::Record::builder()
            .args(format_args!("seen"))
            .level(log::Level::Debug)
            .target("jni::objects::new")
            .build(),
    );
    assert_eq!(drain_all(&log)[0].message, "seen");
    assert_eq!(records[0].message, "jni says 42");
    assert_eq!(records[0].level, LogLevel::Warn);
}

#[test]
fn events_carry_their_spans_partition_and_segment() {
    let log = Arc::new(NativeLog::new(8, NO_LIMIT));
    with_layer(&log, || {
        let span = tracing::error_span!(
            "segment",
            op = "copy",
            partition = "orders-3",
            segment = "AAAAAAAAAAAAAAAAAAAAAA"
        );
        let _entered = span.enter();
        let inner = tracing::error_span!("upload", key = tracing::field::Empty);
        inner.record("key", "orders-3/x.log");
        inner
            .in_scope(|| tracing::warn!(target: TARGET, attempt = 2, error = %"reset", "retrying"));
    });
    let records = drain_all(&log);
    assert_eq!(records.len(), 1);
    assert_eq!(
        records[0].message,
        "segment{op=copy partition=orders-3 segment=AAAAAAAAAAAAAAAAAAAAAA}:\
         upload{key=orders-3/x.log}: retrying attempt=2 error=reset"
    );
}

#[test]
fn the_segment_span_names_partition_segment_and_offset() {
    let log = Arc::new(NativeLog::new(8, NO_LIMIT));
    let metadata = crate::test_metadata::metadata();
    with_layer(&log, || {
        segment_span("copy", &metadata).in_scope(|| tracing::warn!(target: TARGET, "slow"));
    });
    let records = drain_all(&log);
    let partition = metadata.topic_id_partition();
    let expected = format!(
        "segment{{op=copy partition={}-{} segment={} start_offset={}}}: slow",
        partition.topic,
        partition.partition,
        kafka_uuid(metadata.remote_log_segment_id().id),
        metadata.start_offset()
    );
    assert_eq!(records[0].message, expected);
}

#[test]
fn errors_passed_as_errors_print_their_cause_chain() {
    let log = Arc::new(NativeLog::new(8, NO_LIMIT));
    let err = krabka_remote_storage::RemoteStorageError::Retryable {
        message: "listing failed".to_owned(),
        source: Some(Box::new(std::io::Error::other("connection refused"))),
    };
    with_layer(&log, || {
        tracing::warn!(target: TARGET, error = &err as &dyn std::error::Error, "cannot check");
    });
    assert_eq!(
        drain_all(&log)[0].message,
        "cannot check error=transient remote storage failure: listing failed: connection refused"
    );
}

#[test]
fn a_flood_is_rate_limited_per_target_and_counted() {
    let log = NativeLog::new(
        1000,
        RateLimit {
            burst: 3,
            per_second: 1,
        },
    );
    let rendered = AtomicUsize::new(0);
    for _ in 0..10 {
        log.submit("flood", LogLevel::Warn, |out| {
            rendered.fetch_add(1, Ordering::SeqCst);
            out.push_str("again");
        });
    }
    log.submit("quiet", LogLevel::Warn, |out| out.push_str("other target"));
    assert_eq!(
        rendered.load(Ordering::SeqCst),
        3,
        "suppressed records are not rendered"
    );
    assert_eq!(log.stats().suppressed, 7);
    let records = drain_all(&log);
    assert_eq!(records.len(), 5);
    assert_eq!(&*records[0].target, "flood");
    assert_eq!(records[0].level, LogLevel::Warn);
    assert!(
        records[0]
            .message
            .starts_with("7 native log records of this logger were suppressed by the rate limit"),
        "{}",
        records[0].message
    );
    assert_eq!(records[4].message, "other target");
}

#[test]
fn the_token_bucket_refills_at_its_rate_up_to_its_burst() {
    let mut bucket = TokenBucket::new(RateLimit {
        burst: 2,
        per_second: 10,
    });
    let t0 = Instant::now();
    assert!(bucket.take(t0));
    assert!(bucket.take(t0));
    assert!(!bucket.take(t0));
    assert!(!bucket.take(t0 + Duration::from_millis(50)));
    assert!(bucket.take(t0 + Duration::from_millis(110)));
    // A long pause refills the burst, not more.
    let later = t0 + Duration::from_secs(60);
    assert!(bucket.take(later));
    assert!(bucket.take(later));
    assert!(!bucket.take(later));
}

#[test]
fn secret_fields_and_secret_types_never_reach_a_record() {
    let log = Arc::new(NativeLog::new(8, NO_LIMIT));
    let config = parse_backend(&[
        (ConfigKey::Backend.name().to_owned(), "s3".to_owned()),
        (ConfigKey::S3Bucket.name().to_owned(), "bucket-b".to_owned()),
        (ConfigKey::S3Region.name().to_owned(), "r".to_owned()),
        (
            ConfigKey::S3AccessKeyId.name().to_owned(),
            "AKIDPUBLIC".to_owned(),
        ),
        (
            ConfigKey::S3SecretAccessKey.name().to_owned(),
            "hunter2-s3".to_owned(),
        ),
    ])
    .unwrap();
    let secret = krabka_object_store::Secret::new("hunter2-type");
    with_layer(&log, || {
        tracing::warn!(
            target: TARGET,
            ?config,
            shown = %secret,
            secret_access_key = "hunter2-field",
            session_token = "hunter2-token",
            "configured"
        );
    });
    let message = &drain_all(&log)[0].message;
    assert!(!message.contains("hunter2"), "{message}");
    assert!(message.contains("bucket-b"), "{message}");
    assert!(
        message.contains(&format!("secret_access_key={REDACTED}")),
        "{message}"
    );
}

#[test]
fn credentials_inside_text_are_scrubbed() {
    let cases = [
        (
            "PUT /b/k Authorization: AWS4-HMAC-SHA256 Credential=AKID/x, SignedHeaders=host, Signature=abc123\nnext",
            "PUT /b/k Authorization: <redacted>\nnext",
        ),
        (
            "GET https://b.s3/k?X-Amz-Credential=AKID%2F1&X-Amz-Signature=deadbeef&x=1",
            "GET https://b.s3/k?X-Amz-Credential=<redacted>&X-Amz-Signature=<redacted>&x=1",
        ),
        (
            "url https://acct.blob/c?sv=2022&sig=s%2Bsecret%3D&se=1 failed",
            "url https://acct.blob/c?sv=2022&sig=<redacted>&se=1 failed",
        ),
        (
            r#"key file {"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", "client_email": "a@b"}"#,
            r#"key file {"type": "service_account", "private_key": "<redacted>", "client_email": "a@b"}"#,
        ),
        (
            "x-amz-security-token: FQoGZXIvYXdz token=1",
            "x-amz-security-token: <redacted> token=1",
        ),
        (
            "pem -----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY----- done",
            "pem <redacted> done",
        ),
        // Words that merely contain a key, and keys without a value, stay.
        (
            "signature check failed: design=ok",
            "signature check failed: design=ok",
        ),
        ("no authorization header", "no authorization header"),
    ];
    for (input, expected) in cases {
        assert_eq!(scrub(input), expected, "{input}");
    }
}

#[test]
fn long_messages_are_cut_at_a_character_boundary() {
    let log = NativeLog::new(8, NO_LIMIT);
    log.submit("t", LogLevel::Warn, |out| {
        out.push_str(&"é".repeat(MAX_MESSAGE_BYTES))
    });
    let message = &drain_all(&log)[0].message;
    assert!(message.ends_with(" … (truncated)"));
    assert!(message.len() <= MAX_MESSAGE_BYTES + " … (truncated)".len());
}

#[test]
fn a_batch_encodes_as_documented() {
    let batch = queue::Batch {
        targets_known: 3,
        records: vec![Record {
            level: LogLevel::Error,
            target: Arc::from("a::b"),
            message: "hé".to_owned(),
        }],
    };
    assert_eq!(
        batch.encode(),
        [
            &[0, 0, 0, 3, 0, 0, 0, 1, 1, 0, 4][..],
            b"a::b",
            &[0, 0, 0, 3],
            "hé".as_bytes()
        ]
        .concat()
    );
}

#[test]
fn level_codes_round_trip_and_unknown_codes_are_refused() {
    for code in 0..=5 {
        assert_eq!(LogLevel::from_code(code).map(LogLevel::code), Some(code));
    }
    assert_eq!(LogLevel::from_code(6), None);
    assert!(LogLevel::Trace > LogLevel::Debug && LogLevel::Error > LogLevel::Off);
}

#[test]
fn a_warning_repeated_at_one_call_site_is_logged_once_a_window_and_counted() {
    let window = Duration::from_millis(300);
    let log = Arc::new(NativeLog::with_repeat_window(1000, NO_LIMIT, window));
    let rendered = AtomicUsize::new(0);
    let warn = |attempt: u32| {
        tracing::warn!(target: TARGET, attempt, value = %Counting(&rendered), "store down");
    };
    with_layer(&log, || {
        for attempt in 0..5 {
            warn(attempt);
        }
        tracing::warn!(target: TARGET, "another kind");
        // One call site, another message: another kind.
        for message in ["given", "given", "also given"] {
            tracing::warn!(target: TARGET, "{message}");
        }
        for _ in 0..3 {
            tracing::info!(target: TARGET, "progress");
        }
    });
    assert_eq!(
        rendered.load(Ordering::SeqCst),
        1,
        "repeats are not rendered"
    );
    let messages: Vec<_> = drain_all(&log).into_iter().map(|r| r.message).collect();
    assert_eq!(
        messages,
        [
            "store down attempt=0 value=counted",
            "another kind",
            "given",
            "also given",
            "progress",
            "progress",
            "progress"
        ]
    );
    std::thread::sleep(window + Duration::from_millis(50));
    let reports = drain_all(&log);
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert_eq!(reports[0].level, LogLevel::Warn);
    assert_eq!(&*reports[0].target, TARGET);
    let mut texts: Vec<_> = reports.iter().map(|r| r.message.as_str()).collect();
    texts.sort_unstable();
    assert_eq!(
        texts,
        [
            "1 more like this in the 300ms after it were not logged (one a kind and 300ms): given",
            "4 more like this in the 300ms after it were not logged (one a kind and 300ms): \
             store down attempt=0 value=counted"
        ]
    );
    // The window ended: the next one is logged again.
    with_layer(&log, || warn(5));
    let again = drain_all(&log);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].message, "store down attempt=5 value=counted");
}

#[test]
fn repeats_no_drain_reported_ride_on_the_next_record_of_their_call_site() {
    let window = Duration::from_millis(200);
    let log = NativeLog::with_repeat_window(1000, NO_LIMIT, window);
    let site = CallSite::new("t", Some("m"), Some("f.rs"), Some(7), None);
    let other = CallSite::new("t", Some("m"), Some("f.rs"), Some(8), None);
    for text in ["first", "second", "third"] {
        log.submit_at(site, "t", LogLevel::Error, |out| out.push_str(text));
    }
    log.submit_at(other, "t", LogLevel::Error, |out| out.push_str("elsewhere"));
    std::thread::sleep(window + Duration::from_millis(50));
    log.submit_at(site, "t", LogLevel::Error, |out| out.push_str("fourth"));
    let messages: Vec<_> = drain_all(&log).into_iter().map(|r| r.message).collect();
    assert_eq!(
        messages,
        [
            "first",
            "elsewhere",
            "fourth (2 more like this in the 200ms before were not logged)"
        ]
    );
}

#[test]
fn a_clients_retry_lines_are_one_kind_a_call_site_whatever_their_numbers() {
    let window = Duration::from_millis(200);
    let log = Arc::new(NativeLog::with_repeat_window(1000, NO_LIMIT, window));
    with_layer(&log, || {
        for retry in 1..=5 {
            tracing::info!(
                target: "object_store::client::retry",
                "Encountered transport error, backing off, retry {retry} of 10"
            );
        }
    });
    let messages: Vec<_> = drain_all(&log).into_iter().map(|r| r.message).collect();
    assert_eq!(
        messages,
        ["Encountered transport error, backing off, retry 1 of 10"]
    );
    std::thread::sleep(window + Duration::from_millis(50));
    let reports = drain_all(&log);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].level, LogLevel::Info);
    assert_eq!(&*reports[0].target, "object_store::client::retry");
    assert!(
        reports[0].message.starts_with("4 more like this"),
        "{}",
        reports[0].message
    );
}

#[test]
fn the_report_of_repeats_is_scrubbed_like_the_record_it_quotes() {
    let window = Duration::from_millis(200);
    let log = NativeLog::with_repeat_window(1000, NO_LIMIT, window);
    let site = CallSite::new("t", Some("m"), Some("f.rs"), Some(9), None);
    for _ in 0..2 {
        log.submit_at(site, "t", LogLevel::Warn, |out| {
            out.push_str("denied: Authorization: AWS4-HMAC-SHA256 Signature=abc123");
        });
    }
    std::thread::sleep(window + Duration::from_millis(50));
    let records = drain_all(&log);
    assert_eq!(records.len(), 2, "{records:?}");
    for record in &records {
        assert!(!record.message.contains("abc123"), "{}", record.message);
    }
    assert!(
        records
            .iter()
            .any(|r| r.message.starts_with("1 more like this")
                && r.message.ends_with("denied: Authorization: <redacted>")),
        "{records:?}"
    );
}
