//! Classifying `object_store` failures into [`StoreError`] classes.
//!
//! `object_store` already retried transient failures (with backoff, within
//! the configured count and time budget) before an error reaches this module,
//! so a transient failure here means the budget is spent: it surfaces as
//! [`StoreError::Retryable`]. Permanent failures (access denied, a
//! missing bucket, an unsupported operation, other 4xx answers) surface as
//! [`StoreError::Backend`] with a message that says what to check.

use {
    super::error::StoreError,
    object_store::{Error as ObjectStoreError, client::HttpErrorKind},
    std::error::Error as StdError,
};

/// What kind of failure an `object_store` error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The object does not exist.
    NotFound,
    /// The bucket (or container) does not exist.
    NoSuchBucket,
    /// Credentials are missing, wrong or lack permission.
    AccessDenied,
    /// A conditional request lost (object changed or already exists).
    Precondition,
    /// Throttling, 5xx, timeouts, connection failures.
    Transient,
    /// The server does not implement the operation.
    Unsupported,
    /// Anything else: a permanent failure.
    Permanent,
}

/// Classifies `err`.
pub fn classify(err: &ObjectStoreError) -> Failure {
    match err {
        ObjectStoreError::NotFound { .. } if missing_bucket(err) => Failure::NoSuchBucket,
        ObjectStoreError::NotFound { .. } => Failure::NotFound,
        ObjectStoreError::PermissionDenied { .. } | ObjectStoreError::Unauthenticated { .. } => {
            Failure::AccessDenied
        }
        ObjectStoreError::Precondition { .. }
        | ObjectStoreError::AlreadyExists { .. }
        | ObjectStoreError::NotModified { .. } => Failure::Precondition,
        ObjectStoreError::NotSupported { .. } | ObjectStoreError::NotImplemented { .. } => {
            Failure::Unsupported
        }
        ObjectStoreError::JoinError { .. } => Failure::Transient,
        _ => classify_chain(err),
    }
}

/// Whether a 404 names the bucket, not the object: S3's and GCS's
/// `NoSuchBucket`, Azure's `ContainerNotFound`.
fn missing_bucket(err: &ObjectStoreError) -> bool {
    mentions(err, "NoSuchBucket") || mentions(err, "ContainerNotFound")
}

/// Walks the source chain of a generic error for a transport error kind or
/// an HTTP status.
fn classify_chain(err: &ObjectStoreError) -> Failure {
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(error) = current {
        if let Some(http) = error.downcast_ref::<object_store::client::HttpError>() {
            return transport_failure(http.kind());
        }
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            if matches!(
                io.kind(),
                TimedOut
                    | ConnectionReset
                    | ConnectionAborted
                    | ConnectionRefused
                    | BrokenPipe
                    | UnexpectedEof
                    | Interrupted
                    | NotConnected
            ) {
                return Failure::Transient;
            }
        }
        if let Some(status) = http_status(&error.to_string()) {
            return match status {
                404 if missing_bucket(err) => Failure::NoSuchBucket,
                404 => Failure::NotFound,
                401 | 403 => Failure::AccessDenied,
                405 | 501 => Failure::Unsupported,
                408 | 429 | 500..=599 => Failure::Transient,
                _ => Failure::Permanent,
            };
        }
        if error.to_string().contains("Server returned error response") {
            // A 200 answer whose body holds `SlowDown` or `InternalError`.
            return Failure::Transient;
        }
        current = error.source();
    }
    Failure::Permanent
}

/// The class of a transport failure: `object_store` raises an `HttpError`
/// only when no HTTP answer arrived (an answer's status travels in its retry
/// error instead), so every kind is transient. `Unknown` covers what reqwest
/// does not name, such as hyper's pool cancelling a request whose pooled
/// connection closed before the request was sent ("connection was not
/// ready", seen when a server restarts); `object_store` does not retry those
/// itself, so the caller (Kafka's copy retry) must.
fn transport_failure(kind: HttpErrorKind) -> Failure {
    match kind {
        HttpErrorKind::Connect
        | HttpErrorKind::Request
        | HttpErrorKind::Timeout
        | HttpErrorKind::Interrupted
        | HttpErrorKind::Decode
        | HttpErrorKind::Unknown => Failure::Transient,
        // `HttpErrorKind` is non-exhaustive; a kind added later is still a
        // failure to get an answer.
        _ => Failure::Transient,
    }
}

/// The status in `object_store`'s message for a non-2xx answer
/// (`Server returned non-2xx status code: 503 Service Unavailable: …`).
/// `object_store` does not export the error type that carries it.
fn http_status(message: &str) -> Option<u16> {
    const MARKER: &str = "non-2xx status code: ";
    let start = message.find(MARKER)? + MARKER.len();
    let digits = message.get(start..start + 3)?;
    digits
        .parse()
        .ok()
        .filter(|status| (100..600).contains(status))
}

/// Whether any error in the chain mentions `needle` (an S3/GCS error code).
fn mentions(err: &ObjectStoreError, needle: &str) -> bool {
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(error) = current {
        if error.to_string().contains(needle) {
            return true;
        }
        current = error.source();
    }
    false
}

/// Whether `err` is a throttling answer: HTTP 429 or 503, or S3's
/// `SlowDown` (also sent in a 200 answer's body).
pub fn throttled(err: &ObjectStoreError) -> bool {
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(error) = current {
        if matches!(http_status(&error.to_string()), Some(429 | 503)) {
            return true;
        }
        current = error.source();
    }
    mentions(err, "SlowDown")
}

/// Whether `object_store` retried the request that failed with `err`
/// before giving up (its retry error says `after N retries` for N > 0).
pub fn gave_up_after_retries(err: &ObjectStoreError) -> bool {
    mentions(err, "retries, max_retries:")
}

/// Converts `err`, raised while doing `operation` on `resource`, into the
/// crate's error.
pub fn to_store_error(err: ObjectStoreError, operation: &str, resource: &str) -> StoreError {
    match classify(&err) {
        Failure::NotFound => StoreError::not_found(resource),
        Failure::NoSuchBucket => backend(
            format!(
                "{operation} {resource} failed: the bucket (or Azure container) does not exist"
            ),
            err,
        ),
        Failure::AccessDenied => backend(
            format!(
                "{operation} {resource} failed: access denied (check the credentials and the bucket policy)"
            ),
            err,
        ),
        Failure::Unsupported => backend(
            format!("{operation} {resource} failed: the server does not support this operation"),
            err,
        ),
        Failure::Precondition => StoreError::Retryable {
            message: format!("{operation} {resource} failed: the object changed concurrently"),
            source: Some(Box::new(err)),
        },
        Failure::Transient => StoreError::Retryable {
            message: format!("{operation} {resource} failed after retries"),
            source: Some(Box::new(err)),
        },
        Failure::Permanent => backend(format!("{operation} {resource} failed"), err),
    }
}

fn backend(message: String, err: ObjectStoreError) -> StoreError {
    StoreError::Backend {
        message,
        source: Some(Box::new(err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic(message: &str) -> ObjectStoreError {
        ObjectStoreError::Generic {
            store: "S3",
            source: message.to_owned().into(),
        }
    }

    #[test]
    fn statuses_are_read_from_the_message() {
        assert_eq!(
            http_status(
                "Error performing PUT x in 1s - Server returned non-2xx status code: 503 Service Unavailable: <Code>SlowDown</Code>"
            ),
            Some(503)
        );
        assert_eq!(http_status("non-2xx status code: 5"), None);
        assert_eq!(http_status("nothing here"), None);
    }

    #[test]
    fn generic_errors_are_classified_by_status() {
        for (status, expected) in [
            ("503 Service Unavailable", Failure::Transient),
            ("500 Internal Server Error", Failure::Transient),
            ("429 Too Many Requests", Failure::Transient),
            ("400 Bad Request", Failure::Permanent),
            ("403 Forbidden", Failure::AccessDenied),
            ("501 Not Implemented", Failure::Unsupported),
        ] {
            let err = generic(&format!(
                "Server returned non-2xx status code: {status}: body"
            ));
            assert_eq!(classify(&err), expected, "{status}");
        }
    }

    #[test]
    fn a_missing_bucket_is_not_a_missing_object() {
        let err = ObjectStoreError::NotFound {
            path: "a".to_owned(),
            source: "Server returned non-2xx status code: 404 Not Found: <Code>NoSuchBucket</Code>"
                .into(),
        };
        assert!(matches!(
            to_store_error(err, "put", "x"),
            StoreError::Backend { .. }
        ));
        let err = ObjectStoreError::NotFound {
            path: "a".to_owned(),
            source: "Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?><Error><Code>ContainerNotFound</Code></Error>"
                .into(),
        };
        assert!(matches!(
            to_store_error(err, "put", "x"),
            StoreError::Backend { .. }
        ));
        let err = ObjectStoreError::NotFound {
            path: "a".to_owned(),
            source: "Server returned non-2xx status code: 404 Not Found: <Code>NoSuchKey</Code>"
                .into(),
        };
        assert!(matches!(
            to_store_error(err, "get", "x"),
            StoreError::NotFound { .. }
        ));
    }

    #[test]
    fn transport_failures_of_every_kind_are_retryable() {
        use object_store::client::HttpError;
        for kind in [
            HttpErrorKind::Connect,
            HttpErrorKind::Request,
            HttpErrorKind::Timeout,
            HttpErrorKind::Interrupted,
            HttpErrorKind::Decode,
            HttpErrorKind::Unknown,
        ] {
            let err = ObjectStoreError::Generic {
                store: "S3",
                source: Box::new(HttpError::new(
                    kind,
                    std::io::Error::other("connection was not ready"),
                )),
            };
            assert!(
                matches!(
                    to_store_error(err, "put", "x"),
                    StoreError::Retryable { .. }
                ),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn io_resets_are_transient() {
        let err = ObjectStoreError::Generic {
            store: "S3",
            source: Box::new(std::io::Error::from(std::io::ErrorKind::ConnectionReset)),
        };
        assert!(matches!(
            to_store_error(err, "get", "x"),
            StoreError::Retryable { .. }
        ));
    }
}
