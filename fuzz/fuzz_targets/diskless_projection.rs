//! Projection reducer: arbitrary committed records never panic it, and any capture it
//! produces is valid.
#![no_main]

use {
    krabka_diskless::{CaptureTopic, WalCaptureProjection},
    libfuzzer_sys::fuzz_target,
    std::collections::BTreeMap,
    uuid::Uuid,
};

fuzz_target!(|records: Vec<(Option<Vec<u8>>, Option<Vec<u8>>)>| {
    let mut projection = WalCaptureProjection::new();
    let mut topics = BTreeMap::new();
    for (key, value) in &records {
        if projection.apply(key.as_deref(), value.as_deref()).is_ok() {
            if let Some(id) = key.as_deref().and_then(|k| k.get(2..18)) {
                if let Ok(bytes) = <[u8; 16]>::try_from(id) {
                    topics.insert(
                        Uuid::from_bytes(bytes),
                        CaptureTopic { name: "t".to_owned(), partitions: 4 },
                    );
                }
            }
        }
    }
    if let Ok(capture) = projection.capture(&topics, vec![0], 0) {
        assert!(capture.validate().is_ok());
    }
});
