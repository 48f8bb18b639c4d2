//! Lifecycle states of remote segments and of partition deletion, with
//! Kafka's transition tables.

use serde::{Deserialize, Serialize};

/// Where a remote log segment is in its lifecycle
/// (Kafka's `RemoteLogSegmentState`).
///
/// Valid transitions, exactly Kafka's `isValidTransition`:
///
/// | from \ to        | CopyStarted | CopyFinished | DeleteStarted | DeleteFinished |
/// |------------------|-------------|--------------|---------------|----------------|
/// | *(none)*         | ✓           |              |               |                |
/// | CopyStarted      | ✓ (retry)   | ✓            | ✓             |                |
/// | CopyFinished     |             | ✓ (retry)    | ✓             |                |
/// | DeleteStarted    |             |              | ✓ (retry)     | ✓              |
/// | DeleteFinished   |             |              |               | ✓ (retry)      |
///
/// **Self-transitions** are valid, as in Kafka, so that a retried or
/// replayed update after a failover is harmless: a metadata manager applies
/// one as a no-op on the segment's state (it may refresh the event
/// timestamp, broker id and custom metadata), and never moves a segment
/// backwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RemoteLogSegmentState {
    /// The copy has begun; the segment is not readable yet.
    CopySegmentStarted,
    /// The copy is durable and the segment is readable.
    CopySegmentFinished,
    /// Deletion has begun; the segment is no longer served.
    DeleteSegmentStarted,
    /// The segment's data is gone.
    DeleteSegmentFinished,
}

impl RemoteLogSegmentState {
    /// Every state, in lifecycle order.
    pub const ALL: [Self; 4] = [
        Self::CopySegmentStarted,
        Self::CopySegmentFinished,
        Self::DeleteSegmentStarted,
        Self::DeleteSegmentFinished,
    ];

    /// Kafka's byte id of the state.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::CopySegmentStarted => 0,
            Self::CopySegmentFinished => 1,
            Self::DeleteSegmentStarted => 2,
            Self::DeleteSegmentFinished => 3,
        }
    }

    /// The state with Kafka's byte id `id`.
    #[must_use]
    pub const fn from_id(id: u8) -> Option<Self> {
        match id {
            0 => Some(Self::CopySegmentStarted),
            1 => Some(Self::CopySegmentFinished),
            2 => Some(Self::DeleteSegmentStarted),
            3 => Some(Self::DeleteSegmentFinished),
            _ => None,
        }
    }

    /// Whether a segment in state `from` (`None`: not yet known) may move to
    /// `to`. See the table on the type.
    ///
    /// ```
    /// use krabka_kafka::RemoteLogSegmentState::{self, *};
    /// assert!(RemoteLogSegmentState::is_valid_transition(None, CopySegmentStarted));
    /// assert!(RemoteLogSegmentState::is_valid_transition(Some(CopySegmentFinished), CopySegmentFinished));
    /// assert!(!RemoteLogSegmentState::is_valid_transition(Some(CopySegmentFinished), CopySegmentStarted));
    /// ```
    #[must_use]
    pub fn is_valid_transition(from: Option<Self>, to: Self) -> bool {
        use RemoteLogSegmentState::*;
        match from {
            None => to == CopySegmentStarted,
            Some(from) if from == to => true,
            Some(CopySegmentStarted) => matches!(to, CopySegmentFinished | DeleteSegmentStarted),
            Some(CopySegmentFinished) => to == DeleteSegmentStarted,
            Some(DeleteSegmentStarted) => to == DeleteSegmentFinished,
            Some(DeleteSegmentFinished) => false,
        }
    }
}

/// Where a partition is in its remote deletion
/// (Kafka's `RemotePartitionDeleteState`).
///
/// Valid transitions: none → `Marked` → `Started` → `Finished`; each
/// self-transition is also valid and is a harmless retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RemotePartitionDeleteState {
    /// Deletion was requested.
    DeletePartitionMarked,
    /// Deletion of the partition's remote segments has begun.
    DeletePartitionStarted,
    /// All of the partition's remote data is gone.
    DeletePartitionFinished,
}

impl RemotePartitionDeleteState {
    /// Kafka's byte id of the state.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::DeletePartitionMarked => 0,
            Self::DeletePartitionStarted => 1,
            Self::DeletePartitionFinished => 2,
        }
    }

    /// The state with Kafka's byte id `id`.
    #[must_use]
    pub const fn from_id(id: u8) -> Option<Self> {
        match id {
            0 => Some(Self::DeletePartitionMarked),
            1 => Some(Self::DeletePartitionStarted),
            2 => Some(Self::DeletePartitionFinished),
            _ => None,
        }
    }

    /// Whether a partition in delete state `from` may move to `to`.
    ///
    /// ```
    /// use krabka_kafka::RemotePartitionDeleteState::{self, *};
    /// assert!(RemotePartitionDeleteState::is_valid_transition(None, DeletePartitionMarked));
    /// assert!(!RemotePartitionDeleteState::is_valid_transition(None, DeletePartitionStarted));
    /// ```
    #[must_use]
    pub fn is_valid_transition(from: Option<Self>, to: Self) -> bool {
        use RemotePartitionDeleteState::*;
        match from {
            None => to == DeletePartitionMarked,
            Some(from) if from == to => true,
            Some(DeletePartitionMarked) => to == DeletePartitionStarted,
            Some(DeletePartitionStarted) => to == DeletePartitionFinished,
            Some(DeletePartitionFinished) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RemoteLogSegmentState::*, RemotePartitionDeleteState::*, *};

    #[test]
    fn segment_transitions_match_kafka_table() {
        let valid = [
            (None, CopySegmentStarted),
            (Some(CopySegmentStarted), CopySegmentStarted),
            (Some(CopySegmentStarted), CopySegmentFinished),
            (Some(CopySegmentStarted), DeleteSegmentStarted),
            (Some(CopySegmentFinished), CopySegmentFinished),
            (Some(CopySegmentFinished), DeleteSegmentStarted),
            (Some(DeleteSegmentStarted), DeleteSegmentStarted),
            (Some(DeleteSegmentStarted), DeleteSegmentFinished),
            (Some(DeleteSegmentFinished), DeleteSegmentFinished),
        ];
        let froms = std::iter::once(None).chain(RemoteLogSegmentState::ALL.map(Some));
        for from in froms {
            for to in RemoteLogSegmentState::ALL {
                assert_eq!(
                    RemoteLogSegmentState::is_valid_transition(from, to),
                    valid.contains(&(from, to)),
                    "{from:?} -> {to:?}"
                );
            }
        }
    }

    #[test]
    fn partition_delete_transitions_match_kafka_table() {
        let all = [
            DeletePartitionMarked,
            DeletePartitionStarted,
            DeletePartitionFinished,
        ];
        let valid = [
            (None, DeletePartitionMarked),
            (Some(DeletePartitionMarked), DeletePartitionMarked),
            (Some(DeletePartitionMarked), DeletePartitionStarted),
            (Some(DeletePartitionStarted), DeletePartitionStarted),
            (Some(DeletePartitionStarted), DeletePartitionFinished),
            (Some(DeletePartitionFinished), DeletePartitionFinished),
        ];
        for from in std::iter::once(None).chain(all.map(Some)) {
            for to in all {
                assert_eq!(
                    RemotePartitionDeleteState::is_valid_transition(from, to),
                    valid.contains(&(from, to)),
                    "{from:?} -> {to:?}"
                );
            }
        }
    }

    #[test]
    fn byte_ids_round_trip() {
        for state in RemoteLogSegmentState::ALL {
            assert_eq!(RemoteLogSegmentState::from_id(state.id()), Some(state));
        }
        assert_eq!(RemoteLogSegmentState::from_id(4), None);
        for state in [
            DeletePartitionMarked,
            DeletePartitionStarted,
            DeletePartitionFinished,
        ] {
            assert_eq!(RemotePartitionDeleteState::from_id(state.id()), Some(state));
        }
        assert_eq!(RemotePartitionDeleteState::from_id(3), None);
    }
}
