//! Whether a log is worth compressing: record batches that producers
//! already compressed gain nothing from a second pass.

use krabka_kafka::index::{Compression, record_batches};

/// Whether most bytes of the whole batches at the start of `head` (the
/// first bytes of a log) are in batches a producer compressed. A head with
/// no whole batch (one huge batch, or bytes that are not batches) counts
/// as not compressed, so the chunk is compressed and kept only if smaller.
#[must_use]
pub fn producer_compressed(head: &[u8]) -> bool {
    let (mut compressed, mut total) = (0usize, 0usize);
    for batch in record_batches(head).map_while(Result::ok) {
        total += batch.size_in_bytes();
        if batch.compression() != Compression::None {
            compressed += batch.size_in_bytes();
        }
    }
    total > 0 && compressed * 2 > total
}
