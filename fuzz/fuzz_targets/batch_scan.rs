//! Record-batch scanning, record decoding (every codec) and the two `.log`
//! searches on arbitrary bytes. The first 16 bytes choose the searched
//! offset and timestamp; the rest is the log.
#![no_main]

use {
    krabka_kafka::{
        first_batch_at_or_after, first_record_at_or_after_timestamp, index::record_batches,
    },
    libfuzzer_sys::fuzz_target,
};

/// Decompression cap for the fuzzer: small, so bombs stay cheap.
const LIMIT: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let (offset, ts, log) = match data.split_first_chunk::<16>() {
        Some((head, log)) => {
            let (o, t) = head.split_at(8);
            (
                i64::from_be_bytes(o.try_into().unwrap_or_default()),
                i64::from_be_bytes(t.try_into().unwrap_or_default()),
                log,
            )
        }
        None => (0, 0, data),
    };
    for batch in record_batches(log) {
        let Ok(batch) = batch else { break };
        assert!(batch.last_offset() >= batch.base_offset());
        let Ok(records) = batch.records_with_limit(LIMIT) else {
            continue;
        };
        for record in &records {
            let Ok(record) = record else { break };
            assert_eq!(record.headers().iter().count(), record.headers().len());
            if batch.is_control() {
                let _ = record.end_transaction_marker();
            }
        }
    }
    if let Ok(Some(batch)) = first_batch_at_or_after(log, offset) {
        assert!(batch.last_offset() >= offset);
    }
    if let Ok(Some((found_offset, found_ts))) = first_record_at_or_after_timestamp(log, offset, ts)
    {
        assert!(found_offset >= offset && found_ts >= ts);
    }
});
