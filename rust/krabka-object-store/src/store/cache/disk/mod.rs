//! The disk tier of the read cache: chunks evicted from memory are written
//! to files in a directory, within a byte budget, least recently used first
//! out; a chunk missing from memory is looked for there before it is
//! fetched.
//!
//! - One thread of its own writes and removes the files, in the order the
//!   cache asks, so the async runtime never waits on the disk; a reader
//!   reads a file on its own (blocking) thread. At most
//!   [`QUEUED_WRITES`] chunks wait to be written; beyond, an evicted chunk
//!   is dropped as it would be without the tier.
//! - It survives nothing: when it starts, its thread first removes every
//!   file it would have made from its subdirectory ([`files::SUBDIRECTORY`])
//!   of the configured directory, and nothing else.
//! - A chunk's file name hashes its object key, version, index and the
//!   chunk size, so a new version of an object never finds the old one's
//!   chunks; a file is published whole by a rename; one of the wrong length
//!   or checksum, or that cannot be read, is dropped and the chunk fetched
//!   again.
//! - A failure of the disk (full, refused, gone) never fails a read: the
//!   chunk is not held on disk, the first failure is logged as a warning and
//!   every one is counted.

mod files;
mod index;

use {
    super::{ObjectId, chunks::ChunkKey},
    bytes::Bytes,
    index::Index,
    std::{
        io,
        path::{Path, PathBuf},
        sync::{
            Arc, Mutex, MutexGuard, PoisonError,
            atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
            mpsc,
        },
    },
};

/// Chunks waiting to be written at most.
pub(super) const QUEUED_WRITES: usize = 8;

/// What the disk tier has done since it started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct DiskStats {
    pub(super) hits: u64,
    pub(super) bytes_held: u64,
    pub(super) evictions: u64,
    pub(super) write_errors: u64,
    pub(super) read_errors: u64,
}

/// Work for the tier's thread.
enum Job {
    /// Empty the directory of the tier's files.
    Clean,
    /// Hold a chunk.
    Write(ChunkKey, Bytes),
    /// Drop the files named.
    Remove(Vec<String>),
}

#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    evictions: AtomicU64,
    write_errors: AtomicU64,
    read_errors: AtomicU64,
}

/// What the cache and the tier's thread share.
struct Shared {
    directory: PathBuf,
    chunk_bytes: u64,
    index: Mutex<Index>,
    counters: Counters,
    warned: AtomicBool,
    /// Jobs sent and not yet done.
    pending: AtomicUsize,
}

/// The disk tier (see the module documentation).
pub(super) struct DiskTier {
    shared: Arc<Shared>,
    jobs: mpsc::Sender<Job>,
}

impl DiskTier {
    /// A tier of at most `size_bytes` of files under `directory`, for
    /// chunks of `chunk_bytes`; its thread starts by cleaning the directory.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub(super) fn start(directory: &Path, size_bytes: u64, chunk_bytes: u64) -> io::Result<Self> {
        let shared = Arc::new(Shared {
            directory: directory.join(files::SUBDIRECTORY),
            chunk_bytes,
            index: Mutex::new(Index::new(size_bytes)),
            counters: Counters::default(),
            warned: AtomicBool::new(false),
            pending: AtomicUsize::new(0),
        });
        let (jobs, queue) = mpsc::channel();
        let worker = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("krabka-disk-cache".to_owned())
            .spawn(move || {
                for job in queue {
                    worker.run(job);
                    worker.pending.fetch_sub(1, Ordering::AcqRel);
                }
            })?;
        let tier = Self { shared, jobs };
        tier.send(Job::Clean);
        Ok(tier)
    }

    /// What it has done so far.
    pub(super) fn stats(&self) -> DiskStats {
        let count = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let c = &self.shared.counters;
        DiskStats {
            hits: count(&c.hits),
            bytes_held: self.shared.lock().bytes(),
            evictions: count(&c.evictions),
            write_errors: count(&c.write_errors),
            read_errors: count(&c.read_errors),
        }
    }

    /// Whether the chunk `key` is held (without marking it used).
    pub(super) fn holds(&self, key: &ChunkKey) -> bool {
        self.shared.lock().contains(&self.name(key))
    }

    /// The chunk `key` of `len` bytes, when held and whole; a file found
    /// damaged is dropped. Blocks on the disk.
    pub(super) fn read(&self, key: &ChunkKey, len: u64) -> Option<Bytes> {
        let name = self.name(key);
        if !self.shared.lock().touch(&name) {
            return None;
        }
        match files::read(&self.shared.directory, &name, len) {
            Ok(bytes) => {
                self.shared.counters.hits.fetch_add(1, Ordering::Relaxed);
                Some(bytes)
            }
            Err(err) => {
                // A file gone was evicted meanwhile, or removed by someone
                // else: not a failure of the disk, but not held either.
                if err.kind() != io::ErrorKind::NotFound {
                    self.shared
                        .failed(&self.shared.counters.read_errors, "read", &err);
                }
                // Dropped at once, and its file by the tier's thread after
                // whatever it was asked before (so a write of the same
                // chunk queued earlier cannot bring it back).
                self.shared.lock().remove(&name);
                self.send(Job::Remove(vec![name]));
                None
            }
        }
    }

    /// Offers chunk `key`, evicted from memory, to be held: marked used
    /// when already held, else queued for writing unless
    /// [`QUEUED_WRITES`] chunks already wait. Never blocks on the disk.
    pub(super) fn offer(&self, key: ChunkKey, bytes: Bytes) {
        if self.shared.lock().touch(&self.name(&key)) {
            return;
        }
        if self.shared.pending.load(Ordering::Acquire) < QUEUED_WRITES {
            self.send(Job::Write(key, bytes));
        }
    }

    /// Drops the chunks of the objects `matches` selects: at once from the
    /// index, their files by the tier's thread.
    pub(super) fn forget(&self, matches: impl Fn(&ObjectId) -> bool) {
        let names = self.shared.lock().remove_objects(matches);
        if !names.is_empty() {
            self.send(Job::Remove(names));
        }
    }

    fn name(&self, key: &ChunkKey) -> String {
        files::name(key, self.shared.chunk_bytes)
    }

    fn send(&self, job: Job) {
        self.shared.pending.fetch_add(1, Ordering::AcqRel);
        if self.jobs.send(job).is_err() {
            self.shared.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Waits (bounded) until the tier's thread has done every job sent.
    #[cfg(test)]
    pub(super) fn settle(&self) {
        for _ in 0..2000 {
            if self.shared.pending.load(Ordering::Acquire) == 0 {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("the disk tier never settled");
    }

    /// The directory of its files.
    #[cfg(test)]
    pub(super) fn directory(&self) -> &Path {
        &self.shared.directory
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Does `job` on the tier's thread.
    fn run(&self, job: Job) {
        match job {
            Job::Clean => {
                if let Err(err) = files::clean(&self.directory) {
                    self.failed(&self.counters.write_errors, "clean", &err);
                }
            }
            Job::Write(key, bytes) => self.write(key, &bytes),
            Job::Remove(names) => {
                for name in names {
                    self.lock().remove(&name);
                    self.remove_file(&name);
                }
            }
        }
    }

    fn write(&self, key: ChunkKey, bytes: &[u8]) {
        let name = files::name(&key, self.chunk_bytes);
        if self.lock().touch(&name) {
            return;
        }
        let held = match files::write(&self.directory, &name, bytes) {
            Ok(held) => held,
            Err(err) => {
                self.failed(&self.counters.write_errors, "write", &err);
                return;
            }
        };
        let out = self.lock().insert(name.clone(), key.object, held);
        for evicted in out {
            if evicted != name {
                self.counters.evictions.fetch_add(1, Ordering::Relaxed);
            }
            self.remove_file(&evicted);
        }
    }

    fn remove_file(&self, name: &str) {
        if let Err(err) = files::remove(&self.directory.join(name)) {
            self.failed(&self.counters.write_errors, "remove", &err);
        }
    }

    /// Counts a failure of the disk in `counter`; the first one of the tier
    /// is logged as a warning.
    fn failed(&self, counter: &AtomicU64, what: &str, err: &io::Error) {
        counter.fetch_add(1, Ordering::Relaxed);
        if !self.warned.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                directory = %self.directory.display(),
                error = %err,
                "the read cache could not {what} a chunk file; reads go on without the disk tier \
                 for such chunks (further failures are only counted)"
            );
        }
    }
}
