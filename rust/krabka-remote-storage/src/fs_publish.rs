//! The one way this crate writes a file: stage, fsync, rename, fsync the
//! directory.
//!
//! A file is first streamed into a staging file beside its target, named
//! `.<target name>.<random>.tmp`, then flushed to disk, renamed over the
//! target and the directory entry made durable. A crash at any point leaves
//! either the old target or the complete new one under the final name, never
//! a partial file. A staging file left behind by a crash starts with `.` and
//! ends with [`STAGING_SUFFIX`]: readers never open it (they only open final
//! names) and [`remove_stale_staging`] cleans it up.
//!
//! A directory is created the same durable way, by [`create_dir_all_durable`]:
//! the parent of every directory it creates is fsynced. Fsyncing a file's
//! directory makes the file's entry durable, not the directory's own entry in
//! its parent: without this, a power loss could take a new partition directory
//! away, and with it the segments Kafka already recorded as copied.

use {
    krabka_kafka::{CancellationToken, RemoteStorageError, Result},
    std::{
        ffi::OsStr,
        fs::{self, File, OpenOptions},
        io::{self, Read, Write},
        path::{Path, PathBuf},
    },
    uuid::Uuid,
};

/// Suffix of every staging file.
pub(crate) const STAGING_SUFFIX: &str = ".tmp";

/// How often a staging file creation is retried when its directory vanishes
/// under it (a concurrent delete removing an empty partition directory).
const CREATE_ATTEMPTS: usize = 4;

/// A complete, fsynced staging file waiting to be renamed over its target.
///
/// Dropping it without [`StagedFile::commit`] removes the staging file, so an
/// abandoned write leaves nothing behind.
#[derive(Debug)]
pub(crate) struct StagedFile {
    staging: PathBuf,
    target: PathBuf,
    len: u64,
    committed: bool,
}

impl StagedFile {
    /// Number of bytes staged.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Renames the staging file over the target and fsyncs the directory, so
    /// the new content is durable under the final name.
    ///
    /// # Errors
    /// [`RemoteStorageError::Io`] when the rename or the directory fsync
    /// fails; after a failed rename the target is unchanged.
    pub(crate) fn commit(mut self) -> Result<()> {
        fs::rename(&self.staging, &self.target)
            .map_err(|err| RemoteStorageError::io("rename", &self.target, err))?;
        self.committed = true;
        sync_dir(parent_of(&self.target)?)
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.committed {
            if let Err(err) = fs::remove_file(&self.staging) {
                if err.kind() != io::ErrorKind::NotFound {
                    tracing::warn!(path = %self.staging.display(), error = %err,
                        "could not remove abandoned staging file");
                }
            }
        }
    }
}

/// Streams `source` into a new staging file beside `target` and fsyncs it.
/// The target's directory is created when missing.
///
/// # Errors
/// [`RemoteStorageError::Io`] naming the staging file when creating, writing
/// or syncing it fails, or naming `source_name` when reading the source
/// fails. Nothing is left behind on error.
pub(crate) fn stage_reader(
    target: &Path,
    source: &mut dyn Read,
    source_name: &Path,
) -> Result<StagedFile> {
    let (mut file, mut staged) = create_staging(target)?;
    let len = copy_stream(source, &mut file, source_name, &staged.staging)?;
    finish(file, &mut staged, len)?;
    Ok(staged)
}

/// Bytes copied between two checks of the cancellation token.
const CANCEL_CHECK_BYTES: u64 = 8 * 1024 * 1024;

/// Streams the file at `source` into a new staging file beside `target` and
/// fsyncs it. The copy is chunked by the kernel or by [`io::copy`]: the file
/// is never read into memory whole. `cancel` is checked every
/// [`CANCEL_CHECK_BYTES`]; a cancelled copy removes its staging file.
///
/// # Errors
/// As [`stage_reader`]; a missing source is an [`RemoteStorageError::Io`]
/// with kind [`io::ErrorKind::NotFound`] naming the source;
/// [`RemoteStorageError::Cancelled`] after a cancel.
pub(crate) fn stage_file(
    target: &Path,
    source: &Path,
    cancel: &CancellationToken,
) -> Result<StagedFile> {
    let mut input =
        File::open(source).map_err(|err| RemoteStorageError::io("open", source, err))?;
    let (mut file, mut staged) = create_staging(target)?;
    let mut len: u64 = 0;
    loop {
        cancel.check(|| format!("copy of {} to {}", source.display(), target.display()))?;
        // `Take<&mut File>` to `File` still lets the standard library use
        // `copy_file_range`.
        let copied =
            io::copy(&mut (&mut input).take(CANCEL_CHECK_BYTES), &mut file).map_err(|err| {
                // The read side and the write side share one error; name the
                // source, the side that fails in practice (a vanished broker
                // file).
                RemoteStorageError::io("copy", source, err)
            })?;
        len = len.saturating_add(copied);
        if copied < CANCEL_CHECK_BYTES {
            break;
        }
    }
    finish(file, &mut staged, len)?;
    Ok(staged)
}

/// Publishes the content of the file at `source` under `target`, unless
/// `cancel` fires first.
///
/// # Errors
/// As [`stage_file`] and [`StagedFile::commit`].
pub(crate) fn publish_file(
    target: &Path,
    source: &Path,
    cancel: &CancellationToken,
) -> Result<u64> {
    let staged = stage_file(target, source, cancel)?;
    let len = staged.len();
    staged.commit()?;
    Ok(len)
}

/// Publishes `bytes` under `target`.
///
/// # Errors
/// As [`stage_reader`] and [`StagedFile::commit`].
pub(crate) fn publish_bytes(target: &Path, mut bytes: &[u8]) -> Result<u64> {
    let staged = stage_reader(target, &mut bytes, Path::new("<memory>"))?;
    let len = staged.len();
    staged.commit()?;
    Ok(len)
}

/// Whether `name` is a staging file name (`.<name>.<random>.tmp`).
pub(crate) fn is_staging_name(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|name| name.starts_with('.') && name.ends_with(STAGING_SUFFIX))
}

/// Removes the staging files that writes of `final_names` left in `dir`
/// (after a crash). A missing directory is not an error.
///
/// # Errors
/// [`RemoteStorageError::Io`] when the directory cannot be listed or a
/// staging file cannot be removed.
pub(crate) fn remove_stale_staging(dir: &Path, final_names: &[String]) -> Result<usize> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(err) => return Err(RemoteStorageError::io("list", dir, err)),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry.map_err(|err| RemoteStorageError::io("list", dir, err))?;
        let name = entry.file_name();
        let belongs = name.to_str().is_some_and(|text| {
            is_staging_name(&name)
                && final_names
                    .iter()
                    .any(|final_name| staging_prefix_matches(text, final_name))
        });
        if belongs {
            let path = entry.path();
            match fs::remove_file(&path) {
                Ok(()) => removed += 1,
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                Err(err) => return Err(RemoteStorageError::io("remove", path, err)),
            }
        }
    }
    Ok(removed)
}

/// Fsyncs a directory so that renames and removals in it are durable.
///
/// # Errors
/// [`RemoteStorageError::Io`] naming the directory.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(|err| RemoteStorageError::io("fsync directory", dir, err))?;
    #[cfg(test)]
    sync_log::record(dir);
    Ok(())
}

/// Creates `dir` and every missing ancestor, fsyncing the parent of each
/// directory it creates (outermost first, each right after its creation), so
/// that every new directory survives a power loss once this returns.
/// Directories that already exist are left alone and cost no fsync. A
/// directory that a concurrent caller creates while this call is creating its
/// ancestors counts as new: its parent is fsynced here too, since this call
/// cannot tell whether the other one has done so yet.
///
/// # Errors
/// [`RemoteStorageError::Io`] naming the directory that could not be created
/// (kind [`io::ErrorKind::AlreadyExists`] when a file is in the way) or the
/// parent that could not be fsynced.
pub(crate) fn create_dir_all_durable(dir: &Path) -> Result<()> {
    let parent = dir.parent().filter(|parent| !parent.as_os_str().is_empty());
    match fs::create_dir(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => return Ok(()),
        Err(err) => match parent {
            Some(parent) if err.kind() == io::ErrorKind::NotFound => {
                create_dir_all_durable(parent)?;
                match fs::create_dir(dir) {
                    Ok(()) => {}
                    // Created concurrently since: new all the same.
                    Err(err) if err.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
                    Err(err) => return Err(RemoteStorageError::io("create directory", dir, err)),
                }
            }
            _ => return Err(RemoteStorageError::io("create directory", dir, err)),
        },
    }
    // A relative path without a parent component was created in the working directory.
    sync_dir(parent.unwrap_or(Path::new(".")))
}

/// Whether `staging_name` is a staging name of `final_name`:
/// `.<final_name>.<random>.tmp`.
fn staging_prefix_matches(staging_name: &str, final_name: &str) -> bool {
    staging_name
        .strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(final_name))
        .and_then(|rest| rest.strip_prefix('.'))
        .and_then(|rest| rest.strip_suffix(STAGING_SUFFIX))
        .is_some_and(|random| !random.is_empty() && !random.contains('.'))
}

fn parent_of(target: &Path) -> Result<&Path> {
    target
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .ok_or_else(|| {
            RemoteStorageError::InvalidArgument(format!(
                "publish target `{}` has no parent directory",
                target.display()
            ))
        })
}

/// Creates a fresh staging file beside `target`, creating the directory when
/// it is missing (retrying if a concurrent delete removes it again).
fn create_staging(target: &Path) -> Result<(File, StagedFile)> {
    let dir = parent_of(target)?;
    let name = target.file_name().and_then(OsStr::to_str).ok_or_else(|| {
        RemoteStorageError::InvalidArgument(format!(
            "publish target `{}` has no UTF-8 file name",
            target.display()
        ))
    })?;
    let mut last_error = None;
    for _ in 0..CREATE_ATTEMPTS {
        let staging = dir.join(format!(
            ".{name}.{}{STAGING_SUFFIX}",
            Uuid::new_v4().simple()
        ));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&staging)
        {
            Ok(file) => {
                let staged = StagedFile {
                    staging,
                    target: target.to_path_buf(),
                    len: 0,
                    committed: false,
                };
                return Ok((file, staged));
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                create_dir_all_durable(dir)?;
                last_error = Some(RemoteStorageError::io("create", staging, err));
            }
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                last_error = Some(RemoteStorageError::io("create", staging, err));
            }
            Err(err) => return Err(RemoteStorageError::io("create", staging, err)),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        RemoteStorageError::io(
            "create",
            dir,
            io::Error::other("could not create a staging file"),
        )
    }))
}

/// Copies `source` into `sink` in bounded chunks, telling read failures from
/// write failures.
fn copy_stream(
    source: &mut dyn Read,
    sink: &mut File,
    source_name: &Path,
    staging: &Path,
) -> Result<u64> {
    let mut buffer = vec![0_u8; 64 * 1024];
    let mut total: u64 = 0;
    loop {
        let read = match source.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(RemoteStorageError::io("read", source_name, err)),
        };
        let Some(chunk) = buffer.get(..read) else {
            let err =
                io::Error::other(format!("reader returned {read} bytes for a smaller buffer"));
            return Err(RemoteStorageError::io("read", source_name, err));
        };
        sink.write_all(chunk)
            .map_err(|err| RemoteStorageError::io("write", staging, err))?;
        total = total.saturating_add(u64::try_from(read).unwrap_or(u64::MAX));
    }
}

fn finish(file: File, staged: &mut StagedFile, len: u64) -> Result<()> {
    file.sync_all()
        .map_err(|err| RemoteStorageError::io("fsync", &staged.staging, err))?;
    staged.len = len;
    Ok(())
}

/// Test-only record of the directories the current thread fsyncs, so tests
/// can check which directories a write made durable.
#[cfg(test)]
pub(crate) mod sync_log {
    use std::{
        cell::RefCell,
        path::{Path, PathBuf},
    };

    thread_local! {
        static SYNCED: RefCell<Option<Vec<PathBuf>>> = const { RefCell::new(None) };
    }

    /// Runs `work` and returns its result with the directories this thread
    /// fsynced meanwhile, in order.
    pub(crate) fn capture<T>(work: impl FnOnce() -> T) -> (T, Vec<PathBuf>) {
        SYNCED.with(|synced| *synced.borrow_mut() = Some(Vec::new()));
        let result = work();
        let synced = SYNCED.with(|synced| synced.borrow_mut().take());
        (result, synced.unwrap_or_default())
    }

    pub(super) fn record(dir: &Path) {
        SYNCED.with(|synced| {
            if let Some(synced) = synced.borrow_mut().as_mut() {
                synced.push(dir.to_path_buf());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn publishes_bytes_and_leaves_no_staging_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.index");
        assert_eq!(publish_bytes(&target, b"hello").unwrap(), 5);
        assert_eq!(fs::read(&target).unwrap(), b"hello");
        assert_eq!(names_in(dir.path()), ["a.index"]);
    }

    #[test]
    fn publishes_a_file_and_overwrites_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("source");
        fs::write(&source, vec![7_u8; 200_000]).unwrap();
        let target = dir.path().join("sub").join("a.log");
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(&target, b"old content").unwrap();
        assert_eq!(
            publish_file(&target, &source, &CancellationToken::new()).unwrap(),
            200_000
        );
        assert_eq!(fs::read(&target).unwrap(), vec![7_u8; 200_000]);
        assert_eq!(names_in(&dir.path().join("sub")), ["a.log"]);
    }

    #[test]
    fn creates_a_missing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("x").join("y").join("f");
        publish_bytes(&target, b"z").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"z");
    }

    #[test]
    fn a_missing_source_leaves_the_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.log");
        fs::write(&target, b"old").unwrap();
        let err = publish_file(
            &target,
            &dir.path().join("absent"),
            &CancellationToken::new(),
        )
        .unwrap_err();
        assert!(
            matches!(&err, RemoteStorageError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound),
            "{err:?}"
        );
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["a.log"]);
    }

    struct FailingReader {
        before_failure: usize,
    }

    impl Read for FailingReader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.before_failure == 0 {
                return Err(io::Error::other("source broke"));
            }
            let n = buf.len().min(self.before_failure);
            buf[..n].fill(1);
            self.before_failure -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_failing_source_leaves_the_target_untouched_and_no_staging_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.log");
        fs::write(&target, b"old").unwrap();
        let mut source = FailingReader {
            before_failure: 100_000,
        };
        let err = stage_reader(&target, &mut source, Path::new("src")).unwrap_err();
        assert!(
            matches!(
                &err,
                RemoteStorageError::Io {
                    operation: "read",
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["a.log"]);
    }

    #[test]
    fn an_abandoned_staged_file_is_removed_and_the_target_keeps_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.log");
        fs::write(&target, b"old").unwrap();
        let staged = stage_reader(&target, &mut &b"new"[..], Path::new("m")).unwrap();
        assert_eq!(staged.len(), 3);
        let names = names_in(dir.path());
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().any(|n| is_staging_name(OsStr::new(n))));
        assert_eq!(fs::read(&target).unwrap(), b"old");
        drop(staged);
        assert_eq!(names_in(dir.path()), ["a.log"]);
    }

    #[test]
    fn staging_names_are_recognised_and_cleaned_per_target() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            ".a.log.0123abcd.tmp",
            ".a.index.ff.tmp",
            ".b.log.0123.tmp",
            "a.log",
            ".a.log.tmp",
        ] {
            fs::write(dir.path().join(name), b"x").unwrap();
        }
        let removed =
            remove_stale_staging(dir.path(), &["a.log".to_owned(), "a.index".to_owned()]).unwrap();
        assert_eq!(removed, 2);
        assert_eq!(
            names_in(dir.path()),
            [".a.log.tmp", ".b.log.0123.tmp", "a.log"]
        );
        assert_eq!(
            remove_stale_staging(&dir.path().join("absent"), &["a.log".to_owned()]).unwrap(),
            0
        );
        assert!(!is_staging_name(OsStr::new("a.log")));
        assert!(is_staging_name(OsStr::new(".a.log.1.tmp")));
    }

    #[test]
    fn a_target_without_parent_is_refused() {
        let err = publish_bytes(Path::new("/"), b"x").unwrap_err();
        assert!(
            matches!(err, RemoteStorageError::InvalidArgument(_)),
            "{err:?}"
        );
    }

    #[test]
    fn creating_directories_fsyncs_the_parent_of_each_new_one() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        fs::create_dir(root.join("a")).unwrap();
        let deep = root.join("a").join("b").join("c").join("d");
        let (result, synced) = sync_log::capture(|| create_dir_all_durable(&deep));
        result.unwrap();
        assert!(deep.is_dir());
        let a = root.join("a");
        assert_eq!(synced, [a.clone(), a.join("b"), a.join("b").join("c")]);

        // Existing directories cost nothing; only the new sibling's parent is synced.
        let (result, synced) = sync_log::capture(|| create_dir_all_durable(&deep));
        result.unwrap();
        assert_eq!(synced, Vec::<PathBuf>::new());
        let sibling = a.join("b").join("c").join("e");
        let (result, synced) = sync_log::capture(|| create_dir_all_durable(&sibling));
        result.unwrap();
        assert_eq!(synced, [a.join("b").join("c")]);
    }

    #[test]
    fn a_file_in_the_way_of_a_directory_is_an_error() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("f"), b"x").unwrap();
        for dir in [root.path().join("f"), root.path().join("f").join("g")] {
            let (result, synced) = sync_log::capture(|| create_dir_all_durable(&dir));
            let err = result.unwrap_err();
            assert!(
                matches!(
                    &err,
                    RemoteStorageError::Io {
                        operation: "create directory",
                        ..
                    }
                ),
                "{dir:?}: {err:?}"
            );
            assert_eq!(synced, Vec::<PathBuf>::new(), "{dir:?}");
        }
    }

    #[test]
    fn publishing_into_new_directories_makes_each_of_them_durable() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("x").join("y");
        let (result, synced) = sync_log::capture(|| publish_bytes(&dir.join("f"), b"z"));
        assert_eq!(result.unwrap(), 1);
        // Each new directory's entry in its parent, then the file's entry in its directory.
        assert_eq!(
            synced,
            [root.path().to_path_buf(), root.path().join("x"), dir]
        );
    }
}
