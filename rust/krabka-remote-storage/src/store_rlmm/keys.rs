//! Where a partition's metadata history lives in the store:
//! `<root>/<topicId>-<partition>/log/<sequence:020>` for records and
//! `<root>/<topicId>-<partition>/snapshot/<through:020>` for snapshots.
//! Zero-padded sequences sort in history order; the directory is named by
//! the topic id (Kafka's text form) and the partition, never by the topic
//! name, so a key depends only on what identifies the partition.

use {
    krabka_kafka::{TopicIdPartition, kafka_uuid},
    krabka_object_store::store::{Path, Result, StoreHandle},
};

/// Width of the zero-padded sequence numbers.
const SEQUENCE_WIDTH: usize = 20;

/// The keys of one partition's history.
#[derive(Debug, Clone)]
pub(super) struct PartitionKeys {
    /// `<root>/<topicId>-<partition>`, relative to the handle's prefix.
    dir: String,
}

impl PartitionKeys {
    /// The keys of `partition` under `root`.
    pub(super) fn new(root: &str, partition: &TopicIdPartition) -> Self {
        Self {
            dir: format!(
                "{root}/{}-{}",
                kafka_uuid(partition.topic_id),
                partition.partition
            ),
        }
    }

    /// The key of record `sequence`.
    pub(super) fn record(&self, store: &StoreHandle, sequence: u64) -> Result<Path> {
        store.key(&format!("{}/log/{sequence:0SEQUENCE_WIDTH$}", self.dir))
    }

    /// The key of the snapshot through record `through`.
    pub(super) fn snapshot(&self, store: &StoreHandle, through: u64) -> Result<Path> {
        store.key(&format!("{}/snapshot/{through:0SEQUENCE_WIDTH$}", self.dir))
    }

    /// The partition's directory.
    pub(super) fn dir(&self, store: &StoreHandle) -> Result<Path> {
        store.key(&self.dir)
    }

    /// What `key`, listed under the partition's directory `dir`, is.
    pub(super) fn kind_of(dir: &Path, key: &Path) -> Option<KeyKind> {
        let mut parts = key.prefix_match(dir)?;
        let kind = parts.next()?;
        let name = parts.next()?;
        if parts.next().is_some() {
            return None;
        }
        let sequence = sequence_of(name.as_ref())?;
        match kind.as_ref() {
            "log" => Some(KeyKind::Record(sequence)),
            "snapshot" => Some(KeyKind::Snapshot(sequence)),
            _ => None,
        }
    }
}

/// A key of a partition's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyKind {
    /// Record `sequence`.
    Record(u64),
    /// The snapshot through a record.
    Snapshot(u64),
}

/// The sequence a record or snapshot key's file name says, if it is one of
/// ours (a staging file `<key>#<n>` is not).
fn sequence_of(name: &str) -> Option<u64> {
    if name.len() != SEQUENCE_WIDTH || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok().filter(|sequence| *sequence > 0)
}

#[cfg(test)]
mod tests {
    use {super::*, std::sync::Arc, uuid::Uuid};

    #[test]
    fn keys_sort_in_history_order_and_parse_back() {
        let store = StoreHandle::new(
            Arc::new(object_store::memory::InMemory::new()),
            Some("tier".to_owned()),
        )
        .unwrap();
        let keys = PartitionKeys::new("meta", &TopicIdPartition::new(Uuid::from_u128(1), "t", 4));
        let nine = keys.record(&store, 9).unwrap();
        let ten = keys.record(&store, 10).unwrap();
        assert_eq!(
            nine.as_ref(),
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/log/00000000000000000009"
        );
        assert!(nine.as_ref() < ten.as_ref());
        let snapshot = keys.snapshot(&store, 64).unwrap();
        let dir = keys.dir(&store).unwrap();
        assert_eq!(dir.as_ref(), "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4");
        assert_eq!(
            PartitionKeys::kind_of(&dir, &snapshot),
            Some(KeyKind::Snapshot(64))
        );
        assert_eq!(
            PartitionKeys::kind_of(&dir, &nine),
            Some(KeyKind::Record(9))
        );
        for foreign in [
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/snapshot/64",
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/snapshot/0000000000000000006a",
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/log/00000000000000000009#1",
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/other/00000000000000000009",
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/log/00000000000000000000",
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-4/log/x/00000000000000000009",
            "tier/meta/AAAAAAAAAAAAAAAAAAAAAQ-44/log/00000000000000000009",
        ] {
            assert_eq!(
                PartitionKeys::kind_of(&dir, &Path::from(foreign)),
                None,
                "{foreign}"
            );
        }
    }
}
