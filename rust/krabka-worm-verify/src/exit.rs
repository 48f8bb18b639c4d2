//! The exit codes of `krabka-worm-verify`: what a verification's outcome,
//! or its failure to run, tells the calling script.
//!
//! | Code | Meaning |
//! |---|---|
//! | 0 | verified |
//! | 1 | evidence of tampering (also foreign objects under `_chain/`, delete markers, hidden partitions, missing pinned versions, lock headers in a bucket without Object Lock) |
//! | 2 | incomplete attestation (unsigned or untrusted manifests, unknown format version, weak retention, a bucket without versioning, Object Lock or a COMPLIANCE default, `--expect-head` with several partitions in scope) |
//! | 3 | the archive could not be read (also: a truncated version listing without continuation, the report could not be written, or the verifier failed inside) |
//!
//! Notices (a committed but unfinished copy, stray objects) leave the code
//! at 0.
//! | 64 | usage error (BSD `EX_USAGE`) |

use krabka_worm::VerifyOutcome;

/// A verified archive.
pub const VERIFIED: u8 = 0;
/// Evidence of tampering.
pub const TAMPERED: u8 = 1;
/// An archive that cannot be fully attested.
pub const INCOMPLETE: u8 = 2;
/// The archive could not be read.
pub const UNREADABLE: u8 = 3;
/// A usage error (BSD `EX_USAGE`).
pub const USAGE: u8 = 64;

/// The exit code of a verification that ran to `outcome`.
#[must_use]
pub fn exit_code(outcome: VerifyOutcome) -> u8 {
    match outcome {
        VerifyOutcome::Verified => VERIFIED,
        VerifyOutcome::Tampered => TAMPERED,
        VerifyOutcome::Incomplete => INCOMPLETE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_has_its_documented_code() {
        assert_eq!(exit_code(VerifyOutcome::Verified), 0);
        assert_eq!(exit_code(VerifyOutcome::Tampered), 1);
        assert_eq!(exit_code(VerifyOutcome::Incomplete), 2);
        assert_eq!((UNREADABLE, USAGE), (3, 64));
    }
}
