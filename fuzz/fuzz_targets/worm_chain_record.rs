//! WORM chain records in custom metadata: never panic; a decoded record re-encodes to its
//! input and never exceeds Kafka's 128-byte default.
#![no_main]

use {krabka_worm::WormChainRecord, libfuzzer_sys::fuzz_target};

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(record)) = WormChainRecord::from_custom_metadata(data) {
        let bytes = record.to_custom_metadata();
        assert_eq!(bytes.as_bytes(), data);
        assert!(bytes.as_bytes().len() <= WormChainRecord::MAX_BYTES);
        let _ = record.next_stamp();
    }
});
