//! The natives of the plugin's metrics (`io.krabka.remote.storage.PluginMetricsSet`):
//! the catalog once, and one snapshot of every value per read.

use {
    crate::{boundary, metrics, state::STORAGE_MANAGERS},
    jni::{
        EnvUnowned,
        objects::{JClass, JDoubleArray, JString},
        sys::jlong,
    },
};

/// `String metricsCatalog()`: one line per metric ([`metrics::java_catalog`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_metricsCatalog<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    boundary::call(&mut env, |env| Ok(env.new_string(metrics::java_catalog())?))
}

/// `double[] metricsSnapshot(long rsm)`: every metric's value, in catalog
/// order.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_metricsSnapshot<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    rsm: jlong,
) -> JDoubleArray<'local> {
    boundary::call(&mut env, |env| {
        let storage = STORAGE_MANAGERS.get(rsm)?;
        let values = metrics::snapshot(&storage);
        let array = env.new_double_array(values.len())?;
        array.set_region(env, 0, &values)?;
        Ok(array)
    })
}
