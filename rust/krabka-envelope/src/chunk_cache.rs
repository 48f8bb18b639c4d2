//! Decoded chunks kept for the next reader: a byte-bounded LRU of original
//! (decrypted, decompressed) chunk bytes.
//!
//! Kafka fetches a remote segment in pieces (1 MiB by default) and closes
//! the stream after each; a chunk is 4 MiB. Without this cache every fetch
//! would decrypt and decompress the whole chunk that holds it again. With
//! it, the first fetch of a chunk decodes it once and the fetches after it
//! copy from memory. Entries are shared ([`Bytes`]), so a reader serving a
//! chunk holds no second copy of it.

use {
    crate::ObjectKind,
    bytes::Bytes,
    std::{
        collections::{BTreeMap, HashMap},
        sync::{Mutex, PoisonError},
    },
    uuid::Uuid,
};

/// Which chunk: its segment, object and number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkId {
    /// The segment.
    pub segment: Uuid,
    /// The object of the segment.
    pub kind: ObjectKind,
    /// The chunk's number in the object.
    pub chunk: u32,
}

/// A bounded cache of decoded chunks, shared by every reader of a tier.
#[derive(Debug)]
pub struct DecodedChunks {
    budget: usize,
    inner: Mutex<Lru>,
}

#[derive(Debug, Default)]
struct Lru {
    entries: HashMap<ChunkId, (Bytes, u64)>,
    /// Use stamp → chunk, oldest first.
    order: BTreeMap<u64, ChunkId>,
    used: usize,
    clock: u64,
}

/// What the cache holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodedChunksUsage {
    /// Chunks held.
    pub chunks: usize,
    /// Their bytes.
    pub bytes: usize,
    /// The most it holds.
    pub budget: usize,
}

impl DecodedChunks {
    /// A cache holding at most `budget` bytes of chunks (0 keeps nothing).
    #[must_use]
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            inner: Mutex::default(),
        }
    }

    /// The chunk, when held; it becomes the most recently used.
    #[must_use]
    pub fn get(&self, id: &ChunkId) -> Option<Bytes> {
        let mut lru = self.lock();
        let stamp = lru.tick();
        let (bytes, old) = {
            let entry = lru.entries.get_mut(id)?;
            let old = std::mem::replace(&mut entry.1, stamp);
            (entry.0.clone(), old)
        };
        lru.order.remove(&old);
        lru.order.insert(stamp, *id);
        Some(bytes)
    }

    /// Keeps `bytes` as chunk `id`, evicting the least recently used chunks
    /// past the budget. A chunk larger than the whole budget is not kept.
    pub fn put(&self, id: ChunkId, bytes: Bytes) {
        if bytes.len() > self.budget {
            return;
        }
        let mut lru = self.lock();
        let stamp = lru.tick();
        lru.used += bytes.len();
        if let Some((old, old_stamp)) = lru.entries.insert(id, (bytes, stamp)) {
            lru.used -= old.len();
            lru.order.remove(&old_stamp);
        }
        lru.order.insert(stamp, id);
        while lru.used > self.budget {
            let Some((_, oldest)) = lru.order.pop_first() else {
                break;
            };
            if let Some((evicted, _)) = lru.entries.remove(&oldest) {
                lru.used -= evicted.len();
            }
        }
    }

    /// Drops every chunk of `segment` (it was deleted or rewritten).
    pub fn forget_segment(&self, segment: Uuid) {
        let mut lru = self.lock();
        let gone: Vec<(ChunkId, u64, usize)> = lru
            .entries
            .iter()
            .filter(|(id, _)| id.segment == segment)
            .map(|(id, (bytes, stamp))| (*id, *stamp, bytes.len()))
            .collect();
        for (id, stamp, len) in gone {
            lru.entries.remove(&id);
            lru.order.remove(&stamp);
            lru.used -= len;
        }
    }

    /// What the cache holds.
    #[must_use]
    pub fn usage(&self) -> DecodedChunksUsage {
        let lru = self.lock();
        DecodedChunksUsage {
            chunks: lru.entries.len(),
            bytes: lru.used,
            budget: self.budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lru> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Lru {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(segment: Uuid, chunk: u32) -> ChunkId {
        ChunkId {
            segment,
            kind: ObjectKind::Log,
            chunk,
        }
    }

    #[test]
    fn keeps_within_budget_evicting_least_recently_used() {
        let cache = DecodedChunks::new(10);
        let segment = Uuid::from_u128(1);
        cache.put(id(segment, 0), Bytes::from(vec![0u8; 4]));
        cache.put(id(segment, 1), Bytes::from(vec![1u8; 4]));
        // Chunk 0 used again: chunk 1 is now the oldest.
        assert_eq!(cache.get(&id(segment, 0)).unwrap()[0], 0);
        cache.put(id(segment, 2), Bytes::from(vec![2u8; 4]));
        assert!(cache.get(&id(segment, 1)).is_none());
        assert!(cache.get(&id(segment, 0)).is_some());
        assert!(cache.get(&id(segment, 2)).is_some());
        assert_eq!(
            cache.usage(),
            DecodedChunksUsage {
                chunks: 2,
                bytes: 8,
                budget: 10
            }
        );
    }

    #[test]
    fn replacing_a_chunk_accounts_its_new_length() {
        let cache = DecodedChunks::new(100);
        let segment = Uuid::from_u128(2);
        cache.put(id(segment, 0), Bytes::from(vec![0u8; 40]));
        cache.put(id(segment, 0), Bytes::from(vec![0u8; 10]));
        assert_eq!(cache.usage().bytes, 10);
        assert_eq!(cache.usage().chunks, 1);
    }

    #[test]
    fn a_chunk_larger_than_the_budget_is_not_kept_and_evicts_nothing() {
        let cache = DecodedChunks::new(8);
        let segment = Uuid::from_u128(3);
        cache.put(id(segment, 0), Bytes::from(vec![0u8; 8]));
        cache.put(id(segment, 1), Bytes::from(vec![0u8; 9]));
        assert!(cache.get(&id(segment, 0)).is_some());
        assert!(cache.get(&id(segment, 1)).is_none());
    }

    #[test]
    fn forgetting_a_segment_drops_only_its_chunks() {
        let cache = DecodedChunks::new(100);
        let (one, two) = (Uuid::from_u128(4), Uuid::from_u128(5));
        cache.put(id(one, 0), Bytes::from(vec![0u8; 5]));
        cache.put(id(one, 1), Bytes::from(vec![0u8; 5]));
        cache.put(id(two, 0), Bytes::from(vec![0u8; 7]));
        cache.forget_segment(one);
        assert!(cache.get(&id(one, 0)).is_none());
        assert!(cache.get(&id(two, 0)).is_some());
        assert_eq!(cache.usage().bytes, 7);
    }

    #[test]
    fn a_zero_budget_keeps_nothing() {
        let cache = DecodedChunks::new(0);
        cache.put(id(Uuid::from_u128(6), 0), Bytes::from(vec![1u8]));
        assert_eq!(cache.usage().chunks, 0);
    }
}
