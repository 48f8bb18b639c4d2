//! The disk tier of the read cache, over the counting in-memory store of
//! [`super::tests`].

use {
    super::{
        tests::{CHUNK, Fixture, fixture, pattern},
        *,
    },
    std::{fs, path::Path as FsPath},
};

/// Memory for four chunks, no read-ahead, and a disk tier of `disk_bytes`
/// under `directory`.
fn with_disk(directory: &FsPath, disk_bytes: u64) -> CacheConfig {
    CacheConfig {
        capacity_bytes: 4 * CHUNK,
        chunk_bytes: CHUNK,
        prefetch_chunks: 0,
        prefetch_in_flight: 4,
        expected_fetch_bytes: 1,
        disk: Some(DiskCacheConfig {
            directory: directory.to_owned(),
            size_bytes: disk_bytes,
        }),
    }
}

impl Fixture {
    fn disk(&self) -> &DiskTier {
        self.cache.disk.as_ref().unwrap()
    }

    /// Reads chunks `chunks` of `key` one fetch each, letting the disk tier
    /// write what each evicts; asserts they are `bytes`' chunks.
    fn read_chunks(&self, key: &str, bytes: &[u8], chunks: std::ops::Range<u64>) {
        self.disk().settle();
        for index in chunks {
            let start = index * CHUNK;
            let len = CHUNK.min(bytes.len() as u64 - start);
            let got = self.read(key, start, len);
            assert_eq!(
                got,
                bytes[start as usize..(start + len) as usize],
                "{index}"
            );
            self.disk().settle();
        }
    }

    /// The chunk files on disk and their sizes.
    fn chunk_files(&self) -> Vec<(std::path::PathBuf, u64)> {
        let mut files: Vec<_> = fs::read_dir(self.disk().directory())
            .unwrap()
            .map(|entry| entry.unwrap())
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".chunk"))
            .map(|entry| (entry.path(), entry.metadata().unwrap().len()))
            .collect();
        files.sort();
        files
    }
}

#[test]
fn chunks_evicted_from_memory_are_served_from_disk_without_a_get() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(with_disk(dir.path(), 64 * CHUNK));
    let bytes = pattern(12 * CHUNK, 21);
    f.put("a", bytes.clone());
    f.read_chunks("a", &bytes, 0..12);
    // Memory holds the last four chunks; the eight before are on disk.
    assert_eq!(f.chunk_files().len(), 8);
    assert_eq!(f.cache.stats().disk_bytes_held, 8 * (CHUNK + 4));
    let gets = f.gets();
    f.read_chunks("a", &bytes, 0..8);
    assert_eq!(f.gets(), gets);
    let stats = f.cache.stats();
    assert_eq!(stats.disk_hits, 8, "{stats:?}");
    assert_eq!(stats.disk_write_errors + stats.disk_read_errors, 0);
    assert!(stats.bytes_held <= 4 * CHUNK, "{stats:?}");
}

#[test]
fn the_disk_tier_stays_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(with_disk(dir.path(), 6 * CHUNK));
    let bytes = pattern(20 * CHUNK, 22);
    f.put("a", bytes.clone());
    f.read_chunks("a", &bytes, 0..20);
    let files = f.chunk_files();
    // Files of a chunk and its checksum: five fit in six chunks' worth.
    assert_eq!(files.len(), 5);
    let on_disk: u64 = files.iter().map(|(_, len)| len).sum();
    assert!(on_disk <= 6 * CHUNK);
    let stats = f.cache.stats();
    assert_eq!(stats.disk_bytes_held, on_disk);
    // Sixteen chunks went to disk, five stayed.
    assert_eq!(stats.disk_evictions, 11, "{stats:?}");
    // Nothing else is left in the directory (no temporary files).
    assert_eq!(fs::read_dir(f.disk().directory()).unwrap().count(), 5);
}

#[test]
fn a_new_version_of_an_object_is_never_served_from_the_old_ones_files() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(with_disk(dir.path(), 64 * CHUNK));
    let old = pattern(8 * CHUNK, 23);
    f.put("a", old.clone());
    f.read_chunks("a", &old, 0..8);
    assert_eq!(f.chunk_files().len(), 4);
    let new = pattern(8 * CHUNK, 24);
    f.put("a", new.clone());
    // The remembered version is forgotten (as when too many objects are
    // remembered): the next fetch learns the new one.
    f.cache.lock().objects.clear();
    let gets = f.gets();
    f.read_chunks("a", &new, 0..8);
    assert_eq!(f.gets(), gets + 8);
    assert_eq!(f.cache.stats().disk_hits, 0);
}

#[test]
fn a_damaged_chunk_file_is_dropped_and_fetched_again() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(with_disk(dir.path(), 64 * CHUNK));
    let bytes = pattern(8 * CHUNK, 25);
    f.put("a", bytes.clone());
    f.read_chunks("a", &bytes, 0..8);
    let files = f.chunk_files();
    assert_eq!(files.len(), 4);
    for (number, (path, len)) in files.iter().enumerate() {
        let mut content = fs::read(path).unwrap();
        match number {
            // Truncated, short by a byte or empty.
            0 => content.truncate(usize::try_from(len - 1).unwrap()),
            1 => content.clear(),
            // A bit flipped in the chunk, and in the checksum.
            2 => content[100] ^= 1,
            _ => *content.last_mut().unwrap() ^= 0x80,
        }
        fs::write(path, content).unwrap();
    }
    let gets = f.gets();
    f.read_chunks("a", &bytes, 0..4);
    assert_eq!(f.gets(), gets + 4);
    let stats = f.cache.stats();
    assert_eq!(
        (stats.disk_hits, stats.disk_read_errors),
        (0, 4),
        "{stats:?}"
    );
}

#[test]
fn starting_removes_the_caches_files_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("krabka-read-cache");
    fs::create_dir_all(&own).unwrap();
    let digest = "0123456789abcdef".repeat(4);
    let ours = [
        format!("{digest}.chunk"),
        format!("{digest}.0123456789abcdef0123456789abcdef.tmp"),
    ];
    let theirs = ["notes.txt", "keep.chunk", "0123.tmp"];
    for name in ours.iter().map(String::as_str).chain(theirs) {
        fs::write(own.join(name), b"x").unwrap();
    }
    fs::write(dir.path().join("broker.properties"), b"x").unwrap();
    // A cache used the directory before.
    {
        let f = fixture(with_disk(dir.path(), 64 * CHUNK));
        let bytes = pattern(8 * CHUNK, 26);
        f.put("a", bytes.clone());
        f.read_chunks("a", &bytes, 0..8);
        // Four chunks, and their keep.chunk.
        assert_eq!(f.chunk_files().len(), 5);
    }
    let f = fixture(with_disk(dir.path(), 64 * CHUNK));
    f.disk().settle();
    let mut left: Vec<String> = fs::read_dir(&own)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort_unstable();
    assert_eq!(left, ["0123.tmp", "keep.chunk", "notes.txt"]);
    assert!(dir.path().join("broker.properties").exists());
    assert_eq!(f.cache.stats().disk_bytes_held, 0);
}

#[test]
fn an_unusable_directory_never_fails_a_read() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the directory should be: no file can be made under it,
    // whoever runs the test.
    let not_a_directory = dir.path().join("plain");
    fs::write(&not_a_directory, b"x").unwrap();
    let f = fixture(with_disk(&not_a_directory, 64 * CHUNK));
    let bytes = pattern(8 * CHUNK, 27);
    f.put("a", bytes.clone());
    f.read_chunks("a", &bytes, 0..8);
    f.read_chunks("a", &bytes, 0..8);
    let stats = f.cache.stats();
    // The clean at start, then every chunk evicted from memory.
    assert!(stats.disk_write_errors >= 5, "{stats:?}");
    assert_eq!(
        (stats.disk_hits, stats.disk_bytes_held),
        (0, 0),
        "{stats:?}"
    );
}

#[test]
fn a_disk_tier_too_small_for_two_chunks_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        ChunkCache::new(with_disk(dir.path(), 2 * CHUNK - 1)),
        Err(StoreError::InvalidArgument(_))
    ));
    assert!(ChunkCache::new(with_disk(dir.path(), 2 * CHUNK)).is_ok());
}

#[test]
fn a_chunk_file_removed_by_someone_else_is_fetched_and_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(with_disk(dir.path(), 64 * CHUNK));
    let bytes = pattern(8 * CHUNK, 28);
    f.put("a", bytes.clone());
    f.read_chunks("a", &bytes, 0..8);
    for (path, _) in f.chunk_files() {
        fs::remove_file(path).unwrap();
    }
    // Chunks 0-3 are fetched again; 4-7 go from memory to disk.
    let gets = f.gets();
    f.read_chunks("a", &bytes, 0..4);
    assert_eq!(f.gets(), gets + 4);
    // Chunks 4-7 come back from disk, pushing 0-3 out to disk again.
    f.read_chunks("a", &bytes, 4..8);
    f.read_chunks("a", &bytes, 0..4);
    assert_eq!(f.gets(), gets + 4);
    let stats = f.cache.stats();
    assert_eq!(
        (stats.disk_hits, stats.disk_read_errors),
        (8, 0),
        "{stats:?}"
    );
}
