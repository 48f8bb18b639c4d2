//! The bytes of an upload as owned pieces, and parts cut from them without
//! copying.
//!
//! A file is read one part at a time, each into its own buffer; an encoder
//! hands over each chunk it sealed. A part is a list of such pieces (a
//! piece split at a part boundary is shared, not copied), so the bytes a
//! source produced are the bytes sent.

use {
    bytes::Bytes,
    std::{
        collections::VecDeque,
        io::{self, Read},
        sync::mpsc,
    },
};

/// A source of an upload's bytes, in order, as owned pieces.
pub trait Pieces: Send {
    /// The next piece (never empty), or `None` at the end.
    ///
    /// # Errors
    /// The source's I/O errors.
    fn next_piece(&mut self) -> io::Result<Option<Bytes>>;
}

/// Pieces of up to `piece_len` bytes read from a reader, each into its own
/// buffer (fewer bytes only at the end).
#[derive(Debug)]
pub struct ReadPieces<R> {
    reader: R,
    piece_len: usize,
    done: bool,
}

impl<R> ReadPieces<R> {
    /// Pieces of `reader`, `piece_len` bytes each (at least one).
    pub fn new(reader: R, piece_len: usize) -> Self {
        Self {
            reader,
            piece_len: piece_len.max(1),
            done: false,
        }
    }
}

impl<R: Read + Send> Pieces for ReadPieces<R> {
    fn next_piece(&mut self) -> io::Result<Option<Bytes>> {
        if self.done {
            return Ok(None);
        }
        let piece = read_mapped(&mut self.reader, self.piece_len)?;
        if piece.len() < self.piece_len {
            self.done = true;
        }
        Ok((!piece.is_empty()).then_some(piece))
    }
}

/// Up to `len` bytes of `reader` (fewer only at its end) in an anonymous
/// memory mapping of their own, unmapped when the last `Bytes` of it is
/// dropped.
///
/// Part buffers are megabytes each and live until their request ends. From
/// the allocator, a freed buffer of that size raises glibc's mmap
/// threshold, after which the next ones come from the heaps of the many
/// threads that read parts, and stay there: a 512 MiB copy with 16 parts of
/// 5 MiB in flight peaked at 114–119 MiB of RSS that way, 94 MiB with the
/// threshold pinned. A mapping of its own goes back to the system the
/// moment its part is sent.
fn read_mapped(reader: &mut impl Read, len: usize) -> io::Result<Bytes> {
    // Populated at once: one call maps every page, where touching them one
    // by one would fault on each (a quarter of a million faults per GB).
    let mut map = memmap2::MmapOptions::new()
        .len(len.max(1))
        .populate()
        .map_anon()?;
    let mut filled = 0;
    while filled < len {
        match reader.read(&mut map[filled..len]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(Bytes::from_owner(map).slice(..filled))
}

/// Produces a source's pieces on a thread of its own, up to `depth` ahead
/// of the reader: an encoder seals the next chunks while the upload waits
/// for a part slot. Dropping it stops the thread at its next piece.
pub struct Ahead {
    pieces: mpsc::Receiver<io::Result<Bytes>>,
    done: bool,
}

impl Ahead {
    /// Starts producing `source`'s pieces, at most `depth` (at least one)
    /// waiting to be taken.
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn spawn(mut source: Box<dyn Pieces>, depth: usize) -> io::Result<Self> {
        let (send, pieces) = mpsc::sync_channel(depth.max(1));
        std::thread::Builder::new()
            .name("krabka-upload-ahead".to_owned())
            .spawn(move || {
                loop {
                    match source.next_piece() {
                        Ok(Some(piece)) => {
                            if send.send(Ok(piece)).is_err() {
                                return;
                            }
                        }
                        Ok(None) => return,
                        Err(err) => {
                            let _ = send.send(Err(err));
                            return;
                        }
                    }
                }
            })?;
        Ok(Self {
            pieces,
            done: false,
        })
    }
}

impl std::fmt::Debug for Ahead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ahead")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Pieces for Ahead {
    fn next_piece(&mut self) -> io::Result<Option<Bytes>> {
        if self.done {
            return Ok(None);
        }
        match self.pieces.recv() {
            Ok(piece) => piece.map(Some),
            // The thread ended: after the last piece or its error.
            Err(mpsc::RecvError) => {
                self.done = true;
                Ok(None)
            }
        }
    }
}

/// Cuts a source's pieces into parts of a given size.
pub struct PartCutter {
    source: Box<dyn Pieces>,
    /// Pieces taken from the source and not yet in a part.
    pending: VecDeque<Bytes>,
}

impl std::fmt::Debug for PartCutter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartCutter")
            .field(
                "pending",
                &self.pending.iter().map(Bytes::len).sum::<usize>(),
            )
            .finish_non_exhaustive()
    }
}

impl PartCutter {
    /// Parts of `source`.
    #[must_use]
    pub fn new(source: Box<dyn Pieces>) -> Self {
        Self {
            source,
            pending: VecDeque::new(),
        }
    }

    /// The next part: pieces totalling `size` bytes (fewer only at the
    /// end; none after it). A piece across the boundary is split, its rest
    /// kept for the next part.
    ///
    /// # Errors
    /// The source's I/O errors.
    pub fn next_part(&mut self, size: usize) -> io::Result<Vec<Bytes>> {
        let mut part = Vec::new();
        let mut len = 0usize;
        while len < size {
            let piece = match self.pending.pop_front() {
                Some(piece) => piece,
                None => match self.source.next_piece()? {
                    Some(piece) => piece,
                    None => break,
                },
            };
            let room = size - len;
            if piece.len() > room {
                self.pending.push_front(piece.slice(room..));
                part.push(piece.slice(..room));
                len += room;
            } else if !piece.is_empty() {
                len += piece.len();
                part.push(piece);
            }
        }
        Ok(part)
    }

    /// Puts `part` back in front of what is still to be cut.
    pub fn unread(&mut self, part: Vec<Bytes>) {
        for piece in part.into_iter().rev() {
            self.pending.push_front(piece);
        }
    }
}

/// Bytes in the pieces of a part.
#[must_use]
pub fn part_len(part: &[Bytes]) -> usize {
    part.iter().map(Bytes::len).sum()
}

/// A part's pieces as one buffer: shared when it is one piece, copied
/// otherwise (for payloads small enough for one PUT).
#[must_use]
pub fn joined(part: Vec<Bytes>) -> Bytes {
    if part.len() == 1 {
        return part.into_iter().next().unwrap_or_default();
    }
    let mut all = Vec::with_capacity(part_len(&part));
    for piece in &part {
        all.extend_from_slice(piece);
    }
    Bytes::from(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out a few bytes at a time, interrupted before
    /// every read, then fails if asked past its end with `fail_at_end`.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
        interrupt: bool,
        fail_at_end: bool,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(io::ErrorKind::Interrupted.into());
            }
            if self.at == self.bytes.len() && self.fail_at_end {
                return Err(io::Error::other("the disk went away"));
            }
            let n = buf.len().min(7).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn a_mapped_piece_holds_what_short_and_interrupted_reads_gave() {
        let bytes: Vec<u8> = (0..100u8).collect();
        let mut reader = Trickle {
            bytes: bytes.clone(),
            at: 0,
            interrupt: false,
            fail_at_end: false,
        };
        assert_eq!(read_mapped(&mut reader, 64).unwrap(), bytes[..64]);
        assert_eq!(read_mapped(&mut reader, 64).unwrap(), bytes[64..]);
        assert!(read_mapped(&mut reader, 64).unwrap().is_empty());
        let mut failing = Trickle {
            bytes,
            at: 0,
            interrupt: false,
            fail_at_end: true,
        };
        let err = read_mapped(&mut failing, 200).unwrap_err();
        assert_eq!(err.to_string(), "the disk went away");
    }

    /// Pieces of the given lengths, numbered bytes in order.
    struct Given(VecDeque<Bytes>);

    impl Given {
        fn lengths(lengths: &[usize]) -> Self {
            let mut next = 0u8;
            Self(
                lengths
                    .iter()
                    .map(|len| {
                        Bytes::from(
                            (0..*len)
                                .map(|_| {
                                    next = next.wrapping_add(1);
                                    next
                                })
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect(),
            )
        }

        fn all(&self) -> Vec<u8> {
            self.0.iter().flat_map(|piece| piece.to_vec()).collect()
        }
    }

    impl Pieces for Given {
        fn next_piece(&mut self) -> io::Result<Option<Bytes>> {
            Ok(self.0.pop_front())
        }
    }

    struct Failing;

    impl Pieces for Failing {
        fn next_piece(&mut self) -> io::Result<Option<Bytes>> {
            Err(io::Error::other("the encoder failed"))
        }
    }

    fn cut_all(cutter: &mut PartCutter, size: usize) -> Vec<Vec<u8>> {
        let mut parts = Vec::new();
        loop {
            let part = cutter.next_part(size).unwrap();
            if part.is_empty() {
                return parts;
            }
            parts.push(joined(part).to_vec());
        }
    }

    #[test]
    fn parts_are_the_pieces_in_order_cut_at_the_part_size() {
        for lengths in [
            vec![10, 10, 10],
            vec![3, 7, 1, 25, 4],
            vec![32],
            vec![1; 33],
            vec![],
        ] {
            let given = Given::lengths(&lengths);
            let all = given.all();
            let mut cutter = PartCutter::new(Box::new(given));
            let parts = cut_all(&mut cutter, 8);
            assert_eq!(parts.concat(), all, "{lengths:?}");
            let (last, whole) = parts
                .split_last()
                .map_or((None, &[][..]), |(l, w)| (Some(l), w));
            assert!(whole.iter().all(|part| part.len() == 8), "{lengths:?}");
            assert!(last.is_none_or(|part| !part.is_empty() && part.len() <= 8));
        }
    }

    #[test]
    fn a_part_put_back_is_cut_again_first() {
        let given = Given::lengths(&[5, 5, 5]);
        let all = given.all();
        let mut cutter = PartCutter::new(Box::new(given));
        let first = cutter.next_part(7).unwrap();
        assert_eq!(part_len(&first), 7);
        cutter.unread(first);
        assert_eq!(cut_all(&mut cutter, 4).concat(), all);
    }

    #[test]
    fn a_split_piece_is_shared_not_copied() {
        let piece = Bytes::from(vec![7u8; 12]);
        let base = piece.as_ptr();
        let mut cutter = PartCutter::new(Box::new(Given(VecDeque::from([piece]))));
        let first = cutter.next_part(5).unwrap();
        let second = cutter.next_part(5).unwrap();
        assert_eq!(first[0].as_ptr(), base);
        assert_eq!(second[0].as_ptr(), base.wrapping_add(5));
    }

    #[test]
    fn read_pieces_cover_the_reader_exactly() {
        let bytes: Vec<u8> = (0..=255).cycle().take(1000).collect();
        for piece_len in [1, 7, 999, 1000, 1001] {
            let mut pieces = ReadPieces::new(&bytes[..], piece_len);
            let mut all = Vec::new();
            while let Some(piece) = pieces.next_piece().unwrap() {
                assert!(!piece.is_empty() && piece.len() <= piece_len);
                all.extend_from_slice(&piece);
            }
            assert_eq!(all, bytes, "{piece_len}");
        }
    }

    #[test]
    fn pieces_ahead_arrive_in_order_and_errors_pass_through() {
        let given = Given::lengths(&[3, 9, 1, 40]);
        let all = given.all();
        let mut ahead = Ahead::spawn(Box::new(given), 2).unwrap();
        let mut seen = Vec::new();
        while let Some(piece) = ahead.next_piece().unwrap() {
            seen.extend_from_slice(&piece);
        }
        assert_eq!(seen, all);
        assert!(ahead.next_piece().unwrap().is_none());

        let mut failing = Ahead::spawn(Box::new(Failing), 2).unwrap();
        let err = failing.next_piece().unwrap_err();
        assert_eq!(err.to_string(), "the encoder failed");
    }

    #[test]
    fn dropping_the_reader_stops_the_thread() {
        use std::sync::{
            Arc,
            atomic::{AtomicBool, Ordering},
        };
        /// Endless pieces; says when the thread dropped it.
        struct Endless(Arc<AtomicBool>);
        impl Pieces for Endless {
            fn next_piece(&mut self) -> io::Result<Option<Bytes>> {
                Ok(Some(Bytes::from_static(b"x")))
            }
        }
        impl Drop for Endless {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let stopped = Arc::new(AtomicBool::new(false));
        let mut ahead = Ahead::spawn(Box::new(Endless(Arc::clone(&stopped))), 1).unwrap();
        assert!(ahead.next_piece().unwrap().is_some());
        assert!(!stopped.load(Ordering::SeqCst));
        drop(ahead);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !stopped.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(stopped.load(Ordering::SeqCst), "the thread still runs");
    }
}
