//! Inclusion and consistency proofs of RFC 9162 §2.1.3–2.1.4 (the same as
//! RFC 6962 §2.1.1–2.1.2), produced from any [`HashSource`] and checked
//! from the proof alone.
//!
//! Producing a proof needs only hashes of *complete* subtrees (`2^level`
//! leaves starting at a multiple of `2^level`): every hash a tile holds, or
//! a tile can give by hashing part of itself. [`needed_hashes`] tells which
//! a proof will ask for, so a caller can fetch the tiles first and produce
//! the proof without I/O.

use {
    super::{error::LogError, hash::LogHash},
    std::collections::BTreeSet,
};

/// The largest tree size a proof may be about (Go's `tlog` and C2SP cap
/// sizes at 2^63 − 1).
pub const MAX_TREE_SIZE: u64 = i64::MAX as u64;

/// Where a proof gets the hash of a complete subtree.
pub trait HashSource {
    /// The root of the complete subtree of `2^level` leaves starting at leaf
    /// `index << level`.
    ///
    /// # Errors
    /// [`LogError::HashUnavailable`] (or the source's own) when it cannot.
    fn hash(&mut self, level: u8, index: u64) -> Result<LogHash, LogError>;
}

/// A [`HashSource`] over the leaf hashes of the whole tree, in memory: for
/// tests and small trees.
#[derive(Debug, Clone, Default)]
pub struct LeafHashes(pub Vec<LogHash>);

impl HashSource for LeafHashes {
    fn hash(&mut self, level: u8, index: u64) -> Result<LogHash, LogError> {
        let unavailable = |reason: &str| LogError::HashUnavailable {
            level,
            index,
            reason: reason.to_owned(),
        };
        let width = 1usize
            .checked_shl(u32::from(level))
            .ok_or_else(|| unavailable("level too high"))?;
        let start = usize::try_from(index)
            .ok()
            .and_then(|i| i.checked_mul(width))
            .ok_or_else(|| unavailable("index too high"))?;
        let leaves = start
            .checked_add(width)
            .and_then(|end| self.0.get(start..end))
            .ok_or_else(|| unavailable("beyond the leaves held"))?;
        LogHash::perfect_root(leaves).ok_or_else(|| unavailable("not a perfect subtree"))
    }
}

/// A [`HashSource`] that answers zeros and records what it was asked.
#[derive(Debug, Default)]
struct Recorder(BTreeSet<(u8, u64)>);

impl HashSource for Recorder {
    fn hash(&mut self, level: u8, index: u64) -> Result<LogHash, LogError> {
        self.0.insert((level, index));
        Ok(LogHash::default())
    }
}

/// What a proof is about, for [`needed_hashes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofRequest {
    /// The root of a tree of this size.
    Root(u64),
    /// Inclusion of leaf `index` in the tree of `size` leaves.
    Inclusion {
        /// The leaf.
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// Consistency of the tree of `old` leaves with the tree of `new`.
    Consistency {
        /// The older, smaller tree.
        old: u64,
        /// The newer tree.
        new: u64,
    },
}

/// The complete subtrees `(level, index)` that producing `request` reads,
/// in ascending order.
///
/// # Errors
/// Those of the proof itself for an invalid range.
pub fn needed_hashes(request: ProofRequest) -> Result<Vec<(u8, u64)>, LogError> {
    let mut recorder = Recorder::default();
    match request {
        ProofRequest::Root(size) => {
            tree_root(&mut recorder, size)?;
        }
        ProofRequest::Inclusion { index, size } => {
            inclusion_proof(&mut recorder, index, size)?;
        }
        ProofRequest::Consistency { old, new } => {
            consistency_proof(&mut recorder, old, new)?;
        }
    }
    Ok(recorder.0.into_iter().collect())
}

fn check_size(size: u64) -> Result<(), LogError> {
    if size > MAX_TREE_SIZE {
        return Err(LogError::InvalidRange {
            detail: format!("tree size {size} is above {MAX_TREE_SIZE}"),
        });
    }
    Ok(())
}

/// The largest power of two below `n` (`n >= 2`).
fn split_point(n: u64) -> u64 {
    1 << (63 - (n - 1).leading_zeros())
}

/// `MTH(D[lo:hi])`, `hi > lo`.
fn subtree(source: &mut dyn HashSource, lo: u64, hi: u64) -> Result<LogHash, LogError> {
    let n = hi - lo;
    if n.is_power_of_two() && lo % n == 0 {
        let level = u8::try_from(n.trailing_zeros()).unwrap_or(u8::MAX);
        return source.hash(level, lo >> n.trailing_zeros());
    }
    let k = split_point(n);
    let left = subtree(source, lo, lo + k)?;
    let right = subtree(source, lo + k, hi)?;
    Ok(LogHash::node(&left, &right))
}

/// The root of the tree of the first `size` leaves.
///
/// # Errors
/// [`LogError::InvalidRange`] for a size above [`MAX_TREE_SIZE`]; the
/// source's errors.
pub fn tree_root(source: &mut dyn HashSource, size: u64) -> Result<LogHash, LogError> {
    check_size(size)?;
    if size == 0 {
        return Ok(LogHash::empty_root());
    }
    subtree(source, 0, size)
}

/// The inclusion proof (audit path) of leaf `index` in the tree of `size`
/// leaves, RFC 9162 §2.1.3.1.
///
/// # Errors
/// [`LogError::InvalidRange`] when `index >= size`; the source's errors.
pub fn inclusion_proof(
    source: &mut dyn HashSource,
    index: u64,
    size: u64,
) -> Result<Vec<LogHash>, LogError> {
    check_size(size)?;
    if index >= size {
        return Err(LogError::InvalidRange {
            detail: format!("leaf {index} is not in a tree of {size} leaves"),
        });
    }
    let mut path = Vec::new();
    audit_path(source, index, 0, size, &mut path)?;
    Ok(path)
}

fn audit_path(
    source: &mut dyn HashSource,
    m: u64,
    lo: u64,
    hi: u64,
    path: &mut Vec<LogHash>,
) -> Result<(), LogError> {
    if hi - lo == 1 {
        return Ok(());
    }
    let k = split_point(hi - lo);
    if m < lo + k {
        audit_path(source, m, lo, lo + k, path)?;
        path.push(subtree(source, lo + k, hi)?);
    } else {
        audit_path(source, m, lo + k, hi, path)?;
        path.push(subtree(source, lo, lo + k)?);
    }
    Ok(())
}

/// The consistency proof between the trees of `old` and `new` leaves, RFC
/// 9162 §2.1.4.1: empty when `old` is 0 or equals `new`.
///
/// # Errors
/// [`LogError::InvalidRange`] when `old > new`; the source's errors.
pub fn consistency_proof(
    source: &mut dyn HashSource,
    old: u64,
    new: u64,
) -> Result<Vec<LogHash>, LogError> {
    check_size(new)?;
    if old > new {
        return Err(LogError::InvalidRange {
            detail: format!("a tree of {old} leaves cannot precede one of {new}"),
        });
    }
    let mut proof = Vec::new();
    if old > 0 && old < new {
        subproof(source, old, 0, new, true, &mut proof)?;
    }
    Ok(proof)
}

fn subproof(
    source: &mut dyn HashSource,
    m: u64,
    lo: u64,
    hi: u64,
    whole: bool,
    proof: &mut Vec<LogHash>,
) -> Result<(), LogError> {
    let n = hi - lo;
    if m == n {
        if !whole {
            proof.push(subtree(source, lo, hi)?);
        }
        return Ok(());
    }
    let k = split_point(n);
    if m <= k {
        subproof(source, m, lo, lo + k, whole, proof)?;
        proof.push(subtree(source, lo + k, hi)?);
    } else {
        subproof(source, m - k, lo + k, hi, false, proof)?;
        proof.push(subtree(source, lo, lo + k)?);
    }
    Ok(())
}

/// Checks that `leaf` is leaf `index` of the tree of `size` leaves whose root
/// is `root`, RFC 9162 §2.1.3.2.
///
/// # Errors
/// [`LogError::InvalidRange`] for an index outside the tree;
/// [`LogError::ProofInvalid`] when the proof does not lead to `root`.
pub fn verify_inclusion(
    index: u64,
    size: u64,
    leaf: &LogHash,
    proof: &[LogHash],
    root: &LogHash,
) -> Result<(), LogError> {
    check_size(size)?;
    if index >= size {
        return Err(LogError::InvalidRange {
            detail: format!("leaf {index} is not in a tree of {size} leaves"),
        });
    }
    let invalid = |detail: &str| LogError::ProofInvalid {
        what: "inclusion",
        detail: detail.to_owned(),
    };
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if s == 0 {
            return Err(invalid("the proof is longer than the tree is deep"));
        }
        if f & 1 == 1 || f == s {
            r = LogHash::node(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = LogHash::node(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(invalid("the proof is shorter than the tree is deep"));
    }
    if r != *root {
        return Err(invalid("the path does not lead to the root"));
    }
    Ok(())
}

/// Checks that the tree of `old` leaves with root `old_root` is a prefix of
/// the tree of `new` leaves with root `new_root`, RFC 9162 §2.1.4.2.
///
/// # Errors
/// [`LogError::InvalidRange`] when `old > new`; [`LogError::ProofInvalid`]
/// when the proof does not prove it.
pub fn verify_consistency(
    old: u64,
    new: u64,
    old_root: &LogHash,
    new_root: &LogHash,
    proof: &[LogHash],
) -> Result<(), LogError> {
    check_size(new)?;
    let invalid = |detail: &str| LogError::ProofInvalid {
        what: "consistency",
        detail: detail.to_owned(),
    };
    if old > new {
        return Err(LogError::InvalidRange {
            detail: format!("a tree of {old} leaves cannot precede one of {new}"),
        });
    }
    if old == 0 {
        if !proof.is_empty() {
            return Err(invalid("a proof from the empty tree must be empty"));
        }
        return Ok(());
    }
    if old == new {
        if !proof.is_empty() {
            return Err(invalid("a proof between equal sizes must be empty"));
        }
        if old_root != new_root {
            return Err(invalid("two roots of the same size differ"));
        }
        return Ok(());
    }
    if proof.is_empty() {
        return Err(invalid("the proof is empty"));
    }
    let mut path: Vec<LogHash> = Vec::with_capacity(proof.len() + 1);
    if old.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let (mut f, mut s) = (old - 1, new - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let mut fr = path[0];
    let mut sr = path[0];
    for c in &path[1..] {
        if s == 0 {
            return Err(invalid("the proof is longer than the trees are deep"));
        }
        if f & 1 == 1 || f == s {
            fr = LogHash::node(c, &fr);
            sr = LogHash::node(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = LogHash::node(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(invalid("the proof is shorter than the trees are deep"));
    }
    if fr != *old_root {
        return Err(invalid("the proof does not lead to the older root"));
    }
    if sr != *new_root {
        return Err(invalid("the proof does not lead to the newer root"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use {super::*, proptest::prelude::*};

    fn leaves(n: u64) -> LeafHashes {
        LeafHashes((0..n).map(|i| LogHash::leaf(&i.to_be_bytes())).collect())
    }

    /// MTH by the RFC's definition, recursively over the leaf hashes.
    fn reference_root(hashes: &[LogHash]) -> LogHash {
        match hashes.len() {
            0 => LogHash::empty_root(),
            1 => hashes[0],
            n => {
                let k = split_point(n as u64) as usize;
                LogHash::node(&reference_root(&hashes[..k]), &reference_root(&hashes[k..]))
            }
        }
    }

    #[test]
    fn every_inclusion_and_consistency_proof_of_small_trees_verifies() {
        for size in 1..=40u64 {
            let mut source = leaves(size);
            let root = tree_root(&mut source, size).unwrap();
            assert_eq!(root, reference_root(&source.0));
            for index in 0..size {
                let proof = inclusion_proof(&mut source, index, size).unwrap();
                let leaf = source.0[index as usize];
                verify_inclusion(index, size, &leaf, &proof, &root).unwrap();
                let other = LogHash::leaf(b"other");
                assert!(verify_inclusion(index, size, &other, &proof, &root).is_err());
                if size > 1 {
                    assert!(verify_inclusion(index, size, &leaf, &proof[1..], &root).is_err());
                }
            }
            for old in 0..=size {
                let old_root = tree_root(&mut source, old).unwrap();
                let proof = consistency_proof(&mut source, old, size).unwrap();
                verify_consistency(old, size, &old_root, &root, &proof).unwrap();
                if old > 0 && old < size {
                    let wrong = LogHash::leaf(b"forked");
                    assert!(verify_consistency(old, size, &wrong, &root, &proof).is_err());
                    assert!(verify_consistency(old, size, &old_root, &wrong, &proof).is_err());
                    assert!(verify_consistency(old, size, &old_root, &root, &proof[1..]).is_err());
                }
            }
        }
    }

    #[test]
    fn out_of_range_requests_are_typed_errors() {
        let mut source = leaves(4);
        assert!(matches!(
            inclusion_proof(&mut source, 4, 4),
            Err(LogError::InvalidRange { .. })
        ));
        assert!(matches!(
            consistency_proof(&mut source, 5, 4),
            Err(LogError::InvalidRange { .. })
        ));
        assert!(matches!(
            tree_root(&mut source, u64::MAX),
            Err(LogError::InvalidRange { .. })
        ));
        assert!(matches!(
            tree_root(&mut source, 5),
            Err(LogError::HashUnavailable { .. })
        ));
        let root = tree_root(&mut source, 4).unwrap();
        let too_long = vec![LogHash::default(); 70];
        assert!(verify_inclusion(1, 4, &source.0[1], &too_long, &root).is_err());
        assert!(verify_consistency(2, 4, &root, &root, &too_long).is_err());
    }

    #[test]
    fn needed_hashes_are_exactly_what_a_proof_reads() {
        let request = ProofRequest::Consistency { old: 7, new: 300 };
        let needed = needed_hashes(request).unwrap();
        let mut full = leaves(300);
        let mut only: LeafHashes = LeafHashes::default();
        // A source that answers only the announced hashes still produces the
        // same proof.
        struct Only<'a>(&'a mut LeafHashes, &'a [(u8, u64)]);
        impl HashSource for Only<'_> {
            fn hash(&mut self, level: u8, index: u64) -> Result<LogHash, LogError> {
                if !self.1.contains(&(level, index)) {
                    return Err(LogError::HashUnavailable {
                        level,
                        index,
                        reason: "not announced".to_owned(),
                    });
                }
                self.0.hash(level, index)
            }
        }
        let expected = consistency_proof(&mut full, 7, 300).unwrap();
        std::mem::swap(&mut only, &mut full);
        let got = consistency_proof(&mut Only(&mut only, &needed), 7, 300).unwrap();
        assert_eq!(got, expected);
    }

    proptest! {
        #[test]
        fn proofs_of_random_trees_verify(size in 1u64..600, a in any::<u64>(), b in any::<u64>()) {
            let mut source = leaves(size);
            let root = tree_root(&mut source, size).unwrap();
            let index = a % size;
            let proof = inclusion_proof(&mut source, index, size).unwrap();
            prop_assert!(verify_inclusion(index, size, &source.0[index as usize], &proof, &root).is_ok());
            let old = b % (size + 1);
            let old_root = tree_root(&mut source, old).unwrap();
            let proof = consistency_proof(&mut source, old, size).unwrap();
            prop_assert!(verify_consistency(old, size, &old_root, &root, &proof).is_ok());
        }
    }
}
