//! `--deep --key-pair`: every chunk of every archived segment stored in the
//! chunked format (docs/chunked-format.md) decodes with the key pairs given.
//!
//! The archive's own checks need no key: its manifests hold the digests of
//! the stored bytes. This check goes further for an auditor who holds the
//! keys: it reads each accepted manifest (its seal), and for a segment whose
//! manifest names an envelope, reads the envelope at its pinned version,
//! unwraps the data key, and opens, decompresses and checks the length of
//! every chunk of every object, each read at the version the manifest pins.

use {
    krabka_envelope::{
        ENVELOPE_SUFFIX, EnvelopeError, KeyRing, ObjectKind, OpenedSegment, SegmentEnvelope,
    },
    krabka_object_store::{ObjectStoreConfig, build_object_store},
    krabka_worm::{ArchiveVerifyReport, ObjectEntry, SegmentManifest, VerifyBreak},
    object_store::{GetOptions, GetRange, ObjectStore, path::Path},
    std::sync::Arc,
};

/// What the check did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkCheck {
    /// Segments in the chunked format whose chunks were all checked.
    pub segments: usize,
    /// Chunks opened.
    pub chunks: u64,
}

/// Checks the chunks of every accepted segment of `report` on the store of
/// `config`; the findings go into the report.
///
/// # Errors
/// The store cannot be built or the runtime cannot start (a store error
/// reading one object is a finding instead).
pub(crate) fn check_chunks(
    config: &ObjectStoreConfig,
    report: &mut ArchiveVerifyReport,
    keys: &dyn KeyRing,
) -> Result<ChunkCheck, String> {
    let store = build_object_store(config).map_err(|err| err.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| err.to_string())?;
    let seals: Vec<String> = report
        .partitions
        .iter()
        .flat_map(|partition| {
            partition
                .segments
                .iter()
                .map(|segment| segment.seal.clone())
        })
        .collect();
    let mut check = ChunkCheck::default();
    for seal in seals {
        let outcome = runtime.block_on(check_segment(&store, &seal, keys));
        match outcome {
            Ok(Some(chunks)) => {
                check.segments += 1;
                check.chunks += chunks;
            }
            Ok(None) => {}
            Err(finding) => report.findings.push(finding),
        }
    }
    Ok(check)
}

/// Checks one sealed segment: `None` when it is not in the chunked format,
/// the chunks opened, or the first finding.
async fn check_segment(
    store: &Arc<dyn ObjectStore>,
    seal: &str,
    keys: &dyn KeyRing,
) -> Result<Option<u64>, VerifyBreak> {
    let unreadable = |key: &str, detail: String| VerifyBreak::ChunkUndecodable {
        key: key.to_owned(),
        detail,
    };
    let bytes = read(store, seal, None, None)
        .await
        .map_err(|detail| unreadable(seal, detail))?;
    let manifest =
        SegmentManifest::from_bytes(&bytes).map_err(|err| unreadable(seal, err.to_string()))?;
    let objects = &manifest.body.objects;
    let Some(envelope) = objects
        .iter()
        .find(|object| object.suffix == ENVELOPE_SUFFIX)
    else {
        return Ok(None);
    };
    let bytes = read(store, &envelope.key, envelope.version_id.as_deref(), None)
        .await
        .map_err(|detail| unreadable(&envelope.key, detail))?;
    let decoded = SegmentEnvelope::decode(&bytes, manifest.body.segment.segment_id)
        .map_err(|err| unreadable(&envelope.key, err.to_string()))?;
    let opened = OpenedSegment::open(decoded, Some(keys)).map_err(|err| match err {
        EnvelopeError::NoKeys { .. }
        | EnvelopeError::UnknownKey { .. }
        | EnvelopeError::UnwrapFailed { .. } => VerifyBreak::ChunkKeyMissing {
            key: envelope.key.clone(),
            detail: err.to_string(),
        },
        other => unreadable(&envelope.key, other.to_string()),
    })?;
    let mut chunks = 0;
    for object in opened.envelope().objects.clone() {
        let Some(entry) = objects
            .iter()
            .find(|entry| entry.suffix == object.kind.suffix())
        else {
            return Err(unreadable(
                &envelope.key,
                format!(
                    "the envelope lists the {}, the manifest has no such object",
                    object.kind
                ),
            ));
        };
        chunks += check_object(store, &opened, object.kind, entry).await?;
    }
    Ok(Some(chunks))
}

/// Opens every chunk of one archived object (each read at the pinned
/// version); the chunks opened.
async fn check_object(
    store: &Arc<dyn ObjectStore>,
    opened: &OpenedSegment,
    kind: ObjectKind,
    entry: &ObjectEntry,
) -> Result<u64, VerifyBreak> {
    let unreadable = |detail: String| VerifyBreak::ChunkUndecodable {
        key: entry.key.clone(),
        detail,
    };
    let span = opened
        .span(kind, 0, None)
        .map_err(|err| unreadable(err.to_string()))?;
    if span.stored.end != entry.size_bytes {
        return Err(unreadable(format!(
            "its chunks end at byte {}, the object has {} bytes",
            span.stored.end, entry.size_bytes
        )));
    }
    let object = opened
        .envelope()
        .object(kind)
        .map_err(|err| unreadable(err.to_string()))?;
    let mut at = span.stored.start;
    for (index, chunk) in (0u32..).zip(&object.chunks) {
        let range = at..at + u64::from(chunk.stored_len);
        let mut bytes = read(store, &entry.key, entry.version_id.as_deref(), Some(range))
            .await
            .map_err(&unreadable)?
            .to_vec();
        opened
            .open_chunk(kind, index, &mut bytes)
            .map_err(|err| unreadable(err.to_string()))?;
        at += u64::from(chunk.stored_len);
    }
    Ok(u64::from(object.chunk_count()))
}

/// The bytes of `key` (at `version`, in `range`), or why not.
async fn read(
    store: &Arc<dyn ObjectStore>,
    key: &str,
    version: Option<&str>,
    range: Option<std::ops::Range<u64>>,
) -> Result<bytes::Bytes, String> {
    let options = GetOptions {
        version: version.map(str::to_owned),
        range: range.map(GetRange::Bounded),
        ..GetOptions::default()
    };
    let got = store
        .get_opts(&Path::from(key), options)
        .await
        .map_err(|err| err.to_string())?;
    got.bytes().await.map_err(|err| err.to_string())
}
