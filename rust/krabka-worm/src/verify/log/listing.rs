//! The archive log's objects as listed: checkpoint numbers, cosignatures
//! per checkpoint, claim indexes.

use std::collections::{BTreeMap, BTreeSet};

/// The log's listed objects, by kind.
#[derive(Debug, Default)]
pub(super) struct LogListing {
    /// Checkpoint numbers.
    pub(super) checkpoints: BTreeSet<u64>,
    /// Checkpoint number -> the names of its cosignatures (the witness key
    /// hashes, 8 hex digits).
    pub(super) cosignatures: BTreeMap<u64, Vec<String>>,
    /// Claimed leaf indexes.
    pub(super) claims: BTreeSet<u64>,
    /// Objects of any kind.
    objects: usize,
}

/// A 20-digit decimal sequence number.
fn seq(text: &str) -> Option<u64> {
    (text.len() == 20 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

impl LogListing {
    /// Sorts the names listed under the log's directory.
    pub(super) fn of(names: &BTreeMap<String, u64>) -> Self {
        let mut listing = Self {
            objects: names.len(),
            ..Self::default()
        };
        for name in names.keys() {
            let mut parts = name.split('/');
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some("checkpoints"), Some(n), None, None) => {
                    if let Some(n) = seq(n) {
                        listing.checkpoints.insert(n);
                    }
                }
                (Some("cosignatures"), Some(n), Some(hash), None) => {
                    if let Some(n) = seq(n) {
                        listing
                            .cosignatures
                            .entry(n)
                            .or_default()
                            .push(hash.to_owned());
                    }
                }
                (Some("claims"), Some(n), None, None) => {
                    if let Some(n) = seq(n) {
                        listing.claims.insert(n);
                    }
                }
                _ => {}
            }
        }
        listing
    }

    /// Whether the archive holds no log object.
    pub(super) fn is_empty(&self) -> bool {
        self.objects == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_by_kind_and_others_ignored() {
        let names: BTreeMap<String, u64> = [
            "checkpoints/00000000000000000000",
            "checkpoints/00000000000000000002",
            "checkpoints/7",
            "cosignatures/00000000000000000002/0a0b0c0d",
            "claims/00000000000000000005",
            "logged/ab",
            "tile/0/000",
        ]
        .iter()
        .map(|n| ((*n).to_owned(), 1))
        .collect();
        let listing = LogListing::of(&names);
        assert_eq!(listing.checkpoints, BTreeSet::from([0, 2]));
        assert_eq!(listing.cosignatures[&2], vec!["0a0b0c0d".to_owned()]);
        assert_eq!(listing.claims, BTreeSet::from([5]));
        assert!(!listing.is_empty());
        assert!(LogListing::of(&BTreeMap::new()).is_empty());
    }
}
