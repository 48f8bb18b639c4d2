//! Sealing a capture with the WORM manifest machinery, and the
//! authentication a restore demands before it trusts one.
//!
//! The seal is a [`SegmentManifest`] whose objects are the capture's WAL
//! objects (with the SHA-256 the caller computed over each) plus one
//! **state claim**: the SHA-256 and size of the capture's own JSON without
//! its authentication. Its segment identity is synthetic
//! ([`CAPTURE_HEAD_NAME`], nil ids, broker -1) and it is the first and only
//! manifest of the nil epoch.

use {
    super::{CAPTURE_HEAD_NAME, CAPTURE_STATE_KEY, DisklessError, DisklessWalCapture},
    krabka_worm::{
        ChainHead, ChainStamp, EpochId, ManifestBody, ManifestSigner, ObjectEntry, SegmentIdentity,
        Sha256Digest, TrustedManifestKeys, manifest_head, verify_manifest_signature,
    },
    std::collections::{BTreeMap, BTreeSet},
    uuid::Uuid,
};

/// Suffix of the state claim.
const STATE_SUFFIX: &str = ".capture-state";

/// A capture whose seal verified against a trusted key and an externally
/// pinned head, and whose content is exactly what was signed. Only
/// [`DisklessWalCapture::authenticate`] makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticatedCapture {
    head: ChainHead,
    key_id: String,
    claims: BTreeMap<String, ObjectEntry>,
}

impl AuthenticatedCapture {
    /// The authenticated head (equal to the pinned one).
    #[must_use]
    pub fn head(&self) -> ChainHead {
        self.head
    }

    /// The id of the trusted key that signed the seal.
    #[must_use]
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The signed claim for every WAL object the capture names, by key: the
    /// size and SHA-256 a restore checks each object against.
    #[must_use]
    pub fn claims(&self) -> &BTreeMap<String, ObjectEntry> {
        &self.claims
    }
}

/// Checks that `keys` hold each of `expected` exactly once and nothing else.
fn exact_cover<'a>(
    keys: impl IntoIterator<Item = &'a str>,
    expected: &BTreeSet<&str>,
) -> Result<(), (&'static str, String)> {
    let mut seen = BTreeSet::new();
    for key in keys {
        if !seen.insert(key) {
            return Err(("duplicate", key.to_owned()));
        }
        if !expected.contains(key) {
            return Err(("unexpected", key.to_owned()));
        }
    }
    match expected.difference(&seen).next() {
        Some(missing) => Err(("missing", (*missing).to_owned())),
        None => Ok(()),
    }
}

impl DisklessWalCapture {
    /// The bytes the state claim covers: the capture's JSON without its
    /// authentication.
    ///
    /// # Errors
    /// [`DisklessError::CaptureEncode`] (not expected for any value).
    pub fn state_bytes(&self) -> Result<Vec<u8>, DisklessError> {
        let unsigned = Self {
            authentication: None,
            ..self.clone()
        };
        unsigned.to_vec()
    }

    fn range_keys(&self) -> BTreeSet<&str> {
        self.partitions
            .iter()
            .flat_map(|partition| partition.ranges.iter())
            .map(|range| range.object_key.as_str())
            .collect()
    }

    /// Seals the capture: validates it, checks that `objects` are exactly
    /// its WAL objects, signs a manifest over them and the state claim with
    /// `signer`, stores it in [`DisklessWalCapture::authentication`] and
    /// returns its head, which the operator records outside the capture.
    ///
    /// # Errors
    /// [`DisklessError::InvalidCapture`],
    /// [`DisklessError::SealObjectsMismatch`],
    /// [`DisklessError::SealOutOfRange`], [`DisklessError::CaptureEncode`].
    pub fn seal(
        &mut self,
        mut objects: Vec<ObjectEntry>,
        signer: &ManifestSigner,
    ) -> Result<ChainHead, DisklessError> {
        self.validate()?;
        exact_cover(objects.iter().map(|o| o.key.as_str()), &self.range_keys())
            .map_err(|(reason, key)| DisklessError::SealObjectsMismatch { reason, key })?;
        let captured_at = i64::try_from(self.captured_at_ms)
            .map_err(|_| DisklessError::SealOutOfRange("captured_at_ms exceeds i64::MAX"))?;
        let state = self.state_bytes()?;
        let state_digest = Sha256Digest::of(&state);
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        objects.push(ObjectEntry {
            suffix: STATE_SUFFIX.to_owned(),
            key: CAPTURE_STATE_KEY.to_owned(),
            size_bytes: u64::try_from(state.len()).unwrap_or(u64::MAX),
            sha256: state_digest,
            e_tag: None,
            version_id: None,
            create_precondition: false,
        });
        let total = objects
            .iter()
            .try_fold(0u64, |sum, object| sum.checked_add(object.size_bytes))
            .and_then(|sum| i64::try_from(sum).ok())
            .ok_or(DisklessError::SealOutOfRange(
                "the objects' sizes add up beyond i64::MAX",
            ))?;
        let mut segment_id = [0u8; 16];
        segment_id.copy_from_slice(&state_digest.0[..16]);
        let body = ManifestBody::new(
            SegmentIdentity {
                topic: CAPTURE_HEAD_NAME.to_owned(),
                topic_id: Uuid::nil(),
                partition: 0,
                segment_id: Uuid::from_bytes(segment_id),
                start_offset: 0,
                end_offset: 0,
                max_timestamp_ms: captured_at,
                broker_id: -1,
                event_timestamp_ms: captured_at,
                segment_size_bytes: total,
                leader_epochs: BTreeMap::new(),
                txn_index_empty: true,
            },
            objects,
            ChainStamp::genesis(EpochId(Uuid::nil())),
        );
        let head = manifest_head(&body);
        self.authentication = Some(signer.seal(body));
        Ok(head)
    }

    /// Authenticates a sealed capture before a restore trusts it. Requires,
    /// in order: a valid capture; a seal; a signature that verifies against
    /// a key `trusted` holds under its key id; the head pinned outside the
    /// capture (`expected_head`); a capture-boundary manifest; exactly one
    /// state claim, matching the current state byte for byte; and WAL object
    /// claims covering exactly the capture's object keys.
    ///
    /// # Errors
    /// [`DisklessError::InvalidCapture`], [`DisklessError::CaptureNotSealed`],
    /// [`DisklessError::CaptureSignature`],
    /// [`DisklessError::CaptureHeadMismatch`],
    /// [`DisklessError::CaptureBoundaryMismatch`],
    /// [`DisklessError::CaptureStateClaimCount`],
    /// [`DisklessError::CaptureStateChanged`],
    /// [`DisklessError::CaptureClaimsMismatch`].
    pub fn authenticate(
        &self,
        trusted: &TrustedManifestKeys,
        expected_head: &ChainHead,
    ) -> Result<AuthenticatedCapture, DisklessError> {
        self.validate()?;
        let manifest = self
            .authentication
            .as_ref()
            .ok_or(DisklessError::CaptureNotSealed)?;
        let verified = verify_manifest_signature(manifest, trusted)
            .map_err(DisklessError::CaptureSignature)?;
        if verified.head() != *expected_head {
            return Err(DisklessError::CaptureHeadMismatch {
                expected: *expected_head,
                found: verified.head(),
            });
        }
        let body = verified.body();
        if body.segment.topic != CAPTURE_HEAD_NAME
            || body.chain != ChainStamp::genesis(EpochId(Uuid::nil()))
        {
            return Err(DisklessError::CaptureBoundaryMismatch);
        }
        let (state_claims, wal_claims): (Vec<&ObjectEntry>, Vec<&ObjectEntry>) = body
            .objects
            .iter()
            .partition(|object| object.key == CAPTURE_STATE_KEY);
        let [state_claim] = state_claims.as_slice() else {
            return Err(DisklessError::CaptureStateClaimCount {
                count: state_claims.len(),
            });
        };
        let state = self.state_bytes()?;
        if state_claim.sha256 != Sha256Digest::of(&state)
            || u64::try_from(state.len()).ok() != Some(state_claim.size_bytes)
        {
            return Err(DisklessError::CaptureStateChanged);
        }
        exact_cover(
            wal_claims.iter().map(|o| o.key.as_str()),
            &self.range_keys(),
        )
        .map_err(|(reason, key)| DisklessError::CaptureClaimsMismatch { reason, key })?;
        Ok(AuthenticatedCapture {
            head: verified.head(),
            key_id: verified.key_id().to_owned(),
            claims: wal_claims
                .into_iter()
                .map(|claim| (claim.key.clone(), claim.clone()))
                .collect(),
        })
    }
}
