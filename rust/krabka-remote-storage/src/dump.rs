//! Snapshots of an
//! [`InmemoryRemoteLogMetadataManager`](crate::InmemoryRemoteLogMetadataManager):
//! what [`export`](crate::InmemoryRemoteLogMetadataManager::export) returns
//! and [`import`](crate::InmemoryRemoteLogMetadataManager::import) takes.
//!
//! A dump is plain data with a JSON form ([`RlmmCacheDump::to_json`],
//! [`RlmmCacheDump::from_json`]). An exported dump is deterministic:
//! partitions sorted by `(topic id, partition)`, segments by
//! `(start offset, segment id)`, so two managers with the same content export
//! the same bytes, and `export → import → export` is the identity.
//!
//! Decoding validates every segment with
//! [`RemoteLogSegmentMetadata::new`]'s rules; importing then refuses, as a
//! whole, a dump that names a partition twice, repeats a segment id within a
//! partition, files a segment under another partition, or holds a
//! `DeleteSegmentFinished` segment.
//!
//! ```
//! use krabka_remote_storage::{InmemoryRemoteLogMetadataManager, RlmmCacheDump};
//!
//! # fn run() -> krabka_remote_storage::Result<()> {
//! let manager = InmemoryRemoteLogMetadataManager::new();
//! let bytes = manager.export().to_json()?;
//! let restored = InmemoryRemoteLogMetadataManager::new();
//! restored.import(RlmmCacheDump::from_json(&bytes)?)?;
//! assert_eq!(restored.export(), manager.export());
//! # Ok(())
//! # }
//! # run().unwrap();
//! ```

use {
    crate::{
        RemoteLogSegmentMetadata, RemotePartitionDeleteState, RemoteStorageError, Result,
        TopicIdPartition,
    },
    serde::{Deserialize, Serialize},
};

/// The name of the format in [`RemoteStorageError::Corrupt`] errors.
const FORMAT: &str = "remote log metadata dump";

/// A snapshot of every partition of an in-memory metadata manager.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RlmmCacheDump {
    /// One entry per partition; exports sort them by `(topic id, partition)`.
    pub partitions: Vec<PartitionDump>,
}

/// A snapshot of one partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionDump {
    /// The partition.
    pub topic_id_partition: TopicIdPartition,
    /// Every segment not yet `DeleteSegmentFinished`, in any other state;
    /// exports sort them by `(start offset, segment id)`.
    pub segments: Vec<RemoteLogSegmentMetadata>,
    /// Where the partition is in its remote deletion, if it is.
    pub delete_state: Option<RemotePartitionDeleteState>,
}

impl RlmmCacheDump {
    /// The dump as JSON.
    ///
    /// # Errors
    /// [`RemoteStorageError::InvalidArgument`] if it cannot be encoded
    /// (which the types here do not allow in practice).
    pub fn to_json(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(self).map_err(|err| {
            RemoteStorageError::InvalidArgument(format!("cannot encode {FORMAT}: {err}"))
        })
    }

    /// A dump decoded from JSON, every segment validated.
    ///
    /// # Errors
    /// [`RemoteStorageError::Corrupt`] when the bytes are not a dump: bad
    /// JSON, missing or unknown fields, or a segment the constructor of
    /// [`RemoteLogSegmentMetadata`] refuses.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        serde_json::from_slice(bytes).map_err(|err| RemoteStorageError::Corrupt {
            format: FORMAT,
            detail: err.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use {
        super::*, crate::test_metadata::SegmentMetadataBuilder, krabka_ids::LeaderEpoch, uuid::Uuid,
    };

    fn dump() -> RlmmCacheDump {
        let tp = TopicIdPartition::new(Uuid::from_u128(1), "orders", 3);
        let segment = SegmentMetadataBuilder::new(&tp, 0)
            .segment_id(Uuid::from_u128(2))
            .timestamps(5, 6)
            .size(10)
            .epochs([(LeaderEpoch(0), 0), (LeaderEpoch(1), 50)])
            .build();
        RlmmCacheDump {
            partitions: vec![PartitionDump {
                topic_id_partition: tp,
                segments: vec![segment],
                delete_state: Some(RemotePartitionDeleteState::DeletePartitionMarked),
            }],
        }
    }

    #[test]
    fn json_round_trips() {
        let dump = dump();
        let bytes = dump.to_json().unwrap();
        assert_eq!(RlmmCacheDump::from_json(&bytes).unwrap(), dump);
    }

    #[test]
    fn malformed_json_is_corrupt() {
        let bytes = dump().to_json().unwrap();
        let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let cases = [
            b"not json".to_vec(),
            bytes[..bytes.len() - 1].to_vec(),
            br#"{"partitions": [], "extra": 1}"#.to_vec(),
            br#"{}"#.to_vec(),
            {
                json["partitions"][0]["segments"][0]["start_offset"] = serde_json::json!(100);
                serde_json::to_vec(&json).unwrap()
            },
            {
                json["partitions"][0]["segments"][0]["start_offset"] = serde_json::json!(0);
                json["partitions"][0]["segments"][0]["segment_leader_epochs"] =
                    serde_json::json!({"0": 120});
                serde_json::to_vec(&json).unwrap()
            },
            {
                json["partitions"][0]["segments"][0]["segment_leader_epochs"] =
                    serde_json::json!({"0": 0});
                json["partitions"][0]["delete_state"] = serde_json::json!("Gone");
                serde_json::to_vec(&json).unwrap()
            },
        ];
        for case in cases {
            assert!(
                matches!(
                    RlmmCacheDump::from_json(&case),
                    Err(RemoteStorageError::Corrupt { format: FORMAT, .. })
                ),
                "{}",
                String::from_utf8_lossy(&case)
            );
        }
        json["partitions"][0]["delete_state"] = serde_json::json!(null);
        let fixed = serde_json::to_vec(&json).unwrap();
        assert!(RlmmCacheDump::from_json(&fixed).is_ok());
    }
}
