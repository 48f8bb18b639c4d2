//! The leader-epoch lineage of a partition: which leader epoch the broker
//! serves each offset from, merged from the leader-epoch checkpoints the
//! segment copies carry (Kafka's `LeaderEpochCheckpointFile` text format).
//!
//! A checkpoint lists `(epoch, start offset)` pairs. A newer epoch that
//! starts at or before an older epoch's start truncates it (Kafka's
//! `LeaderEpochFileCache.assign`): the older epoch's records from there on
//! were never served. Folding every copy's pairs in epoch order gives the
//! lineage the broker would serve, whatever order the copies are read in.

use std::collections::BTreeMap;

/// At most this many entries in one checkpoint (a corrupt count must not
/// allocate without bound).
const MAX_ENTRIES: usize = 1 << 20;

/// Why a leader-epoch checkpoint could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// Not UTF-8 text.
    #[error("the leader-epoch checkpoint is not text")]
    NotText,
    /// The version line is not `0`.
    #[error("unknown leader-epoch checkpoint version {0:?}")]
    Version(String),
    /// A line is missing or does not parse.
    #[error("leader-epoch checkpoint line {line}: {reason}")]
    Line {
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        reason: &'static str,
    },
}

/// Parses a leader-epoch checkpoint: `0`, the entry count, then one
/// `epoch start-offset` line per entry.
///
/// # Errors
/// [`CheckpointError`] when the bytes are not such a file.
pub fn parse_leader_epoch_checkpoint(bytes: &[u8]) -> Result<Vec<(i32, i64)>, CheckpointError> {
    let text = std::str::from_utf8(bytes).map_err(|_| CheckpointError::NotText)?;
    let mut lines = text.lines().map(str::trim);
    let version = lines.next().ok_or(CheckpointError::Line {
        line: 1,
        reason: "missing version",
    })?;
    if version != "0" {
        return Err(CheckpointError::Version(version.chars().take(16).collect()));
    }
    let count: usize = lines
        .next()
        .and_then(|l| l.parse().ok())
        .filter(|&n| n <= MAX_ENTRIES)
        .ok_or(CheckpointError::Line {
            line: 2,
            reason: "missing or bad entry count",
        })?;
    let mut entries = Vec::with_capacity(count.min(1024));
    for index in 0..count {
        let line = index + 3;
        let entry = lines.next().ok_or(CheckpointError::Line {
            line,
            reason: "fewer entries than the count",
        })?;
        let mut fields = entry.split_whitespace();
        let (Some(epoch), Some(offset), None) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(CheckpointError::Line {
                line,
                reason: "not `epoch offset`",
            });
        };
        let (Ok(epoch), Ok(offset)) = (epoch.parse::<i32>(), offset.parse::<i64>()) else {
            return Err(CheckpointError::Line {
                line,
                reason: "not numbers",
            });
        };
        if epoch < 0 || offset < 0 {
            return Err(CheckpointError::Line {
                line,
                reason: "negative epoch or offset",
            });
        }
        entries.push((epoch, offset));
    }
    if lines.any(|l| !l.is_empty()) {
        return Err(CheckpointError::Line {
            line: count + 3,
            reason: "more entries than the count",
        });
    }
    Ok(entries)
}

/// The leader-epoch lineage: epochs by start offset, each serving offsets
/// up to the next one's start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochLineage {
    /// Start offset → epoch, starts and epochs both increasing.
    by_start: BTreeMap<i64, i32>,
}

impl EpochLineage {
    /// The lineage of `entries` from any number of checkpoints (or batch
    /// headers), in any order: an epoch's start is the lowest offset any of
    /// them gives it, and a higher epoch truncates every lower epoch that
    /// starts at or after its own start.
    #[must_use]
    pub fn from_entries(entries: impl IntoIterator<Item = (i32, i64)>) -> Self {
        let mut starts: BTreeMap<i32, i64> = BTreeMap::new();
        for (epoch, start) in entries {
            let known = starts.entry(epoch).or_insert(start);
            *known = (*known).min(start);
        }
        let mut by_start: BTreeMap<i64, i32> = BTreeMap::new();
        for (epoch, start) in starts {
            // Every epoch already in is lower: those starting at or after
            // `start` were truncated by this one.
            let cut: Vec<i64> = by_start.range(start..).map(|(&s, _)| s).collect();
            for s in cut {
                by_start.remove(&s);
            }
            by_start.insert(start, epoch);
        }
        Self { by_start }
    }

    /// Whether no epoch is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_start.is_empty()
    }

    /// The epoch the broker serves `offset` from, `None` before the first
    /// known epoch.
    #[must_use]
    pub fn epoch_at(&self, offset: i64) -> Option<i32> {
        self.by_start.range(..=offset).next_back().map(|(_, &e)| e)
    }

    /// Whether a batch of leader epoch `epoch` starting at `base_offset` is
    /// on the lineage. Batches without an epoch (message formats before
    /// v2 write -1) and offsets before the first known epoch are accepted.
    #[must_use]
    pub fn serves(&self, epoch: i32, base_offset: i64) -> bool {
        epoch < 0 || self.epoch_at(base_offset).is_none_or(|e| e == epoch)
    }

    /// `(epoch, start offset)` in offset order.
    pub fn entries(&self) -> impl Iterator<Item = (i32, i64)> + '_ {
        self.by_start.iter().map(|(&s, &e)| (e, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_parse_as_kafka_writes_them() {
        assert_eq!(
            parse_leader_epoch_checkpoint(b"0\n2\n0 0\n3 50\n"),
            Ok(vec![(0, 0), (3, 50)])
        );
        assert_eq!(parse_leader_epoch_checkpoint(b"0\n0\n"), Ok(vec![]));
        assert!(parse_leader_epoch_checkpoint(b"1\n0\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"0\n2\n0 0\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"0\n1\n0 0\n1 5\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"0\n1\n0 x\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"0\n99999999999\n").is_err());
        assert!(parse_leader_epoch_checkpoint(&[0xff, 0xfe]).is_err());
    }

    #[test]
    fn a_newer_epoch_truncates_what_older_ones_wrote_after_its_start() {
        // Epoch 4 led from 130 but was never followed; epoch 5 starts at 120.
        let stale = [(3, 100), (4, 130)];
        let newest = [(3, 100), (5, 120)];
        for order in [
            stale.iter().chain(&newest).copied().collect::<Vec<_>>(),
            newest.iter().chain(&stale).copied().collect(),
        ] {
            let lineage = EpochLineage::from_entries(order);
            assert_eq!(lineage.entries().collect::<Vec<_>>(), [(3, 100), (5, 120)]);
            assert_eq!(lineage.epoch_at(99), None);
            assert_eq!(lineage.epoch_at(119), Some(3));
            assert_eq!(lineage.epoch_at(135), Some(5));
            assert!(lineage.serves(3, 110));
            assert!(!lineage.serves(3, 125));
            assert!(!lineage.serves(4, 130));
            assert!(lineage.serves(5, 130));
            assert!(lineage.serves(-1, 130));
        }
    }
}
