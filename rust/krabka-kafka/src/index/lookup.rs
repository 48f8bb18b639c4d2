//! Lookups over decoded index entries: where to start reading a segment and
//! where a capped read ends.
//!
//! They take plain slices, so they also accept entries that were not made by
//! a parser. On any slice they return a value and never panic; on slices the
//! parsers return (sorted, padding removed) the results are exact.

use super::{BytePosition, OffsetIndexEntry, RelativeOffset, TimeIndexEntry, TimestampMs};

/// The byte position to start scanning from for `target` (a relative
/// offset): the position of the floor entry, the last entry whose relative
/// offset is `<= target`.
///
/// Before the first entry, or on an empty index, the answer is 0, the start
/// of the segment. This is Kafka's `OffsetIndex.lookup`. Because Kafka
/// indexes a batch by its last offset, the batch holding `target` starts at
/// or after the returned position; [`first_batch_at_or_after`] finds it.
///
/// On an unsorted slice the binary search still returns the position of
/// some entry, or 0.
///
/// [`first_batch_at_or_after`]: super::first_batch_at_or_after
///
/// ```
/// use krabka_kafka::{position_for_relative_offset, OffsetIndexEntry};
/// let entries = [OffsetIndexEntry::new(10, 4096), OffsetIndexEntry::new(20, 8192)];
/// assert_eq!(position_for_relative_offset(&entries, 5), 0);
/// assert_eq!(position_for_relative_offset(&entries, 10), 4096);
/// assert_eq!(position_for_relative_offset(&entries, 15), 4096);
/// assert_eq!(position_for_relative_offset(&entries, 25), 8192);
/// assert_eq!(position_for_relative_offset(&[], 25), 0);
/// ```
#[must_use]
pub fn position_for_relative_offset(
    entries: &[OffsetIndexEntry],
    target: RelativeOffset,
) -> BytePosition {
    let after_floor = entries.partition_point(|e| e.relative_offset() <= target);
    after_floor
        .checked_sub(1)
        .and_then(|floor| entries.get(floor))
        .map_or(0, OffsetIndexEntry::position)
}

/// The inclusive end position of a read that starts at `start` and may
/// return at most `max_bytes` bytes of a segment of `segment_size` bytes.
///
/// - `max_bytes == 0` means no cap: `None`, read to the end.
/// - Otherwise the exclusive end is `start + min(max_bytes, u32::MAX)`
///   (saturating); if that reaches `segment_size` the answer is `None`
///   (read to the end), else `Some(exclusive_end - 1)`.
///
/// ```
/// use krabka_kafka::end_position_for;
/// assert_eq!(end_position_for(0, 1024, 256), Some(255));
/// assert_eq!(end_position_for(512, 1024, 999_999), None);
/// assert_eq!(end_position_for(0, 1024, 0), None);
/// assert_eq!(end_position_for(u32::MAX, 1024, 100), None);
/// ```
#[must_use]
pub fn end_position_for(
    start: BytePosition,
    segment_size: u32,
    max_bytes: usize,
) -> Option<BytePosition> {
    if max_bytes == 0 {
        return None;
    }
    let cap = u32::try_from(max_bytes).unwrap_or(u32::MAX);
    let exclusive_end = start.saturating_add(cap);
    if exclusive_end >= segment_size {
        return None;
    }
    exclusive_end.checked_sub(1)
}

/// A relative offset from which a scan for the first record with timestamp
/// `>= target` can safely start.
///
/// Walks the entries while their relative offsets do not decrease (a
/// decreasing one marks preallocation padding or damage and ends the walk)
/// and returns the relative offset of the last entry whose timestamp is
/// strictly below `target`, or 0 if there is none.
///
/// The walk tolerates a repeated relative offset because Kafka's
/// `TimeIndex` does (it refuses only a decrease), and
/// [`parse_time_index`](super::parse_time_index) accepts what Kafka accepts.
/// On every input without a repeated relative offset this is the same as
/// stopping at the first entry that does not strictly increase.
///
/// Why strictly below: an entry `(t, r)` promises that no record up to
/// offset `base + r` has a timestamp above `t`. With `t < target` every
/// record up to `r` is too early, so the answer is after `r`. Kafka's
/// `TimeIndex.lookup` uses `t <= target`, which can skip an earlier record
/// whose timestamp equals `target`; this never does.
///
/// ```
/// use krabka_kafka::{relative_offset_floor_for_timestamp, TimeIndexEntry};
/// let entries = [
///     TimeIndexEntry::new(1000, 0),
///     TimeIndexEntry::new(2000, 10),
///     TimeIndexEntry::new(2000, 20),
///     TimeIndexEntry::new(3000, 30),
/// ];
/// assert_eq!(relative_offset_floor_for_timestamp(&entries, 500), 0);
/// assert_eq!(relative_offset_floor_for_timestamp(&entries, 1000), 0);
/// assert_eq!(relative_offset_floor_for_timestamp(&entries, 2000), 0);
/// assert_eq!(relative_offset_floor_for_timestamp(&entries, 2500), 20);
/// assert_eq!(relative_offset_floor_for_timestamp(&entries, 4000), 30);
/// ```
#[must_use]
pub fn relative_offset_floor_for_timestamp(
    entries: &[TimeIndexEntry],
    target: TimestampMs,
) -> RelativeOffset {
    let mut floor = 0;
    let mut previous: Option<RelativeOffset> = None;
    for entry in entries {
        let rel = entry.relative_offset();
        if previous.is_some_and(|prev| rel < prev) {
            break;
        }
        previous = Some(rel);
        if entry.timestamp() < target {
            floor = rel;
        }
    }
    floor
}

#[cfg(test)]
mod tests {
    use {super::*, proptest::prelude::*};

    fn offsets(pairs: &[(u32, u32)]) -> Vec<OffsetIndexEntry> {
        pairs
            .iter()
            .map(|&(r, p)| OffsetIndexEntry::new(r, p))
            .collect()
    }

    fn times(pairs: &[(i64, u32)]) -> Vec<TimeIndexEntry> {
        pairs
            .iter()
            .map(|&(t, r)| TimeIndexEntry::new(t, r))
            .collect()
    }

    #[test]
    fn position_floor_lookup() {
        let entries = offsets(&[(10, 100), (20, 200), (30, 300)]);
        for (target, expected) in [
            (0, 0),
            (9, 0),
            (10, 100),
            (19, 100),
            (20, 200),
            (29, 200),
            (30, 300),
            (u32::MAX, 300),
        ] {
            assert_eq!(
                position_for_relative_offset(&entries, target),
                expected,
                "{target}"
            );
        }
        assert_eq!(position_for_relative_offset(&[], 7), 0);
    }

    #[test]
    fn end_position_vectors() {
        assert_eq!(end_position_for(0, 1024, 256), Some(255));
        assert_eq!(end_position_for(512, 1024, 999_999), None);
        assert_eq!(end_position_for(0, 1024, 0), None);
        assert_eq!(end_position_for(u32::MAX, 1024, 100), None);
        assert_eq!(end_position_for(0, 1024, 1024), None);
        assert_eq!(end_position_for(0, 1024, 1023), Some(1022));
        assert_eq!(end_position_for(0, 1024, 1), Some(0));
        assert_eq!(end_position_for(0, u32::MAX, usize::MAX), None);
        assert_eq!(end_position_for(0, 0, 1), None);
    }

    #[test]
    fn timestamp_floor_vectors() {
        let entries = times(&[(1000, 0), (2000, 10), (2000, 20), (3000, 30)]);
        for (target, expected) in [
            (500, 0),
            (1000, 0),
            (1500, 0),
            (2000, 0),
            (2500, 20),
            (4000, 30),
        ] {
            assert_eq!(
                relative_offset_floor_for_timestamp(&entries, target),
                expected,
                "{target}"
            );
        }
        let padded = times(&[(1000, 0), (2000, 10), (0, 0), (0, 0)]);
        assert_eq!(relative_offset_floor_for_timestamp(&padded, 3000), 10);
        assert_eq!(relative_offset_floor_for_timestamp(&[], 3000), 0);
        assert_eq!(relative_offset_floor_for_timestamp(&entries, i64::MIN), 0);
        assert_eq!(relative_offset_floor_for_timestamp(&entries, i64::MAX), 30);
    }

    #[test]
    fn timestamp_floor_walks_past_a_repeated_offset() {
        let entries = times(&[(1000, 5), (2000, 5), (3000, 9)]);
        assert_eq!(relative_offset_floor_for_timestamp(&entries, 9999), 9);
        assert_eq!(relative_offset_floor_for_timestamp(&entries, 2500), 5);
    }

    #[test]
    fn timestamp_floor_stops_at_a_decreasing_offset() {
        let entries = times(&[(1000, 5), (2000, 8), (3000, 7), (4000, 9)]);
        assert_eq!(relative_offset_floor_for_timestamp(&entries, 9999), 8);
        // Zero padding after entries at relative offset 0 changes nothing.
        let zeros = times(&[(1000, 0), (0, 0), (0, 0)]);
        assert_eq!(relative_offset_floor_for_timestamp(&zeros, 5000), 0);
    }

    proptest! {
        #[test]
        fn lookups_never_panic(
            pairs in proptest::collection::vec((any::<u32>(), any::<u32>()), 0..64),
            tpairs in proptest::collection::vec((any::<i64>(), any::<u32>()), 0..64),
            target in any::<u32>(),
            ts in any::<i64>(),
            start in any::<u32>(),
            size in any::<u32>(),
            max in any::<usize>(),
        ) {
            let entries = offsets(&pairs);
            let pos = position_for_relative_offset(&entries, target);
            prop_assert!(pos == 0 || entries.iter().any(|e| e.position() == pos));
            let rel = relative_offset_floor_for_timestamp(&times(&tpairs), ts);
            prop_assert!(rel == 0 || tpairs.iter().any(|&(_, r)| r == rel));
            if let Some(end) = end_position_for(start, size, max) {
                prop_assert!(end >= start && end < size);
                prop_assert!(u64::from(end - start) < max as u64);
            }
        }

        #[test]
        fn timestamp_floor_is_exact_on_kafka_ordered_entries(
            timestamps in proptest::collection::btree_set(any::<i64>(), 0..64),
            mut rels in proptest::collection::vec(any::<u32>(), 64),
            target in any::<i64>(),
        ) {
            rels.sort_unstable();
            let entries: Vec<TimeIndexEntry> =
                timestamps.into_iter().zip(rels).map(|(t, r)| TimeIndexEntry::new(t, r)).collect();
            let linear = entries
                .iter()
                .rfind(|e| e.timestamp() < target)
                .map_or(0, TimeIndexEntry::relative_offset);
            prop_assert_eq!(relative_offset_floor_for_timestamp(&entries, target), linear);
        }

        #[test]
        fn position_lookup_matches_linear_floor(
            rels in proptest::collection::btree_set(any::<u32>(), 0..64),
            target in any::<u32>(),
        ) {
            let entries: Vec<OffsetIndexEntry> =
                rels.iter().map(|&r| OffsetIndexEntry::new(r, r / 2)).collect();
            let linear = entries
                .iter()
                .rfind(|e| e.relative_offset() <= target)
                .map_or(0, OffsetIndexEntry::position);
            prop_assert_eq!(position_for_relative_offset(&entries, target), linear);
        }
    }
}
