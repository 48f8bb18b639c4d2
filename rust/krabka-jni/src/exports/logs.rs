//! The natives of the log bridge (`io.krabka.remote.storage.NativeLog`): one
//! install, the level table, and the batch drain.

use {
    super::bytes,
    crate::{
        boundary,
        error::BridgeError,
        logging::{self, queue::Batch, targets::LogLevel},
    },
    jni::{
        EnvUnowned,
        objects::{JByteArray, JClass, JLongArray, JString},
        sys::{jboolean, jbyte, jint, jlong},
    },
    std::time::Duration,
};

/// The longest a drain waits for a first record.
const MAX_WAIT: Duration = Duration::from_secs(1);

/// `void logStart()`: installs the bridge as the process's `tracing`
/// subscriber and `log` logger (once; later calls do nothing).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_logStart<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) {
    boundary::call(&mut env, |_| {
        logging::install()?;
        Ok(())
    });
}

/// `String logTargets(int from)`: the targets from index `from` on, one per
/// line (empty when none or the bridge is not installed).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_logTargets<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    from: jint,
) -> JString<'local> {
    boundary::call(&mut env, |env| {
        let from = usize::try_from(from).map_err(|_| {
            BridgeError::InvalidArgument(format!("target index {from} is negative"))
        })?;
        let names = logging::global().map_or_else(Vec::new, |log| log.targets_from(from));
        let joined = names
            .iter()
            .map(|name| &**name)
            .collect::<Vec<_>>()
            .join("\n");
        Ok(env.new_string(joined)?)
    })
}

/// `boolean logLevels(byte defaultLevel, byte[] levels)`: the level codes
/// (0 off … 5 trace) of targets not seen yet and of the targets in table
/// order; `true` when a level changed (the call sites were re-evaluated).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_logLevels<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    default_level: jbyte,
    levels: JByteArray<'local>,
) -> jboolean {
    boundary::call(&mut env, |env| {
        let level = |code: u8| {
            LogLevel::from_code(code).ok_or_else(|| {
                BridgeError::InvalidArgument(format!("unknown log level code {code}"))
            })
        };
        let default = u8::try_from(default_level)
            .map_err(|_| {
                BridgeError::InvalidArgument(format!("unknown log level code {default_level}"))
            })
            .and_then(level)?;
        let levels = bytes(env, &levels)?
            .into_iter()
            .map(level)
            .collect::<Result<Vec<_>, _>>()?;
        let Some(log) = logging::global() else {
            return Ok(false);
        };
        let changed = log.set_levels(default, &levels);
        if changed {
            logging::rebuild_interest(log);
        }
        Ok(changed)
    })
}

/// `byte[] logDrain(int maxRecords, long waitMillis)`: up to `maxRecords`
/// records, waiting at most `waitMillis` (capped at one second) for the
/// first, in the format of [`Batch::encode`].
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_logDrain<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    max_records: jint,
    wait_millis: jlong,
) -> JByteArray<'local> {
    boundary::call(&mut env, |env| {
        let max = usize::try_from(max_records).unwrap_or(0).max(1);
        let wait = Duration::from_millis(u64::try_from(wait_millis).unwrap_or(0)).min(MAX_WAIT);
        let batch = match logging::global() {
            Some(log) => log.drain(max, wait),
            None => Batch {
                targets_known: 0,
                records: Vec::new(),
            },
        };
        Ok(env.byte_array_from_slice(&batch.encode())?)
    })
}

/// `long[] logStats()`: records queued, dropped (queue full) and suppressed
/// (rate limit) since the bridge was installed; zeros before.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_logStats<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JLongArray<'local> {
    boundary::call(&mut env, |env| {
        let stats = logging::global().map(|log| log.stats()).unwrap_or_default();
        let values = [stats.queued, stats.dropped, stats.suppressed]
            .map(|n| jlong::try_from(n).unwrap_or(jlong::MAX));
        let array = env.new_long_array(3)?;
        array.set_region(env, 0, &values)?;
        Ok(array)
    })
}
