//! CKWL WAL object parser: never panics; every accepted run lies in the object.
#![no_main]

use {krabka_diskless::parse_wal_object, libfuzzer_sys::fuzz_target};

fuzz_target!(|data: &[u8]| {
    if let Ok(object) = parse_wal_object(data) {
        let mut runs = 0;
        for (entry, run) in object.runs() {
            assert_eq!(run.len(), entry.byte_len as usize);
            runs += 1;
        }
        assert_eq!(runs, object.len());
    }
});
