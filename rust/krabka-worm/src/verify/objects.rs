//! The objects the chain's manifests name: each named once, within its own
//! segment, present with the recorded size, and (deep) re-hashed by
//! streaming; on a hash mismatch the pinned version is re-read to tell
//! whether the original bytes survive beneath.

use {
    super::{
        Result,
        partition::{Chain, Entry},
        progress::Tracker,
        report::{PartitionVerifyReport, VerifyBreak},
    },
    crate::manifest::ObjectEntry,
    futures_util::StreamExt,
    krabka_kafka::kafka_uuid,
    krabka_object_store::store::errors::to_store_error,
    object_store::{GetOptions, ObjectStore, ObjectStoreExt, path::Path},
    sha2::{Digest, Sha256},
    std::collections::{BTreeMap, HashSet},
};

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

impl ObjectCheck<'_> {
    /// Checks every object every entry of `chain` names, into `report`;
    /// the keys named.
    pub(super) async fn check_chain(
        &self,
        chain: &Chain,
        report: &mut PartitionVerifyReport,
        tracker: &mut Tracker<'_>,
    ) -> Result<HashSet<String>> {
        let mut named = HashSet::new();
        for entry in chain.values() {
            let own_base = self.own_base(entry);
            for object in &entry.manifest.body.objects {
                report.objects += 1;
                report
                    .archived
                    .push((object.key.clone(), object.version_id.clone()));
                if object.key != format!("{own_base}{}", object.suffix) {
                    report.findings.push(VerifyBreak::ObjectOutsideSegment {
                        key: object.key.clone(),
                        manifest: entry.key.clone(),
                    });
                }
                if !named.insert(object.key.clone()) {
                    report.findings.push(VerifyBreak::DuplicateObject {
                        key: object.key.clone(),
                        manifest: entry.key.clone(),
                    });
                    continue;
                }
                self.check_object(object, report, tracker).await?;
            }
        }
        Ok(named)
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
    async fn check_object(
        &self,
        object: &ObjectEntry,
        report: &mut PartitionVerifyReport,
        tracker: &mut Tracker<'_>,
    ) -> Result<()> {
        let Some(stored) = self.stored_size(&object.key).await? else {
            report.findings.push(VerifyBreak::ObjectMissing {
                key: object.key.clone(),
            });
            return Ok(());
        };
        if stored != object.size_bytes {
            report.findings.push(VerifyBreak::SizeMismatch {
                key: object.key.clone(),
                expected: object.size_bytes,
                found: stored,
            });
            if self.deep {
                tracker.object_done();
            }
            return Ok(());
        }
        if self.deep {
            let (digest, hashed) =
                hash_object(self.store, &object.key, None, Some(tracker)).await?;
            report.bytes_hashed += hashed;
            if digest != Some(object.sha256.0) {
                report.findings.push(VerifyBreak::HashMismatch {
                    key: object.key.clone(),
                    original_survives: self.original_survives(object).await,
                });
            }
            tracker.object_done();
        }
        Ok(())
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
            .and_then(|(digest, _)| digest)
            .map(|digest| digest == object.sha256.0)
    }
}

/// Streams an object (or one version of it) through SHA-256; memory is one
/// network chunk. `None` digest when the object (version) is gone. Each
/// chunk is reported to `tracker` when there is one.
async fn hash_object(
    store: &dyn ObjectStore,
    key: &str,
    version: Option<String>,
    mut tracker: Option<&mut Tracker<'_>>,
) -> Result<(Option<[u8; 32]>, u64)> {
    let options = GetOptions {
        version,
        ..GetOptions::default()
    };
    let result = match store.get_opts(&Path::from(key), options).await {
        Ok(result) => result,
        Err(object_store::Error::NotFound { .. }) => return Ok((None, 0)),
        Err(e) => return Err(to_store_error(e, "read of", key).into()),
    };
    let mut stream = result.into_stream();
    let mut hasher = Sha256::new();
    let mut hashed = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| to_store_error(e, "read of", key))?;
        hashed += chunk.len() as u64;
        hasher.update(&chunk);
        if let Some(tracker) = tracker.as_deref_mut() {
            tracker.hashed(chunk.len() as u64);
        }
    }
    Ok((Some(hasher.finalize().into()), hashed))
}
