//! Reading a partition's manifests and chain seals: every one that decodes,
//! a finding for every manifest that does not, and every object under
//! `_chain/` that is not a seal set aside as foreign.

use {
    super::{
        Result,
        foreign::Foreign,
        listing::chain_name,
        partition::{Chain, Entry, Position},
        report::{PartitionVerifyReport, VerifyBreak},
    },
    crate::{
        error::WormError,
        manifest::{MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, SegmentManifest},
        seal::{ForeignSeal, check_seal_size, parse_seal_name},
    },
    krabka_object_store::store::{errors::to_store_error, fetch::read_prefix},
    object_store::{ObjectStore, path::Path},
    std::collections::BTreeMap,
};

/// The manifests and seals of one partition directory that decode.
pub(super) struct ReadEntries {
    /// Manifests beside the segments, in key order.
    pub(super) manifests: Vec<Entry>,
    /// Seals, by the chain position their key names (and their body
    /// records).
    pub(super) seals: Chain,
    /// Objects under `_chain/` that are no seal, in key order.
    pub(super) foreign: Vec<Foreign>,
}

/// Reads every manifest (counted in `report.manifests`) and every seal
/// (recorded in `report.archived`) of the directory `dir` in key order;
/// findings about manifests go to `report.findings`.
pub(super) async fn read_entries(
    store: &dyn ObjectStore,
    dir: &str,
    names: &BTreeMap<String, u64>,
    report: &mut PartitionVerifyReport,
) -> Result<ReadEntries> {
    let mut read = ReadEntries {
        manifests: Vec::new(),
        seals: BTreeMap::new(),
        foreign: Vec::new(),
    };
    for (name, size) in names {
        let key = format!("{dir}/{name}");
        if let Some(seal_name) = chain_name(name) {
            let Some(position) = parse_seal_name(seal_name) else {
                read.foreign.push(Foreign::new(
                    key,
                    None,
                    "its name is no seal position (`<epoch id>/<seq, 20 digits>.seal`)".to_owned(),
                ));
                continue;
            };
            if let Some(seal) = read_seal(store, key, *size, position, &mut read.foreign).await? {
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

/// Reads the object at the seal position `position` (its key): a seal
/// when it decodes to a manifest of that position, else (set aside in
/// `foreign`) `None`. An object larger than any manifest is never read.
/// Whether its signature is trusted is the signature step's to say.
async fn read_seal(
    store: &dyn ObjectStore,
    key: String,
    size: u64,
    position: Position,
    foreign: &mut Vec<Foreign>,
) -> Result<Option<Entry>> {
    if let Err(err) = check_seal_size(size) {
        foreign.push(Foreign::new(key, Some(position), err.to_string()));
        return Ok(None);
    }
    let bytes = fetch(store, &key, size).await?;
    let manifest = match SegmentManifest::from_bytes(&bytes) {
        Ok(manifest) => manifest,
        Err(err @ WormError::UnsupportedFormatVersion { .. }) => {
            let fallback = VerifyBreak::UnsupportedFormat {
                key: key.clone(),
                detail: err.to_string(),
            };
            let reason = format!("a seal this build cannot read: {err}");
            foreign.push(Foreign::new(key, Some(position), reason).unless_routed(fallback));
            return Ok(None);
        }
        Err(err) => {
            let reason = format!("its bytes are no manifest: {err}");
            foreign.push(Foreign::new(key, Some(position), reason));
            return Ok(None);
        }
    };
    let chain = manifest.body.chain;
    if (chain.epoch_id, chain.seq) != position {
        let misplaced = ForeignSeal::Misplaced {
            epoch_id: chain.epoch_id,
            seq: chain.seq,
        };
        foreign.push(Foreign::new(key, Some(position), misplaced.to_string()));
        return Ok(None);
    }
    Ok(Some(Entry {
        key,
        bytes,
        manifest,
    }))
}

/// Reads a manifest beside a segment; `None` (with a finding) when it does
/// not decode.
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
    let bytes = fetch(store, key, size).await?;
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

/// The bytes of `key`, at most [`MAX_MANIFEST_BYTES`] + 1 of them: the
/// listing said it is `listed` bytes, no more than the cap, but an object
/// replaced since may be larger, and the decoder refuses what is over the
/// cap. Some servers refuse the range of an empty object (416).
async fn fetch(store: &dyn ObjectStore, key: &str, listed: u64) -> Result<Vec<u8>> {
    match read_prefix(store, &Path::from(key), MAX_MANIFEST_BYTES as u64 + 1).await {
        Ok(bytes) => Ok(bytes.to_vec()),
        Err(_) if listed == 0 => Ok(Vec::new()),
        Err(e) => Err(to_store_error(e, "read of", key).into()),
    }
}
