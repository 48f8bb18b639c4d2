//! `parse_time_index` and the timestamp floor on arbitrary bytes.
#![no_main]

use {
    krabka_kafka::{parse_time_index, relative_offset_floor_for_timestamp},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = parse_time_index(data) else {
        return;
    };
    for entry in entries {
        let floor = relative_offset_floor_for_timestamp(entries, entry.timestamp());
        // Strictly below the entry's own timestamp: never past the entry.
        assert!(floor <= entry.relative_offset());
        let floor =
            relative_offset_floor_for_timestamp(entries, entry.timestamp().saturating_add(1));
        assert!(floor >= entry.relative_offset() || entry.timestamp() == i64::MAX);
    }
    let _ = relative_offset_floor_for_timestamp(entries, i64::MIN);
    let _ = relative_offset_floor_for_timestamp(entries, i64::MAX);
});
