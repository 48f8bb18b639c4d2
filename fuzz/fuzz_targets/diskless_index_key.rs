//! WAL index key decoders: never panic; a decoded key re-encodes to its input.
#![no_main]

use {
    krabka_diskless::{
        WalDeleteFloorKey, WalIndexKey, WalIndexRecordKey, wal_index_key_version,
    },
    libfuzzer_sys::fuzz_target,
};

fuzz_target!(|data: &[u8]| {
    let _ = wal_index_key_version(data);
    match WalIndexRecordKey::decode(data) {
        Ok(WalIndexRecordKey::Range(key)) => assert_eq!(key.encode().as_slice(), data),
        Ok(WalIndexRecordKey::DeleteFloor(key)) => assert_eq!(key.encode().as_slice(), data),
        Ok(_) | Err(_) => {}
    }
    if let Ok(key) = WalIndexKey::decode(data) {
        assert!(WalDeleteFloorKey::decode(&key.encode()).is_err());
    }
    if let Ok(key) = WalDeleteFloorKey::decode(data) {
        assert!(WalIndexKey::decode(&key.encode()).is_err());
    }
});
