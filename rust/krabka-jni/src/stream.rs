//! An open segment stream: the reader a fetch returned, read in bulk chunks.

use {
    krabka_remote_storage::{RemoteStorageError, SegmentReader},
    std::{
        io::{ErrorKind, Read},
        sync::{Mutex, PoisonError},
    },
};

/// Most bytes one read call moves across JNI (1 MiB). The Java stream asks for
/// its buffer size (64 KiB) or the caller's array, whichever is larger.
pub const MAX_CHUNK: usize = 1024 * 1024;

/// A segment stream held behind a handle.
pub struct SegmentStream {
    inner: Mutex<Inner>,
}

struct Inner {
    reader: SegmentReader,
    buffer: Vec<u8>,
    finished: bool,
}

impl std::fmt::Debug for SegmentStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentStream").finish_non_exhaustive()
    }
}

impl SegmentStream {
    /// Wraps the reader of a fetch.
    #[must_use]
    pub fn new(reader: SegmentReader) -> Self {
        Self {
            inner: Mutex::new(Inner {
                reader,
                buffer: Vec::new(),
                finished: false,
            }),
        }
    }

    /// Reads up to `max` bytes (capped at [`MAX_CHUNK`]) and hands them to
    /// `sink`; fills the chunk unless the stream ends first. Returns the count
    /// handed over, 0 only at the end of the stream.
    ///
    /// # Errors
    /// The reader's I/O error, or the sink's error.
    pub fn read_chunk<E: From<RemoteStorageError>>(
        &self,
        max: usize,
        sink: impl FnOnce(&[u8]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Inner {
            reader,
            buffer,
            finished,
        } = &mut *inner;
        let want = max.min(MAX_CHUNK);
        if buffer.len() < want {
            buffer.resize(want, 0);
        }
        let mut filled = 0;
        while filled < want && !*finished {
            let Some(space) = buffer.get_mut(filled..want) else {
                break;
            };
            match reader.read(space) {
                Ok(0) => *finished = true,
                Ok(n) => filled += n,
                Err(err) if err.kind() == ErrorKind::Interrupted => {}
                Err(err) => {
                    return Err(RemoteStorageError::io("read", "remote segment stream", err).into());
                }
            }
        }
        sink(buffer.get(..filled).unwrap_or_default())?;
        Ok(filled)
    }
}

#[cfg(test)]
mod tests {
    use {super::*, std::io::Cursor};

    /// A reader that returns at most 3 bytes per call, like a network body.
    struct Trickle(Cursor<Vec<u8>>);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let len = buf.len().min(3);
            self.0.read(&mut buf[..len])
        }
    }

    #[test]
    fn chunks_are_filled_across_short_reads_until_the_end() {
        let data: Vec<u8> = (0..=255).collect();
        let stream = SegmentStream::new(Box::new(Trickle(Cursor::new(data.clone()))));
        let mut out = Vec::new();
        loop {
            let n = stream
                .read_chunk::<RemoteStorageError>(100, |chunk| {
                    out.extend_from_slice(chunk);
                    Ok(())
                })
                .unwrap();
            if n == 0 {
                break;
            }
            assert!(n == 100 || out.len() == data.len(), "short chunk {n}");
        }
        assert_eq!(out, data);
    }

    #[test]
    fn read_errors_are_typed() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::from(ErrorKind::ConnectionReset))
            }
        }
        let stream = SegmentStream::new(Box::new(Broken));
        let err = stream
            .read_chunk::<RemoteStorageError>(10, |_| Ok(()))
            .unwrap_err();
        assert!(matches!(err, RemoteStorageError::Io { .. }));
    }
}
