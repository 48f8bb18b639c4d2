//! Krabka's chunked segment format: tiered segments compressed with zstd
//! and encrypted under keys the operator holds.
//!
//! A segment written in this format is stored as its usual objects (the
//! log and five indexes, under their usual names) plus one **envelope**
//! object. Each stored object is the format's magic followed by chunks: the
//! original bytes cut every [`SegmentCodec::chunk_size`] bytes, each chunk
//! zstd-compressed when that makes it smaller and sealed with an AEAD
//! ([`Cipher`]) under the segment's own random data key. The envelope
//! ([`SegmentEnvelope`]) lists every chunk's stored length, so a read at
//! original position `P` fetches only the chunks that cover it, and holds
//! the data key wrapped by a key-encryption key ([`KeyRing`], e.g.
//! [`RsaKeyPairs`]), so rotating a key rewrites only envelopes.
//!
//! - Writing: [`SegmentSealer`] draws and wraps the data key; its
//!   [`ObjectEncoder`] streams one object, one chunk in memory at a time;
//!   [`SegmentSealer::envelope`] gives the envelope to store last.
//! - Reading: [`SegmentEnvelope::decode`], [`OpenedSegment::open`] (unwraps
//!   the data key once), [`OpenedSegment::span`] (which stored bytes to
//!   fetch) and [`OpenedSegment::range_reader`] (decodes them), or
//!   [`OpenedSegment::cached_range_reader`], which takes the chunks a
//!   [`DecodedChunks`] cache holds and keeps the ones it decodes.
//!
//! The byte layout, the nonce and associated data of a chunk, and test
//! vectors are in `docs/chunked-format.md`.

mod chunk_cache;
mod cipher;
mod decode;
mod encode;
pub mod envelope;
mod error;
mod heuristic;
mod keyring;
mod kind;
mod settings;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;

#[cfg(test)]
mod codec_tests;

pub use {
    chunk_cache::{ChunkId, DecodedChunks, DecodedChunksUsage},
    cipher::{ChunkCipher, ChunkPlace, Cipher, DATA_KEY_LEN, DataKey, TAG_LEN},
    decode::{OpenedSegment, RangeDecoder},
    encode::{ChunkReport, ObjectEncoder, SegmentSealer},
    envelope::{ChunkSpan, ObjectChunks, SegmentEnvelope, StoredChunk},
    error::{EnvelopeError, Result},
    heuristic::producer_compressed,
    keyring::{KeyPairFiles, KeyRing, RsaKeyPairs, WrappedKey},
    kind::{ENVELOPE_SUFFIX, ObjectKind},
    settings::{Compression, DEFAULT_CHUNK_SIZE, DEFAULT_ZSTD_LEVEL, SegmentCodec},
};
