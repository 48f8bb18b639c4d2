//! Proof that `LocalTieredStorage::fetch_log_segment` streams: fetching the
//! first MiB of a 1 GiB segment neither reads nor allocates the rest.
//!
//! Its own test binary because it installs a counting global allocator and
//! reads the process-wide `/proc/self/io` counters; it holds a single test so
//! no other test's I/O or allocations land in the measurement.

mod support;

use {
    krabka_remote_storage::{LOG_FILE_SUFFIX, LocalTieredStorage, RemoteStorageManager},
    stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc},
    std::{
        alloc::System,
        fs::{self, File, OpenOptions},
        hint::black_box,
        io::{Read, Seek, SeekFrom, Write},
    },
    support::{new_partition, segment_metadata},
};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const MIB: u64 = 1024 * 1024;
const SEGMENT_LEN: u64 = 1024 * MIB;

/// Bytes this process has read through `read`-family syscalls so far
/// (`rchar` of `/proc/self/io`), including reads of holes in sparse files.
fn rchar() -> u64 {
    let text = fs::read_to_string("/proc/self/io").expect("/proc/self/io is readable");
    text.lines()
        .find_map(|line| line.strip_prefix("rchar:"))
        .and_then(|value| value.trim().parse().ok())
        .expect("/proc/self/io has an rchar line")
}

/// Bytes allocated (fresh or by growing) since `region` started.
fn allocated(region: &Region<'_, System>) -> u64 {
    let change = region.change();
    let grown = u64::try_from(change.bytes_reallocated.max(0)).unwrap();
    u64::try_from(change.bytes_allocated).unwrap() + grown
}

/// Reads `reader` to its end through a 64 KiB buffer, returning the byte
/// count and checking each byte against `expected_at(position)`.
fn drain(mut reader: impl Read, limit: u64, expected_at: impl Fn(u64) -> u8) -> u64 {
    let mut buffer = vec![0_u8; 64 * 1024];
    let mut total = 0_u64;
    while total < limit {
        let want = usize::try_from((limit - total).min(64 * 1024)).unwrap();
        let read = reader.read(&mut buffer[..want]).unwrap();
        if read == 0 {
            break;
        }
        for (i, byte) in buffer[..read].iter().enumerate() {
            assert_eq!(
                *byte,
                expected_at(total + i as u64),
                "byte {}",
                total + i as u64
            );
        }
        total += read as u64;
    }
    total
}

fn pattern(position: u64) -> u8 {
    if position < 2 * MIB {
        (position % 251) as u8
    } else {
        0
    }
}

#[test]
fn fetching_a_prefix_reads_and_allocates_only_the_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let tier = LocalTieredStorage::new(dir.path().join("tier"));
    let metadata = segment_metadata(
        &new_partition("streaming", 0),
        0,
        usize::try_from(SEGMENT_LEN).unwrap(),
    );

    // A 1 GiB sparse segment placed in the tier's layout: 2 MiB of pattern,
    // then a hole. (Copying it in would write a real GiB to disk.)
    let log = tier.segment_path(&metadata, LOG_FILE_SUFFIX).unwrap();
    fs::create_dir_all(log.parent().unwrap()).unwrap();
    {
        let mut file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(&log)
            .unwrap();
        let head: Vec<u8> = (0..2 * MIB).map(pattern).collect();
        file.write_all(&head).unwrap();
        file.set_len(SEGMENT_LEN).unwrap();
    }
    assert_eq!(fs::metadata(&log).unwrap().len(), SEGMENT_LEN);

    // Calibration: both instruments see a 4 MiB read and a 4 MiB buffer, so
    // the bounds below are able to fail.
    {
        let region = Region::new(GLOBAL);
        let before = rchar();
        let mut file = File::open(&log).unwrap();
        file.seek(SeekFrom::Start(100 * MIB)).unwrap();
        let mut buffer = vec![0_u8; usize::try_from(4 * MIB).unwrap()];
        file.read_exact(&mut buffer).unwrap();
        black_box(&buffer);
        assert!(rchar() - before >= 4 * MIB, "rchar does not count reads");
        assert!(
            allocated(&region) >= 4 * MIB,
            "the allocator does not count"
        );
    }

    // An open-ended fetch read for its first MiB, then dropped (how Kafka's
    // RemoteLogManager reads), and a ranged fetch of the first MiB.
    for end in [None, Some(MIB - 1)] {
        let region = Region::new(GLOBAL);
        let before = rchar();
        let reader = tier.fetch_log_segment(&metadata, 0, end).unwrap();
        let read = drain(reader, MIB, pattern);
        let read_bytes = rchar() - before;
        let allocated_bytes = allocated(&region);
        assert_eq!(read, MIB, "end {end:?}");
        assert!(
            read_bytes < MIB + 256 * 1024,
            "end {end:?}: {read_bytes} bytes read for a 1 MiB prefix"
        );
        assert!(
            allocated_bytes < 512 * 1024,
            "end {end:?}: {allocated_bytes} bytes allocated for a 1 MiB prefix"
        );
    }

    // The ranged fetch stops at its inclusive end by itself.
    {
        let before = rchar();
        let reader = tier
            .fetch_log_segment(&metadata, MIB, Some(2 * MIB - 1))
            .unwrap();
        let read = drain(reader, u64::MAX, |position| pattern(MIB + position));
        assert_eq!(read, MIB);
        assert!(rchar() - before < MIB + 256 * 1024);
    }

    // The tail is reachable without reading what precedes it.
    {
        let before = rchar();
        let reader = tier
            .fetch_log_segment(&metadata, SEGMENT_LEN - 10, None)
            .unwrap();
        assert_eq!(drain(reader, u64::MAX, |_| 0), 10);
        assert!(rchar() - before < 64 * 1024);
    }
}
