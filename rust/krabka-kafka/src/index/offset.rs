//! The offset index (`.index`): 8-byte entries mapping a relative offset to
//! the byte position of a record batch in the segment's `.log`.

use {
    super::{
        BytePosition, RelativeOffset,
        corruption::{Corruption, OFFSET_INDEX},
        entries::{cast_entries, without_zero_padding},
    },
    crate::Result,
    zerocopy::{BigEndian, FromBytes, Immutable, IntoBytes, KnownLayout, U32, Unaligned},
};

/// One offset-index entry, exactly as Kafka's `OffsetIndex` stores it: the
/// relative offset of a batch's last record, then the byte position of that
/// batch, both big-endian `u32`.
///
/// Kafka adds an entry after every `index.interval.bytes` of appended
/// batches, so the index is sparse: a lookup finds the floor entry and the
/// reader scans batches from its position.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
pub struct OffsetIndexEntry {
    /// Offset minus the segment's base offset.
    pub relative_offset: U32<BigEndian>,
    /// Byte position of the batch in the `.log` file.
    pub position: U32<BigEndian>,
}

impl OffsetIndexEntry {
    /// Size of one entry in bytes.
    pub const SIZE: usize = 8;

    /// An entry, for building indexes in memory.
    #[must_use]
    pub fn new(relative_offset: RelativeOffset, position: BytePosition) -> Self {
        Self {
            relative_offset: U32::new(relative_offset),
            position: U32::new(position),
        }
    }

    /// The relative offset in native byte order.
    #[must_use]
    pub fn relative_offset(&self) -> RelativeOffset {
        self.relative_offset.get()
    }

    /// The byte position in native byte order.
    #[must_use]
    pub fn position(&self) -> BytePosition {
        self.position.get()
    }
}

/// Parses the bytes of an offset index into its entries, without copying.
///
/// # Contract
///
/// - A length that is not a whole number of 8-byte entries is refused, as
///   Kafka's `OffsetIndex.sanityCheck` refuses it.
/// - Trailing all-zero entries are preallocation padding (Kafka zero-fills
///   the index of an active segment and trims it on roll) and are left out
///   of the returned slice.
/// - Every remaining entry must be in the order Kafka's `OffsetIndex.append`
///   enforces: relative offsets strictly increasing, positions
///   non-decreasing, both at most `i32::MAX` (Kafka stores them as `int`).
///   Any violation is refused rather than repaired, so a returned slice is
///   always sorted and binary search over it is exact.
///
/// # Errors
///
/// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt) with
/// format `offset index` when a rule above is broken.
///
/// ```
/// use krabka_kafka::{parse_offset_index, RemoteStorageError};
/// let entries = parse_offset_index(&[0, 0, 0, 5, 0, 0, 1, 0])?;
/// assert_eq!((entries[0].relative_offset(), entries[0].position()), (5, 256));
/// assert!(matches!(
///     parse_offset_index(&[0; 9]),
///     Err(RemoteStorageError::Corrupt { format: "offset index", .. })
/// ));
/// # Ok::<(), RemoteStorageError>(())
/// ```
pub fn parse_offset_index(bytes: &[u8]) -> Result<&[OffsetIndexEntry]> {
    decode(bytes).map_err(|c| c.into_error(OFFSET_INDEX))
}

/// [`parse_offset_index`] with the internal error kind.
pub(crate) fn decode(bytes: &[u8]) -> Result<&[OffsetIndexEntry], Corruption> {
    let entries = without_zero_padding(cast_entries::<OffsetIndexEntry>(bytes)?);
    let mut previous: Option<&OffsetIndexEntry> = None;
    for (index, entry) in entries.iter().enumerate() {
        let (rel, pos) = (entry.relative_offset(), entry.position());
        in_int_range(index, "relative offset", rel)?;
        in_int_range(index, "position", pos)?;
        if let Some(prev) = previous {
            if rel <= prev.relative_offset() {
                return Err(Corruption::OutOfOrder {
                    index,
                    field: "relative offset",
                    value: rel.into(),
                    previous: prev.relative_offset().into(),
                    order: "strictly increasing",
                });
            }
            if pos < prev.position() {
                return Err(Corruption::OutOfOrder {
                    index,
                    field: "position",
                    value: pos.into(),
                    previous: prev.position().into(),
                    order: "non-decreasing",
                });
            }
        }
        previous = Some(entry);
    }
    Ok(entries)
}

/// Refuses a `u32` index value above `i32::MAX`: Kafka stores these as
/// `int`, so it cannot have written one.
pub(crate) fn in_int_range(
    index: usize,
    field: &'static str,
    value: u32,
) -> Result<(), Corruption> {
    const MAX: u32 = i32::MAX.unsigned_abs();
    if value > MAX {
        return Err(Corruption::OutOfRange {
            index,
            field,
            value: value.into(),
            max: MAX.into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use {super::*, crate::RemoteStorageError, proptest::prelude::*};

    fn encode(entries: &[(u32, u32)]) -> Vec<u8> {
        entries
            .iter()
            .flat_map(|&(r, p)| OffsetIndexEntry::new(r, p).as_bytes().to_vec())
            .collect()
    }

    #[test]
    fn parses_big_endian_entries_without_copying() {
        let bytes = encode(&[(1, 0), (7, 4096), (9, 4096)]);
        let entries = decode(&bytes).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[1].relative_offset(), 7);
        assert_eq!(entries[1].position(), 4096);
        assert_eq!(entries.as_ptr().cast::<u8>(), bytes.as_ptr());
        assert_eq!(bytes[..8], [0, 0, 0, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn empty_index_is_empty() {
        assert!(decode(&[]).unwrap().is_empty());
    }

    #[test]
    fn partial_entry_is_refused() {
        for len in [1, 7, 9, 15] {
            assert_eq!(
                decode(&vec![1; len]),
                Err(Corruption::PartialEntry { len, entry_size: 8 })
            );
        }
        assert!(matches!(
            parse_offset_index(&[1; 12]),
            Err(RemoteStorageError::Corrupt {
                format: "offset index",
                ..
            })
        ));
    }

    #[test]
    fn trailing_zero_padding_is_dropped() {
        let mut bytes = encode(&[(3, 100), (8, 200)]);
        bytes.extend_from_slice(&[0; 8 * 5]);
        let entries = decode(&bytes).unwrap();
        assert_eq!(entries.len(), 2);
        assert!(decode(&[0; 64]).unwrap().is_empty());
    }

    #[test]
    fn zero_entry_before_data_is_out_of_order() {
        let mut bytes = encode(&[(3, 100)]);
        bytes.extend_from_slice(&[0; 8]);
        bytes.extend_from_slice(&encode(&[(9, 300)]));
        assert!(matches!(
            decode(&bytes),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "relative offset",
                ..
            })
        ));
    }

    #[test]
    fn repeated_or_decreasing_offsets_are_refused() {
        assert!(matches!(
            decode(&encode(&[(3, 100), (3, 200)])),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "relative offset",
                ..
            })
        ));
        assert!(matches!(
            decode(&encode(&[(3, 100), (2, 200)])),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "relative offset",
                ..
            })
        ));
    }

    #[test]
    fn decreasing_positions_are_refused() {
        assert!(matches!(
            decode(&encode(&[(3, 100), (4, 99)])),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "position",
                ..
            })
        ));
        // Equal positions are tolerated.
        assert_eq!(decode(&encode(&[(3, 100), (4, 100)])).unwrap().len(), 2);
    }

    #[test]
    fn values_above_i32_max_are_refused() {
        let over = 1 << 31;
        assert!(matches!(
            decode(&encode(&[(over, 0)])),
            Err(Corruption::OutOfRange {
                field: "relative offset",
                ..
            })
        ));
        assert!(matches!(
            decode(&encode(&[(1, over)])),
            Err(Corruption::OutOfRange {
                field: "position",
                ..
            })
        ));
        let max = i32::MAX.unsigned_abs();
        assert_eq!(decode(&encode(&[(max, max)])).unwrap().len(), 1);
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse_offset_index(&bytes);
        }

        #[test]
        fn round_trips_sorted_entries(
            rels in proptest::collection::btree_set(1u32..=i32::MAX.unsigned_abs(), 0..64),
            mut positions in proptest::collection::vec(0u32..=i32::MAX.unsigned_abs(), 64),
        ) {
            positions.sort_unstable();
            let pairs: Vec<(u32, u32)> = rels.into_iter().zip(positions).collect();
            let bytes = encode(&pairs);
            let decoded: Vec<(u32, u32)> = parse_offset_index(&bytes)
                .unwrap()
                .iter()
                .map(|e| (e.relative_offset(), e.position()))
                .collect();
            prop_assert_eq!(decoded, pairs);
        }
    }
}
