//! The native methods of `io.krabka.remote.storage.NativeBridge`, the one
//! of `io.krabka.remote.storage.WormVerify` (the verifier jar) and those of
//! `io.krabka.remote.storage.TierReplay` (the replay jar).
//!
//! Each function only decodes its arguments, calls the Rust manager and
//! encodes the result, inside [`crate::boundary::call`].

// Every JNI export needs `#[unsafe(no_mangle)]` so the JVM finds it by its
// mangled name; that attribute is the only unsafe code in these modules. Its
// obligation (no other symbol of the same name) holds because every name
// starts with `Java_io_krabka_remote_storage_NativeBridge_`,
// `Java_io_krabka_remote_storage_WormVerify_` or
// `Java_io_krabka_remote_storage_TierReplay_`.
#![allow(unsafe_code)]

mod diagnostics;
mod logs;
mod metrics;
mod rlmm;
mod rsm;
mod stream;
#[cfg(feature = "panic-injection")]
mod test_hooks;
mod tier_replay;
mod worm_verify;

use {
    crate::error::BridgeError,
    jni::{
        Env,
        objects::{JByteArray, JString},
    },
};

/// The bytes of a Java `byte[]` argument.
fn bytes(env: &Env<'_>, array: &JByteArray<'_>) -> Result<Vec<u8>, BridgeError> {
    if array.is_null() {
        return Err(BridgeError::InvalidArgument(
            "a byte[] argument is null".to_owned(),
        ));
    }
    Ok(env.convert_byte_array(array)?)
}

/// A Java `String` argument, `None` when it is null.
fn optional_string(env: &Env<'_>, string: &JString<'_>) -> Result<Option<String>, BridgeError> {
    if string.is_null() {
        Ok(None)
    } else {
        Ok(Some(string.try_to_string(env)?))
    }
}

/// A Java `String` argument that must not be null.
fn string(env: &Env<'_>, string: &JString<'_>, what: &str) -> Result<String, BridgeError> {
    optional_string(env, string)?
        .ok_or_else(|| BridgeError::InvalidArgument(format!("{what} is null")))
}
