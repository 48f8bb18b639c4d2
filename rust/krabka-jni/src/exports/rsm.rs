//! `RemoteStorageManager` natives: open, copy, fetch, fetch index, delete.

use {
    super::{bytes, optional_string, string},
    crate::{
        backend, boundary,
        config::{parse_backend, parse_format},
        copy::CopyOperation,
        error::BridgeError,
        logging,
        state::{COPIES, STORAGE_MANAGERS, STREAMS},
        stream::SegmentStream,
        wire,
    },
    bytes::Bytes,
    jni::{
        EnvUnowned,
        objects::{JByteArray, JClass, JString},
        sys::{jboolean, jint, jlong},
    },
    krabka_remote_storage::{IndexType, LogSegmentData},
    std::{path::PathBuf, sync::Arc, time::Duration},
};

/// `long rsmOpen(byte[] config)`: a storage manager for the encoded config.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rsmOpen<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    config: JByteArray<'local>,
) -> jlong {
    boundary::call(&mut env, |env| {
        let entries = wire::decode_config(&bytes(env, &config)?)?;
        let format = parse_format(&entries)?;
        let storage = backend::open_storage_with(parse_backend(&entries)?, &format)?;
        Ok(STORAGE_MANAGERS.insert(storage))
    })
}

/// `void rsmClose(long rsm)`: forgets the handle; calls in flight finish.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rsmClose<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rsm: jlong,
) {
    boundary::call(&mut env, |_| {
        STORAGE_MANAGERS.remove(rsm);
        Ok(())
    });
}

/// `long copyStart(long rsm, byte[] metadata, String log, String offsetIndex,
/// String timeIndex, String txnIndex, String producerSnapshot, byte[]
/// leaderEpochIndex)`: starts a copy on a native thread.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // Mirrors Kafka's LogSegmentData fields.
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_copyStart<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rsm: jlong,
    metadata: JByteArray<'local>,
    log_segment: JString<'local>,
    offset_index: JString<'local>,
    time_index: JString<'local>,
    transaction_index: JString<'local>,
    producer_snapshot: JString<'local>,
    leader_epoch_index: JByteArray<'local>,
) -> jlong {
    boundary::call(&mut env, |env| {
        let storage = STORAGE_MANAGERS.get(rsm)?;
        let metadata = wire::decode_metadata(&bytes(env, &metadata)?)?;
        let segment = LogSegmentData {
            log_segment: PathBuf::from(string(env, &log_segment, "logSegment")?),
            offset_index: PathBuf::from(string(env, &offset_index, "offsetIndex")?),
            time_index: PathBuf::from(string(env, &time_index, "timeIndex")?),
            transaction_index: optional_string(env, &transaction_index)?.map(PathBuf::from),
            producer_snapshot_index: optional_string(env, &producer_snapshot)?.map(PathBuf::from),
            leader_epoch_index: Bytes::from(bytes(env, &leader_epoch_index)?),
        };
        let operation = CopyOperation::start(storage, metadata, segment)?;
        Ok(COPIES.insert(operation))
    })
}

/// `boolean copyAwait(long op, long timeoutMillis)`: `true` once finished.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_copyAwait<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    op: jlong,
    timeout_millis: jlong,
) -> jboolean {
    boundary::call(&mut env, |_| {
        let operation = COPIES.get(op)?;
        let timeout = Duration::from_millis(u64::try_from(timeout_millis).unwrap_or(0));
        Ok(operation.wait(timeout))
    })
}

/// `byte[] copyResult(long op)`: the custom metadata of a finished copy
/// (`null` for none), or throws its error.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_copyResult<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    op: jlong,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let operation = COPIES.get(op)?;
        let result = operation.take_result().ok_or_else(|| {
            BridgeError::InvalidArgument(
                "the copy has not finished or its result was taken".to_owned(),
            )
        })?;
        match result? {
            Some(custom) => Ok(env.byte_array_from_slice(custom.as_bytes())?),
            None => Ok(JByteArray::default()),
        }
    })
}

/// `void copyRelease(long op)`: forgets a copy; an unfinished one is
/// cancelled and cleans up after itself.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_copyRelease<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    op: jlong,
) {
    boundary::call(&mut env, |_| {
        if let Some(operation) = COPIES.remove(op) {
            operation.cancel();
        }
        Ok(())
    });
}

/// `long fetchOpen(long rsm, byte[] metadata, long start, long end)`: a
/// stream of the segment from `start` to `end` inclusive (`end < 0`: to the
/// end of the segment).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_fetchOpen<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rsm: jlong,
    metadata: JByteArray<'local>,
    start: jlong,
    end: jlong,
) -> jlong {
    boundary::call(&mut env, |env| {
        let storage = STORAGE_MANAGERS.get(rsm)?;
        let metadata = wire::decode_metadata(&bytes(env, &metadata)?)?;
        let start = u64::try_from(start).map_err(|_| {
            BridgeError::InvalidArgument(format!("start position {start} is negative"))
        })?;
        let end = u64::try_from(end).ok();
        let reader = logging::segment_span("fetch", &metadata)
            .in_scope(|| storage.manager().fetch_log_segment(&metadata, start, end))?;
        Ok(STREAMS.insert(Arc::new(SegmentStream::new(reader))))
    })
}

/// `byte[] fetchIndex(long rsm, byte[] metadata, int indexType)`: one whole
/// index (codes: 0 offset, 1 timestamp, 2 producer snapshot, 3 transaction,
/// 4 leader epoch).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_fetchIndex<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rsm: jlong,
    metadata: JByteArray<'local>,
    index_type: jint,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let storage = STORAGE_MANAGERS.get(rsm)?;
        let metadata = wire::decode_metadata(&bytes(env, &metadata)?)?;
        let index = match index_type {
            0 => IndexType::Offset,
            1 => IndexType::Timestamp,
            2 => IndexType::ProducerSnapshot,
            3 => IndexType::Transaction,
            4 => IndexType::LeaderEpoch,
            other => {
                return Err(BridgeError::InvalidArgument(format!(
                    "unknown index type code {other}"
                )));
            }
        };
        let contents = logging::segment_span("fetch_index", &metadata)
            .in_scope(|| storage.manager().fetch_index(&metadata, index))?;
        Ok(env.byte_array_from_slice(&contents)?)
    })
}

/// `int delete(long rsm, byte[] metadata)`: deletes a segment; succeeds when
/// it is already gone. Returns a
/// [`delete_code`](crate::backend::delete_code): 0 deleted, 1
/// retained by the write-once archive (which refuses every delete).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_delete<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rsm: jlong,
    metadata: JByteArray<'local>,
) -> jint {
    boundary::call(&mut env, |env| {
        let storage = STORAGE_MANAGERS.get(rsm)?;
        let metadata = wire::decode_metadata(&bytes(env, &metadata)?)?;
        let deleted = logging::segment_span("delete", &metadata)
            .in_scope(|| storage.delete_segment(&metadata))?;
        #[cfg(feature = "panic-injection")]
        crate::copy::stall_while_injected(
            &metadata,
            "delete",
            crate::copy::DELETE_STALL_FILE_VARIABLE,
        );
        Ok(deleted)
    })
}
