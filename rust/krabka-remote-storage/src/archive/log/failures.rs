//! [`FailureLog`]: one WARN per kind of failure until it next succeeds,
//! so a witness or bucket that is down does not fill the broker's log.

use std::{
    collections::HashSet,
    sync::{Mutex, PoisonError},
};

/// Which kinds of failure are ongoing.
#[derive(Debug, Default)]
pub(super) struct FailureLog {
    failing: Mutex<HashSet<String>>,
}

impl FailureLog {
    /// Records a failure of `kind`: `true` the first time since it last
    /// succeeded (the caller warns), `false` after (the caller stays quiet).
    pub(super) fn failed(&self, kind: &str) -> bool {
        self.failing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(kind.to_owned())
    }

    /// Records a success of `kind`: `true` when it had been failing.
    pub(super) fn succeeded(&self, kind: &str) -> bool {
        self.failing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_warns_once_until_it_recovers() {
        let log = FailureLog::default();
        assert!(log.failed("witness a"));
        assert!(!log.failed("witness a"));
        assert!(log.failed("witness b"));
        assert!(log.succeeded("witness a"));
        assert!(!log.succeeded("witness a"));
        assert!(log.failed("witness a"));
    }
}
