//! The transaction index (`.txnindex`): one 34-byte entry per transaction
//! aborted in the segment.

use {
    super::{
        LogOffset,
        corruption::{Corruption, TXN_INDEX},
        entries::cast_entries,
    },
    crate::Result,
    zerocopy::{BigEndian, FromBytes, I16, I64, Immutable, IntoBytes, KnownLayout, Unaligned},
};

/// One aborted transaction, exactly as Kafka's `AbortedTxn` stores it
/// (`org.apache.kafka.storage.internals.log.AbortedTxn`, Kafka 4.x): a
/// big-endian `i16` version (always 0), then big-endian `i64` producer id,
/// first offset, last offset and last stable offset — 34 bytes.
///
/// `last_offset` is the offset of the abort marker; `last_stable_offset` is
/// the partition's last stable offset when the abort completed.
#[repr(C)]
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
pub struct AbortedTxnIndexEntry {
    /// Entry format version; Kafka writes `AbortedTxn.CURRENT_VERSION`, 0.
    pub version: I16<BigEndian>,
    /// The producer whose transaction was aborted.
    pub producer_id: I64<BigEndian>,
    /// First offset of the transaction (inclusive).
    pub first_offset: I64<BigEndian>,
    /// Last offset of the transaction: its abort marker (inclusive).
    pub last_offset: I64<BigEndian>,
    /// The last stable offset when the transaction was aborted.
    pub last_stable_offset: I64<BigEndian>,
}

impl AbortedTxnIndexEntry {
    /// Size of one entry in bytes.
    pub const SIZE: usize = 34;
    /// The only entry version Kafka has defined.
    pub const CURRENT_VERSION: i16 = 0;

    /// A version-0 entry, for building indexes in memory.
    #[must_use]
    pub fn new(
        producer_id: i64,
        first_offset: LogOffset,
        last_offset: LogOffset,
        last_stable_offset: LogOffset,
    ) -> Self {
        Self {
            version: I16::new(Self::CURRENT_VERSION),
            producer_id: I64::new(producer_id),
            first_offset: I64::new(first_offset),
            last_offset: I64::new(last_offset),
            last_stable_offset: I64::new(last_stable_offset),
        }
    }

    /// The producer id in native byte order.
    #[must_use]
    pub fn producer_id(&self) -> i64 {
        self.producer_id.get()
    }

    /// The first offset in native byte order.
    #[must_use]
    pub fn first_offset(&self) -> LogOffset {
        self.first_offset.get()
    }

    /// The last offset in native byte order.
    #[must_use]
    pub fn last_offset(&self) -> LogOffset {
        self.last_offset.get()
    }

    /// The last stable offset in native byte order.
    #[must_use]
    pub fn last_stable_offset(&self) -> LogOffset {
        self.last_stable_offset.get()
    }
}

/// Parses the bytes of a transaction index into its entries, without
/// copying.
///
/// # Contract
///
/// - A length that is not a whole number of 34-byte entries is refused.
///   (Kafka's reader stops silently before a partial tail; a closed
///   segment's index never has one, so here it means damage.)
/// - Every entry must have version 0. Kafka refuses versions above its
///   `CURRENT_VERSION` too (it reads only the high byte of the `i16`; this
///   decoder reads both).
/// - `first_offset <= last_offset` in every entry, and last offsets strictly
///   increase from entry to entry, as `TransactionIndex.append` enforces.
///
/// # Errors
///
/// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt) with
/// format `transaction index` when a rule above is broken.
///
/// ```
/// use krabka_kafka::{parse_txn_index, AbortedTxnIndexEntry};
/// use zerocopy::IntoBytes;
/// let entry = AbortedTxnIndexEntry::new(4001, 100, 120, 100);
/// let entries = parse_txn_index(entry.as_bytes())?;
/// assert_eq!((entries[0].producer_id(), entries[0].last_offset()), (4001, 120));
/// # Ok::<(), krabka_kafka::RemoteStorageError>(())
/// ```
pub fn parse_txn_index(bytes: &[u8]) -> Result<&[AbortedTxnIndexEntry]> {
    decode(bytes).map_err(|c| c.into_error(TXN_INDEX))
}

/// [`parse_txn_index`] with the internal error kind.
pub(crate) fn decode(bytes: &[u8]) -> Result<&[AbortedTxnIndexEntry], Corruption> {
    let entries = cast_entries::<AbortedTxnIndexEntry>(bytes)?;
    let mut previous_last: Option<LogOffset> = None;
    for (index, entry) in entries.iter().enumerate() {
        let version = entry.version.get();
        if version != AbortedTxnIndexEntry::CURRENT_VERSION {
            return Err(Corruption::UnknownTxnVersion { index, version });
        }
        let (first, last) = (entry.first_offset(), entry.last_offset());
        if first > last {
            return Err(Corruption::FirstAfterLast { index, first, last });
        }
        if let Some(prev) = previous_last
            && last <= prev
        {
            return Err(Corruption::OutOfOrder {
                index,
                field: "last offset",
                value: last,
                previous: prev,
                order: "strictly increasing",
            });
        }
        previous_last = Some(last);
    }
    Ok(entries)
}

/// Whether the aborted transaction overlaps the offset range `from..=to`
/// (both bounds inclusive): `first_offset <= to && last_offset >= from`.
///
/// Kafka's `TransactionIndex.collectAbortedTxns(fetchOffset, upperBound)`
/// takes an exclusive upper bound; it selects the same entries as
/// `txn_overlaps(entry, fetchOffset, upperBound - 1)`.
///
/// ```
/// use krabka_kafka::{txn_overlaps, AbortedTxnIndexEntry};
/// let txn = AbortedTxnIndexEntry::new(1, 10, 20, 10);
/// assert!(txn_overlaps(&txn, 20, 30)); // touches the last offset
/// assert!(txn_overlaps(&txn, 0, 10)); // touches the first offset
/// assert!(!txn_overlaps(&txn, 21, 30));
/// assert!(!txn_overlaps(&txn, 0, 9));
/// ```
#[must_use]
pub fn txn_overlaps(entry: &AbortedTxnIndexEntry, from: LogOffset, to: LogOffset) -> bool {
    entry.first_offset() <= to && entry.last_offset() >= from
}

#[cfg(test)]
mod tests {
    use {super::*, crate::RemoteStorageError, proptest::prelude::*};

    fn encode(entries: &[AbortedTxnIndexEntry]) -> Vec<u8> {
        entries.iter().flat_map(|e| e.as_bytes().to_vec()).collect()
    }

    #[test]
    fn layout_is_kafkas_34_byte_entry() {
        assert_eq!(size_of::<AbortedTxnIndexEntry>(), 34);
        let bytes = AbortedTxnIndexEntry::new(0x0102, 3, 4, 5)
            .as_bytes()
            .to_vec();
        let mut expected = vec![0, 0];
        for v in [0x0102_i64, 3, 4, 5] {
            expected.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(bytes, expected);
    }

    #[test]
    fn parses_entries_without_copying() {
        let bytes = encode(&[
            AbortedTxnIndexEntry::new(7, 100, 110, 100),
            AbortedTxnIndexEntry::new(8, 105, 111, 112),
        ]);
        let entries = decode(&bytes).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].producer_id(), 8);
        assert_eq!(entries[1].first_offset(), 105);
        assert_eq!(entries[1].last_stable_offset(), 112);
        assert_eq!(entries.as_ptr().cast::<u8>(), bytes.as_ptr());
    }

    #[test]
    fn partial_entry_is_refused() {
        for len in [1, 24, 33, 35, 67] {
            assert_eq!(
                decode(&vec![0; len]),
                Err(Corruption::PartialEntry {
                    len,
                    entry_size: 34
                })
            );
        }
        assert!(matches!(
            parse_txn_index(&[0; 24]),
            Err(RemoteStorageError::Corrupt {
                format: "transaction index",
                ..
            })
        ));
    }

    #[test]
    fn unknown_versions_are_refused() {
        for version in [1_i16, 0x0100, -1, i16::MAX] {
            let mut entry = AbortedTxnIndexEntry::new(1, 2, 3, 4);
            entry.version = I16::new(version);
            assert_eq!(
                decode(entry.as_bytes()),
                Err(Corruption::UnknownTxnVersion { index: 0, version })
            );
        }
    }

    #[test]
    fn first_after_last_is_refused() {
        let bytes = encode(&[AbortedTxnIndexEntry::new(1, 10, 9, 0)]);
        assert_eq!(
            decode(&bytes),
            Err(Corruption::FirstAfterLast {
                index: 0,
                first: 10,
                last: 9
            })
        );
    }

    #[test]
    fn last_offsets_must_strictly_increase() {
        let bytes = encode(&[
            AbortedTxnIndexEntry::new(1, 10, 20, 0),
            AbortedTxnIndexEntry::new(2, 11, 20, 0),
        ]);
        assert!(matches!(
            decode(&bytes),
            Err(Corruption::OutOfOrder {
                index: 1,
                field: "last offset",
                ..
            })
        ));
    }

    #[test]
    fn overlap_is_inclusive_on_both_ends() {
        let txn = AbortedTxnIndexEntry::new(1, 10, 20, 0);
        assert!(txn_overlaps(&txn, 10, 10));
        assert!(txn_overlaps(&txn, 20, 20));
        assert!(txn_overlaps(&txn, 15, 16));
        assert!(txn_overlaps(&txn, 0, 100));
        assert!(!txn_overlaps(&txn, 21, 100));
        assert!(!txn_overlaps(&txn, 0, 9));
        assert!(!txn_overlaps(&txn, i64::MIN, i64::MIN));
        assert!(!txn_overlaps(&txn, i64::MAX, i64::MAX));
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse_txn_index(&bytes);
        }

        #[test]
        fn round_trips_valid_entries(
            lasts in proptest::collection::btree_set(0i64..i64::MAX, 0..32),
            pid in any::<i64>(),
            span in 0i64..1000,
            lso in any::<i64>(),
        ) {
            let entries: Vec<AbortedTxnIndexEntry> = lasts
                .iter()
                .map(|&last| AbortedTxnIndexEntry::new(pid, last.saturating_sub(span), last, lso))
                .collect();
            let bytes = encode(&entries);
            prop_assert_eq!(parse_txn_index(&bytes).unwrap(), &entries[..]);
        }

        #[test]
        fn overlap_matches_kafkas_exclusive_bound(first in -50i64..50, len in 0i64..20, from in -60i64..60, upper in -60i64..80) {
            let txn = AbortedTxnIndexEntry::new(1, first, first + len, 0);
            let kafka = txn.last_offset() >= from && txn.first_offset() < upper;
            prop_assert_eq!(txn_overlaps(&txn, from, upper - 1), kafka);
        }
    }
}
