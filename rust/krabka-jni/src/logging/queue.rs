//! The bounded queue between the threads that log and the Java thread that
//! drains, and the byte format of a drained batch.

use {
    super::targets::LogLevel,
    std::{
        sync::{
            Arc, Mutex, PoisonError,
            atomic::{AtomicU64, Ordering},
            mpsc::{
                Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError, sync_channel,
            },
        },
        time::Duration,
    },
};

/// About the most message bytes one batch carries (a batch always carries
/// at least one record).
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;

/// One rendered record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its level (never [`LogLevel::Off`]).
    pub level: LogLevel,
    /// Its target: a Rust module path, or a `log` target.
    pub target: Arc<str>,
    /// The message, with fields, span context and nothing secret.
    pub message: String,
}

/// A bounded multi-producer queue whose push never blocks.
#[derive(Debug)]
pub struct LogQueue {
    sender: SyncSender<Record>,
    receiver: Mutex<Receiver<Record>>,
    capacity: usize,
    queued: AtomicU64,
    dropped: AtomicU64,
    dropped_total: AtomicU64,
}

impl LogQueue {
    /// A queue of `capacity` records.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        let (sender, receiver) = sync_channel(capacity);
        Self {
            sender,
            receiver: Mutex::new(receiver),
            capacity,
            queued: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            dropped_total: AtomicU64::new(0),
        }
    }

    /// How many records it holds at most.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Queues `record`, or drops and counts it when the queue is full.
    /// Never blocks.
    pub fn push(&self, record: Record) {
        match self.sender.try_send(record) {
            Ok(()) => {
                self.queued.fetch_add(1, Ordering::Relaxed);
            }
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                self.dropped_total.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The records dropped since the last call (reset).
    pub fn take_dropped(&self) -> u64 {
        self.dropped.swap(0, Ordering::Relaxed)
    }

    /// Records queued since the queue was made.
    #[must_use]
    pub fn queued(&self) -> u64 {
        self.queued.load(Ordering::Relaxed)
    }

    /// Records dropped since the queue was made.
    #[must_use]
    pub fn dropped_total(&self) -> u64 {
        self.dropped_total.load(Ordering::Relaxed)
    }

    /// Moves queued records into `into` until it holds `max_records` or
    /// about [`MAX_BATCH_BYTES`]; when the queue is empty, waits up to
    /// `wait` for the first one.
    pub fn take(&self, into: &mut Vec<Record>, max_records: usize, wait: Duration) {
        let receiver = self.receiver.lock().unwrap_or_else(PoisonError::into_inner);
        let mut bytes: usize = into.iter().map(|r| r.message.len()).sum();
        while into.len() < max_records && bytes < MAX_BATCH_BYTES {
            let next = if into.is_empty() && !wait.is_zero() {
                receiver.recv_timeout(wait).map_err(|err| match err {
                    RecvTimeoutError::Timeout => TryRecvError::Empty,
                    RecvTimeoutError::Disconnected => TryRecvError::Disconnected,
                })
            } else {
                receiver.try_recv()
            };
            match next {
                Ok(record) => {
                    bytes += record.message.len();
                    into.push(record);
                }
                Err(_) => break,
            }
        }
    }
}

/// Records drained in one call, and how many targets the native side knows
/// (the Java side fetches new ones to learn their levels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Targets in the table.
    pub targets_known: usize,
    /// The records, oldest first.
    pub records: Vec<Record>,
}

impl Batch {
    /// The batch as it crosses JNI, big-endian:
    ///
    /// ```text
    /// u32 targets_known
    /// u32 record count
    /// per record: u8 level code, u16 target length, target (UTF-8),
    ///             u32 message length, message (UTF-8)
    /// ```
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let size: usize = self
            .records
            .iter()
            .map(|r| 7 + r.target.len().min(usize::from(u16::MAX)) + r.message.len())
            .sum();
        let mut out = Vec::with_capacity(8 + size);
        out.extend_from_slice(&saturate_u32(self.targets_known).to_be_bytes());
        out.extend_from_slice(&saturate_u32(self.records.len()).to_be_bytes());
        for record in &self.records {
            let target = truncate(&record.target, usize::from(u16::MAX));
            out.push(record.level.code());
            out.extend_from_slice(
                &u16::try_from(target.len())
                    .unwrap_or(u16::MAX)
                    .to_be_bytes(),
            );
            out.extend_from_slice(target.as_bytes());
            out.extend_from_slice(&saturate_u32(record.message.len()).to_be_bytes());
            out.extend_from_slice(record.message.as_bytes());
        }
        out
    }
}

fn saturate_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `text` cut to at most `max` bytes at a character boundary.
#[must_use]
pub fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
