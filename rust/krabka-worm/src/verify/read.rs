//! Reading a partition's manifests and chain seals: every one that decodes,
//! a finding for every one that does not.

use {
    super::{
        Result,
        listing::chain_name,
        partition::{Chain, Entry},
        report::{PartitionVerifyReport, VerifyBreak},
    },
    crate::{
        error::WormError,
        manifest::{MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, SegmentManifest},
        seal::parse_seal_name,
        stamp::{EpochId, ManifestSeq},
    },
    krabka_object_store::store::errors::to_store_error,
    object_store::{ObjectStore, ObjectStoreExt, path::Path},
    std::collections::BTreeMap,
};

/// The manifests and seals of one partition directory that decode.
pub(super) struct ReadEntries {
    /// Manifests beside the segments, in key order.
    pub(super) manifests: Vec<Entry>,
    /// Seals, by the chain position their key names (and their body
    /// records).
    pub(super) seals: Chain,
}

/// Reads every manifest (counted in `report.manifests`) and every seal
/// (recorded in `report.archived`) of the directory `dir` in key order;
/// findings go to `report.findings`.
pub(super) async fn read_entries(
    store: &dyn ObjectStore,
    dir: &str,
    names: &BTreeMap<String, u64>,
    report: &mut PartitionVerifyReport,
) -> Result<ReadEntries> {
    let mut read = ReadEntries {
        manifests: Vec::new(),
        seals: BTreeMap::new(),
    };
    for (name, size) in names {
        let key = format!("{dir}/{name}");
        if let Some(seal_name) = chain_name(name) {
            let Some(position) = parse_seal_name(seal_name) else {
                continue;
            };
            if let Some(seal) = read_seal(store, key, *size, position, &mut report.findings).await?
            {
                report.archived.push((seal.key.clone(), None));
                read.seals.insert(position, seal);
            }
        } else if name.ends_with(MANIFEST_SUFFIX) {
            report.manifests += 1;
            if let Some((bytes, manifest)) =
                read_manifest(store, &key, *size, &mut report.findings).await?
            {
                read.manifests.push(Entry {
                    key,
                    bytes,
                    manifest,
                });
            }
        }
    }
    Ok(read)
}

/// Reads the seal at `key`, whose name is the chain `position`; `None`
/// (with a finding) when it does not decode or its body records another
/// position.
async fn read_seal(
    store: &dyn ObjectStore,
    key: String,
    size: u64,
    position: (EpochId, ManifestSeq),
    findings: &mut Vec<VerifyBreak>,
) -> Result<Option<Entry>> {
    let Some((bytes, manifest)) = read_manifest(store, &key, size, findings).await? else {
        return Ok(None);
    };
    let chain = manifest.body.chain;
    if (chain.epoch_id, chain.seq) != position {
        findings.push(VerifyBreak::SealMismatch {
            key,
            detail: format!(
                "the key names epoch {} seq {}, the body records epoch {} seq {}",
                position.0, position.1, chain.epoch_id, chain.seq
            ),
        });
        return Ok(None);
    }
    Ok(Some(Entry {
        key,
        bytes,
        manifest,
    }))
}

/// Reads a manifest or seal; `None` (with a finding) when it does not
/// decode.
async fn read_manifest(
    store: &dyn ObjectStore,
    key: &str,
    size: u64,
    findings: &mut Vec<VerifyBreak>,
) -> Result<Option<(Vec<u8>, SegmentManifest)>> {
    if size > MAX_MANIFEST_BYTES as u64 {
        findings.push(VerifyBreak::ManifestUnreadable {
            key: key.to_owned(),
            detail: format!("{size} bytes, above the {MAX_MANIFEST_BYTES} byte cap"),
        });
        return Ok(None);
    }
    let bytes = store
        .get(&Path::from(key))
        .await
        .map_err(|e| to_store_error(e, "read of", key))?
        .bytes()
        .await
        .map_err(|e| to_store_error(e, "read of", key))?
        .to_vec();
    match SegmentManifest::from_bytes(&bytes) {
        Ok(manifest) => Ok(Some((bytes, manifest))),
        Err(err @ WormError::UnsupportedFormatVersion { .. }) => {
            findings.push(VerifyBreak::UnsupportedFormat {
                key: key.to_owned(),
                detail: err.to_string(),
            });
            Ok(None)
        }
        Err(err) => {
            findings.push(VerifyBreak::ManifestUnreadable {
                key: key.to_owned(),
                detail: err.to_string(),
            });
            Ok(None)
        }
    }
}
