//! Lower-case hexadecimal: the only text form of bytes in a manifest, and
//! [`HexBytes`], a byte string that travels as hex.

use {
    serde::{Deserialize, Deserializer, Serialize, Serializer, de},
    std::fmt,
};

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `bytes` as lower-case hexadecimal, two characters per byte.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().saturating_mul(2));
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// Why a hex string was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HexError {
    /// The text has an odd number of characters.
    OddLength(usize),
    /// The text decodes to the wrong number of bytes.
    Length { found: usize, expected: usize },
    /// A character outside the accepted alphabet, at this byte offset.
    Digit(usize),
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OddLength(len) => write!(f, "hex text has an odd length {len}"),
            Self::Length { found, expected } => write!(
                f,
                "hex text holds {found} bytes, expected {expected} ({} hex characters)",
                expected.saturating_mul(2)
            ),
            Self::Digit(at) => write!(
                f,
                "character at offset {at} is not a lower-case hexadecimal digit"
            ),
        }
    }
}

fn nibble(c: u8, allow_upper: bool) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' if allow_upper => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes hex text; upper-case digits only when `allow_upper`.
pub(crate) fn decode(text: &str, allow_upper: bool) -> Result<Vec<u8>, HexError> {
    let raw = text.as_bytes();
    if raw.len() % 2 != 0 {
        return Err(HexError::OddLength(raw.len()));
    }
    let mut out = Vec::with_capacity(raw.len() / 2);
    for (index, pair) in raw.chunks_exact(2).enumerate() {
        let at = index * 2;
        let (hi, lo) = match pair {
            [hi, lo] => (*hi, *lo),
            _ => return Err(HexError::OddLength(raw.len())),
        };
        let hi = nibble(hi, allow_upper).ok_or(HexError::Digit(at))?;
        let lo = nibble(lo, allow_upper).ok_or(HexError::Digit(at + 1))?;
        out.push(hi << 4 | lo);
    }
    Ok(out)
}

/// Decodes hex text of exactly `N` bytes.
pub(crate) fn decode_array<const N: usize>(
    text: &str,
    allow_upper: bool,
) -> Result<[u8; N], HexError> {
    if text.len() != N * 2 {
        return Err(HexError::Length {
            found: text.len() / 2,
            expected: N,
        });
    }
    let bytes = decode(text, allow_upper)?;
    <[u8; N]>::try_from(bytes.as_slice()).map_err(|_| HexError::Length {
        found: bytes.len(),
        expected: N,
    })
}

/// A byte string of any length that serializes as lower-case hex
/// (`"00ff"`); deserialization accepts lower-case hex of even length only.
///
/// ```
/// use krabka_worm::HexBytes;
/// let bytes = HexBytes(vec![0x00, 0xff]);
/// assert_eq!(bytes.to_string(), "00ff");
/// assert_eq!(serde_json::to_string(&bytes).unwrap(), "\"00ff\"");
/// assert!(serde_json::from_str::<HexBytes>("\"00FF\"").is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct HexBytes(pub Vec<u8>);

impl HexBytes {
    /// The raw bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Display for HexBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&encode(&self.0))
    }
}

impl fmt::Debug for HexBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HexBytes({})", encode(&self.0))
    }
}

impl Serialize for HexBytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for HexBytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        decode(&text, false).map(Self).map_err(de::Error::custom)
    }
}

/// Serde support shared by the 32-byte hex newtypes.
macro_rules! hex32_newtype_serde {
    ($ty:ident) => {
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&$crate::hex::encode(&self.0))
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(
                    f,
                    concat!(stringify!($ty), "({})"),
                    $crate::hex::encode(&self.0)
                )
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&$crate::hex::encode(&self.0))
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                $crate::hex::decode_array::<32>(&text, false)
                    .map(Self)
                    .map_err(::serde::de::Error::custom)
            }
        }
    };
}

pub(crate) use hex32_newtype_serde;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_is_lower_case_and_decode_inverts_it() {
        assert_eq!(encode(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(decode("000fa5ff", false), Ok(vec![0x00, 0x0f, 0xa5, 0xff]));
        assert_eq!(decode("", false), Ok(vec![]));
    }

    #[test]
    fn decode_refuses_odd_length_bad_digits_and_upper_case_unless_allowed() {
        assert_eq!(decode("abc", false), Err(HexError::OddLength(3)));
        assert_eq!(decode("0g", false), Err(HexError::Digit(1)));
        assert_eq!(decode("AB", false), Err(HexError::Digit(0)));
        assert_eq!(decode("AB", true), Ok(vec![0xab]));
        assert_eq!(decode("é0", true), Err(HexError::OddLength(3)));
    }

    #[test]
    fn decode_array_demands_the_exact_length() {
        assert_eq!(decode_array::<2>("abcd", false), Ok([0xab, 0xcd]));
        assert_eq!(
            decode_array::<2>("abcdef", false),
            Err(HexError::Length {
                found: 3,
                expected: 2
            })
        );
    }

    #[test]
    fn hex_bytes_json_refuses_non_strings_and_upper_case() {
        assert!(serde_json::from_str::<HexBytes>("12").is_err());
        assert!(serde_json::from_str::<HexBytes>("null").is_err());
        assert!(serde_json::from_str::<HexBytes>("\"0A\"").is_err());
        assert_eq!(
            serde_json::from_str::<HexBytes>("\"0a\"").unwrap(),
            HexBytes(vec![10])
        );
    }
}
