//! The "wincode" body encoding of WAL index values, byte-compatible with
//! Krabka's: integers little-endian, a string or sequence as a `u64`
//! little-endian length followed by its items, a UUID as the length 16
//! followed by its 16 bytes, struct fields in declaration order.

use uuid::Uuid;

/// Why a wincode body did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WincodeError {
    /// The body ends before a field does.
    #[error("body is truncated: {needed} more byte(s) needed, {remaining} left")]
    Truncated {
        /// Bytes the next field needs (for a sequence, at least its items' minimum size).
        needed: u64,
        /// Bytes left in the body.
        remaining: usize,
    },
    /// Bytes follow the last field.
    #[error("body has {extra} trailing byte(s)")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// A string field is not UTF-8.
    #[error("a string field is not valid UTF-8")]
    InvalidUtf8,
    /// A UUID field does not declare 16 bytes.
    #[error("a UUID field declares {found} bytes, expected 16")]
    UuidLength {
        /// The declared length.
        found: u64,
    },
}

/// Appends wincode fields to a buffer.
#[derive(Debug, Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn i32(&mut self, value: i32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn i64(&mut self, value: i64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn len(&mut self, len: usize) {
        self.u64(u64::try_from(len).unwrap_or(u64::MAX));
    }

    pub(crate) fn str(&mut self, value: &str) {
        self.len(value.len());
        self.0.extend_from_slice(value.as_bytes());
    }

    pub(crate) fn uuid(&mut self, value: &Uuid) {
        self.len(16);
        self.0.extend_from_slice(value.as_bytes());
    }
}

/// Reads wincode fields from a borrowed body, never past its end.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(body: &'a [u8]) -> Self {
        Self { rest: body }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], WincodeError> {
        let (head, rest) = self
            .rest
            .split_first_chunk::<N>()
            .ok_or(WincodeError::Truncated {
                needed: N as u64,
                remaining: self.rest.len(),
            })?;
        self.rest = rest;
        Ok(*head)
    }

    fn take_slice(&mut self, len: u64) -> Result<&'a [u8], WincodeError> {
        let truncated = WincodeError::Truncated {
            needed: len,
            remaining: self.rest.len(),
        };
        let len = usize::try_from(len).map_err(|_| truncated.clone())?;
        if len > self.rest.len() {
            return Err(truncated);
        }
        let (head, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(head)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, WincodeError> {
        self.take().map(u32::from_le_bytes)
    }

    pub(crate) fn i32(&mut self) -> Result<i32, WincodeError> {
        self.take().map(i32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Result<u64, WincodeError> {
        self.take().map(u64::from_le_bytes)
    }

    pub(crate) fn i64(&mut self) -> Result<i64, WincodeError> {
        self.take().map(i64::from_le_bytes)
    }

    pub(crate) fn str(&mut self) -> Result<String, WincodeError> {
        let len = self.u64()?;
        let bytes = self.take_slice(len)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| WincodeError::InvalidUtf8)
    }

    pub(crate) fn uuid(&mut self) -> Result<Uuid, WincodeError> {
        let len = self.u64()?;
        if len != 16 {
            return Err(WincodeError::UuidLength { found: len });
        }
        self.take::<16>().map(Uuid::from_bytes)
    }

    /// A sequence length, refused unless `len` items of at least
    /// `min_item_len` bytes each can fit in what is left (so a hostile length
    /// never drives an allocation).
    pub(crate) fn seq_len(&mut self, min_item_len: u64) -> Result<usize, WincodeError> {
        let len = self.u64()?;
        let needed = len.saturating_mul(min_item_len);
        let remaining = self.rest.len();
        if u64::try_from(remaining).is_ok_and(|remaining| needed > remaining) {
            return Err(WincodeError::Truncated { needed, remaining });
        }
        usize::try_from(len).map_err(|_| WincodeError::Truncated { needed, remaining })
    }

    /// Succeeds only if the whole body was read.
    pub(crate) fn finish(self) -> Result<(), WincodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(WincodeError::TrailingBytes {
                extra: self.rest.len(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let mut w = Writer::default();
        w.u32(7);
        w.i32(-2);
        w.u64(u64::MAX);
        w.i64(i64::MIN);
        w.str("wal/é");
        w.uuid(&Uuid::from_u128(5));
        let mut r = Reader::new(&w.0);
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.i32().unwrap(), -2);
        assert_eq!(r.u64().unwrap(), u64::MAX);
        assert_eq!(r.i64().unwrap(), i64::MIN);
        assert_eq!(r.str().unwrap(), "wal/é");
        assert_eq!(r.uuid().unwrap(), Uuid::from_u128(5));
        r.finish().unwrap();
    }

    #[test]
    fn strings_and_uuids_carry_u64_le_lengths() {
        let mut w = Writer::default();
        w.str("ab");
        w.uuid(&Uuid::nil());
        assert_eq!(&w.0[..10], b"\x02\0\0\0\0\0\0\0ab");
        assert_eq!(&w.0[10..18], b"\x10\0\0\0\0\0\0\0");
    }

    #[test]
    fn hostile_lengths_are_refused_without_allocating() {
        let mut r = Reader::new(&[0xff; 8]);
        assert!(matches!(r.str(), Err(WincodeError::Truncated { .. })));
        let mut r = Reader::new(&[0xff; 8]);
        assert!(matches!(r.seq_len(64), Err(WincodeError::Truncated { .. })));
        let mut r = Reader::new(b"\x0f\0\0\0\0\0\0\0");
        assert_eq!(r.uuid(), Err(WincodeError::UuidLength { found: 15 }));
        let mut r = Reader::new(b"\x01\0\0\0\0\0\0\0\xff");
        assert_eq!(r.str(), Err(WincodeError::InvalidUtf8));
        let mut r = Reader::new(&[1, 2, 3]);
        assert!(matches!(
            r.u32(),
            Err(WincodeError::Truncated {
                needed: 4,
                remaining: 3
            })
        ));
        assert_eq!(
            Reader::new(&[1]).finish(),
            Err(WincodeError::TrailingBytes { extra: 1 })
        );
    }
}
