//! [`LogLayout`]: where the archive log's objects live in the bucket.

use {
    super::{note::NoteVerifier, tile::TileId},
    sha2::{Digest, Sha256},
};

/// The directory of the archive log under the archive prefix.
pub const LOG_DIR: &str = "_krabka-log";

/// The keys of the archive log under one archive prefix. Every object is
/// written create-only:
///
/// | Key (under `<prefix>/_krabka-log/`) | Holds |
/// |---|---|
/// | `claims/<index, 20 digits>` | the [`LogEntry`](super::LogEntry) of leaf `index`: the sequencer, first writer wins |
/// | `logged/<SHA-256 of the seal key, hex>` | the leaf index of a seal, after its claim |
/// | `tile/<L>/<N>[.p/<W>]`, `tile/entries/<N>[.p/<W>]` | C2SP tiles and entry bundles |
/// | `checkpoints/<seq, 20 digits>` | checkpoint number `seq`, a signed note, sizes increasing with `seq` |
/// | `cosignatures/<seq, 20 digits>/<witness key hash, 8 hex>` | a witness's cosignature line of checkpoint `seq` |
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLayout {
    root: String,
}

impl LogLayout {
    /// The layout under the archive `prefix` (no leading or trailing `/`).
    #[must_use]
    pub fn new(prefix: Option<&str>) -> Self {
        let root = match prefix
            .map(|p| p.trim_matches('/'))
            .filter(|p| !p.is_empty())
        {
            Some(prefix) => format!("{prefix}/{LOG_DIR}"),
            None => LOG_DIR.to_owned(),
        };
        Self { root }
    }

    /// The log's directory, prefix included.
    #[must_use]
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The claim of leaf `index`.
    #[must_use]
    pub fn claim(&self, index: u64) -> String {
        format!("{}/claims/{index:020}", self.root)
    }

    /// The marker that the seal `seal_key` (relative to the prefix) has
    /// its leaf.
    #[must_use]
    pub fn logged(&self, seal_key: &str) -> String {
        let digest = Sha256::digest(seal_key.as_bytes());
        format!("{}/logged/{}", self.root, crate::hex::encode(&digest))
    }

    /// Checkpoint number `seq`.
    #[must_use]
    pub fn checkpoint(&self, seq: u64) -> String {
        format!("{}/checkpoints/{seq:020}", self.root)
    }

    /// The directory of checkpoint `seq`'s cosignatures.
    #[must_use]
    pub fn cosignatures(&self, seq: u64) -> String {
        format!("{}/cosignatures/{seq:020}", self.root)
    }

    /// `witness`'s cosignature of checkpoint `seq`.
    #[must_use]
    pub fn cosignature(&self, seq: u64, witness: &NoteVerifier) -> String {
        format!("{}/{:08x}", self.cosignatures(seq), witness.key_hash())
    }

    /// A tile or entry bundle.
    #[must_use]
    pub fn tile(&self, id: TileId) -> String {
        format!("{}/{}", self.root, id.path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sit_under_the_prefix() {
        let layout = LogLayout::new(Some("/archive/"));
        assert_eq!(
            layout.claim(7),
            "archive/_krabka-log/claims/00000000000000000007"
        );
        assert_eq!(
            layout.checkpoint(1),
            "archive/_krabka-log/checkpoints/00000000000000000001"
        );
        assert_eq!(
            layout.tile(TileId {
                level: 0,
                index: 3,
                width: 4
            }),
            "archive/_krabka-log/tile/0/003.p/4"
        );
        assert_eq!(LogLayout::new(None).root(), "_krabka-log");
        assert!(
            layout
                .logged("a/_chain/e/0.seal")
                .starts_with("archive/_krabka-log/logged/")
        );
    }
}
