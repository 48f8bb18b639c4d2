//! `TopicIdPartition`: a partition of a topic, named by the topic's id.

use {
    serde::{Deserialize, Serialize},
    std::{
        fmt,
        hash::{Hash, Hasher},
    },
    uuid::Uuid,
};

/// A topic partition identified by the topic's id.
///
/// As in Kafka, **equality and hashing use only the topic id and the
/// partition**; the topic name is informational, because a topic deleted and
/// re-created under the same name gets a new id.
///
/// ```
/// use krabka_kafka::TopicIdPartition;
/// use uuid::Uuid;
/// let id = Uuid::from_u128(7);
/// assert_eq!(
///     TopicIdPartition::new(id, "orders", 0),
///     TopicIdPartition::new(id, "renamed", 0),
/// );
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TopicIdPartition {
    /// The topic's id.
    pub topic_id: Uuid,
    /// The topic's name (informational).
    pub topic: String,
    /// The partition number.
    pub partition: i32,
}

impl TopicIdPartition {
    /// A partition of topic `topic` (id `topic_id`).
    pub fn new(topic_id: Uuid, topic: impl Into<String>, partition: i32) -> Self {
        Self {
            topic_id,
            topic: topic.into(),
            partition,
        }
    }

    /// The key used for ordering and identity: `(topic_id, partition)`.
    #[must_use]
    pub fn key(&self) -> (Uuid, i32) {
        (self.topic_id, self.partition)
    }
}

impl PartialEq for TopicIdPartition {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for TopicIdPartition {}

impl Hash for TopicIdPartition {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for TopicIdPartition {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TopicIdPartition {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl fmt::Display for TopicIdPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-{} ({})",
            self.topic,
            self.partition,
            crate::kafka_uuid(self.topic_id)
        )
    }
}

#[cfg(test)]
mod tests {
    use {super::*, std::collections::HashSet};

    #[test]
    fn the_name_does_not_take_part_in_identity() {
        let id = Uuid::from_u128(42);
        let mut set = HashSet::new();
        set.insert(TopicIdPartition::new(id, "a", 1));
        assert!(set.contains(&TopicIdPartition::new(id, "b", 1)));
        assert!(!set.contains(&TopicIdPartition::new(id, "a", 2)));
        assert!(!set.contains(&TopicIdPartition::new(Uuid::from_u128(43), "a", 1)));
    }

    #[test]
    fn display_names_topic_partition_and_id() {
        let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 7);
        assert_eq!(tp.to_string(), "orders-7 (AAAAAAAAAAAAAAAAAAAAAQ)");
    }
}
