//! The chunks held: least recently used first out, within a byte budget.

use {
    super::ObjectId,
    bytes::Bytes,
    std::{
        collections::{BTreeMap, HashMap},
        sync::Arc,
    },
};

/// One chunk: the `index`-th of an object version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct ChunkKey {
    /// The object version.
    pub(super) object: Arc<ObjectId>,
    /// The chunk's index (its offset divided by the chunk size).
    pub(super) index: u64,
}

struct Held {
    bytes: Bytes,
    tick: u64,
    /// Whether a reader got it (read-ahead never read is waste).
    served: bool,
}

/// What an insertion pushed out.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Evicted {
    /// Chunks evicted.
    pub(super) chunks: u64,
    /// Bytes of evicted chunks that no reader ever got.
    pub(super) unread_bytes: u64,
    /// The evicted chunks, for a second tier.
    pub(super) out: Vec<(ChunkKey, Bytes)>,
}

/// Chunks within a byte budget, least recently used evicted first.
pub(super) struct Chunks {
    held: HashMap<ChunkKey, Held>,
    /// Use order: tick of last use → chunk.
    order: BTreeMap<u64, ChunkKey>,
    bytes: u64,
    capacity: u64,
    tick: u64,
}

impl Chunks {
    /// An empty set holding at most `capacity` bytes.
    pub(super) fn new(capacity: u64) -> Self {
        Self {
            held: HashMap::new(),
            order: BTreeMap::new(),
            bytes: 0,
            capacity,
            tick: 0,
        }
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether `key` is held.
    pub(super) fn contains(&self, key: &ChunkKey) -> bool {
        self.held.contains_key(key)
    }

    /// Whether `key` is held; if so it is marked used (not served): a chunk
    /// read-ahead finds held is about to be read, and must not be the next
    /// one out. Without this a reader going through data as large as the
    /// cache a second time finds the chunks read-ahead skipped evicted just
    /// before it reaches them, and waits a round trip for each.
    pub(super) fn touch(&mut self, key: &ChunkKey) -> bool {
        let tick = self.next_tick();
        let Some(held) = self.held.get_mut(key) else {
            return false;
        };
        self.order.remove(&held.tick);
        held.tick = tick;
        self.order.insert(tick, key.clone());
        true
    }

    /// The chunk `key`, marked used and served.
    pub(super) fn get(&mut self, key: &ChunkKey) -> Option<Bytes> {
        let tick = self.next_tick();
        let held = self.held.get_mut(key)?;
        self.order.remove(&held.tick);
        held.tick = tick;
        held.served = true;
        self.order.insert(tick, key.clone());
        Some(held.bytes.clone())
    }

    /// Holds `bytes` as `key` (`served` when a reader asked for it),
    /// evicting the least recently used chunks to stay within the budget.
    /// A chunk larger than the whole budget is not held.
    pub(super) fn insert(&mut self, key: ChunkKey, bytes: Bytes, served: bool) -> Evicted {
        let len = bytes.len() as u64;
        let mut evicted = self.remove(&key);
        if len > self.capacity {
            return evicted;
        }
        while self.bytes + len > self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(out) = self.held.remove(&oldest) {
                self.bytes -= out.bytes.len() as u64;
                evicted.chunks += 1;
                if !out.served {
                    evicted.unread_bytes += out.bytes.len() as u64;
                }
                evicted.out.push((oldest, out.bytes));
            }
        }
        let tick = self.next_tick();
        self.order.insert(tick, key.clone());
        self.bytes += len;
        self.held.insert(
            key,
            Held {
                bytes,
                tick,
                served,
            },
        );
        evicted
    }

    /// Drops every chunk of `object` (it changed under its pin).
    pub(super) fn forget_object(&mut self, object: &ObjectId) {
        let keys: Vec<ChunkKey> = self
            .held
            .keys()
            .filter(|key| *key.object == *object)
            .cloned()
            .collect();
        for key in keys {
            self.remove(&key);
        }
    }

    /// Drops every chunk of the objects named `names`, any version.
    pub(super) fn forget_keys(&mut self, names: &std::collections::HashSet<&str>) {
        let keys: Vec<ChunkKey> = self
            .held
            .keys()
            .filter(|key| names.contains(key.object.key.as_str()))
            .cloned()
            .collect();
        for key in keys {
            self.remove(&key);
        }
    }

    fn remove(&mut self, key: &ChunkKey) -> Evicted {
        match self.held.remove(key) {
            Some(out) => {
                self.order.remove(&out.tick);
                self.bytes -= out.bytes.len() as u64;
                Evicted::default()
            }
            None => Evicted::default(),
        }
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(object: &Arc<ObjectId>, index: u64) -> ChunkKey {
        ChunkKey {
            object: Arc::clone(object),
            index,
        }
    }

    fn object(name: &str) -> Arc<ObjectId> {
        Arc::new(ObjectId {
            key: name.to_owned(),
            pin: super::super::PinId::ETag("e1".to_owned()),
        })
    }

    #[test]
    fn the_least_recently_used_chunk_goes_first_and_the_budget_holds() {
        let a = object("a");
        let mut chunks = Chunks::new(30);
        for index in 0..3 {
            chunks.insert(key(&a, index), Bytes::from(vec![1; 10]), true);
        }
        // Chunk 0 is used again, so chunk 1 is now the oldest.
        assert!(chunks.get(&key(&a, 0)).is_some());
        let evicted = chunks.insert(key(&a, 3), Bytes::from(vec![1; 10]), true);
        assert_eq!(evicted.chunks, 1);
        assert!(!chunks.contains(&key(&a, 1)));
        assert!(chunks.contains(&key(&a, 0)));
        assert_eq!(chunks.bytes(), 30);
    }

    #[test]
    fn a_touched_chunk_is_used_again_but_not_served() {
        let a = object("a");
        let mut chunks = Chunks::new(30);
        for index in 0..3 {
            chunks.insert(key(&a, index), Bytes::from(vec![1; 10]), false);
        }
        assert!(chunks.touch(&key(&a, 0)));
        assert!(!chunks.touch(&key(&a, 9)));
        // Chunk 1 is now the oldest; chunk 0, touched, stays.
        let evicted = chunks.insert(key(&a, 3), Bytes::from(vec![1; 20]), true);
        let out: Vec<u64> = evicted.out.iter().map(|(key, _)| key.index).collect();
        assert_eq!(out, [1, 2]);
        assert!(chunks.contains(&key(&a, 0)));
        // Touching does not count as serving: evicted, it is waste.
        let evicted = chunks.insert(key(&a, 4), Bytes::from(vec![1; 10]), true);
        assert_eq!((evicted.chunks, evicted.unread_bytes), (1, 10));
    }

    #[test]
    fn read_ahead_evicted_unread_is_counted_as_waste() {
        let a = object("a");
        let mut chunks = Chunks::new(20);
        chunks.insert(key(&a, 0), Bytes::from(vec![1; 10]), false);
        chunks.insert(key(&a, 1), Bytes::from(vec![1; 10]), false);
        assert!(chunks.get(&key(&a, 1)).is_some());
        let evicted = chunks.insert(key(&a, 2), Bytes::from(vec![1; 20]), true);
        assert_eq!((evicted.chunks, evicted.unread_bytes), (2, 10));
        let out: Vec<u64> = evicted.out.iter().map(|(key, _)| key.index).collect();
        assert_eq!(out, [0, 1]);
    }

    #[test]
    fn a_chunk_above_the_budget_is_not_held_and_versions_are_apart() {
        let a = object("a");
        let mut chunks = Chunks::new(10);
        chunks.insert(key(&a, 0), Bytes::from(vec![1; 11]), true);
        assert_eq!(chunks.bytes(), 0);
        let other_version = Arc::new(ObjectId {
            key: "a".to_owned(),
            pin: super::super::PinId::ETag("e2".to_owned()),
        });
        chunks.insert(key(&a, 0), Bytes::from(vec![1; 5]), true);
        assert!(chunks.get(&key(&other_version, 0)).is_none());
        chunks.forget_object(&a);
        assert_eq!(chunks.bytes(), 0);
    }
}
