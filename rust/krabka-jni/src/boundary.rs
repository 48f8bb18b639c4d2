//! The one doorway of every native method: panics, errors and pending Java
//! exceptions become Kafka's `RemoteStorageException` family here and
//! nowhere else.
//!
//! Each exported function is `boundary::call(&mut env, |env| { … })`. The
//! closure runs under `catch_unwind` (jni-rs's `with_env`); the outcome is
//! resolved by [`ThrowRemoteStorage`]:
//!
//! - `Ok(value)` is returned to Java;
//! - `Err(error)` throws the exception [`ExceptionKind`] names for it;
//! - a panic throws `RemoteStorageException("native panic: <message>")`,
//!   reading both `&str` and `String` payloads;
//! - a retryable error (the store unreachable, throttled, timed out) is
//!   thrown without a stack trace: it is a condition of the store, Kafka
//!   logs it at every retry, and its message says all there is;
//! - a Java exception already pending (a JNI call failed, say with an
//!   `OutOfMemoryError`) is kept if it is a `RemoteStorageException` and
//!   otherwise becomes the cause of a new `RemoteStorageException`.
//!
//! The exception classes are looked up once and kept as global references.
//! `RetriableRemoteStorageException` exists only from Kafka 4.2: on older
//! brokers it is not found, and retryable errors fall back to
//! `RemoteStorageException`.

use {
    crate::error::{BridgeError, ExceptionKind, panic_message},
    jni::{
        Env, EnvUnowned,
        errors::ErrorPolicy,
        jni_sig, jni_str,
        objects::{Global, JClass, JObject, JThrowable, JValue},
        strings::JNIString,
    },
    std::{
        panic::{AssertUnwindSafe, catch_unwind},
        sync::OnceLock,
    },
};

/// Runs `body` as the implementation of a native method; see the module docs.
pub fn call<'local, T: Default>(
    env: &mut EnvUnowned<'local>,
    body: impl FnOnce(&mut Env<'local>) -> Result<T, BridgeError>,
) -> T {
    env.with_env(body).resolve::<ThrowRemoteStorage>()
}

/// `err` and its cause chain, `: `-separated, as the exception message: the
/// JNI boundary is an edge of the stack, the one place where typed causes
/// become text. A cause whose text the message already holds is skipped.
#[must_use]
pub fn message_with_causes(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut current = err.source();
    while let Some(cause) = current {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        current = cause.source();
    }
    message
}

/// The error policy of [`call`].
#[derive(Debug)]
pub struct ThrowRemoteStorage;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowRemoteStorage {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut (),
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        throw(env, err.exception_kind(), &message_with_causes(&err))?;
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut (),
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let message = panic_message(payload.as_ref());
        // Dropping a payload can itself panic; leak it rather than unwind here.
        if let Err(drop_panic) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
            std::mem::forget(drop_panic);
        }
        throw(
            env,
            ExceptionKind::Storage,
            &format!("native panic: {message}"),
        )?;
        Ok(T::default())
    }
}

/// Kafka's exception classes, as global references.
struct ExceptionClasses {
    storage: Global<JClass<'static>>,
    not_found: Global<JClass<'static>>,
    /// `None` on Kafka versions before 4.2.
    retriable: Option<Global<JClass<'static>>>,
}

static CLASSES: OnceLock<ExceptionClasses> = OnceLock::new();

fn classes(env: &mut Env<'_>) -> jni::errors::Result<&'static ExceptionClasses> {
    if let Some(classes) = CLASSES.get() {
        return Ok(classes);
    }
    let storage = env.find_class(jni_str!(
        "org/apache/kafka/server/log/remote/storage/RemoteStorageException"
    ))?;
    let not_found = env.find_class(jni_str!(
        "org/apache/kafka/server/log/remote/storage/RemoteResourceNotFoundException"
    ))?;
    // Absent before Kafka 4.2: find_class clears the NoClassDefFoundError.
    let retriable = env
        .find_class(jni_str!(
            "org/apache/kafka/server/log/remote/storage/RetriableRemoteStorageException"
        ))
        .ok();
    let loaded = ExceptionClasses {
        storage: env.new_global_ref(&storage)?,
        not_found: env.new_global_ref(&not_found)?,
        retriable: retriable
            .map(|class| env.new_global_ref(&class))
            .transpose()?,
    };
    // Another thread may have won the race; either value is the same classes.
    let _ = CLASSES.set(loaded);
    CLASSES
        .get()
        .ok_or(jni::errors::Error::NullPtr("exception classes"))
}

/// Whether `RetriableRemoteStorageException` exists in this broker.
pub fn has_retriable(env: &mut Env<'_>) -> jni::errors::Result<bool> {
    Ok(classes(env)?.retriable.is_some())
}

/// Throws the exception of `kind` with `message`, keeping a pending
/// `RemoteStorageException` and wrapping any other pending exception.
fn throw(env: &mut Env<'_>, kind: ExceptionKind, message: &str) -> jni::errors::Result<()> {
    let pending = env.exception_occurred();
    if pending.is_some() {
        env.exception_clear();
    }
    let classes = match classes(env) {
        Ok(classes) => classes,
        Err(_) => {
            // Kafka's classes are missing: the adapter was loaded without the
            // broker's storage API. The adapter turns this into its own error.
            env.exception_clear();
            let _ = env.throw_new(
                jni_str!("java/lang/IllegalStateException"),
                JNIString::from(format!(
                    "{message} (Kafka's RemoteStorageException is not on the class path)"
                )),
            );
            return Ok(());
        }
    };
    if let Some(pending) = &pending {
        if env.is_instance_of(pending, &classes.storage)? {
            let _ = env.throw(pending);
            return Ok(());
        }
    }
    let class = match kind {
        ExceptionKind::NotFound => &classes.not_found,
        ExceptionKind::Retriable => classes.retriable.as_ref().unwrap_or(&classes.storage),
        ExceptionKind::Storage => &classes.storage,
    };
    let text = env.new_string(message)?;
    let null = JObject::null();
    let cause: &JObject<'_> = pending.as_ref().map_or(&null, |cause| cause.as_ref());
    let exception = env.new_object(
        class,
        jni_sig!("(Ljava/lang/String;Ljava/lang/Throwable;)V"),
        &[JValue::Object(&text), JValue::Object(cause)],
    )?;
    if kind == ExceptionKind::Retriable {
        // A condition of the store (unreachable, throttled, timed out), not
        // a fault of this code: the message names the operation, segment and
        // cause, and the frames of the adapter that called in would add only
        // noise to the error Kafka logs on every retry of a read or copy.
        let frames = env.find_class(jni_str!("java/lang/StackTraceElement"))?;
        let none = env.new_object_array(0, &frames, JObject::null())?;
        env.call_method(
            &exception,
            jni_str!("setStackTrace"),
            jni_sig!("([Ljava/lang/StackTraceElement;)V"),
            &[JValue::Object(&none)],
        )?;
    }
    let exception = JThrowable::cast_local(env, exception)?;
    // `throw` reports success as Err(JavaException): the exception is pending.
    let _ = env.throw(exception);
    Ok(())
}
