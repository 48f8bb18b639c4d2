//! Chain records: a chain position in Kafka's segment custom metadata,
//! small enough for Kafka's default cap
//! (`remote.log.metadata.custom.metadata.max.bytes` = 128 bytes).

use {
    super::{ChainHead, ChainStamp, EpochId, ManifestSeq, WormError},
    krabka_kafka::{CustomMetadata, RemoteLogSegmentMetadata},
};

/// The chain-record layout version this build writes and reads.
pub const WORM_CHAIN_RECORD_VERSION: u8 = 1;

/// First bytes of every chain record; custom metadata without them is not
/// a chain record.
const MAGIC: &[u8; 2] = b"kw";

const KIND_REQUEST: u8 = 0;
const KIND_RECEIPT: u8 = 1;

/// Length of a record without a manifest version id.
const FIXED_LEN: usize = 60;

/// The longest manifest version id a receipt carries.
const MAX_VERSION_ID_LEN: usize = WormChainRecord::MAX_BYTES - FIXED_LEN - 1;

/// A chain position carried in a segment's custom metadata.
///
/// Binary layout (integers big-endian):
///
/// | bytes | field |
/// |---|---|
/// | 0–1 | magic `kw` (`6b 77`) |
/// | 2 | version, [`WORM_CHAIN_RECORD_VERSION`] |
/// | 3 | kind: `00` request, `01` receipt |
/// | 4–19 | epoch id (16 bytes) |
/// | 20–27 | seq (`u64`) |
/// | 28–59 | request: `prev_head`; receipt: `head` |
/// | 60… | receipt only, optional: version-id length `L` (1–67), then `L` bytes of printable ASCII |
///
/// A record is therefore 60 to 128 bytes, never above
/// [`WormChainRecord::MAX_BYTES`].
///
/// ```
/// use krabka_worm::{ChainHead, ChainStamp, EpochId, WormChainRecord};
/// use uuid::Uuid;
/// let stamp = ChainStamp::genesis(EpochId(Uuid::from_u128(1)));
/// let receipt = WormChainRecord::receipt(&stamp, ChainHead([9; 32]))
///     .with_manifest_version("3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY");
/// let bytes = receipt.to_custom_metadata();
/// assert!(bytes.as_bytes().len() <= WormChainRecord::MAX_BYTES);
/// assert_eq!(WormChainRecord::from_custom_metadata(bytes.as_bytes()).unwrap(), Some(receipt));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WormChainRecord {
    /// The position a copy intends to seal at, stamped before the copy.
    Request {
        /// The intended position.
        stamp: ChainStamp,
    },
    /// The position and head of a sealed manifest, returned by the copy; the
    /// only form a chain continues from.
    Receipt {
        /// The chain epoch.
        epoch_id: EpochId,
        /// The manifest's sequence number.
        seq: ManifestSeq,
        /// The manifest's chain head.
        head: ChainHead,
        /// The store's version id of the manifest object, when it fits.
        manifest_version_id: Option<String>,
    },
}

impl WormChainRecord {
    /// Kafka's default `remote.log.metadata.custom.metadata.max.bytes`; no
    /// record is longer.
    pub const MAX_BYTES: usize = 128;

    /// A request for position `stamp`.
    #[must_use]
    pub fn request(stamp: ChainStamp) -> Self {
        Self::Request { stamp }
    }

    /// The receipt of a manifest sealed at `stamp` with chain head `head`.
    #[must_use]
    pub fn receipt(stamp: &ChainStamp, head: ChainHead) -> Self {
        Self::Receipt {
            epoch_id: stamp.epoch_id,
            seq: stamp.seq,
            head,
            manifest_version_id: None,
        }
    }

    /// This receipt with the manifest object's version id, when it is 1 to
    /// 67 bytes of printable ASCII; otherwise (and for a request) the record
    /// is returned unchanged. The version id is only a locator: the
    /// manifest is found by its key without it.
    #[must_use]
    pub fn with_manifest_version(self, version_id: &str) -> Self {
        match self {
            Self::Receipt {
                epoch_id,
                seq,
                head,
                manifest_version_id,
            } => Self::Receipt {
                epoch_id,
                seq,
                head,
                manifest_version_id: if version_id_fits(version_id.as_bytes()) {
                    Some(version_id.to_owned())
                } else {
                    manifest_version_id
                },
            },
            request @ Self::Request { .. } => request,
        }
    }

    /// The position of the manifest after the one this receipt names;
    /// `None` for a request, or when the sequence number is exhausted.
    #[must_use]
    pub fn next_stamp(&self) -> Option<ChainStamp> {
        match self {
            Self::Request { .. } => None,
            Self::Receipt {
                epoch_id,
                seq,
                head,
                ..
            } => Some(ChainStamp {
                epoch_id: *epoch_id,
                seq: seq.next()?,
                prev_head: *head,
            }),
        }
    }

    /// The record's bytes, at most [`WormChainRecord::MAX_BYTES`].
    #[must_use]
    pub fn to_custom_metadata(&self) -> CustomMetadata {
        let mut out = Vec::with_capacity(Self::MAX_BYTES);
        out.extend_from_slice(MAGIC);
        out.push(WORM_CHAIN_RECORD_VERSION);
        let (kind, epoch_id, seq, hash, version_id) = match self {
            Self::Request { stamp } => (
                KIND_REQUEST,
                stamp.epoch_id,
                stamp.seq,
                stamp.prev_head,
                None,
            ),
            Self::Receipt {
                epoch_id,
                seq,
                head,
                manifest_version_id,
            } => (
                KIND_RECEIPT,
                *epoch_id,
                *seq,
                *head,
                manifest_version_id.as_deref(),
            ),
        };
        out.push(kind);
        out.extend_from_slice(epoch_id.0.as_bytes());
        out.extend_from_slice(&seq.0.to_be_bytes());
        out.extend_from_slice(&hash.0);
        if let Some(version_id) = version_id.filter(|id| version_id_fits(id.as_bytes())) {
            if let Ok(len) = u8::try_from(version_id.len()) {
                out.push(len);
                out.extend_from_slice(version_id.as_bytes());
            }
        }
        CustomMetadata(out)
    }

    /// Decodes custom metadata. `Ok(None)` when it does not start with the
    /// chain-record magic (another plugin's data, or none of ours).
    ///
    /// # Errors
    /// [`WormError::UnsupportedChainRecordVersion`] for another layout
    /// version; [`WormError::MalformedChainRecord`] for a record of this
    /// version that is truncated, too long, of an unknown kind, or carries
    /// a bad version id.
    pub fn from_custom_metadata(bytes: &[u8]) -> Result<Option<Self>, WormError> {
        let Some(rest) = bytes.strip_prefix(MAGIC) else {
            return Ok(None);
        };
        let malformed = |reason: String| Err(WormError::MalformedChainRecord { reason });
        let Some((&version, _)) = rest.split_first() else {
            return malformed("the record ends after its magic".to_owned());
        };
        if version != WORM_CHAIN_RECORD_VERSION {
            return Err(WormError::UnsupportedChainRecordVersion {
                found: version,
                supported: WORM_CHAIN_RECORD_VERSION,
            });
        }
        if bytes.len() < FIXED_LEN || bytes.len() > Self::MAX_BYTES {
            return malformed(format!(
                "the record is {} bytes, a record is {FIXED_LEN} to {} bytes",
                bytes.len(),
                Self::MAX_BYTES
            ));
        }
        let (fixed, tail) = bytes.split_at(FIXED_LEN);
        let kind = fixed[3];
        let epoch_id = EpochId(uuid::Uuid::from_bytes(array(&fixed[4..20])));
        let seq = ManifestSeq(u64::from_be_bytes(array(&fixed[20..28])));
        let hash = ChainHead(array(&fixed[28..60]));
        match kind {
            KIND_REQUEST if tail.is_empty() => Ok(Some(Self::Request {
                stamp: ChainStamp {
                    epoch_id,
                    seq,
                    prev_head: hash,
                },
            })),
            KIND_REQUEST => malformed(format!(
                "a request record is {FIXED_LEN} bytes, this one has {} more",
                tail.len()
            )),
            KIND_RECEIPT => {
                let manifest_version_id = match tail.split_first() {
                    None => None,
                    Some((&len, id)) if usize::from(len) == id.len() && version_id_fits(id) => {
                        Some(String::from_utf8_lossy(id).into_owned())
                    }
                    Some((&len, id)) => {
                        return malformed(format!(
                            "the manifest version id declares {len} bytes, {} follow, and must be 1 to {MAX_VERSION_ID_LEN} bytes of printable ASCII",
                            id.len()
                        ));
                    }
                };
                Ok(Some(Self::Receipt {
                    epoch_id,
                    seq,
                    head: hash,
                    manifest_version_id,
                }))
            }
            other => malformed(format!(
                "unknown record kind {other:#04x}, expected 0x00 (request) or 0x01 (receipt)"
            )),
        }
    }
}

/// Whether `id` can ride in a receipt: 1 to 67 bytes of printable ASCII.
fn version_id_fits(id: &[u8]) -> bool {
    (1..=MAX_VERSION_ID_LEN).contains(&id.len()) && id.iter().all(|b| (0x21..=0x7e).contains(b))
}

/// The first `N` bytes of `bytes` (zero-padded if shorter, which callers
/// rule out by checking lengths first).
fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    for (slot, byte) in out.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    out
}

/// The position the next manifest of a partition should take, from the
/// chain receipts Kafka holds for its segments.
///
/// Every segment's custom metadata is decoded, whatever the segment's state
/// (a segment Kafka marked for deletion is still in a write-once archive);
/// metadata that is not a chain record and request records are skipped. The
/// receipt with the greatest `(start_offset, seq)` wins (the first one on an
/// exact tie) and the chain continues from it. With no receipt at all, a
/// **new epoch** starts at genesis under `new_epoch_id`.
///
/// # Errors
/// [`WormError::MalformedChainRecord`] or
/// [`WormError::UnsupportedChainRecordVersion`] if any segment carries a
/// chain record this build cannot read (continuing past it could fork the
/// chain); [`WormError::ChainExhausted`] if the tip is at `u64::MAX`.
pub fn next_chain_stamp(
    segments: &[RemoteLogSegmentMetadata],
    new_epoch_id: EpochId,
) -> Result<ChainStamp, WormError> {
    let mut tip: Option<(i64, WormChainRecord)> = None;
    for segment in segments {
        let Some(custom) = segment.custom_metadata() else {
            continue;
        };
        let Some(record) = WormChainRecord::from_custom_metadata(custom.as_bytes())? else {
            continue;
        };
        let WormChainRecord::Receipt { seq, .. } = &record else {
            continue;
        };
        let key = (segment.start_offset(), *seq);
        let better = match &tip {
            None => true,
            Some((start, WormChainRecord::Receipt { seq: best, .. })) => key > (*start, *best),
            Some((_, WormChainRecord::Request { .. })) => true,
        };
        if better {
            tip = Some((segment.start_offset(), record));
        }
    }
    match tip {
        None => Ok(ChainStamp::genesis(new_epoch_id)),
        Some((_, record)) => record.next_stamp().ok_or(match record {
            WormChainRecord::Receipt { epoch_id, .. } => WormError::ChainExhausted { epoch_id },
            WormChainRecord::Request { stamp } => WormError::ChainExhausted {
                epoch_id: stamp.epoch_id,
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        krabka_ids::LeaderEpoch,
        krabka_kafka::{
            RemoteLogSegmentDetails, RemoteLogSegmentId, RemoteLogSegmentState, TopicIdPartition,
        },
        std::collections::BTreeMap,
        uuid::Uuid,
    };

    fn epoch(n: u128) -> EpochId {
        EpochId(Uuid::from_u128(n))
    }

    fn receipt(epoch_n: u128, seq: u64, head: u8) -> WormChainRecord {
        WormChainRecord::Receipt {
            epoch_id: epoch(epoch_n),
            seq: ManifestSeq(seq),
            head: ChainHead([head; 32]),
            manifest_version_id: None,
        }
    }

    fn segment(
        start: i64,
        state: RemoteLogSegmentState,
        custom: Option<Vec<u8>>,
    ) -> RemoteLogSegmentMetadata {
        let tp = TopicIdPartition::new(Uuid::from_u128(1), "t", 0);
        RemoteLogSegmentMetadata::new(
            RemoteLogSegmentId::new(tp, Uuid::from_u128(u128::try_from(start).unwrap())),
            start,
            start + 9,
            0,
            1,
            0,
            RemoteLogSegmentDetails::new(10, state, BTreeMap::from([(LeaderEpoch(0), start)])),
        )
        .unwrap()
        .with_custom_metadata(custom.map(CustomMetadata))
    }

    #[test]
    fn records_round_trip_at_every_length() {
        let stamp = ChainStamp {
            epoch_id: epoch(5),
            seq: ManifestSeq(u64::MAX),
            prev_head: ChainHead([1; 32]),
        };
        let mut records = vec![
            WormChainRecord::request(stamp),
            WormChainRecord::receipt(&stamp, ChainHead([2; 32])),
        ];
        for len in 1..=MAX_VERSION_ID_LEN {
            records.push(
                WormChainRecord::receipt(&stamp, ChainHead([2; 32]))
                    .with_manifest_version(&"v".repeat(len)),
            );
        }
        for record in records {
            let bytes = record.to_custom_metadata();
            assert!(bytes.0.len() <= WormChainRecord::MAX_BYTES);
            assert_eq!(
                WormChainRecord::from_custom_metadata(&bytes.0).unwrap(),
                Some(record)
            );
        }
    }

    #[test]
    fn layout_is_pinned() {
        let record =
            WormChainRecord::receipt(&ChainStamp::genesis(epoch(1)), ChainHead([0xaa; 32]))
                .with_manifest_version("v1");
        let bytes = record.to_custom_metadata().0;
        let mut expected = b"kw\x01\x01".to_vec();
        expected.extend_from_slice(&1u128.to_be_bytes());
        expected.extend_from_slice(&0u64.to_be_bytes());
        expected.extend_from_slice(&[0xaa; 32]);
        expected.extend_from_slice(b"\x02v1");
        assert_eq!(bytes, expected);
    }

    #[test]
    fn version_ids_that_do_not_fit_are_left_out() {
        let stamp = ChainStamp::genesis(epoch(1));
        let base = WormChainRecord::receipt(&stamp, ChainHead([2; 32]));
        for bad in ["", &"v".repeat(MAX_VERSION_ID_LEN + 1), "has space", "é"] {
            assert_eq!(base.clone().with_manifest_version(bad), base, "{bad:?}");
        }
        let request = WormChainRecord::request(stamp);
        assert_eq!(request.clone().with_manifest_version("v"), request);
    }

    #[test]
    fn foreign_metadata_is_not_a_record() {
        for foreign in [&b""[..], b"k", b"s3://bucket/key", b"{\"version\":0}"] {
            assert_eq!(
                WormChainRecord::from_custom_metadata(foreign).unwrap(),
                None
            );
        }
    }

    #[test]
    fn broken_records_are_refused_with_typed_errors() {
        let good = receipt(1, 0, 2)
            .with_manifest_version("abc")
            .to_custom_metadata()
            .0;
        let mut other_version = good.clone();
        other_version[2] = 2;
        assert!(matches!(
            WormChainRecord::from_custom_metadata(&other_version),
            Err(WormError::UnsupportedChainRecordVersion { found: 2, .. })
        ));
        let mut bad_kind = good.clone();
        bad_kind[3] = 7;
        let mut bad_len = good.clone();
        bad_len[60] = 2;
        let mut bad_char = good.clone();
        bad_char[61] = b' ';
        let mut zero_len = good[..60].to_vec();
        zero_len.push(0);
        let mut long_request = WormChainRecord::request(ChainStamp::genesis(epoch(1)))
            .to_custom_metadata()
            .0;
        long_request.push(1);
        let mut too_long = good.clone();
        too_long.resize(WormChainRecord::MAX_BYTES + 1, b'a');
        for broken in [
            &b"kw"[..],
            &good[..59],
            &bad_kind,
            &bad_len,
            &bad_char,
            &zero_len,
            &long_request,
            &too_long,
        ] {
            assert!(
                matches!(
                    WormChainRecord::from_custom_metadata(broken),
                    Err(WormError::MalformedChainRecord { .. })
                ),
                "{broken:?}"
            );
        }
    }

    #[test]
    fn next_stamp_continues_receipts_only() {
        assert_eq!(
            receipt(1, 4, 9).next_stamp(),
            Some(ChainStamp {
                epoch_id: epoch(1),
                seq: ManifestSeq(5),
                prev_head: ChainHead([9; 32]),
            })
        );
        assert_eq!(receipt(1, u64::MAX, 9).next_stamp(), None);
        assert_eq!(
            WormChainRecord::request(ChainStamp::genesis(epoch(1))).next_stamp(),
            None
        );
    }

    #[test]
    fn next_chain_stamp_starts_a_new_epoch_without_receipts() {
        let segments = vec![
            segment(0, RemoteLogSegmentState::CopySegmentFinished, None),
            segment(
                10,
                RemoteLogSegmentState::CopySegmentFinished,
                Some(b"other".to_vec()),
            ),
            segment(
                20,
                RemoteLogSegmentState::CopySegmentStarted,
                Some(
                    WormChainRecord::request(ChainStamp::genesis(epoch(3)))
                        .to_custom_metadata()
                        .0,
                ),
            ),
        ];
        assert_eq!(
            next_chain_stamp(&segments, epoch(42)).unwrap(),
            ChainStamp::genesis(epoch(42))
        );
    }

    #[test]
    fn next_chain_stamp_continues_the_latest_receipt_in_any_state() {
        use RemoteLogSegmentState::*;
        let segments = vec![
            segment(
                0,
                CopySegmentFinished,
                Some(receipt(1, 0, 1).to_custom_metadata().0),
            ),
            segment(
                20,
                DeleteSegmentStarted,
                Some(receipt(1, 2, 3).to_custom_metadata().0),
            ),
            segment(
                10,
                CopySegmentFinished,
                Some(receipt(1, 1, 2).to_custom_metadata().0),
            ),
        ];
        assert_eq!(
            next_chain_stamp(&segments, epoch(42)).unwrap(),
            ChainStamp {
                epoch_id: epoch(1),
                seq: ManifestSeq(3),
                prev_head: ChainHead([3; 32]),
            }
        );
    }

    #[test]
    fn next_chain_stamp_fails_closed_on_unreadable_records_and_exhaustion() {
        use RemoteLogSegmentState::*;
        let mut future = receipt(1, 0, 1).to_custom_metadata().0;
        future[2] = 9;
        assert!(matches!(
            next_chain_stamp(&[segment(0, CopySegmentFinished, Some(future))], epoch(2)),
            Err(WormError::UnsupportedChainRecordVersion { .. })
        ));
        assert!(matches!(
            next_chain_stamp(
                &[segment(0, CopySegmentFinished, Some(b"kw\x01".to_vec()))],
                epoch(2)
            ),
            Err(WormError::MalformedChainRecord { .. })
        ));
        let last = receipt(1, u64::MAX, 1).to_custom_metadata().0;
        assert!(matches!(
            next_chain_stamp(&[segment(0, CopySegmentFinished, Some(last))], epoch(2)),
            Err(WormError::ChainExhausted { .. })
        ));
    }
}
