//! WAL index value decoders: never panic; a decoded value re-encodes to its input.
#![no_main]

use {
    krabka_diskless::{WalDeleteFloorRecord, WalFlushRecord},
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = WalFlushRecord::decode(data) {
        assert_eq!(record.encode(), data);
    }
    if let Ok(record) = WalDeleteFloorRecord::decode(data) {
        assert_eq!(record.encode(), data);
    }
});
