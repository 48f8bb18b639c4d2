//! The chunk cipher: AEAD sealing under a per-segment data key, with the
//! chunk's place bound in as associated data.
//!
//! Every chunk of a segment is sealed under the segment's own random data
//! key with a nonce made of the object kind and the chunk number, so no
//! nonce repeats under a key. The associated data names the segment, the
//! object, the chunk number, whether it is the object's last chunk, its
//! original length and whether it is compressed: a chunk moved to another
//! place, swapped with another, replayed from another segment, or an object
//! cut after a chunk all fail to open.

use {
    crate::{EnvelopeError, ObjectKind, Result},
    aws_lc_rs::aead::{AES_256_GCM, Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey},
    std::fmt,
    uuid::Uuid,
    zeroize::Zeroizing,
};

/// Bytes of a data key.
pub const DATA_KEY_LEN: usize = 32;

/// Bytes of the authentication tag after each sealed chunk.
pub const TAG_LEN: usize = 16;

/// Domain separation of a chunk's associated data.
const AAD_DOMAIN: &[u8] = b"krabka-chunk-v1";

/// The AEAD that seals chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cipher {
    /// AES-256 in Galois/Counter mode (hardware-accelerated on x86-64 and
    /// ARMv8).
    Aes256Gcm,
    /// ChaCha20-Poly1305 (fast without AES instructions).
    ChaCha20Poly1305,
}

impl Cipher {
    /// The byte for the cipher in the envelope (0 means no encryption).
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::Aes256Gcm => 1,
            Self::ChaCha20Poly1305 => 2,
        }
    }

    /// The cipher a (non-zero) code stands for.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Self::Aes256Gcm),
            2 => Some(Self::ChaCha20Poly1305),
            _ => None,
        }
    }

    /// The cipher's configuration name: `aes-256-gcm` or
    /// `chacha20-poly1305`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Aes256Gcm => "aes-256-gcm",
            Self::ChaCha20Poly1305 => "chacha20-poly1305",
        }
    }

    /// The cipher of a configuration name.
    ///
    /// # Errors
    /// [`EnvelopeError::InvalidSetting`] for any other name.
    pub fn parse(name: &str) -> Result<Self> {
        [Self::Aes256Gcm, Self::ChaCha20Poly1305]
            .into_iter()
            .find(|cipher| cipher.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                EnvelopeError::InvalidSetting(format!(
                    "unknown cipher {name:?}: expected aes-256-gcm or chacha20-poly1305"
                ))
            })
    }
}

/// A segment's data key: 32 random bytes, wiped from memory when dropped,
/// never printed.
#[derive(Clone)]
pub struct DataKey(Zeroizing<[u8; DATA_KEY_LEN]>);

impl DataKey {
    /// A fresh random key.
    ///
    /// # Errors
    /// [`EnvelopeError::Crypto`] when the system's random source fails.
    pub fn generate() -> Result<Self> {
        let mut key = Zeroizing::new([0; DATA_KEY_LEN]);
        aws_lc_rs::rand::fill(&mut key[..])
            .map_err(|_| EnvelopeError::Crypto("drawing a data key"))?;
        Ok(Self(key))
    }

    /// A key from its bytes (an unwrapped data key).
    ///
    /// # Errors
    /// [`EnvelopeError::Crypto`] unless `bytes` is 32 bytes long.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let key: [u8; DATA_KEY_LEN] = bytes
            .try_into()
            .map_err(|_| EnvelopeError::Crypto("unwrapping a data key of the wrong length"))?;
        Ok(Self(Zeroizing::new(key)))
    }

    /// The key's bytes, for a key-encryption key to wrap.
    #[must_use]
    pub fn expose(&self) -> &[u8] {
        &self.0[..]
    }
}

impl fmt::Debug for DataKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DataKey(<redacted>)")
    }
}

/// Where a chunk sits: what its associated data binds it to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPlace {
    /// The segment.
    pub segment: Uuid,
    /// The object.
    pub kind: ObjectKind,
    /// The chunk's number in the object.
    pub chunk: u32,
    /// Whether it is the object's last chunk.
    pub last: bool,
    /// Its length before compression and encryption.
    pub original_len: u32,
    /// Whether its body is zstd-compressed.
    pub compressed: bool,
}

impl ChunkPlace {
    /// The chunk's 12-byte nonce: the object kind's code, seven zero bytes,
    /// the chunk number (big-endian).
    #[must_use]
    pub fn nonce_bytes(&self) -> [u8; 12] {
        let mut nonce = [0; 12];
        nonce[0] = self.kind.code();
        nonce[8..].copy_from_slice(&self.chunk.to_be_bytes());
        nonce
    }

    fn nonce(&self) -> Nonce {
        Nonce::assume_unique_for_key(self.nonce_bytes())
    }

    /// The chunk's associated data: `krabka-chunk-v1`, the segment id, the
    /// kind's code, the chunk number, the last flag, the original length
    /// and the compressed flag.
    #[must_use]
    pub fn associated_data(&self) -> Vec<u8> {
        let mut aad = Vec::with_capacity(AAD_DOMAIN.len() + 27);
        aad.extend_from_slice(AAD_DOMAIN);
        aad.extend_from_slice(self.segment.as_bytes());
        aad.push(self.kind.code());
        aad.extend_from_slice(&self.chunk.to_be_bytes());
        aad.push(u8::from(self.last));
        aad.extend_from_slice(&self.original_len.to_be_bytes());
        aad.push(u8::from(self.compressed));
        aad
    }

    /// The error for this chunk.
    pub(crate) fn corrupt(&self, reason: &'static str) -> EnvelopeError {
        EnvelopeError::CorruptChunk {
            segment: self.segment,
            kind: self.kind,
            chunk: self.chunk,
            reason,
        }
    }
}

/// A data key ready to seal and open the chunks of one segment.
pub struct ChunkCipher {
    key: LessSafeKey,
}

impl fmt::Debug for ChunkCipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkCipher")
            .field("algorithm", self.key.algorithm())
            .finish_non_exhaustive()
    }
}

impl ChunkCipher {
    /// A cipher of `cipher` under `key`.
    ///
    /// # Errors
    /// [`EnvelopeError::Crypto`] if the crypto library refuses the key.
    pub fn new(cipher: Cipher, key: &DataKey) -> Result<Self> {
        let algorithm = match cipher {
            Cipher::Aes256Gcm => &AES_256_GCM,
            Cipher::ChaCha20Poly1305 => &CHACHA20_POLY1305,
        };
        let key = UnboundKey::new(algorithm, key.expose())
            .map_err(|_| EnvelopeError::Crypto("loading a data key"))?;
        Ok(Self {
            key: LessSafeKey::new(key),
        })
    }

    /// Encrypts `body` in place and appends the tag.
    ///
    /// # Errors
    /// [`EnvelopeError::Crypto`] if the crypto library fails.
    pub fn seal(&self, place: &ChunkPlace, body: &mut Vec<u8>) -> Result<()> {
        self.key
            .seal_in_place_append_tag(place.nonce(), Aad::from(place.associated_data()), body)
            .map_err(|_| EnvelopeError::Crypto("sealing a chunk"))
    }

    /// Checks and decrypts a sealed chunk in place, leaving its body.
    ///
    /// # Errors
    /// [`EnvelopeError::CorruptChunk`] when the tag does not match: the
    /// wrong key, an altered chunk, or a chunk from another place.
    pub fn open(&self, place: &ChunkPlace, sealed: &mut Vec<u8>) -> Result<()> {
        let opened = self
            .key
            .open_in_place(place.nonce(), Aad::from(place.associated_data()), sealed)
            .map_err(|_| place.corrupt("its authentication tag does not match"))?
            .len();
        sealed.truncate(opened);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(chunk: u32) -> ChunkPlace {
        ChunkPlace {
            segment: Uuid::from_u128(7),
            kind: ObjectKind::Log,
            chunk,
            last: false,
            original_len: 5,
            compressed: false,
        }
    }

    #[test]
    fn a_chunk_opens_only_in_its_own_place_and_under_its_key() {
        for cipher in [Cipher::Aes256Gcm, Cipher::ChaCha20Poly1305] {
            let key = DataKey::generate().unwrap();
            let sealer = ChunkCipher::new(cipher, &key).unwrap();
            let mut sealed = b"hello".to_vec();
            sealer.seal(&place(3), &mut sealed).unwrap();
            assert_eq!(sealed.len(), 5 + TAG_LEN);
            assert_ne!(&sealed[..5], b"hello");

            let mut opened = sealed.clone();
            sealer.open(&place(3), &mut opened).unwrap();
            assert_eq!(opened, b"hello");

            let elsewhere = [
                place(4),
                ChunkPlace {
                    last: true,
                    ..place(3)
                },
                ChunkPlace {
                    kind: ObjectKind::OffsetIndex,
                    ..place(3)
                },
                ChunkPlace {
                    segment: Uuid::from_u128(8),
                    ..place(3)
                },
                ChunkPlace {
                    compressed: true,
                    ..place(3)
                },
                ChunkPlace {
                    original_len: 6,
                    ..place(3)
                },
            ];
            for other in elsewhere {
                let mut moved = sealed.clone();
                assert!(matches!(
                    sealer.open(&other, &mut moved),
                    Err(EnvelopeError::CorruptChunk { .. })
                ));
            }
            let other_key = ChunkCipher::new(cipher, &DataKey::generate().unwrap()).unwrap();
            assert!(other_key.open(&place(3), &mut sealed.clone()).is_err());
            let mut flipped = sealed.clone();
            flipped[2] ^= 1;
            assert!(sealer.open(&place(3), &mut flipped).is_err());
        }
    }

    #[test]
    fn keys_never_print() {
        let key = DataKey::from_bytes(&[0xab; 32]).unwrap();
        assert_eq!(format!("{key:?}"), "DataKey(<redacted>)");
        let cipher = ChunkCipher::new(Cipher::Aes256Gcm, &key).unwrap();
        assert!(!format!("{cipher:?}").to_lowercase().contains("abab"));
        assert!(DataKey::from_bytes(&[1; 31]).is_err());
    }

    #[test]
    fn cipher_names_parse() {
        assert_eq!(Cipher::parse("AES-256-GCM").unwrap(), Cipher::Aes256Gcm);
        assert_eq!(
            Cipher::parse("chacha20-poly1305").unwrap(),
            Cipher::ChaCha20Poly1305
        );
        assert!(Cipher::parse("rot13").is_err());
        for cipher in [Cipher::Aes256Gcm, Cipher::ChaCha20Poly1305] {
            assert_eq!(Cipher::from_code(cipher.code()), Some(cipher));
        }
        assert_eq!(Cipher::from_code(0), None);
    }
}
