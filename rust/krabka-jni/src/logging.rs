//! Native logs into the broker's log: every `tracing` event and `log`
//! record of the Rust crates (jni-rs, reqwest and the object-store client
//! included) reaches SLF4J under a logger of the plugin, at its level.
//!
//! # Threads
//!
//! Native code never calls into the JVM to log. The subscriber
//! ([`layer::NativeLayer`] for `tracing`, [`layer::LogBridge`] for `log`)
//! renders each enabled event into a [`queue::Record`] and pushes it into a
//! bounded queue without blocking, from whatever thread emitted it (a broker
//! thread inside a JNI call, a copy thread, a Tokio worker). A Java daemon
//! thread started by the adapters (`NativeLog.java`, a thread the JVM made)
//! calls `NativeBridge.logDrain`, which takes up to a batch of records in one
//! JNI call ([`NativeLog::drain`], waiting at most a fraction of a second for
//! the first) and returns them as one `byte[]` ([`queue::Batch::encode`]);
//! the Java thread forwards each record to
//! `LoggerFactory.getLogger("io.krabka.native." + target)`, the target being
//! the Rust module path with `::` turned into `.`.
//!
//! # Levels
//!
//! Java owns the levels. Each target the native side has seen is in a table
//! ([`targets::Targets`]); on every drain cycle the Java thread asks SLF4J
//! which level each target's logger has enabled (and the parent
//! `io.krabka.native`, the default of targets it has not seen yet) and sends
//! the levels back when one changed ([`NativeLog::set_levels`]). A change
//! rebuilds `tracing`'s callsite interest and `log`'s global maximum, so a
//! disabled event costs the check of its call site's cached interest and is
//! never formatted. Every `tracing` call site registers once (the layer's
//! level hint is TRACE), so every module enters the table and Java can
//! enable any level of it; `log` records are cut by `log`'s global maximum
//! first, so the crates that use `log` are in the table from the start
//! ([`targets::SEED_TARGETS`]) and a new target takes the level of its
//! longest known `::` prefix until Java sends its own. Spans carry context
//! only: they are created when any target enables their level.
//!
//! # Bounds
//!
//! - The queue holds [`QUEUE_CAPACITY`] records; a push to a full queue drops
//!   the record and counts it, and the next batch starts with a WARN that
//!   says how many were dropped.
//! - Each target has a token bucket ([`RATE_LIMIT`]); a record over it is
//!   counted, not rendered, and the next batch carries a WARN with the count
//!   under the target's logger.
//! - A WARN or ERROR is forwarded once a kind (call site and message) and
//!   [`repeats::REPEAT_WINDOW`], and so is each call site of a client's
//!   retry loop ([`repeats::RETRY_TARGETS`]): repeats in the window are
//!   counted, and the drain after the window reports the count with the
//!   first one's text ([`repeats`]). A failure retried for as long as an
//!   outage lasts is one line a minute, not one a retry.
//! - A message is cut at [`MAX_MESSAGE_BYTES`].
//!
//! # Secrets
//!
//! Configuration secrets are [`krabka_object_store::Secret`]s, which never
//! format their value. On top of that, the value of a field whose name says
//! it holds a secret (`secret`, `password`, `token`, `credential`,
//! `private_key`, `signature`, `authorization`) is replaced, and the rendered
//! message is scrubbed of credentials that a library may print inside text
//! (`Authorization:` headers, presigned-URL signatures, SAS `sig=`, security
//! tokens, a service-account JSON's `private_key`, PEM blocks); see
//! [`render::scrub`].

pub mod layer;
pub mod queue;
pub mod render;
pub mod repeats;
pub mod targets;

use {
    krabka_remote_storage::{RemoteLogSegmentMetadata, kafka_uuid},
    queue::{Batch, LogQueue, Record},
    repeats::{Admission, CallSite, Repeats},
    std::{
        sync::{Arc, OnceLock},
        time::{Duration, Instant},
    },
    targets::{LogLevel, RateLimit, Targets},
    tracing_subscriber::layer::SubscriberExt,
};

/// Records the queue holds before it drops new ones.
pub const QUEUE_CAPACITY: usize = 4096;

/// The rate limit of each target: a burst of 200 records, then 100 a second.
pub const RATE_LIMIT: RateLimit = RateLimit {
    burst: 200,
    per_second: 100,
};

/// The longest message forwarded, in bytes; a longer one is cut and marked.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;

/// The target of the bridge's own reports (dropped records).
pub const OWN_TARGET: &str = "krabka_jni::logging";

/// The native half of the log bridge: the target table with its levels and
/// rate limits, and the bounded queue. One per process lives in [`global`]
/// once [`install`] ran; tests make their own.
#[derive(Debug)]
pub struct NativeLog {
    targets: Targets,
    queue: LogQueue,
    repeats: Repeats,
}

/// Counters of a [`NativeLog`], since it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogStats {
    /// Records pushed into the queue.
    pub queued: u64,
    /// Records dropped because the queue was full.
    pub dropped: u64,
    /// Records suppressed by the rate limit.
    pub suppressed: u64,
}

impl NativeLog {
    /// A bridge with a queue of `capacity` records and `limit` per target;
    /// every target starts at INFO until Java says otherwise.
    #[must_use]
    pub fn new(capacity: usize, limit: RateLimit) -> Self {
        Self::with_repeat_window(capacity, limit, repeats::REPEAT_WINDOW)
    }

    /// As [`NativeLog::new`], with windows of `window` for repeated WARNs
    /// and ERRORs ([`repeats`]).
    #[must_use]
    pub fn with_repeat_window(capacity: usize, limit: RateLimit, window: Duration) -> Self {
        Self {
            targets: Targets::new(LogLevel::Info, limit),
            queue: LogQueue::new(capacity),
            repeats: Repeats::new(window),
        }
    }

    /// As [`Self::submit`], for a record of kind `site`: one whose kind was
    /// forwarded less than a window ago is counted instead ([`repeats`]).
    /// The doors send WARNs, ERRORs and retry chatter here
    /// ([`repeats::applies`]).
    pub fn submit_at(
        &self,
        site: CallSite,
        target: &str,
        level: LogLevel,
        render: impl FnOnce(&mut String),
    ) {
        let entry = self.targets.get(target);
        if level == LogLevel::Off || level > entry.level() {
            return;
        }
        let before = match self
            .repeats
            .admit(site, entry.name_arc(), level, Instant::now())
        {
            Admission::Suppress => return,
            Admission::Forward(before) => before,
        };
        let window = self.repeats.window();
        let mut text = String::new();
        self.submit(target, level, |out| {
            render(out);
            if before > 0 {
                use std::fmt::Write;
                let _ = write!(
                    out,
                    " ({before} more like this in the {window:?} before were not logged)"
                );
            }
            text.clone_from(out);
        });
        if !text.is_empty() {
            // Kept for the report of its repeats, which bypasses `submit`:
            // scrubbed here like the record itself.
            self.repeats.forwarded(site, &render::scrub(&text));
        }
    }

    /// Whether a record of `level` for `target` would be forwarded (before
    /// the rate limit). A target not seen before enters the table here, so
    /// that Java learns it and can set its level.
    #[must_use]
    pub fn enabled(&self, target: &str, level: LogLevel) -> bool {
        let entry = self.targets.get(target);
        level != LogLevel::Off && level <= entry.level()
    }

    /// The most verbose level any target enables.
    #[must_use]
    pub fn max_level(&self) -> LogLevel {
        self.targets.max_level()
    }

    /// Renders and queues one record if `target` enables `level` and its
    /// rate limit allows it; `render` runs only then, and without any lock
    /// of the bridge held (it may log itself).
    pub fn submit(&self, target: &str, level: LogLevel, render: impl FnOnce(&mut String)) {
        let entry = self.targets.get(target);
        if level == LogLevel::Off || level > entry.level() || !entry.admit(Instant::now()) {
            return;
        }
        let mut message = String::new();
        render(&mut message);
        let message = render::finish(message, MAX_MESSAGE_BYTES);
        let target = if entry.name() == target {
            Arc::clone(entry.name_arc())
        } else {
            // A target beyond the table's capacity shares the overflow
            // entry's level and bucket, but keeps its own logger name.
            Arc::from(target)
        };
        self.queue.push(Record {
            level,
            target,
            message,
        });
    }

    /// Up to `max_records` records (and about [`queue::MAX_BATCH_BYTES`]),
    /// waiting at most `wait` for the first, preceded by the reports of
    /// dropped and suppressed records since the last drain.
    #[must_use]
    pub fn drain(&self, max_records: usize, wait: Duration) -> Batch {
        let mut records = Vec::new();
        let dropped = self.queue.take_dropped();
        if dropped > 0 {
            records.push(Record {
                level: LogLevel::Warn,
                target: Arc::from(OWN_TARGET),
                message: format!(
                    "{dropped} native log records were dropped: the queue of {} records was full",
                    self.queue.capacity()
                ),
            });
        }
        records.extend(self.repeats.take_ended(Instant::now()));
        for (target, suppressed) in self.targets.take_suppressed() {
            records.push(Record {
                level: LogLevel::Warn,
                target,
                message: format!(
                    "{suppressed} native log records of this logger were suppressed by the rate \
                     limit ({} at once, then {} a second)",
                    self.targets.limit().burst,
                    self.targets.limit().per_second
                ),
            });
        }
        let wait = if records.is_empty() {
            wait
        } else {
            Duration::ZERO
        };
        self.queue.take(&mut records, max_records, wait);
        Batch {
            targets_known: self.targets.len(),
            records,
        }
    }

    /// Every target from index `from` on, in table order.
    #[must_use]
    pub fn targets_from(&self, from: usize) -> Vec<Arc<str>> {
        self.targets.names_from(from)
    }

    /// Sets the level of targets not seen yet (`default`) and of the first
    /// `levels.len()` targets in table order; returns whether anything
    /// changed. Callers then call [`rebuild_interest`].
    pub fn set_levels(&self, default: LogLevel, levels: &[LogLevel]) -> bool {
        self.targets.set_levels(default, levels)
    }

    /// The counters.
    #[must_use]
    pub fn stats(&self) -> LogStats {
        LogStats {
            queued: self.queue.queued(),
            dropped: self.queue.dropped_total(),
            suppressed: self.targets.suppressed_total(),
        }
    }
}

/// Makes `tracing` and `log` consult the levels again after
/// [`NativeLog::set_levels`] changed them.
pub fn rebuild_interest(log: &NativeLog) {
    ::log::set_max_level(log.max_level().to_log());
    tracing::callsite::rebuild_interest_cache();
}

/// The span every native operation on a segment runs in, so that whatever
/// the tiers log inside it names the partition and the segment:
/// `segment{op=copy partition=orders-3 segment=<id> start_offset=1200}: …`.
/// At ERROR level, so it exists whenever any target logs at all.
#[must_use]
pub fn segment_span(operation: &'static str, metadata: &RemoteLogSegmentMetadata) -> tracing::Span {
    let partition = metadata.topic_id_partition();
    tracing::error_span!(
        "segment",
        op = operation,
        partition = %format_args!("{}-{}", partition.topic, partition.partition),
        segment = %kafka_uuid(metadata.remote_log_segment_id().id),
        start_offset = metadata.start_offset(),
    )
}

static GLOBAL: OnceLock<Arc<NativeLog>> = OnceLock::new();

/// The process's bridge, once [`install`] ran.
#[must_use]
pub fn global() -> Option<&'static Arc<NativeLog>> {
    GLOBAL.get()
}

/// Why [`install`] could not install the subscriber.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// Another `tracing` subscriber is the process's default already.
    #[error("another tracing subscriber is installed in this process")]
    Tracing(#[source] tracing::subscriber::SetGlobalDefaultError),
    /// Another `log` logger is installed already.
    #[error("another `log` logger is installed in this process")]
    Log(#[source] ::log::SetLoggerError),
}

/// Installs the process's bridge as the global `tracing` subscriber and
/// `log` logger, once; later calls return the same bridge.
///
/// # Errors
/// [`InstallError`] when another subscriber or logger was installed first
/// (the bridge is then still returned by [`global`] and drains what reaches
/// it).
pub fn install() -> Result<&'static Arc<NativeLog>, InstallError> {
    let mut fresh = false;
    let log = GLOBAL.get_or_init(|| {
        fresh = true;
        Arc::new(NativeLog::new(QUEUE_CAPACITY, RATE_LIMIT))
    });
    if fresh {
        let subscriber =
            tracing_subscriber::registry().with(layer::NativeLayer::new(Arc::clone(log)));
        tracing::subscriber::set_global_default(subscriber).map_err(InstallError::Tracing)?;
        ::log::set_logger(&layer::LogBridge).map_err(InstallError::Log)?;
        rebuild_interest(log);
    }
    Ok(log)
}

#[cfg(test)]
mod tests;
