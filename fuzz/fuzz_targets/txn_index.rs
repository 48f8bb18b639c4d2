//! `parse_txn_index` and `txn_overlaps` on arbitrary bytes.
#![no_main]

use {
    krabka_kafka::{parse_txn_index, txn_overlaps},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = parse_txn_index(data) else {
        return;
    };
    for entry in entries {
        assert!(entry.first_offset() <= entry.last_offset());
        assert!(txn_overlaps(
            entry,
            entry.first_offset(),
            entry.first_offset()
        ));
        assert!(txn_overlaps(
            entry,
            entry.last_offset(),
            entry.last_offset()
        ));
        assert!(
            !txn_overlaps(entry, i64::MIN, entry.first_offset().saturating_sub(1))
                || entry.first_offset() == i64::MIN
        );
    }
});
