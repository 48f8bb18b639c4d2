//! Zero-copy slices of fixed-size index entries.

use {
    super::corruption::Corruption,
    zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout},
};

/// Reinterprets `bytes` as a slice of `T` without copying, refusing a length
/// that is not a whole number of entries (Kafka's `sanityCheck` refuses it
/// too).
pub(crate) fn cast_entries<T>(bytes: &[u8]) -> Result<&[T], Corruption>
where
    T: FromBytes + Immutable + KnownLayout,
{
    let entry_size = size_of::<T>();
    let partial = Corruption::PartialEntry {
        len: bytes.len(),
        entry_size,
    };
    if entry_size == 0 || bytes.len() % entry_size != 0 {
        return Err(partial);
    }
    <[T]>::ref_from_bytes(bytes).map_err(|_| partial)
}

/// `entries` without the trailing run of all-zero entries.
///
/// Kafka preallocates an index file of an active segment with zeros and trims
/// it when the segment rolls, so a file copied before the trim ends in zeroed
/// entries. They are padding, never data: an all-zero offset-index entry says
/// "relative offset 0 is at byte 0" and an all-zero time-index entry says
/// "timestamp 0 at relative offset 0", both of which every lookup already
/// falls back to.
pub(crate) fn without_zero_padding<T>(entries: &[T]) -> &[T]
where
    T: IntoBytes + Immutable,
{
    let keep = entries
        .iter()
        .rposition(|entry| entry.as_bytes().iter().any(|&b| b != 0))
        .map_or(0, |last| last + 1);
    entries.split_at(keep).0
}
