//! The native method of `io.krabka.remote.storage.WormVerify`, the main
//! class of the verifier jar (`java -jar krabka-worm-verify.jar …`).
//!
//! It runs the `krabka-worm-verify` command line itself
//! ([`krabka_worm_verify::run_std`]): the same arguments, the same report
//! on file descriptor 1, the same messages on file descriptor 2 and the
//! same exit code as the binary. The Java side flushes its own streams
//! before the call and exits with the code returned.
//!
//! Nothing here needs Kafka's classes: on success no class is looked up,
//! and a panic inside the verifier is already an exit code
//! (`run_std` catches it and reports an internal error). Only a failure to
//! read the `String[]` reaches [`boundary::call`], which throws (without
//! Kafka on the class path, an `IllegalStateException`); the Java main turns
//! any `Throwable` into exit code 3.

use {
    crate::{boundary, error::BridgeError},
    jni::{
        EnvUnowned,
        objects::{JClass, JObjectArray, JString},
        sys::jint,
    },
};

/// `static native int run(String[] args)`: the verifier's exit code.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_WormVerify_run<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    args: JObjectArray<'local, JString<'local>>,
) -> jint {
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
        Ok(jint::from(krabka_worm_verify::run_std(strings)))
    })
}
