//! The durable metadata manager's record and snapshot decoders on arbitrary
//! bytes: never a panic, and whatever decodes encodes back to the same
//! bytes (the encoding is canonical).
#![no_main]

use {
    krabka_kafka::{decode_record, decode_snapshot, encode_record, encode_snapshot},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = decode_record(data) {
        assert_eq!(encode_record(&record).ok().as_deref(), Some(data));
    }
    if let Ok(snapshot) = decode_snapshot(data) {
        assert_eq!(encode_snapshot(&snapshot).ok().as_deref(), Some(data));
    }
});
