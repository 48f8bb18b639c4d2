//! A bounds-checked reader over bytes for Kafka's record encoding: fixed
//! big-endian integers and zigzag varints (`ByteUtils.readVarint` /
//! `readVarlong`).

use super::corruption::Corruption;

/// Reads forward through a byte slice; every read checks the bounds.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes }
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// How many bytes are left.
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Corruption> {
        let Some((head, tail)) = self.rest.split_at_checked(n) else {
            return Err(Corruption::Truncated {
                what,
                needed: n,
                available: self.rest.len(),
            });
        };
        self.rest = tail;
        Ok(head)
    }

    /// The next byte.
    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, Corruption> {
        let (&first, tail) = self.rest.split_first().ok_or(Corruption::Truncated {
            what,
            needed: 1,
            available: 0,
        })?;
        self.rest = tail;
        Ok(first)
    }

    /// The next `N` bytes as an array.
    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], Corruption> {
        let bytes = self.take(N, what)?;
        bytes.try_into().map_err(|_| Corruption::Truncated {
            what,
            needed: N,
            available: bytes.len(),
        })
    }

    /// A big-endian `i16`.
    pub(crate) fn i16(&mut self, what: &'static str) -> Result<i16, Corruption> {
        self.array(what).map(i16::from_be_bytes)
    }

    /// A big-endian `i32`.
    pub(crate) fn i32(&mut self, what: &'static str) -> Result<i32, Corruption> {
        self.array(what).map(i32::from_be_bytes)
    }

    /// A big-endian `i64`.
    pub(crate) fn i64(&mut self, what: &'static str) -> Result<i64, Corruption> {
        self.array(what).map(i64::from_be_bytes)
    }

    /// A big-endian `u16`.
    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, Corruption> {
        self.array(what).map(u16::from_be_bytes)
    }

    /// A big-endian `u32`.
    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, Corruption> {
        self.array(what).map(u32::from_be_bytes)
    }

    /// A big-endian `u64`.
    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64, Corruption> {
        self.array(what).map(u64::from_be_bytes)
    }

    /// A zigzag varint of at most 5 bytes (Kafka's `readVarint`).
    pub(crate) fn varint(&mut self, what: &'static str) -> Result<i32, Corruption> {
        let raw = self.unsigned_varint(what, 5, 32)?;
        let raw = u32::try_from(raw).map_err(|_| Corruption::VarintOverflow { bits: 32 })?;
        Ok(zigzag32(raw))
    }

    /// A zigzag varlong of at most 10 bytes (Kafka's `readVarlong`).
    pub(crate) fn varlong(&mut self, what: &'static str) -> Result<i64, Corruption> {
        self.unsigned_varint(what, 10, 64).map(zigzag64)
    }

    /// An unsigned LEB128 value of at most `max_bytes` bytes whose bits fit
    /// in `bits`.
    fn unsigned_varint(
        &mut self,
        what: &'static str,
        max_bytes: usize,
        bits: u32,
    ) -> Result<u64, Corruption> {
        let mut value: u64 = 0;
        for index in 0..max_bytes {
            let byte = self.u8(what)?;
            let shift = 7 * u32::try_from(index).unwrap_or(u32::MAX);
            let payload = u64::from(byte & 0x7f);
            // Bits the type has room for at this shift.
            let room = bits.saturating_sub(shift);
            if room < 7 && payload >> room != 0 {
                return Err(Corruption::VarintOverflow { bits });
            }
            value |= payload.checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Corruption::VarintTooLong { max_bytes })
    }
}

/// Zigzag decoding of a 32-bit value.
fn zigzag32(raw: u32) -> i32 {
    let magnitude = i32::from_ne_bytes((raw >> 1).to_ne_bytes());
    magnitude ^ -i32::from(u8::from(raw & 1 == 1))
}

/// Zigzag decoding of a 64-bit value.
fn zigzag64(raw: u64) -> i64 {
    let magnitude = i64::from_ne_bytes((raw >> 1).to_ne_bytes());
    magnitude ^ -i64::from(u8::from(raw & 1 == 1))
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::index::test_encode::{put_varint, put_varlong},
        proptest::prelude::*,
    };

    fn varint(bytes: &[u8]) -> Result<i32, Corruption> {
        Cursor::new(bytes).varint("test")
    }

    fn varlong(bytes: &[u8]) -> Result<i64, Corruption> {
        Cursor::new(bytes).varlong("test")
    }

    #[test]
    fn known_zigzag_vectors() {
        // Vectors of Kafka's ByteUtilsTest.
        assert_eq!(varint(&[0x00]), Ok(0));
        assert_eq!(varint(&[0x01]), Ok(-1));
        assert_eq!(varint(&[0x02]), Ok(1));
        assert_eq!(varint(&[0x7f]), Ok(-64));
        assert_eq!(varint(&[0x80, 0x01]), Ok(64));
        assert_eq!(varint(&[0xfe, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MAX));
        assert_eq!(varint(&[0xff, 0xff, 0xff, 0xff, 0x0f]), Ok(i32::MIN));
        assert_eq!(
            varlong(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Ok(i64::MAX)
        );
        assert_eq!(
            varlong(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Ok(i64::MIN)
        );
    }

    #[test]
    fn truncated_varint_is_an_error() {
        assert!(matches!(varint(&[]), Err(Corruption::Truncated { .. })));
        assert!(matches!(
            varint(&[0x80, 0x80]),
            Err(Corruption::Truncated { .. })
        ));
        assert!(matches!(
            varlong(&[0xff; 9]),
            Err(Corruption::Truncated { .. })
        ));
    }

    #[test]
    fn overlong_varint_is_an_error() {
        assert_eq!(
            varint(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            Err(Corruption::VarintTooLong { max_bytes: 5 })
        );
        assert_eq!(
            varlong(&[0x80; 11]),
            Err(Corruption::VarintTooLong { max_bytes: 10 })
        );
    }

    #[test]
    fn bits_beyond_the_type_are_an_error() {
        assert_eq!(
            varint(&[0xff, 0xff, 0xff, 0xff, 0x1f]),
            Err(Corruption::VarintOverflow { bits: 32 })
        );
        assert_eq!(
            varlong(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            Err(Corruption::VarintOverflow { bits: 64 })
        );
    }

    #[test]
    fn fixed_width_reads_check_bounds() {
        let mut c = Cursor::new(&[0, 1, 0, 0, 0, 2, 9]);
        assert_eq!(c.i16("a"), Ok(1));
        assert_eq!(c.i32("b"), Ok(2));
        assert!(matches!(
            c.i16("c"),
            Err(Corruption::Truncated {
                what: "c",
                needed: 2,
                available: 1
            })
        ));
        assert!(matches!(c.take(2, "d"), Err(Corruption::Truncated { .. })));
        assert_eq!(c.take(1, "e"), Ok(&[9][..]));
        assert_eq!(c.remaining(), 0);
    }

    proptest! {
        #[test]
        fn varint_round_trips(v in any::<i32>()) {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, v);
            let mut c = Cursor::new(&bytes);
            prop_assert_eq!(c.varint("v"), Ok(v));
            prop_assert_eq!(c.remaining(), 0);
        }

        #[test]
        fn varlong_round_trips(v in any::<i64>()) {
            let mut bytes = Vec::new();
            put_varlong(&mut bytes, v);
            let mut c = Cursor::new(&bytes);
            prop_assert_eq!(c.varlong("v"), Ok(v));
            prop_assert_eq!(c.remaining(), 0);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..16)) {
            let _ = varint(&bytes);
            let _ = varlong(&bytes);
        }
    }
}
