//! `parse_offset_index` and the offset lookups on arbitrary bytes.
#![no_main]

use {
    krabka_kafka::{end_position_for, parse_offset_index, position_for_relative_offset},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = parse_offset_index(data) else {
        return;
    };
    // A parsed index is sorted: the lookup is the linear floor.
    for entry in entries {
        let target = entry.relative_offset();
        assert_eq!(
            position_for_relative_offset(entries, target),
            entry.position()
        );
        let end = end_position_for(entry.position(), u32::MAX, 4096);
        assert!(end.is_none_or(|end| end >= entry.position()));
    }
    assert_eq!(
        position_for_relative_offset(entries, 0),
        entries
            .first()
            .filter(|e| e.relative_offset() == 0)
            .map_or(0, |e| e.position())
    );
});
