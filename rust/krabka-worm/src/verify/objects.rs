//! The objects the chain's manifests name: each named once, within its own
//! segment, present with the recorded size, and (deep) re-hashed by
//! streaming; on a hash mismatch the pinned version is re-read to tell
//! whether the original bytes survive beneath.
//!
//! A deep run checks [`parallel_objects`] objects at once (reading overlaps
//! hashing within each, see [`hashing`](super::hashing)), whichever finish
//! first; their findings are reported in manifest order, as a run one object
//! at a time would.

use {
    super::{
        Result,
        hashing::{Hashed, hash_object},
        partition::{Chain, Entry},
        progress::Tracker,
        report::{PartitionVerifyReport, VerifyBreak},
    },
    crate::manifest::ObjectEntry,
    futures_util::StreamExt,
    krabka_kafka::kafka_uuid,
    krabka_object_store::store::errors::to_store_error,
    object_store::{ObjectStore, ObjectStoreExt, path::Path},
    std::collections::{BTreeMap, HashSet},
};

/// Objects checked at once in a deep run: one per core (at least two, so
/// one object's reading overlaps another's hashing), at most eight.
fn parallel_objects() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8))
}

/// What checking the objects of one partition directory needs.
pub(super) struct ObjectCheck<'a> {
    /// The store.
    pub(super) store: &'a dyn ObjectStore,
    /// The partition directory, prefix included.
    pub(super) dir: &'a str,
    /// Its listed names with their sizes.
    pub(super) names: &'a BTreeMap<String, u64>,
    /// Whether objects are re-hashed.
    pub(super) deep: bool,
}

/// What checking one object found: its findings and the bytes hashed.
#[derive(Default)]
struct Checked {
    findings: Vec<VerifyBreak>,
    bytes_hashed: u64,
}

impl ObjectCheck<'_> {
    /// Checks every object every entry of `chain` names, into `report`;
    /// the keys named.
    pub(super) async fn check_chain(
        &self,
        chain: &Chain,
        report: &mut PartitionVerifyReport,
        tracker: &Tracker<'_>,
    ) -> Result<HashSet<String>> {
        let mut named = HashSet::new();
        // Findings about names come before the object's own, in order.
        let mut steps = Vec::new();
        for entry in chain.values() {
            let own_base = self.own_base(entry);
            for object in &entry.manifest.body.objects {
                report.objects += 1;
                report
                    .archived
                    .push((object.key.clone(), object.version_id.clone()));
                let mut before = Vec::new();
                if object.key != format!("{own_base}{}", object.suffix) {
                    before.push(VerifyBreak::ObjectOutsideSegment {
                        key: object.key.clone(),
                        manifest: entry.key.clone(),
                    });
                }
                if named.insert(object.key.clone()) {
                    steps.push((before, Some(object)));
                } else {
                    before.push(VerifyBreak::DuplicateObject {
                        key: object.key.clone(),
                        manifest: entry.key.clone(),
                    });
                    steps.push((before, None));
                }
            }
        }
        // Collected, so no closure type is part of this future (its `Send`
        // bound would otherwise need to hold for every lifetime).
        let mut checks = Vec::with_capacity(steps.len());
        for (index, (before, object)) in steps.into_iter().enumerate() {
            checks.push(self.check_step(index, before, object, tracker));
        }
        // Unordered, so a large object does not hold the next ones back
        // (`buffered` starts another only when the oldest is done: one
        // segment's log at a time); the results are put back in order.
        let mut checked = futures_util::stream::iter(checks).buffer_unordered(if self.deep {
            parallel_objects()
        } else {
            1
        });
        let mut early = BTreeMap::new();
        let mut next = 0;
        while let Some((index, step)) = checked.next().await {
            early.insert(index, step);
            while let Some(step) = early.remove(&next) {
                // The first error in manifest order ends the run, as it
                // would one object at a time.
                let (before, checked) = step?;
                report.findings.extend(before);
                report.findings.extend(checked.findings);
                report.bytes_hashed += checked.bytes_hashed;
                next += 1;
            }
        }
        Ok(named)
    }

    /// Step `index` of [`check_chain`](Self::check_chain): the findings
    /// `before` it, and `object` checked when it is named for the first time;
    /// returned with its index, as steps finish in any order.
    async fn check_step(
        &self,
        index: usize,
        before: Vec<VerifyBreak>,
        object: Option<&ObjectEntry>,
        tracker: &Tracker<'_>,
    ) -> (usize, Result<(Vec<VerifyBreak>, Checked)>) {
        let checked = match object {
            Some(object) => self.check_object(object, tracker).await,
            None => Ok(Checked::default()),
        };
        (index, checked.map(|checked| (before, checked)))
    }

    /// The key of `entry`'s segment without a suffix: where its objects
    /// belong.
    fn own_base(&self, entry: &Entry) -> String {
        let segment = &entry.manifest.body.segment;
        format!(
            "{}/{:020}-{}",
            self.dir,
            segment.start_offset,
            kafka_uuid(segment.segment_id)
        )
    }

    /// One object, named for the first time: present with the recorded
    /// size and, when deep, hashing to the recorded digest.
    async fn check_object(&self, object: &ObjectEntry, tracker: &Tracker<'_>) -> Result<Checked> {
        let mut checked = Checked::default();
        let Some(stored) = self.stored_size(&object.key).await? else {
            checked.findings.push(VerifyBreak::ObjectMissing {
                key: object.key.clone(),
            });
            return Ok(checked);
        };
        if stored != object.size_bytes {
            checked.findings.push(VerifyBreak::SizeMismatch {
                key: object.key.clone(),
                expected: object.size_bytes,
                found: stored,
            });
            if self.deep {
                tracker.object_done();
            }
            return Ok(checked);
        }
        if self.deep {
            let hashed = hash_object(self.store, &object.key, None, Some(tracker)).await?;
            checked.bytes_hashed = hashed.len();
            if hashed.digest() != Some(object.sha256.0) {
                checked.findings.push(VerifyBreak::HashMismatch {
                    key: object.key.clone(),
                    original_survives: self.original_survives(object).await,
                });
            }
            tracker.object_done();
        }
        Ok(checked)
    }
    /// The stored size of `key`, `None` when it is missing: from the
    /// listing inside this partition directory, from the store outside it.
    async fn stored_size(&self, key: &str) -> Result<Option<u64>> {
        let listed = key
            .strip_prefix(self.dir)
            .and_then(|k| k.strip_prefix('/'))
            .and_then(|name| self.names.get(name));
        match listed {
            Some(size) => Ok(Some(*size)),
            None if key.starts_with(&format!("{}/", self.dir)) => Ok(None),
            // Outside this partition: look it up directly.
            None => match self.store.head(&Path::from(key)).await {
                Ok(meta) => Ok(Some(meta.size)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(to_store_error(e, "head of", key).into()),
            },
        }
    }

    /// Whether the version `object` pins still hashes to the recorded
    /// digest: `None` when it pins none or the version cannot be read.
    async fn original_survives(&self, object: &ObjectEntry) -> Option<bool> {
        let version = object.version_id.clone()?;
        hash_object(self.store, &object.key, Some(version), None)
            .await
            .ok()
            .and_then(Hashed::digest)
            .map(|digest| digest == object.sha256.0)
    }
}
