//! Objects under `_chain/` that are no seal of the archive's writers: only
//! the writers may write there, so each is evidence of tampering. The
//! writers route their chain around one at a position they would take
//! ([`detour_epoch`](crate::detour_epoch)); the finding says whether the
//! chain does, and whether the chain as listed verifies without it.

use super::{
    epochs::Route,
    partition::Position,
    report::{Severity, VerifyBreak},
};

/// An object under `_chain/` that is not a seal, as found.
#[derive(Debug)]
pub(super) struct Foreign {
    /// Its key.
    key: String,
    /// The seal position its key names, when it names one.
    position: Option<Position>,
    /// Why it is no seal.
    reason: String,
    /// What to report instead when no detour routes around it: a seal that
    /// is the archive's own but cannot be attested (unsigned, untrusted, a
    /// format this build does not read) keeps that finding.
    unless_routed: Option<VerifyBreak>,
}

impl Foreign {
    /// The object `key` at `position` (if its name is one), foreign for
    /// `reason`.
    pub(super) fn new(key: String, position: Option<Position>, reason: String) -> Self {
        Self {
            key,
            position,
            reason,
            unless_routed: None,
        }
    }

    /// The same object, reported as `finding` when no detour routes around
    /// it.
    pub(super) fn unless_routed(self, finding: VerifyBreak) -> Self {
        Self {
            unless_routed: Some(finding),
            ..self
        }
    }

    /// The object at `position` whose signature check found `finding`
    /// (unsigned, untrusted, invalid): foreign once a detour routes around
    /// it.
    pub(super) fn untrusted(key: String, position: Position, finding: VerifyBreak) -> Self {
        let reason = match &finding {
            VerifyBreak::Unsigned { .. } => "an unsigned seal".to_owned(),
            VerifyBreak::UntrustedKey { key_id, .. } => {
                format!("a seal signed by the untrusted key id `{key_id}`")
            }
            VerifyBreak::SignatureInvalid { detail, .. } => {
                format!("a seal whose signature does not verify: {detail}")
            }
            other => format!("a seal that cannot be attested: {other:?}"),
        };
        Self::new(key, Some(position), reason).unless_routed(finding)
    }

    /// The seal position its key names, if any.
    pub(super) fn position(&self) -> Option<Position> {
        self.position
    }
}

/// Reports `foreign` into `findings` (after every other finding of the
/// partition, so the detail can say whether the listed chain verifies
/// without them): a [`VerifyBreak::ForeignObject`] for each, or its own
/// finding for an unattested seal that no route in `routes` goes around.
pub(super) fn report_foreign(
    foreign: Vec<Foreign>,
    routes: &[Route],
    findings: &mut Vec<VerifyBreak>,
) {
    let intact = !findings.iter().any(|f| f.severity() == Severity::Tampering);
    for object in foreign {
        let route = object
            .position
            .and_then(|at| routes.iter().find(|r| r.from == at));
        let placement = match (route, object.position) {
            (Some(route), _) => format!(
                "the chain routes around it through detour epoch {}",
                route.detour
            ),
            (None, Some(_)) => {
                if let Some(fallback) = object.unless_routed {
                    findings.push(fallback);
                    continue;
                }
                "no detour routes around it".to_owned()
            }
            (None, None) => "it holds no chain position".to_owned(),
        };
        let verdict = if intact {
            "; the committed records verify without it"
        } else {
            ""
        };
        findings.push(VerifyBreak::ForeignObject {
            key: object.key,
            detail: format!("{}; {placement}{verdict}", object.reason),
        });
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{
            digest::ChainHead,
            stamp::{EpochId, ManifestSeq},
        },
        uuid::Uuid,
    };

    fn at(seq: u64) -> Position {
        (EpochId(Uuid::from_u128(1)), ManifestSeq(seq))
    }

    fn route(seq: u64) -> Route {
        Route {
            from: at(seq),
            detour: EpochId(Uuid::from_u128(2)),
            head: ChainHead::GENESIS,
        }
    }

    fn details(findings: &[VerifyBreak]) -> Vec<String> {
        findings
            .iter()
            .map(|f| match f {
                VerifyBreak::ForeignObject { detail, .. } => detail.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn an_unattested_seal_is_foreign_only_when_routed_around() {
        let unsigned = || VerifyBreak::Unsigned { key: "s".into() };
        let mut findings = Vec::new();
        report_foreign(
            vec![Foreign::untrusted("s".into(), at(3), unsigned())],
            &[],
            &mut findings,
        );
        assert_eq!(findings, vec![unsigned()]);
        let mut findings = Vec::new();
        report_foreign(
            vec![Foreign::untrusted("s".into(), at(3), unsigned())],
            &[route(3)],
            &mut findings,
        );
        let text = details(&findings);
        assert!(
            text[0]
                .starts_with("an unsigned seal; the chain routes around it through detour epoch"),
            "{text:?}"
        );
        assert!(text[0].ends_with("the committed records verify without it"));
    }

    #[test]
    fn junk_is_foreign_routed_or_not_and_says_whether_the_chain_is_intact() {
        let junk = |seq| Foreign::new(format!("j{seq}"), Some(at(seq)), "junk".into());
        let stray = Foreign::new("x".into(), None, "no seal name".into());
        let mut findings = vec![VerifyBreak::ObjectMissing { key: "o".into() }];
        report_foreign(vec![junk(1), junk(2), stray], &[route(2)], &mut findings);
        assert_eq!(
            details(&findings[1..]),
            vec![
                "junk; no detour routes around it".to_owned(),
                format!(
                    "junk; the chain routes around it through detour epoch {}",
                    route(2).detour
                ),
                "no seal name; it holds no chain position".to_owned(),
            ]
        );
    }
}
