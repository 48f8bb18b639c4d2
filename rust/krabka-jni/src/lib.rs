//! JNI glue between Apache Kafka's tiered-storage plugin interfaces and
//! `krabka-remote-storage`.
//!
//! This cdylib is loaded by the Java adapters of the plugin jar
//! (`io.krabka.remote.storage.KrabkaRemoteStorageManager` and
//! `KrabkaRemoteLogMetadataManager`) and implements the native methods of
//! `io.krabka.remote.storage.NativeBridge`. It holds no business logic: it
//! decodes arguments, calls the Rust managers and encodes results.
//!
//! - [`boundary`] is the one wrapper every native method runs in: panics,
//!   errors and pending Java exceptions become `RemoteStorageException`,
//!   `RemoteResourceNotFoundException` or (Kafka 4.2+)
//!   `RetriableRemoteStorageException`, chosen in one place
//!   ([`error::ExceptionKind::for_class`]).
//! - [`handles`] keeps native state behind typed, reference-counted handles,
//!   so closing a Java object never frees state under a running call.
//! - [`wire`] is the byte format of metadata crossing the boundary.
//! - [`copy`] runs segment copies the Java caller can abandon on
//!   `Thread.interrupt()`; [`stream`] serves fetched segments in bulk chunks.
//! - [`config`] defines every plugin configuration key once ([`config::keys`],
//!   from which the Java `ConfigKeys` class and `docs/configuration.md` are
//!   generated) and turns `rsm.config.*` entries into typed backend configs.
//! - [`logging`] forwards every `tracing` event and `log` record of the
//!   native side to SLF4J: a bounded, rate-limited queue that a Java daemon
//!   thread drains in batches, with levels set from the Java side.
//! - One more native method, `io.krabka.remote.storage.WormVerify.run`, is
//!   the verifier jar: it runs the `krabka-worm-verify` command line
//!   ([`krabka_worm_verify::run_std`]) and needs none of Kafka's classes.
//!
//! Only the `exports` module (the `#[unsafe(no_mangle)]` functions) and
//! [`jbytes`] use `unsafe`.

pub mod backend;
pub mod boundary;
pub mod config;
pub mod copy;
pub mod error;
mod exports;
pub mod handles;
pub mod jbytes;
pub mod logging;
pub mod metrics;
pub mod state;
pub mod stream;
#[cfg(test)]
mod test_metadata;
pub mod wire;
