//! The records inside a magic v2 batch: each a varint length, then
//! attributes, timestamp and offset deltas, key, value and headers
//! (Kafka's `DefaultRecord`).

use {
    super::{
        ControlRecordType, EndTransactionMarker, LogOffset, TimestampMs, corruption::Corruption,
        cursor::Cursor,
    },
    crate::Result,
    std::borrow::Cow,
};

/// The (decompressed) records section of one batch, ready to iterate.
///
/// Borrowed from the batch when it is uncompressed, owned when it was
/// decompressed. Made by [`RecordBatch::records`](super::RecordBatch::records).
#[derive(Debug, Clone)]
pub struct Records<'a> {
    bytes: Cow<'a, [u8]>,
    context: RecordContext,
}

/// What records need from their batch header to resolve their fields.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordContext {
    /// Byte position of the batch, for error messages.
    pub(crate) batch_position: usize,
    pub(crate) base_offset: LogOffset,
    pub(crate) base_timestamp: TimestampMs,
    /// `Some(max_timestamp)` when the batch uses log-append time: every
    /// record then reads the batch's max timestamp.
    pub(crate) log_append_time: Option<TimestampMs>,
    pub(crate) count: u32,
}

impl<'a> Records<'a> {
    pub(crate) fn new(bytes: Cow<'a, [u8]>, context: RecordContext) -> Self {
        Self { bytes, context }
    }

    /// The record count the batch header declares.
    #[must_use]
    pub fn declared_count(&self) -> u32 {
        self.context.count
    }

    /// The uncompressed records section.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Iterates the records in order. Each item is a record or the error
    /// that ended the iteration; after an error the iterator is done.
    ///
    /// After the declared count of records, leftover bytes are an error
    /// (Kafka: "records still remaining").
    #[must_use]
    pub fn iter(&self) -> RecordIter<'_> {
        RecordIter {
            cursor: Cursor::new(&self.bytes),
            context: self.context,
            next_index: 0,
            done: false,
        }
    }
}

impl<'r> IntoIterator for &'r Records<'_> {
    type Item = Result<Record<'r>>;
    type IntoIter = RecordIter<'r>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over the records of a batch; see [`Records::iter`].
#[derive(Debug, Clone)]
pub struct RecordIter<'r> {
    cursor: Cursor<'r>,
    context: RecordContext,
    next_index: u32,
    done: bool,
}

impl<'r> RecordIter<'r> {
    /// The next record with the internal error kind.
    pub(crate) fn next_record(&mut self) -> Option<Result<Record<'r>, Corruption>> {
        if self.done {
            return None;
        }
        if self.next_index >= self.context.count {
            self.done = true;
            let left = self.cursor.remaining();
            return (left != 0).then_some(Err(Corruption::TrailingRecordBytes {
                count: self.context.count,
                left,
            }));
        }
        let index = self.next_index;
        self.next_index = index.saturating_add(1);
        let result = Record::decode(&mut self.cursor, index, &self.context);
        if result.is_err() {
            self.done = true;
        }
        Some(result)
    }
}

impl<'r> Iterator for RecordIter<'r> {
    type Item = Result<Record<'r>>;

    fn next(&mut self) -> Option<Self::Item> {
        let position = self.context.batch_position;
        self.next_record()
            .map(|r| r.map_err(|c| c.in_batch_at(position)))
    }
}

/// One record, borrowing its key, value and headers from the records
/// section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'r> {
    offset: LogOffset,
    timestamp: TimestampMs,
    attributes: i8,
    key: Option<&'r [u8]>,
    value: Option<&'r [u8]>,
    headers: RecordHeaders<'r>,
}

impl<'r> Record<'r> {
    /// Decodes the record at the cursor (`index` is its place in the
    /// batch, for error messages).
    fn decode(
        cursor: &mut Cursor<'r>,
        index: u32,
        ctx: &RecordContext,
    ) -> Result<Self, Corruption> {
        let length = cursor.varint("record length")?;
        let declared = usize::try_from(length)
            .map_err(|_| Corruption::NegativeRecordLength { index, length })?;
        let body = cursor.take(declared, "record")?;
        let mut c = Cursor::new(body);
        let attributes = i8::from_ne_bytes([c.u8("record attributes")?]);
        let timestamp_delta = c.varlong("record timestamp delta")?;
        let offset_delta = c.varint("record offset delta")?;
        let key = nullable_bytes(&mut c, "record key")?;
        let value = nullable_bytes(&mut c, "record value")?;
        let headers = RecordHeaders::decode(&mut c, index)?;
        if c.remaining() != 0 {
            return Err(Corruption::RecordSizeMismatch {
                index,
                declared,
                used: declared.saturating_sub(c.remaining()),
            });
        }
        let offset =
            ctx.base_offset
                .checked_add(offset_delta.into())
                .ok_or(Corruption::OffsetOverflow {
                    what: "record",
                    base: ctx.base_offset,
                    delta: offset_delta.into(),
                })?;
        let timestamp = match ctx.log_append_time {
            Some(append_time) => append_time,
            None => ctx.base_timestamp.checked_add(timestamp_delta).ok_or(
                Corruption::TimestampOverflow {
                    base: ctx.base_timestamp,
                    delta: timestamp_delta,
                },
            )?,
        };
        Ok(Self {
            offset,
            timestamp,
            attributes,
            key,
            value,
            headers,
        })
    }

    /// The record's absolute offset: base offset plus offset delta.
    #[must_use]
    pub fn offset(&self) -> LogOffset {
        self.offset
    }

    /// The record's timestamp: base timestamp plus timestamp delta, or the
    /// batch's max timestamp when the batch uses log-append time.
    #[must_use]
    pub fn timestamp(&self) -> TimestampMs {
        self.timestamp
    }

    /// The record attributes byte (unused by Kafka so far).
    #[must_use]
    pub fn attributes(&self) -> i8 {
        self.attributes
    }

    /// The key, `None` for a null key.
    #[must_use]
    pub fn key(&self) -> Option<&'r [u8]> {
        self.key
    }

    /// The value, `None` for a null value (a tombstone).
    #[must_use]
    pub fn value(&self) -> Option<&'r [u8]> {
        self.value
    }

    /// The headers, in order.
    #[must_use]
    pub fn headers(&self) -> RecordHeaders<'r> {
        self.headers
    }

    /// The control record type from the key. Meaningful only for records of
    /// a control batch.
    ///
    /// # Errors
    ///
    /// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
    /// when the key is null or shorter than four bytes.
    pub fn control_type(&self) -> Result<ControlRecordType> {
        ControlRecordType::from_key(self.key.unwrap_or_default())
            .map_err(|c| c.into_error(super::corruption::LOG))
    }

    /// The end-transaction marker of an abort or commit control record:
    /// `Ok(None)` for other control types.
    ///
    /// # Errors
    ///
    /// [`RemoteStorageError::Corrupt`](crate::RemoteStorageError::Corrupt)
    /// when the key or the value is malformed.
    pub fn end_transaction_marker(&self) -> Result<Option<EndTransactionMarker>> {
        let kind = self.control_type()?;
        if !matches!(kind, ControlRecordType::Abort | ControlRecordType::Commit) {
            return Ok(None);
        }
        EndTransactionMarker::from_value(kind, self.value.unwrap_or_default())
            .map(Some)
            .map_err(|c| c.into_error(super::corruption::LOG))
    }
}

/// Reads a varint length and that many bytes; a negative length is null
/// (Kafka reads any negative length as null).
fn nullable_bytes<'r>(
    c: &mut Cursor<'r>,
    what: &'static str,
) -> Result<Option<&'r [u8]>, Corruption> {
    let len = c.varint(what)?;
    match usize::try_from(len) {
        Ok(len) => c.take(len, what).map(Some),
        Err(_) => Ok(None),
    }
}

/// The headers of a record, validated when the record was decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeaders<'r> {
    bytes: &'r [u8],
    count: u32,
}

impl<'r> RecordHeaders<'r> {
    /// Reads the header count and checks every header, keeping the bytes.
    fn decode(c: &mut Cursor<'r>, index: u32) -> Result<Self, Corruption> {
        let count = c.varint("header count")?;
        let count =
            u32::try_from(count).map_err(|_| Corruption::NegativeHeaderCount { index, count })?;
        let start = c.rest();
        for _ in 0..count {
            RecordHeader::decode(c, index)?;
        }
        let used = start.len().saturating_sub(c.remaining());
        Ok(Self {
            bytes: start.split_at(used).0,
            count,
        })
    }

    /// Number of headers.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::try_from(self.count).unwrap_or(usize::MAX)
    }

    /// Whether there are no headers.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl<'r> RecordHeaders<'r> {
    /// Iterates the headers in order.
    #[must_use]
    pub fn iter(&self) -> RecordHeaderIter<'r> {
        RecordHeaderIter {
            cursor: Cursor::new(self.bytes),
            left: self.count,
        }
    }
}

impl<'r> IntoIterator for RecordHeaders<'r> {
    type Item = RecordHeader<'r>;
    type IntoIter = RecordHeaderIter<'r>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over [`RecordHeaders`].
#[derive(Debug, Clone)]
pub struct RecordHeaderIter<'r> {
    cursor: Cursor<'r>,
    left: u32,
}

impl<'r> Iterator for RecordHeaderIter<'r> {
    type Item = RecordHeader<'r>;

    fn next(&mut self) -> Option<Self::Item> {
        self.left = self.left.checked_sub(1)?;
        // The bytes were validated when the record was decoded, so this
        // cannot fail; if it did, the iteration would just end.
        RecordHeader::decode(&mut self.cursor, 0).ok()
    }
}

/// One record header: a key and a nullable value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader<'r> {
    /// The header key (UTF-8 by convention; not checked, as Kafka does not
    /// refuse invalid UTF-8 either).
    pub key: &'r [u8],
    /// The value, `None` for null.
    pub value: Option<&'r [u8]>,
}

impl<'r> RecordHeader<'r> {
    fn decode(c: &mut Cursor<'r>, index: u32) -> Result<Self, Corruption> {
        let key_len = c.varint("header key length")?;
        let key_len =
            usize::try_from(key_len).map_err(|_| Corruption::NegativeHeaderKeyLength {
                index,
                length: key_len,
            })?;
        let key = c.take(key_len, "header key")?;
        let value = nullable_bytes(c, "header value")?;
        Ok(Self { key, value })
    }
}

#[cfg(test)]
mod tests;
