//! Which chunk files the disk tier holds: least recently used first out,
//! within a byte budget.

use {
    super::super::ObjectId,
    std::{
        collections::{BTreeMap, HashMap},
        sync::Arc,
    },
};

struct Entry {
    object: Arc<ObjectId>,
    bytes: u64,
    tick: u64,
}

/// Chunk files by name, within a byte budget.
pub(super) struct Index {
    entries: HashMap<String, Entry>,
    /// Use order: tick of last use → file name.
    order: BTreeMap<u64, String>,
    bytes: u64,
    capacity: u64,
    tick: u64,
}

impl Index {
    /// An empty index of at most `capacity` bytes of files.
    pub(super) fn new(capacity: u64) -> Self {
        Self {
            entries: HashMap::new(),
            order: BTreeMap::new(),
            bytes: 0,
            capacity,
            tick: 0,
        }
    }

    /// Bytes of files held.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether the file `name` is held.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Marks the file `name` used; whether it is held.
    pub(super) fn touch(&mut self, name: &str) -> bool {
        self.tick += 1;
        let tick = self.tick;
        let Some(entry) = self.entries.get_mut(name) else {
            return false;
        };
        self.order.remove(&entry.tick);
        entry.tick = tick;
        self.order.insert(tick, name.to_owned());
        true
    }

    /// Holds the file `name` of `bytes` bytes, a chunk of `object`; the
    /// names of the least recently used files it pushed out to stay within
    /// the budget (`name` itself when it is larger than the budget).
    pub(super) fn insert(
        &mut self,
        name: String,
        object: Arc<ObjectId>,
        bytes: u64,
    ) -> Vec<String> {
        let mut out = Vec::new();
        self.remove(&name);
        if bytes > self.capacity {
            out.push(name);
            return out;
        }
        while self.bytes + bytes > self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(entry) = self.entries.remove(&oldest) {
                self.bytes -= entry.bytes;
                out.push(oldest);
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, name.clone());
        self.bytes += bytes;
        self.entries.insert(
            name,
            Entry {
                object,
                bytes,
                tick: self.tick,
            },
        );
        out
    }

    /// Drops the file `name`; whether it was held.
    pub(super) fn remove(&mut self, name: &str) -> bool {
        match self.entries.remove(name) {
            Some(entry) => {
                self.order.remove(&entry.tick);
                self.bytes -= entry.bytes;
                true
            }
            None => false,
        }
    }

    /// Drops the files of the objects `matches` selects; their names.
    pub(super) fn remove_objects(&mut self, matches: impl Fn(&ObjectId) -> bool) -> Vec<String> {
        let names: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| matches(&entry.object))
            .map(|(name, _)| name.clone())
            .collect();
        for name in &names {
            self.remove(name);
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use {super::*, crate::store::cache::PinId};

    fn object(key: &str) -> Arc<ObjectId> {
        Arc::new(ObjectId {
            key: key.to_owned(),
            pin: PinId::ETag("e".to_owned()),
        })
    }

    #[test]
    fn the_least_recently_used_file_goes_first_within_the_budget() {
        let mut index = Index::new(30);
        for name in ["a", "b", "c"] {
            assert!(index.insert(name.to_owned(), object("x"), 10).is_empty());
        }
        assert!(index.touch("a"));
        assert_eq!(index.insert("d".to_owned(), object("y"), 10), ["b"]);
        assert!(index.contains("a") && !index.contains("b"));
        assert_eq!(index.bytes(), 30);
        assert_eq!(index.insert("big".to_owned(), object("y"), 31), ["big"]);
        assert_eq!(index.remove_objects(|o| o.key == "y"), ["d"]);
        assert_eq!(index.bytes(), 20);
    }
}
