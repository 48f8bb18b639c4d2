//! Decoding untrusted manifest bytes: capped, strict, canonical-only.

use {
    super::{MANIFEST_FORMAT_VERSION, MAX_MANIFEST_BYTES, SegmentManifest},
    crate::WormError,
    serde::Deserialize,
};

/// Just enough of a manifest to read its format version, whatever the rest
/// of its shape.
#[derive(Deserialize)]
struct VersionProbe {
    body: BodyProbe,
}

#[derive(Deserialize)]
struct BodyProbe {
    format_version: u32,
}

/// Decodes the first JSON value of `bytes` as `T`, returning it and the
/// offset where it ends.
fn first_value<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, usize), WormError> {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<T>();
    match stream.next() {
        Some(Ok(value)) => Ok((value, stream.byte_offset())),
        Some(Err(source)) => Err(WormError::ManifestDecode { source }),
        None => {
            // Empty or whitespace-only input: let the decoder phrase the error.
            let source = match serde_json::from_slice::<T>(bytes) {
                Err(source) => source,
                Ok(_) => serde::de::Error::custom("manifest is empty"),
            };
            Err(WormError::ManifestDecode { source })
        }
    }
}

/// See [`SegmentManifest::from_bytes`].
pub(super) fn parse_manifest(bytes: &[u8]) -> Result<SegmentManifest, WormError> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(WormError::ManifestTooLarge {
            size: bytes.len(),
            max: MAX_MANIFEST_BYTES,
        });
    }
    let (probe, _) = first_value::<VersionProbe>(bytes)?;
    if probe.body.format_version != MANIFEST_FORMAT_VERSION {
        return Err(WormError::UnsupportedFormatVersion {
            found: probe.body.format_version,
            supported: MANIFEST_FORMAT_VERSION,
        });
    }
    let (manifest, end) = first_value::<SegmentManifest>(bytes)?;
    if end != bytes.len() {
        return Err(WormError::ManifestTrailingBytes {
            offset: end,
            len: bytes.len(),
        });
    }
    let canonical = manifest.to_bytes();
    if canonical != bytes {
        let offset = canonical
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| canonical.len().min(bytes.len()));
        return Err(WormError::ManifestNotCanonical { offset });
    }
    if let Some(signature) = &manifest.signature {
        signature.check_shape()?;
    }
    Ok(manifest)
}
