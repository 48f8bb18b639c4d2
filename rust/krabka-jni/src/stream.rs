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

/// Bytes a read moves at a time from the reader to the sink (64 KiB): the
/// stream's one buffer. A read of 1 MiB goes to the Java array piece by
/// piece, so no buffer of the whole read is allocated (and zeroed, and its
/// pages faulted in) per fetch, and each piece is still in the CPU's cache
/// when it is copied on.
pub const PIECE: usize = 64 * 1024;

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
    /// `sink` in pieces of at most [`PIECE`] bytes, each with its offset from
    /// the start of this read; fills the chunk unless the stream ends first.
    /// Returns the count handed over, 0 only at the end of the stream.
    ///
    /// # Errors
    /// The reader's I/O error, or the sink's error.
    pub fn read_chunk<E: From<RemoteStorageError>>(
        &self,
        max: usize,
        mut sink: impl FnMut(usize, &[u8]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let Inner {
            reader,
            buffer,
            finished,
        } = &mut *inner;
        let want = max.min(MAX_CHUNK);
        if buffer.is_empty() {
            buffer.resize(PIECE, 0);
        }
        let mut handed = 0;
        while handed < want && !*finished {
            let piece = buffer
                .get_mut(..(want - handed).min(PIECE))
                .unwrap_or_default();
            let filled = fill(reader, piece, finished)?;
            if filled > 0 {
                sink(handed, piece.get(..filled).unwrap_or_default())?;
                handed += filled;
            }
        }
        Ok(handed)
    }
}

/// Reads from `reader` until `space` is full or the stream ends (then sets
/// `finished`); returns the bytes read.
fn fill(
    reader: &mut SegmentReader,
    space: &mut [u8],
    finished: &mut bool,
) -> Result<usize, RemoteStorageError> {
    let mut filled = 0;
    while filled < space.len() && !*finished {
        match reader.read(space.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => *finished = true,
            Ok(n) => filled += n,
            Err(err) if err.kind() == ErrorKind::Interrupted => {}
            Err(err) => return Err(RemoteStorageError::io("read", "remote segment stream", err)),
        }
    }
    Ok(filled)
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
                .read_chunk::<RemoteStorageError>(100, |_, piece| {
                    out.extend_from_slice(piece);
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
            .read_chunk::<RemoteStorageError>(10, |_, _| Ok(()))
            .unwrap_err();
        assert!(matches!(err, RemoteStorageError::Io { .. }));
    }

    #[test]
    fn a_large_read_arrives_in_pieces_at_their_offsets() {
        let data: Vec<u8> = (0..3 * PIECE + 17).map(|i| (i * 7 % 251) as u8).collect();
        let stream = SegmentStream::new(Box::new(Cursor::new(data.clone())));
        let mut out = vec![0; MAX_CHUNK];
        let mut pieces = Vec::new();
        let n = stream
            .read_chunk::<RemoteStorageError>(MAX_CHUNK, |offset, piece| {
                assert!(piece.len() <= PIECE);
                out[offset..offset + piece.len()].copy_from_slice(piece);
                pieces.push((offset, piece.len()));
                Ok(())
            })
            .unwrap();
        assert_eq!(n, data.len());
        assert_eq!(&out[..n], &data[..]);
        assert_eq!(
            pieces,
            vec![
                (0, PIECE),
                (PIECE, PIECE),
                (2 * PIECE, PIECE),
                (3 * PIECE, 17)
            ]
        );
        // The end of the stream: nothing handed over.
        let end = stream
            .read_chunk::<RemoteStorageError>(MAX_CHUNK, |_, _| panic!("no piece at the end"))
            .unwrap();
        assert_eq!(end, 0);
    }

    #[test]
    fn a_read_is_capped_at_the_most_one_call_moves() {
        let data = vec![5u8; MAX_CHUNK + PIECE];
        let stream = SegmentStream::new(Box::new(Cursor::new(data)));
        let mut handed = 0;
        let n = stream
            .read_chunk::<RemoteStorageError>(usize::MAX, |_, piece| {
                handed += piece.len();
                Ok(())
            })
            .unwrap();
        assert_eq!((n, handed), (MAX_CHUNK, MAX_CHUNK));
    }
}
