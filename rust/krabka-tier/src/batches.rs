//! [`BatchStream`]: the record batches of a segment's `.log`, streamed from
//! the store one batch at a time.

use {
    crate::TierError,
    futures_util::{StreamExt, stream::BoxStream},
    object_store::{ObjectStore, path::Path},
};

/// Bytes before a batch's length field are its base offset (8) and the
/// length itself (4); the length counts the bytes after it.
const LENGTH_END: usize = 12;

/// The smallest batch (magic 2) after the length field.
const MIN_BATCH_AFTER_LENGTH: usize = 49;

/// The largest batch accepted, so a corrupt length cannot make the reader
/// buffer without end (Kafka's `message.max.bytes` is 1 MiB by default).
pub const MAX_BATCH_BYTES: usize = 256 * 1024 * 1024;

/// One batch's bytes and its byte position in the `.log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBatch {
    /// The batch, from its base offset to its last byte.
    pub bytes: Vec<u8>,
    /// Its position in the `.log`.
    pub position: u64,
}

impl RawBatch {
    /// The batch's partition leader epoch and base offset, from its header
    /// (`None` for message formats before v2, which have no epoch).
    #[must_use]
    pub fn leader_epoch(&self) -> Option<(i32, i64)> {
        let base = i64::from_be_bytes(self.bytes.get(..8)?.try_into().ok()?);
        let epoch = i32::from_be_bytes(self.bytes.get(12..16)?.try_into().ok()?);
        (self.bytes.get(16) == Some(&2) && epoch >= 0).then_some((epoch, base))
    }

    /// The offset of the batch's last record (base offset plus last offset
    /// delta, which survives compaction), from its header; `None` for
    /// message formats before v2.
    #[must_use]
    pub fn last_offset(&self) -> Option<i64> {
        let base = i64::from_be_bytes(self.bytes.get(..8)?.try_into().ok()?);
        let delta = i32::from_be_bytes(self.bytes.get(23..27)?.try_into().ok()?);
        (self.bytes.get(16) == Some(&2)).then(|| base.saturating_add(i64::from(delta)))
    }

    /// The batch's largest record timestamp, from its header; `None` for
    /// message formats before v2.
    #[must_use]
    pub fn max_timestamp(&self) -> Option<i64> {
        let timestamp = i64::from_be_bytes(self.bytes.get(35..43)?.try_into().ok()?);
        (self.bytes.get(16) == Some(&2)).then_some(timestamp)
    }
}

/// Why a segment's batches stop before its end.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StreamProblem {
    /// The `.log` ends inside a batch.
    #[error("truncated: the log ends {missing} byte(s) short of the batch at position {position}")]
    Truncated {
        /// The position of the incomplete batch.
        position: u64,
        /// How many bytes it lacks (at least).
        missing: usize,
    },
    /// A batch length no batch can have: the bytes after it cannot be
    /// framed.
    #[error("the batch at position {position} declares {length} bytes")]
    BadLength {
        /// Its position.
        position: u64,
        /// The length it declares.
        length: i64,
    },
}

/// The batches of one `.log` object, read as a stream.
pub struct BatchStream {
    chunks: BoxStream<'static, object_store::Result<bytes::Bytes>>,
    key: String,
    buffer: Vec<u8>,
    /// The position in the `.log` of `buffer[0]`.
    position: u64,
    done: bool,
}

impl std::fmt::Debug for BatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchStream")
            .field("key", &self.key)
            .field("position", &self.position)
            .finish_non_exhaustive()
    }
}

impl BatchStream {
    /// Starts reading the `.log` at `key`.
    ///
    /// # Errors
    /// [`TierError::Store`] when it cannot be opened.
    pub async fn open(store: &dyn ObjectStore, key: &str) -> Result<Self, TierError> {
        Self::open_at(store, key, 0).await
    }

    /// Starts reading the `.log` at `key` from byte `position`, which must
    /// be where a batch starts (an offset index entry's position).
    ///
    /// # Errors
    /// [`TierError::Store`] when it cannot be opened (a position past the
    /// end included).
    pub async fn open_at(
        store: &dyn ObjectStore,
        key: &str,
        position: u64,
    ) -> Result<Self, TierError> {
        let options = object_store::GetOptions {
            range: (position > 0).then_some(object_store::GetRange::Offset(position)),
            ..object_store::GetOptions::default()
        };
        let got = store
            .get_opts(&Path::from(key), options)
            .await
            .map_err(|source| TierError::Store {
                operation: "read of",
                key: key.to_owned(),
                source,
            })?;
        Ok(Self {
            chunks: got.into_stream(),
            key: key.to_owned(),
            buffer: Vec::new(),
            position,
            done: false,
        })
    }

    /// The next batch, `Ok(None)` at the end of the log.
    ///
    /// # Errors
    /// `Err(Ok(problem))` when the log cannot be framed further (the stream
    /// is then done); `Err(Err(store error))` when reading failed.
    pub async fn next(&mut self) -> Result<Option<RawBatch>, Result<StreamProblem, TierError>> {
        if self.done {
            return Ok(None);
        }
        loop {
            if let Some(size) = self.framed_size().map_err(|p| {
                self.done = true;
                Ok(p)
            })? {
                if self.buffer.len() >= size {
                    let rest = self.buffer.split_off(size);
                    let bytes = std::mem::replace(&mut self.buffer, rest);
                    let batch = RawBatch {
                        bytes,
                        position: self.position,
                    };
                    self.position += size as u64;
                    return Ok(Some(batch));
                }
            }
            match self.chunks.next().await {
                Some(Ok(chunk)) => self.buffer.extend_from_slice(&chunk),
                Some(Err(source)) => {
                    self.done = true;
                    return Err(Err(TierError::Store {
                        operation: "read of",
                        key: self.key.clone(),
                        source,
                    }));
                }
                None => {
                    self.done = true;
                    if self.buffer.is_empty() {
                        return Ok(None);
                    }
                    let needed = self.framed_size().ok().flatten().unwrap_or(LENGTH_END);
                    return Err(Ok(StreamProblem::Truncated {
                        position: self.position,
                        missing: needed.saturating_sub(self.buffer.len()).max(1),
                    }));
                }
            }
        }
    }

    /// The full size of the batch at the start of the buffer, once its
    /// length field is in.
    fn framed_size(&self) -> Result<Option<usize>, StreamProblem> {
        let Some(field) = self.buffer.get(8..LENGTH_END) else {
            return Ok(None);
        };
        let length = i32::from_be_bytes([field[0], field[1], field[2], field[3]]);
        match usize::try_from(length) {
            Ok(length)
                if (MIN_BATCH_AFTER_LENGTH..=MAX_BATCH_BYTES - LENGTH_END).contains(&length) =>
            {
                Ok(Some(LENGTH_END + length))
            }
            _ => Err(StreamProblem::BadLength {
                position: self.position,
                length: i64::from(length),
            }),
        }
    }
}
