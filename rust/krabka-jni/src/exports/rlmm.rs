//! `RemoteLogMetadataManager` natives over the Rust metadata managers (the
//! durable one in the tier's store, or the in-memory one for tests).

use {
    super::bytes,
    crate::{backend, boundary, config::parse_metadata, state::METADATA_MANAGERS, wire},
    jni::{
        EnvUnowned,
        objects::{JByteArray, JClass, JString},
        sys::{jboolean, jint, jlong},
    },
    krabka_ids::LeaderEpoch,
};

/// `long rlmmOpen(byte[] config)`: a metadata manager for the encoded
/// config (`rlmm.config.*`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmOpen<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    config: JByteArray<'local>,
) -> jlong {
    boundary::call(&mut env, |env| {
        let entries = wire::decode_config(&bytes(env, &config)?)?;
        let manager = backend::open_metadata_manager(parse_metadata(&entries)?)?;
        Ok(METADATA_MANAGERS.insert(manager))
    })
}

/// `void rlmmClose(long rlmm)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmClose<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
) {
    boundary::call(&mut env, |_| {
        if let Ok(manager) = METADATA_MANAGERS.get(rlmm) {
            manager.close();
        }
        METADATA_MANAGERS.remove(rlmm);
        Ok(())
    });
}

/// `String rlmmEraseDeletedPartition(long rlmm, byte[] partition)`: erases
/// the history of a partition whose topic the caller found deleted; the
/// outcome as text starting with `erased:`, `absent:`, `pending:` (segments
/// not deleted yet: ask again later) or `kept:`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmEraseDeletedPartition<
    'local,
>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
) -> JString<'local> {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        let outcome = manager.erase_deleted_partition(&partition)?;
        Ok(env.new_string(outcome.to_string())?)
    })
}

/// `void rlmmAdd(long rlmm, byte[] metadata)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmAdd<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    metadata: JByteArray<'local>,
) {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        manager.add_remote_log_segment_metadata(wire::decode_metadata(&bytes(env, &metadata)?)?)?;
        Ok(())
    });
}

/// `void rlmmUpdate(long rlmm, byte[] update)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmUpdate<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    update: JByteArray<'local>,
) {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        manager.update_remote_log_segment_metadata(wire::decode_update(&bytes(env, &update)?)?)?;
        Ok(())
    });
}

/// `void rlmmPutPartitionDelete(long rlmm, byte[] delete)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmPutPartitionDelete<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    delete: JByteArray<'local>,
) {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        manager.put_remote_partition_delete_metadata(wire::decode_partition_delete(&bytes(
            env, &delete,
        )?)?)?;
        Ok(())
    });
}

/// `byte[] rlmmLookup(long rlmm, byte[] partition, int epoch, long offset)`:
/// an optional metadata (presence byte, then the metadata).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmLookup<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
    epoch: jint,
    offset: jlong,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        let found = manager.remote_log_segment_metadata(&partition, LeaderEpoch(epoch), offset)?;
        Ok(env.byte_array_from_slice(&wire::encode_optional_metadata(found.as_ref()))?)
    })
}

/// `byte[] rlmmNextWithTxnIndex(long rlmm, byte[] partition, int epoch, long
/// offset)`: an optional metadata.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmNextWithTxnIndex<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
    epoch: jint,
    offset: jlong,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        let found = manager.next_segment_with_txn_index(&partition, LeaderEpoch(epoch), offset)?;
        Ok(env.byte_array_from_slice(&wire::encode_optional_metadata(found.as_ref()))?)
    })
}

/// `long rlmmHighestOffset(long rlmm, byte[] partition, int epoch)`:
/// `Long.MIN_VALUE` when no finished segment holds the epoch.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmHighestOffset<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
    epoch: jint,
) -> jlong {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        Ok(manager
            .highest_offset_for_epoch(&partition, LeaderEpoch(epoch))?
            .unwrap_or(i64::MIN))
    })
}

/// `byte[] rlmmList(long rlmm, byte[] partition)`: every listed segment.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmList<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        let list = manager.list_remote_log_segments(&partition)?;
        Ok(env.byte_array_from_slice(&wire::encode_metadata_list(&list))?)
    })
}

/// `byte[] rlmmListByEpoch(long rlmm, byte[] partition, int epoch)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmListByEpoch<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
    epoch: jint,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        let list = manager.list_remote_log_segments_by_epoch(&partition, LeaderEpoch(epoch))?;
        Ok(env.byte_array_from_slice(&wire::encode_metadata_list(&list))?)
    })
}

/// `long rlmmRemoteLogSize(long rlmm, byte[] partition, int epoch)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmRemoteLogSize<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
    epoch: jint,
) -> jlong {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        let size = manager.remote_log_size(&partition, LeaderEpoch(epoch))?;
        Ok(i64::try_from(size).unwrap_or(i64::MAX))
    })
}

/// `boolean rlmmIsReady(long rlmm, byte[] partition)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmIsReady<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partition: JByteArray<'local>,
) -> jboolean {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let partition = wire::decode_partition(&bytes(env, &partition)?)?;
        Ok(manager.is_ready(&partition))
    })
}

/// `void rlmmLeadershipChanges(long rlmm, byte[] leaders, byte[] followers)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmLeadershipChanges<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    leaders: JByteArray<'local>,
    followers: JByteArray<'local>,
) {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        let leaders = wire::decode_partitions(&bytes(env, &leaders)?)?;
        let followers = wire::decode_partitions(&bytes(env, &followers)?)?;
        manager.on_partition_leadership_changes(&leaders, &followers);
        Ok(())
    });
}

/// `void rlmmStopPartitions(long rlmm, byte[] partitions)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_rlmmStopPartitions<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rlmm: jlong,
    partitions: JByteArray<'local>,
) {
    boundary::call(&mut env, |env| {
        let manager = METADATA_MANAGERS.get(rlmm)?;
        manager.on_stop_partitions(&wire::decode_partitions(&bytes(env, &partitions)?)?);
        Ok(())
    });
}
