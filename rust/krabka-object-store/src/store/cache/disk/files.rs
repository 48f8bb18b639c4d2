//! The disk tier's files: one per chunk, named by a hash of the chunk's
//! object key, version, index and size, holding the chunk's bytes and their
//! CRC-32C.
//!
//! A file is written under a temporary name and renamed when whole, so a
//! torn write is never found under a chunk's name. It is not synced: the
//! directory is emptied of these files whenever a cache starts, so nothing
//! has to survive a crash.

use {
    super::super::chunks::ChunkKey,
    crate::{bucket::sigv4::hex, store::cache::PinId},
    bytes::Bytes,
    sha2::{Digest, Sha256},
    std::{
        fs,
        io::{self, Write},
        path::{Path, PathBuf},
    },
};

/// The subdirectory of the configured directory the cache owns.
pub(super) const SUBDIRECTORY: &str = "krabka-read-cache";

/// How a chunk file's name ends.
const CHUNK_SUFFIX: &str = ".chunk";

/// How a temporary file's name ends.
const TEMPORARY_SUFFIX: &str = ".tmp";

/// Hexadecimal digits of a chunk's name (a SHA-256).
const NAME_DIGITS: usize = 64;

/// Bytes of the checksum after a chunk's bytes.
pub(super) const TRAILER_BYTES: u64 = 4;

/// The name of the file of chunk `key` of `chunk_bytes`-byte chunks.
pub(super) fn name(key: &ChunkKey, chunk_bytes: u64) -> String {
    let (kind, pin) = match &key.object.pin {
        PinId::Version(version) => (b'v', version),
        PinId::ETag(e_tag) => (b'e', e_tag),
    };
    let mut hash = Sha256::new();
    hash.update(chunk_bytes.to_le_bytes());
    hash.update(key.index.to_le_bytes());
    hash.update([kind]);
    hash.update((pin.len() as u64).to_le_bytes());
    hash.update(pin.as_bytes());
    hash.update(key.object.key.as_bytes());
    let mut name = hex(&hash.finalize());
    name.push_str(CHUNK_SUFFIX);
    name
}

/// Whether `name` is one the cache gives its files (a chunk's, or a
/// temporary one), so starting may remove it.
fn is_ours(name: &str) -> bool {
    let Some((digest, rest)) = name.split_at_checked(NAME_DIGITS) else {
        return false;
    };
    let hex = |text: &str| {
        !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    hex(digest)
        && (rest == CHUNK_SUFFIX
            || rest
                .strip_prefix('.')
                .and_then(|rest| rest.strip_suffix(TEMPORARY_SUFFIX))
                .is_some_and(hex))
}

/// Creates `directory` when missing and removes the files in it the cache
/// names ([`is_ours`]); anything else there is left alone.
pub(super) fn clean(directory: &Path) -> io::Result<()> {
    fs::create_dir_all(directory)?;
    for entry in fs::read_dir(directory)? {
        let entry = entry?;
        let ours = entry.file_name().to_str().is_some_and(is_ours);
        if ours && entry.file_type()?.is_file() {
            remove(&entry.path())?;
        }
    }
    Ok(())
}

/// Writes `bytes` and their checksum as `directory`/`name`, through a
/// temporary file; the bytes the file takes.
pub(super) fn write(directory: &Path, name: &str, bytes: &[u8]) -> io::Result<u64> {
    let digest = name.strip_suffix(CHUNK_SUFFIX).unwrap_or(name);
    let temporary = directory.join(format!(
        "{digest}.{}{TEMPORARY_SUFFIX}",
        uuid::Uuid::new_v4().simple()
    ));
    let written = (|| {
        let mut file = fs::File::create_new(&temporary)?;
        file.write_all(bytes)?;
        file.write_all(&crc32c::crc32c(bytes).to_le_bytes())?;
        drop(file);
        fs::rename(&temporary, directory.join(name))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written.map(|()| bytes.len() as u64 + TRAILER_BYTES)
}

/// The chunk in `directory`/`name`, which must hold `len` bytes and their
/// checksum.
///
/// # Errors
/// [`io::ErrorKind::NotFound`] when the file is gone,
/// [`io::ErrorKind::InvalidData`] when its length or checksum is wrong.
pub(super) fn read(directory: &Path, name: &str, len: u64) -> io::Result<Bytes> {
    let path: PathBuf = directory.join(name);
    let file = fs::File::open(&path)?;
    let found = file.metadata()?.len();
    if found != len + TRAILER_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} holds {found} bytes, not {}",
                path.display(),
                len + TRAILER_BYTES
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(found).unwrap_or(0));
    io::Read::read_to_end(&mut io::Read::take(file, found), &mut bytes)?;
    let split = usize::try_from(len).unwrap_or(usize::MAX).min(bytes.len());
    let (chunk, trailer) = bytes.split_at(split);
    let sum = <[u8; 4]>::try_from(trailer).ok().map(u32::from_le_bytes);
    if sum != Some(crc32c::crc32c(chunk)) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} does not match its checksum", path.display()),
        ));
    }
    bytes.truncate(split);
    Ok(Bytes::from(bytes))
}

/// Removes the file at `path`; one already gone is no error.
pub(super) fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_the_cache_gives_are_ours() {
        let digest = "0123456789abcdef".repeat(4);
        assert!(is_ours(&format!("{digest}.chunk")));
        assert!(is_ours(&format!("{digest}.0f3a.tmp")));
        for other in [
            format!("{digest}.txt"),
            format!("{digest}chunk"),
            format!("{}.chunk", &digest[1..]),
            format!("{}.chunk", digest.to_uppercase()),
            format!("{digest}..tmp"),
            "notes.chunk".to_owned(),
            "é".repeat(40),
        ] {
            assert!(!is_ours(&other), "{other}");
        }
    }
}
