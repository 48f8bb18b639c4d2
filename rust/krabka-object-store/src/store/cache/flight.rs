//! One chunk being fetched: every reader that wants it waits for the one
//! GET (single flight), and all get its outcome.

use {
    crate::store::error::StoreError,
    bytes::Bytes,
    std::sync::{Arc, Condvar, Mutex, PoisonError},
};

/// The outcome of a fetch, shareable between its waiters.
pub(super) type Outcome = Result<Bytes, Arc<StoreError>>;

/// A fetch in flight.
#[derive(Default)]
pub(super) struct Flight {
    outcome: Mutex<Option<Outcome>>,
    done: Condvar,
}

impl Flight {
    /// Records the outcome and wakes every waiter.
    pub(super) fn finish(&self, outcome: Outcome) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        self.done.notify_all();
    }

    /// Blocks until the outcome is known.
    pub(super) fn wait(&self) -> Outcome {
        let mut outcome = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(outcome) = outcome.as_ref() {
                return outcome.clone();
            }
            outcome = self
                .done
                .wait(outcome)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A shared failure as the caller's own error, keeping its class.
pub(super) fn owned_error(err: &Arc<StoreError>) -> StoreError {
    use crate::store::error::StoreErrorClass;
    let message = err.to_string();
    match err.class() {
        StoreErrorClass::NotFound => StoreError::NotFound { resource: message },
        StoreErrorClass::InvalidInput => StoreError::InvalidArgument(message),
        StoreErrorClass::Retryable => StoreError::Retryable {
            message,
            source: Some(Box::new(Shared(Arc::clone(err)))),
        },
        _ => StoreError::Backend {
            message,
            source: Some(Box::new(Shared(Arc::clone(err)))),
        },
    }
}

/// A failure several readers share.
#[derive(Debug)]
struct Shared(Arc<StoreError>);

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Shared {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.0)
    }
}

#[cfg(test)]
mod tests {
    use {super::*, crate::store::error::StoreErrorClass};

    #[test]
    fn every_waiter_gets_the_one_outcome() {
        let flight = Arc::new(Flight::default());
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let flight = Arc::clone(&flight);
                std::thread::spawn(move || flight.wait())
            })
            .collect();
        flight.finish(Ok(Bytes::from_static(b"chunk")));
        for waiter in waiters {
            assert_eq!(
                waiter.join().unwrap().unwrap(),
                Bytes::from_static(b"chunk")
            );
        }
    }

    #[test]
    fn a_shared_failure_keeps_its_class() {
        for err in [
            StoreError::not_found("x"),
            StoreError::Retryable {
                message: "503".to_owned(),
                source: None,
            },
            StoreError::InvalidArgument("bad".to_owned()),
            StoreError::Backend {
                message: "denied".to_owned(),
                source: None,
            },
        ] {
            let class = err.class();
            assert_eq!(owned_error(&Arc::new(err)).class(), class);
        }
        assert_eq!(
            owned_error(&Arc::new(StoreError::Refused("no".to_owned()))).class(),
            StoreErrorClass::Other
        );
    }
}
