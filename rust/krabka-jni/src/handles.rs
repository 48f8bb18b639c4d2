//! Typed, reference-counted handles for native state held by Java objects.
//!
//! Java keeps a `long`; the state lives in an [`Arc`] in a per-type registry.
//! A call clones the `Arc` out of the registry and works on its clone, so
//! `close()` (which only removes the registry entry) never frees state under a
//! running call: the state is dropped when the last call using it returns. A
//! handle of one type is never found in another type's registry, and a stale
//! handle is an error, not undefined behaviour.

use {
    crate::error::BridgeError,
    std::{
        collections::HashMap,
        sync::{
            Arc, PoisonError, RwLock,
            atomic::{AtomicI64, Ordering},
        },
    },
};

/// Handle values are unique across every registry of the process, so a handle
/// passed to the wrong registry is reported as stale rather than aliasing.
static NEXT_HANDLE: AtomicI64 = AtomicI64::new(1);

/// The live native objects of one type.
#[derive(Debug)]
pub struct Registry<T: ?Sized> {
    kind: &'static str,
    entries: RwLock<Option<HashMap<i64, Arc<T>>>>,
}

impl<T: ?Sized> Registry<T> {
    /// An empty registry for objects described as `kind` in errors.
    #[must_use]
    pub const fn new(kind: &'static str) -> Self {
        Self {
            kind,
            entries: RwLock::new(None),
        }
    }

    /// Stores `value` and returns its new handle (never 0).
    pub fn insert(&self, value: Arc<T>) -> i64 {
        let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        entries
            .get_or_insert_with(HashMap::new)
            .insert(handle, value);
        handle
    }

    /// The object behind `handle`, kept alive for as long as the caller holds
    /// the returned `Arc`.
    ///
    /// # Errors
    /// [`BridgeError::StaleHandle`] when the handle is unknown or closed.
    pub fn get(&self, handle: i64) -> Result<Arc<T>, BridgeError> {
        let entries = self.entries.read().unwrap_or_else(PoisonError::into_inner);
        entries
            .as_ref()
            .and_then(|map| map.get(&handle))
            .cloned()
            .ok_or(BridgeError::StaleHandle {
                kind: self.kind,
                handle,
            })
    }

    /// Forgets `handle`; returns the object if it was live. Removing twice is
    /// harmless (the second call returns `None`).
    pub fn remove(&self, handle: i64) -> Option<Arc<T>> {
        let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        entries.as_mut().and_then(|map| map.remove(&handle))
    }

    /// Whether no handle is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many handles are live.
    pub fn len(&self) -> usize {
        let entries = self.entries.read().unwrap_or_else(PoisonError::into_inner);
        entries.as_ref().map_or(0, HashMap::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removal_does_not_free_state_a_caller_still_holds() {
        let registry = Registry::new("test");
        let handle = registry.insert(Arc::new(String::from("state")));
        let in_flight = registry.get(handle).unwrap();
        assert!(registry.remove(handle).is_some());
        assert_eq!(*in_flight, "state");
        assert!(matches!(
            registry.get(handle),
            Err(BridgeError::StaleHandle { kind: "test", .. })
        ));
        assert!(registry.remove(handle).is_none());
        assert_eq!(Arc::strong_count(&in_flight), 1);
    }

    #[test]
    fn handles_of_one_registry_are_unknown_to_another() {
        let first: Registry<u8> = Registry::new("first");
        let second: Registry<u8> = Registry::new("second");
        let handle = first.insert(Arc::new(1));
        assert!(matches!(
            second.get(handle),
            Err(BridgeError::StaleHandle { kind: "second", .. })
        ));
        assert_ne!(handle, 0);
        assert_eq!(first.len(), 1);
        assert_eq!(second.len(), 0);
    }
}
