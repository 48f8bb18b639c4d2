//! [`verify_archive`]: an auditor's check of a finished archive with nothing
//! but the bucket and trusted public keys.
//!
//! Lists the prefix once, groups the keys by partition directory, and per
//! partition: reads every manifest and chain seal, checks signatures
//! against the trusted set, cross-checks manifests with their seals, walks
//! every chain epoch, checks the objects each manifest names (present with
//! the recorded size; deep: re-hashed by streaming, and on a mismatch the
//! pinned version is re-read), and reports stray objects and offset gaps.
//! A deep run reports its progress to a [`VerifyObserver`]
//! ([`verify_archive_observed`]).

mod error;
mod progress;
mod report;

pub use error::VerifyError;

/// Results of the verifier.
type Result<T, E = VerifyError> = std::result::Result<T, E>;

pub use progress::{DeepProgress, NoProgress, VerifyObserver};

pub use report::{
    ArchiveVerifyReport, AuthenticatedArchive, EpochSpan, ObjectProtectionReport, OffsetGap,
    PartitionVerifyReport, Severity, VerifyBreak, VerifyDepth, VerifyOutcome, VerifyRequest,
};
use {
    crate::{
        CHAIN_DIR, ChainHead, ChainWalk, EpochId, MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, ManifestSeq,
        SegmentManifest, WORM_PROBE_DIR, WormError, parse_seal_name, verify_manifest_signature,
    },
    futures_util::{StreamExt, TryStreamExt},
    krabka_kafka::{kafka_uuid, parse_partition_dir_name},
    krabka_object_store::store::errors::to_store_error,
    object_store::{GetOptions, ObjectStore, ObjectStoreExt, path::Path},
    progress::Tracker,
    sha2::{Digest, Sha256},
    std::collections::{BTreeMap, BTreeSet, HashMap},
};

/// Verifies the archive under `request.prefix` in `store`.
///
/// # Errors
/// [`VerifyError::Store`] when the store cannot be listed or an object
/// cannot be read for a reason other than its absence: the archive could
/// not be read, which is not a finding.
pub async fn verify_archive(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
) -> Result<ArchiveVerifyReport> {
    verify_archive_observed(store, request, &NoProgress).await
}

/// [`verify_archive`], reporting the progress of a deep run to `observer`
/// (see [`VerifyObserver`] for when; a shallow run reports nothing).
///
/// # Errors
/// Those of [`verify_archive`].
pub async fn verify_archive_observed(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
    observer: &dyn VerifyObserver,
) -> Result<ArchiveVerifyReport> {
    let prefix = request
        .prefix
        .as_deref()
        .map(|p| p.trim_matches('/'))
        .filter(|p| !p.is_empty());
    let listed: Vec<_> = store
        .list(prefix.map(Path::from).as_ref())
        .try_collect()
        .await
        .map_err(|e| to_store_error(e, "listing of", prefix.unwrap_or("the bucket")))?;
    let objects_listed = listed.len();
    // dir -> (name within dir -> size)
    let mut partitions: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for meta in listed {
        let key = meta.location.to_string();
        let relative = match prefix {
            Some(prefix) => key.strip_prefix(prefix).and_then(|k| k.strip_prefix('/')),
            None => Some(key.as_str()),
        };
        let Some((dir, name)) = relative.and_then(|r| r.split_once('/')) else {
            continue;
        };
        if dir == WORM_PROBE_DIR {
            continue;
        }
        partitions
            .entry(dir.to_owned())
            .or_default()
            .insert(name.to_owned(), meta.size);
    }
    let mut report = ArchiveVerifyReport {
        depth: request.depth,
        objects_listed,
        partitions: Vec::new(),
        findings: Vec::new(),
    };
    let in_scope: Vec<_> = partitions
        .into_iter()
        .filter_map(|(dir, names)| {
            let parsed = parse_partition_dir_name(&dir)?;
            let wanted = request.topic.as_ref().is_none_or(|t| *t == parsed.topic)
                && request.partition.is_none_or(|p| p == parsed.partition);
            wanted.then_some((dir, parsed, names))
        })
        .collect();
    let deep = request.depth == VerifyDepth::Deep;
    let mut tracker = Tracker::new(observer);
    if deep {
        let chain_prefix = format!("{CHAIN_DIR}/");
        for (_, _, names) in &in_scope {
            for (name, size) in names {
                if !name.ends_with(MANIFEST_SUFFIX) && !name.starts_with(&chain_prefix) {
                    tracker.progress.objects_total += 1;
                    tracker.progress.bytes_total =
                        tracker.progress.bytes_total.saturating_add(*size);
                }
            }
        }
        tracker.report();
    }
    for (dir, parsed, names) in in_scope {
        let full_dir = match prefix {
            Some(prefix) => format!("{prefix}/{dir}"),
            None => dir.clone(),
        };
        let mut partition = PartitionVerifyReport {
            dir: full_dir,
            topic: parsed.topic,
            partition: parsed.partition,
            manifests: 0,
            objects: 0,
            bytes_hashed: 0,
            epochs: Vec::new(),
            tip: None,
            gaps: Vec::new(),
            findings: Vec::new(),
            protection: Vec::new(),
            archived: Vec::new(),
        };
        verify_partition(store, request, &names, &mut partition, &mut tracker).await?;
        report.partitions.push(partition);
    }
    if deep {
        tracker.finish();
    }
    if let Some(expected) = request.expect_head {
        match report.partitions.as_slice() {
            [only] if only.tip == Some(expected) => {}
            [only] => report.findings.push(VerifyBreak::ExpectHeadMismatch {
                expected,
                found: only.tip,
            }),
            [] => report.findings.push(VerifyBreak::ExpectHeadMismatch {
                expected,
                found: None,
            }),
            more => report.findings.push(VerifyBreak::ExpectHeadAmbiguous {
                partitions: more.len(),
            }),
        }
    }
    Ok(report)
}

/// [`verify_archive`] on the store `config` describes, on a runtime of its
/// own (for command-line tools and the JVM). A local directory that does
/// not exist is [`VerifyError::MissingDirectory`], not an empty archive.
///
/// # Errors
/// [`VerifyError::Config`] for a bad configuration; those of
/// [`verify_archive`].
pub fn verify_archive_config(
    config: &krabka_object_store::ObjectStoreConfig,
    request: &VerifyRequest,
) -> Result<ArchiveVerifyReport> {
    verify_archive_config_observed(config, request, &NoProgress)
}

/// [`verify_archive_config`], reporting the progress of a deep run to
/// `observer` as [`verify_archive_observed`] does.
///
/// # Errors
/// Those of [`verify_archive_config`].
pub fn verify_archive_config_observed(
    config: &krabka_object_store::ObjectStoreConfig,
    request: &VerifyRequest,
    observer: &dyn VerifyObserver,
) -> Result<ArchiveVerifyReport> {
    if let krabka_object_store::ObjectStoreConfig::Local { root } = config {
        if !root.is_dir() {
            return Err(VerifyError::MissingDirectory { path: root.clone() });
        }
    }
    let store = krabka_object_store::build_object_store(config).map_err(VerifyError::Config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(VerifyError::Runtime)?;
    runtime.block_on(async {
        let mut report = verify_archive_observed(&*store, request, observer).await?;
        if let krabka_object_store::ObjectStoreConfig::S3(s3) = config {
            s3_protection(s3, request, &mut report).await?;
        }
        Ok(report)
    })
}

/// On S3: lists every object version under the prefix once; flags delete
/// markers and newer versions shadowing an archived key, and reads the
/// Object Lock mode and retain-until date of every archived version.
async fn s3_protection(
    config: &krabka_object_store::S3Config,
    request: &VerifyRequest,
    report: &mut ArchiveVerifyReport,
) -> Result<()> {
    let reader = krabka_object_store::S3VersionReader::new(config).await?;
    let prefix = request
        .prefix
        .as_deref()
        .map(|p| format!("{}/", p.trim_matches('/')))
        .filter(|p| p != "/")
        .unwrap_or_default();
    let versions = reader.list_versions(&prefix).await?;
    // Per key, newest first (the order S3 lists them in).
    let mut by_key: HashMap<&str, Vec<&krabka_object_store::VersionEntry>> = HashMap::new();
    for entry in &versions {
        by_key.entry(entry.key.as_str()).or_default().push(entry);
    }
    for partition in &mut report.partitions {
        for (key, pinned) in &partition.archived {
            let Some(entries) = by_key.get(key.as_str()) else {
                continue;
            };
            if let Some(latest) = entries.iter().find(|e| e.is_latest) {
                let shadowed = if latest.delete_marker {
                    Some("delete marker".to_owned())
                } else {
                    match pinned {
                        Some(pinned) if latest.version_id != *pinned => {
                            Some(format!("newer version {}", latest.version_id))
                        }
                        None if entries.iter().filter(|e| !e.delete_marker).count() > 1 => {
                            Some(format!("newer version {}", latest.version_id))
                        }
                        _ => None,
                    }
                };
                if let Some(by) = shadowed {
                    partition.findings.push(VerifyBreak::Shadowed {
                        key: key.clone(),
                        by,
                    });
                }
            }
            let checked = match pinned {
                Some(pinned) => Some(pinned.clone()),
                None => entries
                    .iter()
                    .rev()
                    .find(|e| !e.delete_marker)
                    .map(|e| e.version_id.clone()),
            };
            let Some(version_id) = checked else {
                continue;
            };
            let retention = reader.retention(key, &version_id).await?;
            if retention.mode.as_deref() != Some("COMPLIANCE") {
                partition.findings.push(VerifyBreak::RetentionWeak {
                    key: key.clone(),
                    version_id: version_id.clone(),
                    mode: retention.mode.clone(),
                });
            }
            partition.protection.push(ObjectProtectionReport {
                key: key.clone(),
                version_id,
                mode: retention.mode,
                retain_until: retention.retain_until,
            });
        }
    }
    Ok(())
}

/// Verifies, and yields an [`AuthenticatedArchive`] only when the outcome
/// is [`VerifyOutcome::Verified`].
///
/// # Errors
/// Those of [`verify_archive`]; [`VerifyError::NotAuthentic`] with the
/// findings when the outcome is anything else.
pub async fn authenticate_archive(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
) -> Result<AuthenticatedArchive> {
    let report = verify_archive(store, request).await?;
    if report.outcome() == VerifyOutcome::Verified {
        return Ok(AuthenticatedArchive { report });
    }
    let findings: Vec<String> = report
        .all_findings()
        .filter(|f| f.severity() > Severity::Notice)
        .map(|f| format!("{f:?}"))
        .collect();
    Err(VerifyError::NotAuthentic {
        outcome: report.outcome(),
        findings,
    })
}

/// A manifest as read from the archive.
struct Entry {
    key: String,
    bytes: Vec<u8>,
    manifest: SegmentManifest,
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

#[allow(clippy::too_many_lines)]
async fn verify_partition(
    store: &dyn ObjectStore,
    request: &VerifyRequest,
    names: &BTreeMap<String, u64>,
    report: &mut PartitionVerifyReport,
    tracker: &mut Tracker<'_>,
) -> Result<()> {
    let dir = report.dir.clone();
    let deep = request.depth == VerifyDepth::Deep;
    let findings = &mut report.findings;
    // Manifests beside the segments, and seals.
    let mut manifests: Vec<Entry> = Vec::new();
    let mut seals: BTreeMap<(EpochId, ManifestSeq), Entry> = BTreeMap::new();
    let chain_prefix = format!("{CHAIN_DIR}/");
    for (name, size) in names {
        let key = format!("{dir}/{name}");
        if let Some(seal_name) = name.strip_prefix(&chain_prefix) {
            let Some(position) = parse_seal_name(seal_name) else {
                continue;
            };
            if let Some((bytes, manifest)) = read_manifest(store, &key, *size, findings).await? {
                let chain = manifest.body.chain;
                if (chain.epoch_id, chain.seq) != position {
                    findings.push(VerifyBreak::SealMismatch {
                        key: key.clone(),
                        detail: format!(
                            "the key names epoch {} seq {}, the body records epoch {} seq {}",
                            position.0, position.1, chain.epoch_id, chain.seq
                        ),
                    });
                    continue;
                }
                report.archived.push((key.clone(), None));
                seals.insert(
                    position,
                    Entry {
                        key,
                        bytes,
                        manifest,
                    },
                );
            }
        } else if name.ends_with(MANIFEST_SUFFIX) {
            report.manifests += 1;
            if let Some((bytes, manifest)) = read_manifest(store, &key, *size, findings).await? {
                manifests.push(Entry {
                    key,
                    bytes,
                    manifest,
                });
            }
        }
    }
    // Cross-check manifests and seals; the chain is walked over the union.
    let mut chain: BTreeMap<(EpochId, ManifestSeq), Entry> = BTreeMap::new();
    for entry in manifests {
        let position = (
            entry.manifest.body.chain.epoch_id,
            entry.manifest.body.chain.seq,
        );
        match seals.remove(&position) {
            Some(seal) if seal.bytes == entry.bytes => {}
            Some(seal) => findings.push(VerifyBreak::SealMismatch {
                key: seal.key,
                detail: format!("its bytes differ from the manifest {}", entry.key),
            }),
            None => findings.push(VerifyBreak::NotInChain {
                key: entry.key.clone(),
            }),
        }
        let expected_key = manifest_key_of(&dir, &entry.manifest);
        if entry.key != expected_key {
            findings.push(VerifyBreak::ManifestMisplaced {
                key: entry.key.clone(),
                expected: expected_key,
            });
        }
        match chain.entry(position) {
            std::collections::btree_map::Entry::Occupied(_) => {
                findings.push(VerifyBreak::ChainBroken {
                    epoch_id: position.0,
                    key: entry.key,
                    detail: format!("a second manifest at seq {}", position.1),
                });
            }
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(entry);
            }
        }
    }
    for (_, seal) in seals {
        let manifest_key = manifest_key_of(&dir, &seal.manifest);
        findings.push(VerifyBreak::ManifestMissing {
            seal: seal.key.clone(),
            manifest: manifest_key,
        });
        let position = (
            seal.manifest.body.chain.epoch_id,
            seal.manifest.body.chain.seq,
        );
        chain.insert(position, seal);
    }
    // Signatures.
    for entry in chain.values() {
        match verify_manifest_signature(&entry.manifest, &request.trusted) {
            Ok(_) => {}
            Err(WormError::Unsigned) => findings.push(VerifyBreak::Unsigned {
                key: entry.key.clone(),
            }),
            Err(WormError::UntrustedKey { key_id }) => findings.push(VerifyBreak::UntrustedKey {
                key: entry.key.clone(),
                key_id,
            }),
            Err(err @ WormError::UnsupportedFormatVersion { .. }) => {
                findings.push(VerifyBreak::UnsupportedFormat {
                    key: entry.key.clone(),
                    detail: err.to_string(),
                });
            }
            Err(err) => findings.push(VerifyBreak::SignatureInvalid {
                key: entry.key.clone(),
                detail: err.to_string(),
            }),
        }
    }
    // Chains, epoch by epoch.
    let mut accepted: Vec<&Entry> = Vec::new();
    let mut tip: Option<((i64, ManifestSeq), ChainHead)> = None;
    let mut epoch_ids: Vec<EpochId> = chain.keys().map(|(e, _)| *e).collect();
    epoch_ids.dedup();
    for epoch_id in epoch_ids {
        let mut walk = ChainWalk::new(epoch_id);
        let mut last_seq = None;
        for ((_, seq), entry) in
            chain.range((epoch_id, ManifestSeq(0))..=(epoch_id, ManifestSeq(u64::MAX)))
        {
            match walk.accept(&entry.manifest.body) {
                Ok(head) => {
                    last_seq = Some(*seq);
                    accepted.push(entry);
                    let rank = (entry.manifest.body.segment.start_offset, *seq);
                    if tip.as_ref().is_none_or(|(best, _)| rank > *best) {
                        tip = Some((rank, head));
                    }
                }
                Err(err) => {
                    findings.push(VerifyBreak::ChainBroken {
                        epoch_id,
                        key: entry.key.clone(),
                        detail: err.to_string(),
                    });
                    break;
                }
            }
        }
        report.epochs.push(EpochSpan {
            epoch_id,
            accepted: walk.len() as u64,
            last_seq,
            head: walk.head(),
        });
    }
    report.tip = tip.map(|(_, head)| head);
    for entry in chain.values() {
        report.archived.push((entry.key.clone(), None));
    }
    // Objects.
    let mut named: HashMap<String, String> = HashMap::new();
    for entry in chain.values() {
        let segment = &entry.manifest.body.segment;
        let own_base = format!(
            "{dir}/{:020}-{}",
            segment.start_offset,
            kafka_uuid(segment.segment_id)
        );
        for object in &entry.manifest.body.objects {
            report.objects += 1;
            report
                .archived
                .push((object.key.clone(), object.version_id.clone()));
            if object.key != format!("{own_base}{}", object.suffix) {
                findings.push(VerifyBreak::ForeignObject {
                    key: object.key.clone(),
                    manifest: entry.key.clone(),
                });
            }
            if named
                .insert(object.key.clone(), entry.key.clone())
                .is_some()
            {
                findings.push(VerifyBreak::DuplicateObject {
                    key: object.key.clone(),
                    manifest: entry.key.clone(),
                });
                continue;
            }
            let stored = object
                .key
                .strip_prefix(&dir)
                .and_then(|k| k.strip_prefix('/'))
                .and_then(|name| names.get(name));
            let stored = match stored {
                Some(size) => *size,
                None if object.key.starts_with(&format!("{dir}/")) => {
                    findings.push(VerifyBreak::ObjectMissing {
                        key: object.key.clone(),
                    });
                    continue;
                }
                // Outside this partition: look it up directly.
                None => match store.head(&Path::from(object.key.as_str())).await {
                    Ok(meta) => meta.size,
                    Err(object_store::Error::NotFound { .. }) => {
                        findings.push(VerifyBreak::ObjectMissing {
                            key: object.key.clone(),
                        });
                        continue;
                    }
                    Err(e) => return Err(to_store_error(e, "head of", &object.key).into()),
                },
            };
            if stored != object.size_bytes {
                findings.push(VerifyBreak::SizeMismatch {
                    key: object.key.clone(),
                    expected: object.size_bytes,
                    found: stored,
                });
                if deep {
                    tracker.object_done();
                }
                continue;
            }
            if deep {
                let (digest, hashed) = hash_object(store, &object.key, None, Some(tracker)).await?;
                report.bytes_hashed += hashed;
                if digest != Some(object.sha256.0) {
                    let original_survives = match &object.version_id {
                        Some(version) => {
                            hash_object(store, &object.key, Some(version.clone()), None)
                                .await
                                .ok()
                                .and_then(|(digest, _)| digest)
                                .map(|digest| digest == object.sha256.0)
                        }
                        None => None,
                    };
                    findings.push(VerifyBreak::HashMismatch {
                        key: object.key.clone(),
                        original_survives,
                    });
                }
                tracker.object_done();
            }
        }
    }
    // Stray objects: neither manifest, seal nor named.
    let referenced: BTreeSet<&str> = named.keys().map(String::as_str).collect();
    for name in names.keys() {
        let key = format!("{dir}/{name}");
        if name.ends_with(MANIFEST_SUFFIX)
            || name.starts_with(&chain_prefix)
            || referenced.contains(key.as_str())
        {
            continue;
        }
        findings.push(VerifyBreak::Orphan { key });
    }
    // Offset gaps between accepted manifests.
    let mut spans: Vec<(i64, i64)> = accepted
        .iter()
        .map(|e| {
            (
                e.manifest.body.segment.start_offset,
                e.manifest.body.segment.end_offset,
            )
        })
        .collect();
    spans.sort_unstable();
    let mut covered: Option<i64> = None;
    for (start, end) in spans {
        if let Some(last) = covered {
            if start > last.saturating_add(1) {
                report.gaps.push(OffsetGap {
                    after: last,
                    next: start,
                });
            }
        }
        covered = Some(covered.map_or(end, |last| last.max(end)));
    }
    Ok(())
}

fn manifest_key_of(dir: &str, manifest: &SegmentManifest) -> String {
    let segment = &manifest.body.segment;
    format!(
        "{dir}/{:020}-{}{MANIFEST_SUFFIX}",
        segment.start_offset,
        kafka_uuid(segment.segment_id)
    )
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
