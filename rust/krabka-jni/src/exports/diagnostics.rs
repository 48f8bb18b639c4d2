//! Natives for the loader's sanity check, for leak checks in tests, and the
//! configuration key table the Java tests compare their `ConfigDef`s with.

use {
    crate::{boundary, config::render, error::BridgeError, state},
    jni::{
        EnvUnowned,
        objects::{JClass, JString},
        sys::jint,
    },
};

/// `String nativeVersion()`: the crate version, which the loader compares with
/// the jar's.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_nativeVersion<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    boundary::call(&mut env, |env| {
        Ok(env.new_string(env!("CARGO_PKG_VERSION"))?)
    })
}

/// `int liveHandles(int kind)`: live handles of one kind (0 storage managers,
/// 1 metadata managers, 2 streams, 3 copies).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_liveHandles<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    kind: jint,
) -> jint {
    boundary::call(&mut env, |_| {
        let live = state::live(kind)
            .ok_or_else(|| BridgeError::InvalidArgument(format!("unknown handle kind {kind}")))?;
        Ok(jint::try_from(live).unwrap_or(jint::MAX))
    })
}

/// `String configTable()`: the configuration key table, one line per plugin
/// and key ([`render::java_table`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_configTable<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> JString<'local> {
    boundary::call(&mut env, |env| Ok(env.new_string(render::java_table())?))
}
