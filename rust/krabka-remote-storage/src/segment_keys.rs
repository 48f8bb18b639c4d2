//! Object keys of a segment, shared by both object-store tiers: the filesystem tier's layout under an optional
//! prefix, `<prefix>/<partition_dir_name>/<segment_file_name>`.

use {
    krabka_kafka::{
        IndexType, LOG_FILE_SUFFIX, RemoteLogSegmentMetadata, partition_dir_name, segment_file_name,
    },
    krabka_object_store::store::{Path, Result, StoreError},
};

/// Builds the keys of one segment.
#[derive(Debug, Clone)]
pub(crate) struct SegmentKeys {
    base: String,
    dir: String,
}

impl SegmentKeys {
    /// The keys of `metadata`'s segment under `prefix`.
    pub(crate) fn new(prefix: Option<&str>, metadata: &RemoteLogSegmentMetadata) -> Self {
        let file = segment_file_name(metadata, "");
        let dir = partition_dir_name(metadata);
        let dir = match prefix {
            Some(prefix) => format!("{prefix}/{dir}"),
            None => dir,
        };
        Self {
            base: format!("{dir}/{file}"),
            dir,
        }
    }

    /// The key of the `.log` object.
    pub(crate) fn log(&self) -> Result<Path> {
        self.with_suffix(LOG_FILE_SUFFIX)
    }

    /// The key of one index object.
    pub(crate) fn index(&self, index: IndexType) -> Result<Path> {
        self.with_suffix(index.suffix())
    }

    /// The key of the envelope object of a chunked segment.
    pub(crate) fn envelope(&self) -> Result<Path> {
        self.with_suffix(crate::chunked::ENVELOPE_SUFFIX)
    }

    /// Every key a segment can have: the log, all five indexes and the
    /// envelope.
    pub(crate) fn all(&self) -> Result<Vec<Path>> {
        let mut keys = vec![self.log()?];
        for index in IndexType::ALL {
            keys.push(self.index(index)?);
        }
        keys.push(self.envelope()?);
        Ok(keys)
    }

    /// The partition directory, prefix included, without a trailing `/`.
    pub(crate) fn partition_dir(&self) -> &str {
        &self.dir
    }

    /// The partition directory as a key prefix (for listings).
    pub(crate) fn partition_path(&self) -> Result<Path> {
        object_key(&self.dir)
    }

    /// The key of the object with `suffix` (`.manifest`, …).
    pub(crate) fn with_suffix(&self, suffix: &str) -> Result<Path> {
        object_key(&format!("{}{suffix}", self.base))
    }
}

/// `key` (a segment object's or its partition directory's) as an object key.
fn object_key(key: &str) -> Result<Path> {
    Path::parse(key).map_err(|source| {
        StoreError::InvalidArgument(format!("`{key}` is not a valid object key: {source}"))
    })
}

#[cfg(test)]
mod tests {
    use {
        super::*, crate::test_metadata::SegmentMetadataBuilder, krabka_kafka::TopicIdPartition,
        uuid::Uuid,
    };

    fn metadata(topic: &str) -> RemoteLogSegmentMetadata {
        let tp = TopicIdPartition::new(Uuid::from_u128(1), topic, 0);
        SegmentMetadataBuilder::new(&tp, 0)
            .segment_id(Uuid::from_u128(0x1e))
            .end_offset(9)
            .size(10)
            .build()
    }

    #[test]
    fn keys_follow_the_filesystem_layout() {
        let keys = SegmentKeys::new(None, &metadata("orders"));
        assert_eq!(
            keys.log().unwrap().as_ref(),
            "orders-0-AAAAAAAAAAAAAAAAAAAAAQ/00000000000000000000-AAAAAAAAAAAAAAAAAAAAHg.log"
        );
        let keys = SegmentKeys::new(Some("tier/a"), &metadata("orders"));
        assert_eq!(
            keys.index(IndexType::Transaction).unwrap().as_ref(),
            "tier/a/orders-0-AAAAAAAAAAAAAAAAAAAAAQ/00000000000000000000-AAAAAAAAAAAAAAAAAAAAHg.txnindex"
        );
        assert_eq!(keys.all().unwrap().len(), 7);
    }
}
