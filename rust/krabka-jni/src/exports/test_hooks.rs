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
