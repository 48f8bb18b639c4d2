//! Envelope reader of the chunked segment format: never panics; an accepted
//! envelope is its own encoding, and every range of its objects plans
//! without panicking, inside the stored object.
#![no_main]

use {krabka_envelope::SegmentEnvelope, libfuzzer_sys::fuzz_target, uuid::Uuid};

fuzz_target!(|data: &[u8]| {
    let segment = Uuid::from_slice(data.get(8..24).unwrap_or(&[0; 16])).unwrap_or_default();
    let Ok(envelope) = SegmentEnvelope::decode(data, segment) else {
        return;
    };
    assert_eq!(envelope.encode(), data);
    for object in &envelope.objects {
        let size = object.original_size;
        for (start, end) in [(0, u64::MAX), (size / 2, size), (size, size), (size / 3, size / 3 + 1)] {
            let span = object.span(segment, envelope.chunk_size, start, end).unwrap();
            assert!(span.stored.end <= object.stored_size());
            assert!(span.chunks.end <= object.chunk_count());
        }
        assert!(object.span(segment, envelope.chunk_size, size.saturating_add(1), u64::MAX).is_err() || size == u64::MAX);
    }
});
