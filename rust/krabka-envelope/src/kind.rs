//! The objects of a segment that the format encodes.

use {
    krabka_kafka::{IndexType, LOG_FILE_SUFFIX},
    std::fmt,
};

/// Suffix of a chunked segment's envelope object, beside its `.log`.
pub const ENVELOPE_SUFFIX: &str = ".envelope";

/// One object of a tiered segment: its log or one of its five indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKind {
    /// The `.log`.
    Log,
    /// The `.index`.
    OffsetIndex,
    /// The `.timeindex`.
    TimeIndex,
    /// The `.txnindex`.
    TransactionIndex,
    /// The `.snapshot` (producer state).
    ProducerSnapshot,
    /// The `.leader_epoch_checkpoint`.
    LeaderEpoch,
}

impl ObjectKind {
    /// Every kind, the log first.
    pub const ALL: [Self; 6] = [
        Self::Log,
        Self::OffsetIndex,
        Self::TimeIndex,
        Self::TransactionIndex,
        Self::ProducerSnapshot,
        Self::LeaderEpoch,
    ];

    /// The byte that stands for the kind in the envelope, in a chunk's nonce
    /// and in its associated data.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::Log => 0,
            Self::OffsetIndex => 1,
            Self::TimeIndex => 2,
            Self::TransactionIndex => 3,
            Self::ProducerSnapshot => 4,
            Self::LeaderEpoch => 5,
        }
    }

    /// The kind a code stands for.
    #[must_use]
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.code() == code)
    }

    /// The suffix of the kind's object key (`.log`, `.index`, …), as Kafka
    /// names the segment's files.
    #[must_use]
    pub const fn suffix(self) -> &'static str {
        match self {
            Self::Log => LOG_FILE_SUFFIX,
            Self::OffsetIndex => IndexType::Offset.suffix(),
            Self::TimeIndex => IndexType::Timestamp.suffix(),
            Self::TransactionIndex => IndexType::Transaction.suffix(),
            Self::ProducerSnapshot => IndexType::ProducerSnapshot.suffix(),
            Self::LeaderEpoch => IndexType::LeaderEpoch.suffix(),
        }
    }

    /// The kind whose objects end in `suffix`.
    #[must_use]
    pub fn of_suffix(suffix: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.suffix() == suffix)
    }

    /// The kind of one of Kafka's index types.
    #[must_use]
    pub const fn of_index(index: IndexType) -> Self {
        match index {
            IndexType::Offset => Self::OffsetIndex,
            IndexType::Timestamp => Self::TimeIndex,
            IndexType::Transaction => Self::TransactionIndex,
            IndexType::ProducerSnapshot => Self::ProducerSnapshot,
            IndexType::LeaderEpoch => Self::LeaderEpoch,
        }
    }
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Log => "log",
            Self::OffsetIndex => "offset index",
            Self::TimeIndex => "time index",
            Self::TransactionIndex => "transaction index",
            Self::ProducerSnapshot => "producer snapshot",
            Self::LeaderEpoch => "leader-epoch checkpoint",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_round_trip() {
        for kind in ObjectKind::ALL {
            assert_eq!(ObjectKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(ObjectKind::from_code(6), None);
        assert_eq!(ObjectKind::of_index(IndexType::Transaction).code(), 3);
    }

    #[test]
    fn suffixes_are_kafkas_and_round_trip() {
        for kind in ObjectKind::ALL {
            assert_eq!(ObjectKind::of_suffix(kind.suffix()), Some(kind));
        }
        assert_eq!(ObjectKind::Log.suffix(), ".log");
        assert_eq!(ObjectKind::LeaderEpoch.suffix(), ".leader_epoch_checkpoint");
        assert_eq!(ObjectKind::of_suffix(ENVELOPE_SUFFIX), None);
    }
}
