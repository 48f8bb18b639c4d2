//! The native methods of `io.krabka.remote.storage.TierReplay`, the main
//! class of the replay jar: it produces a tier's records into a Kafka
//! cluster with Kafka's own producer, and pulls the records from
//! [`krabka_tier::ReplaySource`] a chunk (about a megabyte) per call.

use {
    crate::{
        boundary,
        error::BridgeError,
        state::{RECORD_FEEDS, REPLAY_SOURCES},
    },
    jni::{
        EnvUnowned,
        objects::{JByteArray, JClass, JIntArray, JObjectArray, JString},
        sys::{jint, jlong},
    },
    krabka_tier::{FeedError, RecordFeed, ReplaySource},
    std::sync::Arc,
};

/// `static native long open(String[] args)`: lists (and with `--verify`
/// authenticates) the tier's selected partitions.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_open<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    args: JObjectArray<'local, JString<'local>>,
) -> jlong {
    boundary::call(&mut env, |env| {
        if args.is_null() {
            return Err(BridgeError::InvalidArgument("args is null".to_owned()));
        }
        let count = args.len(env)?;
        let mut strings = Vec::with_capacity(count);
        for index in 0..count {
            let arg = args.get_element(env, index)?;
            strings.push(super::string(env, &arg, "an argument")?);
            env.delete_local_ref(arg);
        }
        // Options refused: an invalid argument, which the Java side tells
        // apart (exit code 64) by its message.
        let source = ReplaySource::open(&strings).map_err(|err| match err {
            FeedError::Usage(text) | FeedError::Help(text) => BridgeError::InvalidArgument(text),
            other => BridgeError::Tier(other),
        })?;
        Ok(REPLAY_SOURCES.insert(Arc::new(source)))
    })
}

/// `static native byte[] help()`: the source options' help, UTF-8.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_help<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        Ok(env.byte_array_from_slice(krabka_tier::replay_source_help().as_bytes())?)
    })
}

/// `static native int[] partitions(long source)`: the partitions to replay.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_partitions<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    source: jlong,
) -> JIntArray<'local> {
    boundary::call(&mut env, |env| {
        let partitions = REPLAY_SOURCES.get(source)?.partitions();
        let array = env.new_int_array(partitions.len())?;
        array.set_region(env, 0, &partitions)?;
        Ok(array)
    })
}

/// `static native byte[] refused(long source)`: the partitions `--verify`
/// refused, a UTF-8 JSON array of `{"partition", "findings"}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_refused<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    source: jlong,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let text = REPLAY_SOURCES.get(source)?.refused_json();
        Ok(env.byte_array_from_slice(text.as_bytes())?)
    })
}

/// `static native long feed(long source, int partition, long skip, int
/// chunkBytes)`: starts reading a partition's committed records after the
/// first `skip`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_feed<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    source: jlong,
    partition: jint,
    skip: jlong,
    chunk_bytes: jint,
) -> jlong {
    boundary::call(&mut env, |_| {
        let (Ok(skip), Ok(chunk_bytes)) = (u64::try_from(skip), usize::try_from(chunk_bytes))
        else {
            return Err(BridgeError::InvalidArgument(format!(
                "negative skip {skip} or chunk size {chunk_bytes}"
            )));
        };
        let feed = REPLAY_SOURCES
            .get(source)?
            .feed(partition, skip, chunk_bytes.max(1))?;
        Ok(RECORD_FEEDS.insert(Arc::new(feed)))
    })
}

/// `static native byte[] next(long feed)`: the next chunk (see
/// `krabka_tier::feed`), `null` after the end chunk.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_next<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    feed: jlong,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let feed: Arc<RecordFeed> = RECORD_FEEDS.get(feed)?;
        match feed.next_chunk() {
            Some(chunk) => Ok(env.byte_array_from_slice(&chunk)?),
            None => Ok(JByteArray::default()),
        }
    })
}

/// `static native void closeFeed(long feed)`: stops the feed's reader.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_closeFeed<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    feed: jlong,
) {
    boundary::call(&mut env, |_| {
        RECORD_FEEDS.remove(feed);
        Ok(())
    });
}

/// `static native void close(long source)`: frees the source.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_TierReplay_close<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    source: jlong,
) {
    boundary::call(&mut env, |_| {
        REPLAY_SOURCES.remove(source);
        Ok(())
    });
}
