//! The signed content of a manifest: which segment, which objects, where in
//! the chain.
//!
//! Field order in these structs is the field order of the JSON form and of
//! the canonical byte encoding; do not reorder fields without bumping
//! [`MANIFEST_FORMAT_VERSION`](crate::MANIFEST_FORMAT_VERSION).

use {
    super::MANIFEST_FORMAT_VERSION,
    crate::{ChainStamp, Sha256Digest},
    krabka_kafka::RemoteLogSegmentMetadata,
    serde::{Deserialize, Serialize},
    std::collections::BTreeMap,
    uuid::Uuid,
};

/// Everything a manifest commits to. The chain head is computed from
/// exactly these fields ([`manifest_head`](crate::manifest_head)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestBody {
    /// Version of both the JSON shape and the canonical byte layout;
    /// [`MANIFEST_FORMAT_VERSION`] for every manifest this build writes.
    pub format_version: u32,
    /// The segment copy the manifest seals.
    pub segment: SegmentIdentity,
    /// The objects of the copy, in upload order.
    pub objects: Vec<ObjectEntry>,
    /// The manifest's position in the partition's chain.
    pub chain: ChainStamp,
}

impl ManifestBody {
    /// A body of the current format version.
    #[must_use]
    pub fn new(segment: SegmentIdentity, objects: Vec<ObjectEntry>, chain: ChainStamp) -> Self {
        Self {
            format_version: MANIFEST_FORMAT_VERSION,
            segment,
            objects,
            chain,
        }
    }
}

/// The identity of the segment copy a manifest seals: Kafka's
/// `RemoteLogSegmentMetadata`, flattened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentIdentity {
    /// Topic name.
    pub topic: String,
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition number.
    pub partition: i32,
    /// Id of this segment copy (Kafka's `RemoteLogSegmentId.id`).
    pub segment_id: Uuid,
    /// First offset in the segment (inclusive).
    pub start_offset: i64,
    /// Last offset in the segment (inclusive).
    pub end_offset: i64,
    /// Largest record timestamp in the segment.
    pub max_timestamp_ms: i64,
    /// Broker that copied the segment.
    pub broker_id: i32,
    /// Time of the metadata event that started the copy.
    pub event_timestamp_ms: i64,
    /// Size of the `.log` object in bytes.
    pub segment_size_bytes: i64,
    /// Leader epoch → first offset of that epoch in the segment. JSON form:
    /// an array of `{"epoch":E,"start_offset":O}` in strictly ascending epoch
    /// order.
    #[serde(with = "leader_epochs_json")]
    pub leader_epochs: BTreeMap<i32, i64>,
    /// Kafka's `isTxnIdxEmpty()`: the segment has no aborted transactions.
    pub txn_index_empty: bool,
}

impl SegmentIdentity {
    /// The identity of the segment `metadata` describes.
    #[must_use]
    pub fn from_metadata(metadata: &RemoteLogSegmentMetadata) -> Self {
        let partition = metadata.topic_id_partition();
        Self {
            topic: partition.topic.clone(),
            topic_id: partition.topic_id,
            partition: partition.partition,
            segment_id: metadata.remote_log_segment_id().id,
            start_offset: metadata.start_offset(),
            end_offset: metadata.end_offset(),
            max_timestamp_ms: metadata.max_timestamp_ms(),
            broker_id: metadata.broker_id(),
            event_timestamp_ms: metadata.event_timestamp_ms(),
            segment_size_bytes: i64::from(metadata.segment_size_in_bytes()),
            leader_epochs: metadata
                .segment_leader_epochs()
                .iter()
                .map(|(epoch, offset)| (epoch.0, *offset))
                .collect(),
            txn_index_empty: metadata.txn_index_empty(),
        }
    }
}

/// One object of a segment copy, as the store acknowledged it.
///
/// `sha256` is the only integrity claim; `e_tag` and `version_id` are
/// locators (a version id lets a verifier re-read the original bytes
/// beneath an overwrite), never integrity proofs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectEntry {
    /// The file suffix (`.log`, `.index`, …).
    pub suffix: String,
    /// The full object-store key, prefix included.
    pub key: String,
    /// Size of the object in bytes.
    pub size_bytes: u64,
    /// SHA-256 of the object's bytes, computed while uploading them.
    pub sha256: Sha256Digest,
    /// The entity tag the store returned, if any.
    pub e_tag: Option<String>,
    /// The object version the store returned, if any.
    pub version_id: Option<String>,
    /// Whether the write was an atomic create-only write; `false` means the
    /// object went up in parts and relied on the bucket: on S3 a reserved
    /// key, versioning and retention (the version id is pinned); on GCS the
    /// retention policy that refuses replacing an object (the generation is
    /// pinned).
    pub create_precondition: bool,
}

/// The JSON form of the leader-epoch map: an array of objects in strictly
/// ascending epoch order, so that one map has exactly one encoding.
mod leader_epochs_json {
    use {
        serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser::SerializeSeq},
        std::collections::BTreeMap,
    };

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct EpochStart {
        epoch: i32,
        start_offset: i64,
    }

    pub(super) fn serialize<S: Serializer>(
        map: &BTreeMap<i32, i64>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(map.len()))?;
        for (epoch, start_offset) in map {
            seq.serialize_element(&EpochStart {
                epoch: *epoch,
                start_offset: *start_offset,
            })?;
        }
        seq.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<i32, i64>, D::Error> {
        let entries = Vec::<EpochStart>::deserialize(deserializer)?;
        let mut map = BTreeMap::new();
        let mut previous: Option<i32> = None;
        for entry in entries {
            if previous.is_some_and(|previous| entry.epoch <= previous) {
                return Err(de::Error::custom(format!(
                    "leader epoch {} is not above the epoch before it: leader_epochs must be in strictly ascending epoch order",
                    entry.epoch
                )));
            }
            previous = Some(entry.epoch);
            map.insert(entry.epoch, entry.start_offset);
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use {super::*, crate::EpochId};

    fn identity() -> SegmentIdentity {
        SegmentIdentity {
            topic: "t".to_owned(),
            topic_id: Uuid::nil(),
            partition: 0,
            segment_id: Uuid::nil(),
            start_offset: 0,
            end_offset: 1,
            max_timestamp_ms: 0,
            broker_id: 0,
            event_timestamp_ms: 0,
            segment_size_bytes: 0,
            leader_epochs: BTreeMap::from([(0, 0), (3, 1)]),
            txn_index_empty: false,
        }
    }

    #[test]
    fn leader_epochs_travel_as_an_ascending_array() {
        let json = serde_json::to_string(&identity()).unwrap();
        assert!(
            json.contains(
                "\"leader_epochs\":[{\"epoch\":0,\"start_offset\":0},{\"epoch\":3,\"start_offset\":1}]"
            ),
            "{json}"
        );
        assert_eq!(
            serde_json::from_str::<SegmentIdentity>(&json).unwrap(),
            identity()
        );
    }

    #[test]
    fn leader_epochs_out_of_order_or_repeated_are_refused() {
        let json = serde_json::to_string(&identity()).unwrap();
        let swapped = json.replace(
            "[{\"epoch\":0,\"start_offset\":0},{\"epoch\":3,\"start_offset\":1}]",
            "[{\"epoch\":3,\"start_offset\":1},{\"epoch\":0,\"start_offset\":0}]",
        );
        let repeated = json.replace(
            "[{\"epoch\":0,\"start_offset\":0},{\"epoch\":3,\"start_offset\":1}]",
            "[{\"epoch\":0,\"start_offset\":0},{\"epoch\":0,\"start_offset\":0}]",
        );
        assert_ne!(swapped, json);
        assert_ne!(repeated, json);
        assert!(serde_json::from_str::<SegmentIdentity>(&swapped).is_err());
        assert!(serde_json::from_str::<SegmentIdentity>(&repeated).is_err());
    }

    #[test]
    fn new_body_carries_the_current_format_version() {
        let body = ManifestBody::new(
            identity(),
            Vec::new(),
            ChainStamp::genesis(EpochId(Uuid::nil())),
        );
        assert_eq!(body.format_version, MANIFEST_FORMAT_VERSION);
    }
}
