//! Where the store layer meets the SPI: its errors become the SPI's error one
//! variant to one variant (causes kept), and the SPI's cancellation token
//! drives the store layer's.

use {
    krabka_kafka::{CancellationToken, RemoteStorageError},
    krabka_object_store::StoreError,
};

/// `err` as the SPI's error, variant for variant.
pub(crate) fn spi_error(err: StoreError) -> RemoteStorageError {
    match err {
        StoreError::NotFound { resource } => RemoteStorageError::NotFound { resource },
        StoreError::AlreadyExists { resource, .. } => {
            RemoteStorageError::AlreadyExists { resource }
        }
        StoreError::InvalidArgument(message) => RemoteStorageError::InvalidArgument(message),
        StoreError::Config(source) => RemoteStorageError::Config {
            what: "object store",
            source: Box::new(source),
        },
        StoreError::Io {
            operation,
            path,
            source,
        } => RemoteStorageError::Io {
            operation,
            path,
            source,
        },
        StoreError::Retryable { message, source } => {
            RemoteStorageError::Retryable { message, source }
        }
        StoreError::Backend { message, source } => RemoteStorageError::Backend { message, source },
        StoreError::Refused(message) => RemoteStorageError::Refused(message),
        StoreError::Cancelled(message) => RemoteStorageError::Cancelled(message),
        other => RemoteStorageError::Backend {
            message: "object store failure".to_owned(),
            source: Some(Box::new(other)),
        },
    }
}

/// A store-layer token cancelled when `cancel` is.
pub(crate) fn store_token(cancel: &CancellationToken) -> tokio_util::sync::CancellationToken {
    let token = tokio_util::sync::CancellationToken::new();
    let on_cancel = token.clone();
    cancel.on_cancel(move || on_cancel.cancel());
    token
}

#[cfg(test)]
mod tests {
    use {super::*, krabka_kafka::ErrorClass};

    #[test]
    fn classes_survive_the_crossing() {
        let cases = [
            (StoreError::not_found("x"), ErrorClass::NotFound),
            (
                StoreError::Retryable {
                    message: "slow down".to_owned(),
                    source: None,
                },
                ErrorClass::Retryable,
            ),
            (
                StoreError::InvalidArgument("bad".to_owned()),
                ErrorClass::InvalidInput,
            ),
            (StoreError::Refused("no".to_owned()), ErrorClass::Refused),
            (
                StoreError::Cancelled("copy".to_owned()),
                ErrorClass::Retryable,
            ),
            (
                StoreError::backend("denied", std::io::Error::other("403")),
                ErrorClass::Other,
            ),
        ];
        for (store, class) in cases {
            let text = store.to_string();
            assert_eq!(spi_error(store).class(), class, "{text}");
        }
    }

    #[test]
    fn a_cancel_reaches_the_store_token() {
        let cancel = CancellationToken::new();
        let token = store_token(&cancel);
        assert!(!token.is_cancelled());
        cancel.cancel();
        assert!(token.is_cancelled());
    }
}
