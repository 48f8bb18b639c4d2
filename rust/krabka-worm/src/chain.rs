//! Walking one chain epoch in sequence order: the continuity check shared
//! by a writer resuming its tip and an auditor reading an archive.

use super::{ChainHead, ChainStamp, EpochId, ManifestBody, ManifestSeq, WormError, manifest_head};

/// The continuity check of one chain epoch.
///
/// Feed it the bodies of the epoch's manifests in sequence order with
/// [`ChainWalk::accept`]; it stops at the first break. It checks continuity
/// only — signatures are [`verify_manifest_signature`](crate::verify_manifest_signature)'s job —
/// so an unsigned archive can be walked too. It remembers the head of every
/// accepted position (32 bytes each) to tell a replay from a fork.
///
/// ```
/// use krabka_worm::{ChainHead, ChainWalk, EpochId};
/// use uuid::Uuid;
/// let walk = ChainWalk::new(EpochId(Uuid::from_u128(1)));
/// assert_eq!(walk.head(), ChainHead::GENESIS);
/// assert_eq!(walk.next_stamp().unwrap().seq.0, 0);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainWalk {
    epoch_id: EpochId,
    head: ChainHead,
    next_seq: Option<ManifestSeq>,
    /// `accepted[i]` is the head of the manifest at seq `i`.
    accepted: Vec<ChainHead>,
}

impl ChainWalk {
    /// A walk of epoch `epoch_id` from its genesis.
    #[must_use]
    pub fn new(epoch_id: EpochId) -> Self {
        Self {
            epoch_id,
            head: ChainHead::GENESIS,
            next_seq: Some(ManifestSeq(0)),
            accepted: Vec::new(),
        }
    }

    /// A walk of a detour epoch ([`detour_epoch`](crate::detour_epoch)):
    /// its manifest at seq 0 builds on `prev_head`, the head of the last
    /// manifest before the foreign object it routes around.
    #[must_use]
    pub fn resume(epoch_id: EpochId, prev_head: ChainHead) -> Self {
        Self {
            head: prev_head,
            ..Self::new(epoch_id)
        }
    }

    /// The epoch being walked.
    #[must_use]
    pub fn epoch_id(&self) -> EpochId {
        self.epoch_id
    }

    /// The head of the last accepted manifest, or [`ChainHead::GENESIS`].
    #[must_use]
    pub fn head(&self) -> ChainHead {
        self.head
    }

    /// Number of manifests accepted.
    #[must_use]
    pub fn len(&self) -> usize {
        self.accepted.len()
    }

    /// Whether no manifest was accepted yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.accepted.is_empty()
    }

    /// The position the next manifest of this epoch must record.
    ///
    /// # Errors
    /// [`WormError::ChainExhausted`] after a manifest at `u64::MAX`.
    pub fn next_stamp(&self) -> Result<ChainStamp, WormError> {
        let seq = self.next_seq.ok_or(WormError::ChainExhausted {
            epoch_id: self.epoch_id,
        })?;
        Ok(ChainStamp {
            epoch_id: self.epoch_id,
            seq,
            prev_head: self.head,
        })
    }

    /// Accepts the next manifest of the epoch and returns its head.
    ///
    /// # Errors
    /// - [`WormError::ChainEpochMismatch`]: the body belongs to another epoch;
    /// - [`WormError::ChainReplay`]: the same manifest was accepted before;
    /// - [`WormError::ChainFork`]: another manifest holds its position;
    /// - [`WormError::ChainGap`]: its sequence number skips ahead (a manifest
    ///   is missing, or they arrive out of order);
    /// - [`WormError::ChainHeadMismatch`]: at the right position, it does not
    ///   build on the running head;
    /// - [`WormError::ChainExhausted`]: the epoch already ended at `u64::MAX`.
    ///
    /// A refused manifest leaves the walk unchanged.
    pub fn accept(&mut self, body: &ManifestBody) -> Result<ChainHead, WormError> {
        let stamp = &body.chain;
        if stamp.epoch_id != self.epoch_id {
            return Err(WormError::ChainEpochMismatch {
                expected: self.epoch_id,
                found: stamp.epoch_id,
            });
        }
        let head = manifest_head(body);
        let earlier = usize::try_from(stamp.seq.0)
            .ok()
            .and_then(|index| self.accepted.get(index));
        if let Some(accepted) = earlier {
            return Err(if *accepted == head {
                WormError::ChainReplay {
                    epoch_id: self.epoch_id,
                    seq: stamp.seq,
                }
            } else {
                WormError::ChainFork {
                    epoch_id: self.epoch_id,
                    seq: stamp.seq,
                    accepted: *accepted,
                    conflicting: head,
                }
            });
        }
        let expected = self.next_stamp()?;
        if stamp.seq != expected.seq {
            return Err(WormError::ChainGap {
                epoch_id: self.epoch_id,
                expected: expected.seq,
                found: stamp.seq,
            });
        }
        if stamp.prev_head != expected.prev_head {
            return Err(WormError::ChainHeadMismatch {
                epoch_id: self.epoch_id,
                seq: stamp.seq,
                expected_prev: expected.prev_head,
                found_prev: stamp.prev_head,
            });
        }
        self.accepted.push(head);
        self.head = head;
        self.next_seq = stamp.seq.next();
        Ok(head)
    }
}
