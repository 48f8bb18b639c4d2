//! Typed object-store configuration for Krabka's tiered storage.
//!
//! Every backend the remote tier can write to is described by one typed
//! configuration: [`S3Config`] for S3 and S3-compatible servers, [`GcsConfig`]
//! for Google Cloud Storage, [`AzureConfig`] for Azure Blob Storage, and the local-filesystem and in-memory variants of
//! [`ObjectStoreConfig`] for tests. Configurations are validated with
//! [`ObjectStoreConfig::validate`], whose errors name the field that was wrong;
//! secrets live in [`Secret`], whose `Debug` output never shows them.
//! [`build_object_store`] turns a configuration into an `object_store` handle
//! with the configured credentials, addressing, retries and timeouts.
//!
//! On top of the configuration sits the store layer ([`store`]): the runtime,
//! streaming uploads, ranged readers, deletes and error classes every remote
//! tier uses, and the bucket probes ([`prove_write_once`],
//! [`S3VersionReader`]) that check what a bucket guarantees. It knows neither
//! Kafka's SPI nor the archive format.

#![forbid(unsafe_code)]

mod bucket;
mod build;
mod config;
mod error;
pub mod kms;
mod secret;
mod storage_class;
pub mod store;

pub use {
    bucket::{
        BucketObjectLock, BucketProtection, BucketVersioning, CREATE_ONLY_PROBE_DIR,
        S3VersionReader, VersionEntry, VersionRetention, prove_write_once,
    },
    build::{ObjectStoreBuildError, build_object_store},
    config::{
        AZURE_MAX_BLOCK_SIZE, AZURE_MAX_BLOCKS, AZURE_MAX_SINGLE_PUT, AzureConfig,
        AzureCredentials, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RETRIES,
        DEFAULT_MULTIPART_CHUNK_SIZE, DEFAULT_MULTIPART_THRESHOLD, DEFAULT_REQUEST_TIMEOUT,
        DEFAULT_RETRY_TIMEOUT, GcsConfig, MAX_PARTS_IN_FLIGHT, ObjectStoreConfig, S3Config,
        S3Credentials, S3ServerSideEncryption,
    },
    error::ObjectStoreConfigError,
    secret::Secret,
    store::{StoreError, StoreErrorClass},
};

/// The `object_store` crate this crate builds on, re-exported so users name
/// the exact version of its types.
pub use object_store;
