//! A manifest's position in its partition's hash chain: [`EpochId`],
//! [`ManifestSeq`] and the [`ChainStamp`] that combines them with the
//! previous head.

use {
    super::ChainHead,
    serde::{Deserialize, Serialize},
    std::fmt,
    uuid::Uuid,
};

/// The sequence number of a manifest within one chain epoch, starting at 0.
///
/// ```
/// use krabka_worm::ManifestSeq;
/// assert_eq!(ManifestSeq(4).next(), Some(ManifestSeq(5)));
/// assert_eq!(ManifestSeq(u64::MAX).next(), None);
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ManifestSeq(pub u64);

impl ManifestSeq {
    /// The sequence number after this one, or `None` at `u64::MAX`.
    #[must_use]
    pub fn next(self) -> Option<Self> {
        self.0.checked_add(1).map(Self)
    }
}

impl fmt::Display for ManifestSeq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The id of one chain epoch: a run of manifests that starts at
/// [`ChainHead::GENESIS`] with sequence number 0.
///
/// A writer that cannot find its partition's tip starts a **new** epoch
/// with a fresh random id rather than restarting an old one at 0, because a
/// restart under the same id would be indistinguishable from a rewrite.
/// JSON form: the hyphenated lower-case UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EpochId(pub Uuid);

impl EpochId {
    /// A fresh random epoch id (UUID version 4).
    #[must_use]
    pub fn random() -> Self {
        Self(Uuid::new_v4())
    }
}

impl fmt::Display for EpochId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

/// Where a manifest sits in its partition's chain: its epoch, its sequence
/// number, and the head of the manifest before it (or
/// [`ChainHead::GENESIS`] at sequence number 0).
///
/// ```
/// use krabka_worm::{ChainHead, ChainStamp, EpochId, ManifestSeq};
/// use uuid::Uuid;
/// let first = ChainStamp::genesis(EpochId(Uuid::from_u128(1)));
/// assert_eq!(first.seq, ManifestSeq(0));
/// let head = ChainHead([7; 32]);
/// let second = first.next(head).unwrap();
/// assert_eq!((second.seq, second.prev_head), (ManifestSeq(1), head));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainStamp {
    /// The chain epoch.
    pub epoch_id: EpochId,
    /// The manifest's sequence number in the epoch.
    pub seq: ManifestSeq,
    /// The head of the previous manifest of the epoch.
    pub prev_head: ChainHead,
}

impl ChainStamp {
    /// The first position of epoch `epoch_id`: seq 0 on the genesis head.
    #[must_use]
    pub fn genesis(epoch_id: EpochId) -> Self {
        Self {
            epoch_id,
            seq: ManifestSeq(0),
            prev_head: ChainHead::GENESIS,
        }
    }

    /// The position after a manifest at this position whose head is `head`;
    /// `None` when the sequence number is exhausted.
    #[must_use]
    pub fn next(&self, head: ChainHead) -> Option<Self> {
        Some(Self {
            epoch_id: self.epoch_id,
            seq: self.seq.next()?,
            prev_head: head,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_id_json_is_the_hyphenated_uuid() {
        let epoch = EpochId(Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff));
        assert_eq!(
            serde_json::to_string(&epoch).unwrap(),
            "\"00112233-4455-6677-8899-aabbccddeeff\""
        );
        assert_eq!(epoch.to_string(), "00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn random_epochs_differ() {
        assert_ne!(EpochId::random(), EpochId::random());
    }

    #[test]
    fn stamp_refuses_unknown_fields() {
        let json = format!(
            "{{\"epoch_id\":\"{}\",\"seq\":0,\"prev_head\":\"{}\",\"extra\":1}}",
            Uuid::nil(),
            "0".repeat(64)
        );
        assert!(serde_json::from_str::<ChainStamp>(&json).is_err());
    }

    #[test]
    fn next_stops_at_the_last_sequence_number() {
        let last = ChainStamp {
            epoch_id: EpochId(Uuid::nil()),
            seq: ManifestSeq(u64::MAX),
            prev_head: ChainHead::GENESIS,
        };
        assert_eq!(last.next(ChainHead([1; 32])), None);
    }
}
