//! The time index (`.timeindex`): 12-byte entries mapping a timestamp to the
//! relative offset at which the segment's largest timestamp so far reached
//! it.

use {
    super::{
        RelativeOffset, TimestampMs,
        corruption::{Corruption, TIME_INDEX},
        entries::{cast_entries, without_zero_padding},
        offset::in_int_range,
    },
    crate::Result,
    zerocopy::{BigEndian, FromBytes, I64, Immutable, IntoBytes, KnownLayout, U32, Unaligned},
};

/// One time-index entry, exactly as Kafka's `TimeIndex` stores it: a
/// timestamp (big-endian `i64`, milliseconds) and a relative offset
/// (big-endian `u32`).
///
/// An entry `(t, r)` says that the largest record timestamp among offsets up
/// to and including `base + r` is `t`; `r` is the last offset of the batch
/// that holds that timestamp.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
pub struct TimeIndexEntry {
    /// The largest timestamp so far, in milliseconds since the epoch.
    pub timestamp: I64<BigEndian>,
    /// Offset minus the segment's base offset.
    pub relative_offset: U32<BigEndian>,
}

impl TimeIndexEntry {
    /// Size of one entry in bytes.
    pub const SIZE: usize = 12;

    /// An entry, for building indexes in memory.
    #[must_use]
    pub fn new(timestamp: TimestampMs, relative_offset: RelativeOffset) -> Self {
        Self {
            timestamp: I64::new(timestamp),
            relative_offset: U32::new(relative_offset),
        }
    }

    /// The timestamp in native byte order.
    #[must_use]
    pub fn timestamp(&self) -> TimestampMs {
        self.timestamp.get()
    }

    /// The relative offset in native byte order.
    #[must_use]
    pub fn relative_offset(&self) -> RelativeOffset {
        self.relative_offset.get()
    }
}

/// Parses the bytes of a time index into its entries, without copying.
///
/// # Contract
///
/// - A length that is not a whole number of 12-byte entries is refused, as
///   Kafka's `TimeIndex.sanityCheck` refuses it.
/// - Trailing all-zero entries are preallocation padding and are left out
///   of the returned slice.
/// - Every remaining entry must be in the order Kafka's
///   `TimeIndex.maybeAppend` produces: timestamps strictly increasing (it
///   only appends a larger timestamp), relative offsets non-decreasing and
///   at most `i32::MAX`. A violation is refused, not repaired.
///
/// # Errors
///
/// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt) with
/// format `time index` when a rule above is broken.
///
/// ```
/// use krabka_kafka::parse_time_index;
/// let mut bytes = 1_700_000_000_000_i64.to_be_bytes().to_vec();
/// bytes.extend_from_slice(&42_u32.to_be_bytes());
/// let entries = parse_time_index(&bytes)?;
/// assert_eq!((entries[0].timestamp(), entries[0].relative_offset()), (1_700_000_000_000, 42));
/// # Ok::<(), krabka_kafka::RemoteStorageError>(())
/// ```
pub fn parse_time_index(bytes: &[u8]) -> Result<&[TimeIndexEntry]> {
    decode(bytes).map_err(|c| c.into_error(TIME_INDEX))
}

/// [`parse_time_index`] with the internal error kind.
pub(crate) fn decode(bytes: &[u8]) -> Result<&[TimeIndexEntry], Corruption> {
    let entries = without_zero_padding(cast_entries::<TimeIndexEntry>(bytes)?);
    let mut previous: Option<&TimeIndexEntry> = None;
    for (index, entry) in entries.iter().enumerate() {
        let (ts, rel) = (entry.timestamp(), entry.relative_offset());
        in_int_range(index, "relative offset", rel)?;
        if let Some(prev) = previous {
            if ts <= prev.timestamp() {
                return Err(Corruption::OutOfOrder {
                    index,
                    field: "timestamp",
                    value: ts,
                    previous: prev.timestamp(),
                    order: "strictly increasing",
                });
            }
            if rel < prev.relative_offset() {
                return Err(Corruption::OutOfOrder {
                    index,
                    field: "relative offset",
                    value: rel.into(),
                    previous: prev.relative_offset().into(),
                    order: "non-decreasing",
                });
            }
        }
        previous = Some(entry);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use {super::*, crate::RemoteStorageError, proptest::prelude::*};

    fn encode(entries: &[(i64, u32)]) -> Vec<u8> {
        entries
            .iter()
            .flat_map(|&(t, r)| TimeIndexEntry::new(t, r).as_bytes().to_vec())
            .collect()
    }

    #[test]
    fn parses_big_endian_entries_without_copying() {
        let bytes = encode(&[(1000, 0), (2000, 10), (3000, 10)]);
        let entries = decode(&bytes).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(
            (entries[1].timestamp(), entries[1].relative_offset()),
            (2000, 10)
        );
        assert_eq!(entries.as_ptr().cast::<u8>(), bytes.as_ptr());
        assert_eq!(bytes[..12], [0, 0, 0, 0, 0, 0, 3, 232, 0, 0, 0, 0]);
    }

    #[test]
    fn partial_entry_is_refused() {
        for len in [1, 8, 11, 13, 23] {
            assert_eq!(
                decode(&vec![1; len]),
                Err(Corruption::PartialEntry {
                    len,
                    entry_size: 12
                })
            );
        }
        assert!(matches!(
            parse_time_index(&[1; 13]),
            Err(RemoteStorageError::Corrupt {
                format: "time index",
                ..
            })
        ));
    }

    #[test]
    fn trailing_zero_padding_is_dropped() {
        let mut bytes = encode(&[(1000, 0), (2000, 10)]);
        bytes.extend_from_slice(&[0; 24]);
        assert_eq!(decode(&bytes).unwrap().len(), 2);
        assert!(decode(&[0; 36]).unwrap().is_empty());
    }

    #[test]
    fn timestamps_must_strictly_increase() {
        assert!(matches!(
            decode(&encode(&[(2000, 1), (2000, 2)])),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "timestamp",
                ..
            })
        ));
        assert!(matches!(
            decode(&encode(&[(2000, 1), (1999, 2)])),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "timestamp",
                ..
            })
        ));
    }

    #[test]
    fn relative_offsets_must_not_decrease() {
        assert!(matches!(
            decode(&encode(&[(1000, 5), (2000, 4)])),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "relative offset",
                ..
            })
        ));
    }

    #[test]
    fn relative_offset_above_i32_max_is_refused() {
        assert!(matches!(
            decode(&encode(&[(1, 1 << 31)])),
            Err(Corruption::OutOfRange {
                index: 0,
                field: "relative offset",
                ..
            })
        ));
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse_time_index(&bytes);
        }

        #[test]
        fn round_trips_sorted_entries(
            timestamps in proptest::collection::btree_set(1i64.., 0..64),
            mut rels in proptest::collection::vec(0u32..=i32::MAX.unsigned_abs(), 64),
        ) {
            rels.sort_unstable();
            let pairs: Vec<(i64, u32)> = timestamps.into_iter().zip(rels).collect();
            let bytes = encode(&pairs);
            let decoded: Vec<(i64, u32)> = parse_time_index(&bytes)
                .unwrap()
                .iter()
                .map(|e| (e.timestamp(), e.relative_offset()))
                .collect();
            prop_assert_eq!(decoded, pairs);
        }
    }
}
