//! The targets the native side has logged to, each with the level Java
//! enabled for its logger and a rate limit.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, PoisonError, RwLock,
        atomic::{AtomicU8, AtomicU64, Ordering},
    },
    time::Instant,
};

/// The most targets the table keeps; later ones share one entry (their
/// records keep their own logger name).
pub const MAX_TARGETS: usize = 1024;

/// A log level as it crosses JNI: SLF4J's levels and OFF, as codes 0 to 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum LogLevel {
    /// Nothing is forwarded (code 0).
    Off = 0,
    /// `error` (code 1).
    Error = 1,
    /// `warn` (code 2).
    Warn = 2,
    /// `info` (code 3).
    Info = 3,
    /// `debug` (code 4).
    Debug = 4,
    /// `trace` (code 5).
    Trace = 5,
}

impl LogLevel {
    /// The level of a code; `None` outside 0 to 5.
    #[must_use]
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0 => Self::Off,
            1 => Self::Error,
            2 => Self::Warn,
            3 => Self::Info,
            4 => Self::Debug,
            5 => Self::Trace,
            _ => return None,
        })
    }

    /// The code that crosses JNI.
    #[must_use]
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The level of a `tracing` event or span.
    #[must_use]
    pub fn of_tracing(level: tracing::Level) -> Self {
        match level {
            tracing::Level::ERROR => Self::Error,
            tracing::Level::WARN => Self::Warn,
            tracing::Level::INFO => Self::Info,
            tracing::Level::DEBUG => Self::Debug,
            _ => Self::Trace,
        }
    }

    /// The level of a `log` record.
    #[must_use]
    pub fn of_log(level: log::Level) -> Self {
        match level {
            log::Level::Error => Self::Error,
            log::Level::Warn => Self::Warn,
            log::Level::Info => Self::Info,
            log::Level::Debug => Self::Debug,
            log::Level::Trace => Self::Trace,
        }
    }

    /// As `tracing`'s level filter.
    #[must_use]
    pub fn to_tracing(self) -> tracing::level_filters::LevelFilter {
        use tracing::level_filters::LevelFilter;
        match self {
            Self::Off => LevelFilter::OFF,
            Self::Error => LevelFilter::ERROR,
            Self::Warn => LevelFilter::WARN,
            Self::Info => LevelFilter::INFO,
            Self::Debug => LevelFilter::DEBUG,
            Self::Trace => LevelFilter::TRACE,
        }
    }

    /// As `log`'s level filter.
    #[must_use]
    pub fn to_log(self) -> log::LevelFilter {
        match self {
            Self::Off => log::LevelFilter::Off,
            Self::Error => log::LevelFilter::Error,
            Self::Warn => log::LevelFilter::Warn,
            Self::Info => log::LevelFilter::Info,
            Self::Debug => log::LevelFilter::Debug,
            Self::Trace => log::LevelFilter::Trace,
        }
    }
}

/// A token bucket's shape: `burst` records at once, refilled at
/// `per_second`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Records admitted at once after a quiet period.
    pub burst: u32,
    /// Records admitted per second in a flood.
    pub per_second: u32,
}

/// A token bucket.
#[derive(Debug)]
pub struct TokenBucket {
    limit: RateLimit,
    tokens: f64,
    last: Option<Instant>,
}

impl TokenBucket {
    /// A full bucket.
    #[must_use]
    pub fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            tokens: f64::from(limit.burst),
            last: None,
        }
    }

    /// Takes a token at `now`; `false` when none is left.
    pub fn take(&mut self, now: Instant) -> bool {
        if let Some(last) = self.last {
            let refill = now.saturating_duration_since(last).as_secs_f64()
                * f64::from(self.limit.per_second);
            self.tokens = (self.tokens + refill).min(f64::from(self.limit.burst));
        }
        self.last = Some(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// One target: its name, level and rate limit.
#[derive(Debug)]
pub struct Target {
    name: Arc<str>,
    level: AtomicU8,
    bucket: Mutex<TokenBucket>,
    suppressed: AtomicU64,
    suppressed_total: AtomicU64,
}

impl Target {
    fn new(name: Arc<str>, level: LogLevel, limit: RateLimit) -> Self {
        Self {
            name,
            level: AtomicU8::new(level.code()),
            bucket: Mutex::new(TokenBucket::new(limit)),
            suppressed: AtomicU64::new(0),
            suppressed_total: AtomicU64::new(0),
        }
    }

    /// The target (a Rust module path, or a `log` target).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The target, shared.
    #[must_use]
    pub fn name_arc(&self) -> &Arc<str> {
        &self.name
    }

    /// The most verbose level enabled.
    #[must_use]
    pub fn level(&self) -> LogLevel {
        LogLevel::from_code(self.level.load(Ordering::Relaxed)).unwrap_or(LogLevel::Off)
    }

    /// Takes a token of the rate limit at `now`, counting a refusal.
    pub fn admit(&self, now: Instant) -> bool {
        // The lock is held for the arithmetic only, never while formatting.
        let admitted = self
            .bucket
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(now);
        if !admitted {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            self.suppressed_total.fetch_add(1, Ordering::Relaxed);
        }
        admitted
    }
}

/// Targets the table knows from the start: the crates that log through
/// `log` rather than `tracing`. A `log` record is filtered by `log`'s global
/// maximum before the table sees its target, so Java must be able to enable
/// a level for such a crate before it has logged anything; a new target
/// then takes the level of its longest known `::` prefix.
pub const SEED_TARGETS: &[&str] = &["jni", "reqwest", "rustls", "object_store"];

/// The level of the longest target in `table` that is a `::` prefix of
/// `name`.
fn inherited_level(table: &Table, name: &str) -> Option<LogLevel> {
    let mut prefix = name;
    while let Some(cut) = prefix.rfind("::") {
        prefix = &prefix[..cut];
        if let Some(&i) = table.index.get(prefix) {
            return Some(table.list[i].level());
        }
    }
    None
}

#[derive(Debug, Default)]
struct Table {
    list: Vec<Arc<Target>>,
    index: HashMap<Arc<str>, usize>,
}

/// The table of targets.
#[derive(Debug)]
pub struct Targets {
    table: RwLock<Table>,
    default_level: AtomicU8,
    max_level: AtomicU8,
    limit: RateLimit,
    overflow: Arc<Target>,
}

impl Targets {
    /// A table of the [`SEED_TARGETS`], whose targets start at `default`.
    #[must_use]
    pub fn new(default: LogLevel, limit: RateLimit) -> Self {
        let mut table = Table::default();
        for (i, name) in SEED_TARGETS.iter().enumerate() {
            let name: Arc<str> = Arc::from(*name);
            table
                .list
                .push(Arc::new(Target::new(Arc::clone(&name), default, limit)));
            table.index.insert(name, i);
        }
        Self {
            table: RwLock::new(table),
            default_level: AtomicU8::new(default.code()),
            max_level: AtomicU8::new(default.code()),
            limit,
            overflow: Arc::new(Target::new(Arc::from("other"), default, limit)),
        }
    }

    /// The rate limit of every target.
    #[must_use]
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// The most verbose level of any target and of the default.
    #[must_use]
    pub fn max_level(&self) -> LogLevel {
        LogLevel::from_code(self.max_level.load(Ordering::Relaxed)).unwrap_or(LogLevel::Off)
    }

    fn default_level(&self) -> LogLevel {
        LogLevel::from_code(self.default_level.load(Ordering::Relaxed)).unwrap_or(LogLevel::Off)
    }

    /// The entry of `name`, added at the default level when new.
    #[must_use]
    pub fn get(&self, name: &str) -> Arc<Target> {
        {
            let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(&i) = table.index.get(name) {
                return Arc::clone(&table.list[i]);
            }
        }
        let mut table = self.table.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(&i) = table.index.get(name) {
            return Arc::clone(&table.list[i]);
        }
        if table.list.len() >= MAX_TARGETS {
            return Arc::clone(&self.overflow);
        }
        let level = inherited_level(&table, name).unwrap_or_else(|| self.default_level());
        let name: Arc<str> = Arc::from(name);
        let entry = Arc::new(Target::new(Arc::clone(&name), level, self.limit));
        let i = table.list.len();
        table.list.push(Arc::clone(&entry));
        table.index.insert(name, i);
        entry
    }

    /// How many targets the table holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .len()
    }

    /// Whether the table is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The targets from index `from` on.
    #[must_use]
    pub fn names_from(&self, from: usize) -> Vec<Arc<str>> {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        table
            .list
            .iter()
            .skip(from)
            .map(|entry| Arc::clone(&entry.name))
            .collect()
    }

    /// Sets the default and the first `levels.len()` targets' levels (extra
    /// levels are ignored); returns whether any level changed.
    pub fn set_levels(&self, default: LogLevel, levels: &[LogLevel]) -> bool {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        let mut changed =
            self.default_level.swap(default.code(), Ordering::Relaxed) != default.code();
        changed |= self.overflow.level.swap(default.code(), Ordering::Relaxed) != default.code();
        for (entry, level) in table.list.iter().zip(levels) {
            changed |= entry.level.swap(level.code(), Ordering::Relaxed) != level.code();
        }
        let max = table
            .list
            .iter()
            .map(|entry| entry.level())
            .fold(default, Ord::max);
        changed |= self.max_level.swap(max.code(), Ordering::Relaxed) != max.code();
        changed
    }

    /// The targets whose records were suppressed since the last call, with
    /// their counts (reset).
    #[must_use]
    pub fn take_suppressed(&self) -> Vec<(Arc<str>, u64)> {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        table
            .list
            .iter()
            .chain(std::iter::once(&self.overflow))
            .filter_map(|entry| {
                let n = entry.suppressed.swap(0, Ordering::Relaxed);
                (n > 0).then(|| (Arc::clone(&entry.name), n))
            })
            .collect()
    }

    /// Records suppressed by the rate limit since the table was made.
    #[must_use]
    pub fn suppressed_total(&self) -> u64 {
        let table = self.table.read().unwrap_or_else(PoisonError::into_inner);
        table
            .list
            .iter()
            .chain(std::iter::once(&self.overflow))
            .map(|entry| entry.suppressed_total.load(Ordering::Relaxed))
            .sum()
    }
}
