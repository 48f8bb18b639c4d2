//! The encoders: values to the bytes of the table in the module docs.

use {
    super::{
        KIND_PARTITION_DELETE, KIND_SEGMENT_ADDED, KIND_SEGMENT_UPDATED, MAX_CUSTOM_METADATA_BYTES,
        MAX_EPOCHS_PER_SEGMENT, MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES, MAX_TOPIC_NAME_BYTES,
        METADATA_LOG_VERSION, MetadataEvent, MetadataRecord, MetadataSnapshot, NO_DELETE_STATE,
        RECORD_MAGIC, SNAPSHOT_MAGIC,
    },
    crate::{
        CustomMetadata, RemoteLogSegmentMetadata, RemoteStorageError, Result, TopicIdPartition,
    },
};

/// The bytes of `record`.
///
/// # Errors
/// [`RemoteStorageError::InvalidArgument`] when the record cannot be
/// encoded within the format's limits: a sequence of 0, an event of another
/// partition, a negative partition, a topic name over 249 bytes, custom
/// metadata over [`MAX_CUSTOM_METADATA_BYTES`](super::MAX_CUSTOM_METADATA_BYTES),
/// more than [`MAX_EPOCHS_PER_SEGMENT`](super::MAX_EPOCHS_PER_SEGMENT)
/// epochs, or a result over [`MAX_RECORD_BYTES`](super::MAX_RECORD_BYTES).
pub fn encode_record(record: &MetadataRecord) -> Result<Vec<u8>> {
    if record.sequence == 0 {
        return Err(invalid("a record's sequence starts at 1".to_owned()));
    }
    if record.event.partition() != &record.partition {
        return Err(invalid(format!(
            "event of {} filed under {}",
            record.event.partition(),
            record.partition
        )));
    }
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(RECORD_MAGIC);
    out.push(METADATA_LOG_VERSION);
    out.extend_from_slice(&record.sequence.to_be_bytes());
    put_partition(&mut out, &record.partition)?;
    match &record.event {
        MetadataEvent::SegmentAdded(segment) => {
            out.push(KIND_SEGMENT_ADDED);
            put_segment(&mut out, segment)?;
        }
        MetadataEvent::SegmentUpdated(update) => {
            out.push(KIND_SEGMENT_UPDATED);
            out.extend_from_slice(update.remote_log_segment_id.id.as_bytes());
            out.extend_from_slice(&update.event_timestamp_ms.to_be_bytes());
            put_custom(&mut out, update.custom_metadata.as_ref())?;
            out.push(update.state.id());
            out.extend_from_slice(&update.broker_id.to_be_bytes());
        }
        MetadataEvent::PartitionDelete(delete) => {
            out.push(KIND_PARTITION_DELETE);
            out.push(delete.state.id());
            out.extend_from_slice(&delete.event_timestamp_ms.to_be_bytes());
            out.extend_from_slice(&delete.broker_id.to_be_bytes());
        }
    }
    within(out, MAX_RECORD_BYTES, "record")
}

/// The bytes of `snapshot`.
///
/// # Errors
/// [`RemoteStorageError::InvalidArgument`] for a `through` of 0, a segment
/// of another partition, and the limits of [`encode_record`] (the result
/// within [`MAX_SNAPSHOT_BYTES`](super::MAX_SNAPSHOT_BYTES)).
pub fn encode_snapshot(snapshot: &MetadataSnapshot) -> Result<Vec<u8>> {
    if snapshot.through == 0 {
        return Err(invalid("a snapshot includes at least record 1".to_owned()));
    }
    let count = u32::try_from(snapshot.segments.len())
        .map_err(|_| invalid("too many segments for one snapshot".to_owned()))?;
    let mut out = Vec::with_capacity(64 + snapshot.segments.len() * 96);
    out.extend_from_slice(SNAPSHOT_MAGIC);
    out.push(METADATA_LOG_VERSION);
    out.extend_from_slice(&snapshot.through.to_be_bytes());
    put_partition(&mut out, &snapshot.partition)?;
    out.push(
        snapshot
            .delete_state
            .map_or(NO_DELETE_STATE, |state| state.id()),
    );
    out.extend_from_slice(&count.to_be_bytes());
    for segment in &snapshot.segments {
        if segment.topic_id_partition() != &snapshot.partition {
            return Err(invalid(format!(
                "segment {} filed under {}",
                segment.remote_log_segment_id(),
                snapshot.partition
            )));
        }
        put_segment(&mut out, segment)?;
    }
    within(out, MAX_SNAPSHOT_BYTES, "snapshot")
}

/// Topic id, partition and name.
fn put_partition(out: &mut Vec<u8>, partition: &TopicIdPartition) -> Result<()> {
    if partition.partition < 0 {
        return Err(invalid(format!(
            "partition {} must not be negative",
            partition.partition
        )));
    }
    let name = partition.topic.as_bytes();
    let len = u8::try_from(name.len())
        .ok()
        .filter(|len| usize::from(*len) <= MAX_TOPIC_NAME_BYTES)
        .ok_or_else(|| {
            invalid(format!(
                "topic name of {} bytes (valid: at most {MAX_TOPIC_NAME_BYTES})",
                name.len()
            ))
        })?;
    out.extend_from_slice(partition.topic_id.as_bytes());
    out.extend_from_slice(&partition.partition.to_be_bytes());
    out.push(len);
    out.extend_from_slice(name);
    Ok(())
}

/// Every field of a segment.
fn put_segment(out: &mut Vec<u8>, segment: &RemoteLogSegmentMetadata) -> Result<()> {
    out.extend_from_slice(segment.remote_log_segment_id().id.as_bytes());
    out.extend_from_slice(&segment.start_offset().to_be_bytes());
    out.extend_from_slice(&segment.end_offset().to_be_bytes());
    out.extend_from_slice(&segment.max_timestamp_ms().to_be_bytes());
    out.extend_from_slice(&segment.broker_id().to_be_bytes());
    out.extend_from_slice(&segment.event_timestamp_ms().to_be_bytes());
    out.extend_from_slice(&segment.segment_size_in_bytes().to_be_bytes());
    out.push(segment.state().id());
    out.push(u8::from(segment.txn_index_empty()));
    put_custom(out, segment.custom_metadata())?;
    let epochs = segment.segment_leader_epochs();
    let count = u16::try_from(epochs.len())
        .ok()
        .filter(|count| usize::from(*count) <= MAX_EPOCHS_PER_SEGMENT)
        .ok_or_else(|| {
            invalid(format!(
                "{} leader epochs in one segment (valid: at most {MAX_EPOCHS_PER_SEGMENT})",
                epochs.len()
            ))
        })?;
    out.extend_from_slice(&count.to_be_bytes());
    for (epoch, offset) in epochs {
        out.extend_from_slice(&epoch.0.to_be_bytes());
        out.extend_from_slice(&offset.to_be_bytes());
    }
    Ok(())
}

/// Optional custom metadata.
fn put_custom(out: &mut Vec<u8>, custom: Option<&CustomMetadata>) -> Result<()> {
    let Some(custom) = custom else {
        out.push(0);
        return Ok(());
    };
    let bytes = custom.as_bytes();
    let len = u16::try_from(bytes.len())
        .ok()
        .filter(|len| usize::from(*len) <= MAX_CUSTOM_METADATA_BYTES)
        .ok_or_else(|| {
            invalid(format!(
                "custom metadata of {} bytes (valid: at most {MAX_CUSTOM_METADATA_BYTES})",
                bytes.len()
            ))
        })?;
    out.push(1);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
    Ok(())
}

/// `out` if it is at most `max` bytes.
fn within(out: Vec<u8>, max: usize, what: &str) -> Result<Vec<u8>> {
    if out.len() > max {
        return Err(invalid(format!(
            "{what} of {} bytes (valid: at most {max})",
            out.len()
        )));
    }
    Ok(out)
}

/// An [`RemoteStorageError::InvalidArgument`] with `message`.
fn invalid(message: String) -> RemoteStorageError {
    RemoteStorageError::InvalidArgument(message)
}
