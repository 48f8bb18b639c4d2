//! Test-only natives, compiled with the `panic-injection` feature: they prove
//! that a panic and each error class reach Java as the right exception.

use {
    crate::{backend::delete_code, boundary, error::BridgeError},
    jni::{
        EnvUnowned,
        objects::{JClass, JString},
        sys::{jboolean, jint},
    },
    krabka_remote_storage::{DeleteOutcome, RemoteStorageError},
};

/// `void testPanic(String message, boolean formatted)`: panics with a `&str`
/// payload, or a `String` one when `formatted`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testPanic<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JString<'local>,
    formatted: jboolean,
) {
    boundary::call(&mut env, |env| -> Result<(), BridgeError> {
        if formatted {
            let message = super::string(env, &message, "message")?;
            panic!("{message}");
        }
        panic!("injected panic");
    });
}

/// `void testFail(int code)`: fails with a not-found (0), retryable (1) or
/// corrupt-data (2) error.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testFail<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    code: jint,
) {
    boundary::call(&mut env, |_| -> Result<(), BridgeError> {
        Err(match code {
            0 => RemoteStorageError::not_found("injected missing index").into(),
            1 => RemoteStorageError::Retryable {
                message: "injected throttling".to_owned(),
                source: None,
            }
            .into(),
            2 => RemoteStorageError::Corrupt {
                format: "log",
                detail: "injected corruption".to_owned(),
            }
            .into(),
            other => BridgeError::InvalidArgument(format!("unknown failure code {other}")),
        })
    });
}

/// `int testDeleteOutcome(boolean worm, int code)`: the code `delete` returns
/// when a tier that is (`worm`) or is not a write-once archive answers a
/// delete with success (0), its refusal (1: an archive retains the segment,
/// any other tier fails) or a retryable failure (2); throws as `delete`
/// would.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testDeleteOutcome<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    worm: jboolean,
    code: jint,
) -> jint {
    boundary::call(&mut env, |_| -> Result<jint, BridgeError> {
        let result = match code {
            0 => Ok(DeleteOutcome::Deleted),
            1 if worm => Ok(DeleteOutcome::RetainedByArchive {
                reason: "injected write-once retention".to_owned(),
            }),
            1 => Err(RemoteStorageError::Refused("injected refusal".to_owned())),
            2 => Err(RemoteStorageError::Retryable {
                message: "injected throttling".to_owned(),
                source: None,
            }),
            other => {
                return Err(BridgeError::InvalidArgument(format!(
                    "unknown delete result code {other}"
                )));
            }
        };
        Ok(delete_code(&result?))
    })
}

/// `void testLog(int level, String message, int count)`: emits `count`
/// `tracing` events of level code `level` (1 error … 5 trace) with
/// `message`, in a span naming a partition and a segment.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testLog<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    level: jint,
    message: JString<'local>,
    count: jint,
) {
    boundary::call(&mut env, |env| -> Result<(), BridgeError> {
        let message = super::string(env, &message, "message")?;
        let span = tracing::error_span!(
            "segment",
            op = "test",
            partition = "krabka-test-7",
            segment = "seg-1"
        );
        let _entered = span.enter();
        for attempt in 0..count {
            match level {
                1 => tracing::error!(attempt, "{message}"),
                2 => tracing::warn!(attempt, "{message}"),
                3 => tracing::info!(attempt, "{message}"),
                4 => tracing::debug!(attempt, "{message}"),
                5 => tracing::trace!(attempt, "{message}"),
                other => {
                    return Err(BridgeError::InvalidArgument(format!(
                        "unknown log level code {other}"
                    )));
                }
            }
        }
        Ok(())
    });
}

/// `void testLogViaLog(int level, String message)`: one `log` record of level
/// code `level` (1 error … 5 trace) under the target `jni::krabka_test`, as
/// jni-rs and reqwest log.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testLogViaLog<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    level: jint,
    message: JString<'local>,
) {
    boundary::call(&mut env, |env| -> Result<(), BridgeError> {
        let message = super::string(env, &message, "message")?;
        let level = match level {
            1 => log::Level::Error,
            2 => log::Level::Warn,
            3 => log::Level::Info,
            4 => log::Level::Debug,
            5 => log::Level::Trace,
            other => {
                return Err(BridgeError::InvalidArgument(format!(
                    "unknown log level code {other}"
                )));
            }
        };
        log::log!(target: "jni::krabka_test", level, "{message}");
        Ok(())
    });
}

/// `void testLogSecrets(String secret)`: logs a WARN that holds `secret` in
/// every way a secret could leak (a `Secret` value, a secret-named field, an
/// `Authorization` header and a presigned URL in the text) and a `log`
/// record with it in a security-token header.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testLogSecrets<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    secret: JString<'local>,
) {
    boundary::call(&mut env, |env| -> Result<(), BridgeError> {
        let secret = super::string(env, &secret, "secret")?;
        let wrapped = krabka_object_store::Secret::new(secret.clone());
        tracing::warn!(
            key = ?wrapped,
            secret_access_key = %secret,
            "secrets test: Authorization: AWS4-HMAC-SHA256 Signature={secret}\nurl ?X-Amz-Signature={secret}&sig={secret}"
        );
        log::warn!(target: "jni::krabka_test", "secrets test: x-amz-security-token: {secret}");
        Ok(())
    });
}

/// `void testLogFlood(int count)`: `count` WARN events under a target of
/// their own (`krabka_jni::exports::test_hooks::flood`), to trip its rate
/// limit without starving the other tests' target. Each has its own message
/// (`flood N`), so that none is a repeat of another
/// ([`crate::logging::repeats`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_krabka_remote_storage_NativeBridge_testLogFlood<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    count: jint,
) {
    boundary::call(&mut env, |_| -> Result<(), BridgeError> {
        for n in 0..count {
            tracing::warn!(target: "krabka_jni::exports::test_hooks::flood", "flood {n}");
        }
        Ok(())
    });
}
