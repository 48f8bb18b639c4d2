//! The canonical byte encoding of a [`ManifestBody`]: the preimage of the
//! chain head, independent of the JSON layout.
//!
//! Integers are big-endian two's complement; every length or count is a
//! `u64` (a saturating narrower prefix would make the encoding
//! non-injective); strings are UTF-8 preceded by their byte length; an
//! optional string is `0x00`, or `0x01` followed by the string; a boolean is
//! `0x00` or `0x01`. The full layout is specified in `docs/worm-format.md`.

use {
    super::MANIFEST_BODY_DOMAIN,
    crate::{ChainHead, ManifestBody},
};

/// Appends the fields of the canonical encoding to a buffer.
struct Canonical(Vec<u8>);

impl Canonical {
    fn fixed(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }

    fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    fn u32(&mut self, value: u32) {
        self.fixed(&value.to_be_bytes());
    }

    fn i32(&mut self, value: i32) {
        self.fixed(&value.to_be_bytes());
    }

    fn i64(&mut self, value: i64) {
        self.fixed(&value.to_be_bytes());
    }

    fn u64(&mut self, value: u64) {
        self.fixed(&value.to_be_bytes());
    }

    fn len(&mut self, len: usize) {
        // usize is at most 64 bits on every supported target.
        self.u64(u64::try_from(len).unwrap_or(u64::MAX));
    }

    fn str(&mut self, value: &str) {
        self.len(value.len());
        self.fixed(value.as_bytes());
    }

    fn opt_str(&mut self, value: Option<&str>) {
        match value {
            None => self.u8(0),
            Some(value) => {
                self.u8(1);
                self.str(value);
            }
        }
    }
}

/// The canonical bytes of `body`: [`MANIFEST_BODY_DOMAIN`] followed by every
/// field of the body in declaration order.
///
/// Every field enters the bytes, so any change to the body changes the
/// head; the `u64` length prefixes keep the encoding injective
/// (`topic "ab", key "c"` and `topic "a", key "bc"` differ).
#[must_use]
pub fn canonical_manifest_bytes(body: &ManifestBody) -> Vec<u8> {
    let mut out = Canonical(Vec::with_capacity(512));
    out.fixed(MANIFEST_BODY_DOMAIN);
    out.u32(body.format_version);

    let segment = &body.segment;
    out.str(&segment.topic);
    out.fixed(segment.topic_id.as_bytes());
    out.i32(segment.partition);
    out.fixed(segment.segment_id.as_bytes());
    out.i64(segment.start_offset);
    out.i64(segment.end_offset);
    out.i64(segment.max_timestamp_ms);
    out.i32(segment.broker_id);
    out.i64(segment.event_timestamp_ms);
    out.i64(segment.segment_size_bytes);
    out.len(segment.leader_epochs.len());
    for (epoch, start_offset) in &segment.leader_epochs {
        out.i32(*epoch);
        out.i64(*start_offset);
    }
    out.bool(segment.txn_index_empty);

    out.len(body.objects.len());
    for object in &body.objects {
        out.str(&object.suffix);
        out.str(&object.key);
        out.u64(object.size_bytes);
        out.fixed(&object.sha256.0);
        out.opt_str(object.e_tag.as_deref());
        out.opt_str(object.version_id.as_deref());
        out.bool(object.create_precondition);
    }

    out.fixed(body.chain.epoch_id.0.as_bytes());
    out.u64(body.chain.seq.0);
    out.fixed(&body.chain.prev_head.0);
    out.0
}

/// The chain head of the manifest with `body`: its canonical bytes chained
/// onto the `prev_head` and `seq` the body itself records,
/// `SHA-256(prev_head ‖ seq ‖ canonical_manifest_bytes(body))`.
#[must_use]
pub fn manifest_head(body: &ManifestBody) -> ChainHead {
    body.chain
        .prev_head
        .extend(body.chain.seq, &canonical_manifest_bytes(body))
}

#[cfg(test)]
mod tests {
    use {
        super::*,
        crate::{ChainStamp, EpochId, ManifestSeq, ObjectEntry, SegmentIdentity, Sha256Digest},
        std::collections::BTreeMap,
        uuid::Uuid,
    };

    fn body() -> ManifestBody {
        ManifestBody::new(
            SegmentIdentity {
                topic: "ab".to_owned(),
                topic_id: Uuid::from_u128(1),
                partition: 2,
                segment_id: Uuid::from_u128(3),
                start_offset: 4,
                end_offset: 5,
                max_timestamp_ms: 6,
                broker_id: 7,
                event_timestamp_ms: 8,
                segment_size_bytes: 9,
                leader_epochs: BTreeMap::from([(10, 4)]),
                txn_index_empty: false,
            },
            vec![ObjectEntry {
                suffix: ".log".to_owned(),
                key: "c".to_owned(),
                size_bytes: 11,
                sha256: Sha256Digest([12; 32]),
                e_tag: None,
                version_id: Some("v".to_owned()),
                create_precondition: true,
            }],
            ChainStamp {
                epoch_id: EpochId(Uuid::from_u128(13)),
                seq: ManifestSeq(14),
                prev_head: ChainHead([15; 32]),
            },
        )
    }

    /// A named change to a body.
    type Mutation = (&'static str, fn(&mut ManifestBody));

    /// Every field of the body, one mutation each; each must change the
    /// canonical bytes and the head.
    fn mutations() -> Vec<Mutation> {
        vec![
            ("format_version", |b| b.format_version += 1),
            ("topic", |b| b.segment.topic.push('x')),
            ("topic_id", |b| b.segment.topic_id = Uuid::from_u128(99)),
            ("partition", |b| b.segment.partition += 1),
            ("segment_id", |b| b.segment.segment_id = Uuid::from_u128(99)),
            ("start_offset", |b| b.segment.start_offset += 1),
            ("end_offset", |b| b.segment.end_offset += 1),
            ("max_timestamp_ms", |b| b.segment.max_timestamp_ms += 1),
            ("broker_id", |b| b.segment.broker_id += 1),
            ("event_timestamp_ms", |b| b.segment.event_timestamp_ms += 1),
            ("segment_size_bytes", |b| b.segment.segment_size_bytes += 1),
            ("leader epoch added", |b| {
                b.segment.leader_epochs.insert(11, 5);
            }),
            ("leader epoch offset", |b| {
                b.segment.leader_epochs.insert(10, 5);
            }),
            ("leader epochs emptied", |b| b.segment.leader_epochs.clear()),
            ("txn_index_empty", |b| b.segment.txn_index_empty ^= true),
            ("object added", |b| {
                let copy = b.objects[0].clone();
                b.objects.push(copy);
            }),
            ("objects emptied", |b| b.objects.clear()),
            ("suffix", |b| b.objects[0].suffix.push('x')),
            ("key", |b| b.objects[0].key.push('x')),
            ("size_bytes", |b| b.objects[0].size_bytes += 1),
            ("sha256", |b| b.objects[0].sha256.0[31] ^= 1),
            ("e_tag set", |b| b.objects[0].e_tag = Some(String::new())),
            ("version_id cleared", |b| b.objects[0].version_id = None),
            ("version_id changed", |b| {
                b.objects[0].version_id = Some("w".to_owned());
            }),
            ("create_precondition", |b| {
                b.objects[0].create_precondition ^= true;
            }),
            ("epoch_id", |b| {
                b.chain.epoch_id = EpochId(Uuid::from_u128(99))
            }),
            ("seq", |b| b.chain.seq = ManifestSeq(15)),
            ("prev_head", |b| b.chain.prev_head.0[0] ^= 1),
        ]
    }

    #[test]
    fn every_field_is_in_the_preimage() {
        let base = body();
        let base_bytes = canonical_manifest_bytes(&base);
        let base_head = manifest_head(&base);
        for (name, mutate) in mutations() {
            let mut changed = base.clone();
            mutate(&mut changed);
            assert_ne!(changed, base, "{name} did not mutate");
            assert_ne!(canonical_manifest_bytes(&changed), base_bytes, "{name}");
            assert_ne!(manifest_head(&changed), base_head, "{name}");
        }
    }

    #[test]
    fn length_prefixes_keep_adjacent_strings_apart() {
        let mut left = body();
        left.segment.topic = "ab".to_owned();
        left.objects[0].key = "c".to_owned();
        let mut right = body();
        right.segment.topic = "a".to_owned();
        right.objects[0].key = "bc".to_owned();
        assert_ne!(
            canonical_manifest_bytes(&left),
            canonical_manifest_bytes(&right)
        );
        let mut none = body();
        none.objects[0].e_tag = None;
        let mut empty = body();
        empty.objects[0].e_tag = Some(String::new());
        assert_ne!(
            canonical_manifest_bytes(&none),
            canonical_manifest_bytes(&empty)
        );
    }

    #[test]
    fn bytes_start_with_the_domain_and_end_with_the_chain_stamp() {
        let body = body();
        let bytes = canonical_manifest_bytes(&body);
        assert!(bytes.starts_with(MANIFEST_BODY_DOMAIN));
        let mut tail = Vec::new();
        tail.extend_from_slice(Uuid::from_u128(13).as_bytes());
        tail.extend_from_slice(&14u64.to_be_bytes());
        tail.extend_from_slice(&[15; 32]);
        assert!(bytes.ends_with(&tail));
    }

    #[test]
    fn head_chains_the_bytes_onto_the_recorded_prev_head_and_seq() {
        let body = body();
        assert_eq!(
            manifest_head(&body),
            ChainHead([15; 32]).extend(ManifestSeq(14), &canonical_manifest_bytes(&body))
        );
    }
}
