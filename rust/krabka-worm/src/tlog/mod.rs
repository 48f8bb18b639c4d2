//! The archive log: a Merkle tree over every sealed manifest of the archive,
//! in the open formats of transparency logs, so that witnesses outside the
//! bucket can hold the archive to its history.
//!
//! - [`LogHash`]: RFC 6962 leaf and node hashes;
//! - [`proof`]: inclusion and consistency proofs (RFC 9162), produced from
//!   any [`HashSource`] and checked from the proof alone;
//! - [`tile`]: C2SP `tlog-tiles` paths and bytes, and [`TreeEdge`], the
//!   right edge of a growing tree;
//! - [`note`]: C2SP `signed-note`, Ed25519 note signatures and
//!   `tlog-cosignature` witness cosignatures;
//! - [`Checkpoint`]: C2SP `tlog-checkpoint`;
//! - [`LogEntry`]: what one leaf records (a chain seal and its hash);
//! - `witness`: a client of C2SP `tlog-witness` (feature `verify`).
//!
//! The layout in the bucket and the writer's protocol are in
//! `docs/worm-format.md` §10.

mod checkpoint;
mod entry;
mod error;
mod hash;
mod layout;
pub mod note;
pub mod proof;
#[cfg(feature = "verify")]
pub mod store;
pub mod tile;
#[cfg(feature = "verify")]
pub mod witness;

pub use {
    checkpoint::Checkpoint,
    entry::{LOG_ENTRY_DOMAIN, LogEntry, MAX_SEAL_KEY_BYTES},
    error::LogError,
    hash::LogHash,
    layout::{LOG_DIR, LogLayout},
    note::{NoteSignature, NoteSigner, NoteVerifier, SignedNote},
    proof::{HashSource, LeafHashes, ProofRequest, needed_hashes},
    tile::{Tile, TileHashes, TileId, TreeEdge},
};
