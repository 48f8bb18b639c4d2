//! Identifier newtypes shared by Krabka's tiered-storage crates.
//!
//! Kafka passes many small integers around (leader epochs, broker ids,
//! partitions). Wrapping the ones that are easy to confuse in newtypes keeps a
//! leader epoch from being passed where an offset is expected.

#![forbid(unsafe_code)]

use {
    serde::{Deserialize, Serialize},
    std::fmt,
};

/// A Kafka leader epoch: the generation number of a partition's leadership.
///
/// Kafka stores it as a signed 32-bit integer; `-1` means "no epoch" in some
/// wire protocols, which is why the inner value stays signed.
///
/// ```
/// use krabka_ids::LeaderEpoch;
/// assert!(LeaderEpoch(3) < LeaderEpoch(4));
/// assert_eq!(LeaderEpoch(7).to_string(), "7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LeaderEpoch(pub i32);

impl LeaderEpoch {
    /// The epoch Kafka uses to mean "unknown".
    pub const UNKNOWN: Self = Self(-1);

    /// The raw epoch value.
    #[must_use]
    pub const fn get(self) -> i32 {
        self.0
    }
}

impl fmt::Display for LeaderEpoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<i32> for LeaderEpoch {
    fn from(value: i32) -> Self {
        Self(value)
    }
}

/// A Kafka broker id (`broker.id` / `node.id`).
///
/// ```
/// use krabka_ids::BrokerId;
/// assert_eq!(BrokerId(1).to_string(), "1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BrokerId(pub i32);

impl fmt::Display for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<i32> for BrokerId {
    fn from(value: i32) -> Self {
        Self(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leader_epoch_serializes_as_a_bare_integer() {
        let json = serde_json::to_string(&LeaderEpoch(5)).unwrap();
        assert_eq!(json, "5");
        let back: LeaderEpoch = serde_json::from_str(&json).unwrap();
        assert_eq!(back, LeaderEpoch(5));
    }

    #[test]
    fn leader_epochs_order_numerically() {
        let mut epochs = vec![LeaderEpoch(10), LeaderEpoch(-1), LeaderEpoch(2)];
        epochs.sort();
        assert_eq!(
            epochs,
            vec![LeaderEpoch::UNKNOWN, LeaderEpoch(2), LeaderEpoch(10)]
        );
    }

    #[test]
    fn broker_id_round_trips_through_i32() {
        assert_eq!(BrokerId::from(4), BrokerId(4));
        assert_eq!(serde_json::to_string(&BrokerId(4)).unwrap(), "4");
    }
}
