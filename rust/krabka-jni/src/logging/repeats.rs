//! One record per kind (call site and message) and window, for WARNs,
//! ERRORs and retry chatter.
//!
//! A failure that repeats (an object store down for half a minute, retried
//! every few hundred milliseconds by every copy and read) would otherwise
//! write the same WARN hundreds of times into the broker's log. A record of
//! a kind is forwarded, then further records of the same kind are counted,
//! not rendered, until [`REPEAT_WINDOW`] has passed since the one forwarded;
//! when the window ends, the next drain reports how many there were, with
//! the first one's text, and the next record of that kind is forwarded
//! again. A failure kind is therefore logged once a window, however often
//! it is retried. Which records go through here is the caller's choice
//! ([`super::NativeLog::submit_at`]): WARNs and ERRORs, and every record of
//! [`RETRY_TARGETS`].

use {
    super::{queue::Record, targets::LogLevel},
    std::{
        collections::HashMap,
        hash::{DefaultHasher, Hash, Hasher},
        sync::{Arc, Mutex, PoisonError},
        time::{Duration, Instant},
    },
};

/// How long the repeats of a forwarded WARN or ERROR are counted instead
/// of forwarded.
pub const REPEAT_WINDOW: Duration = Duration::from_secs(60);

/// Targets that log each retry of a request (object_store's retry loop
/// writes an INFO line per attempt, its numbers in the message): their
/// records are one kind a call site, at every level.
pub const RETRY_TARGETS: &[&str] = &["object_store::client::retry"];

/// Whether records of `level` for `target` are counted by kind: WARN and
/// ERROR, and everything of the [`RETRY_TARGETS`].
#[must_use]
pub fn applies(target: &str, level: LogLevel) -> bool {
    matches!(level, LogLevel::Warn | LogLevel::Error) || is_retry_target(target)
}

/// Whether `target` is one of the [`RETRY_TARGETS`].
#[must_use]
pub fn is_retry_target(target: &str) -> bool {
    RETRY_TARGETS.contains(&target)
}

/// Call sites tracked at most; a call site beyond them is never suppressed.
pub const MAX_SITES: usize = 4096;

/// The text of the first record kept for the report, in bytes at most.
const FIRST_TEXT_BYTES: usize = 300;

/// A kind of record: a hash of where it was written and, for a `tracing`
/// event, its message without its fields (a retry loop's WARN differs in
/// its `attempt` and `error` fields only; one call site that logs what it is
/// given logs as many kinds as it is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallSite(u64);

impl CallSite {
    /// The kind of a record written at `file:line` of `module` for `target`,
    /// with `message` (the fields apart) when there is one.
    #[must_use]
    pub fn new(
        target: &str,
        module: Option<&str>,
        file: Option<&str>,
        line: Option<u32>,
        message: Option<&str>,
    ) -> Self {
        let mut hasher = DefaultHasher::new();
        (target, module, file, line, message).hash(&mut hasher);
        Self(hasher.finish())
    }
}

/// What to do with a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Forward it; the number is how many records of its call site were
    /// suppressed in a window that ended before a drain reported them (the
    /// record then says so).
    Forward(u64),
    /// Count it: its call site logged less than a window ago.
    Suppress,
}

/// A tracked call site: its open window and what it suppressed in it.
#[derive(Debug)]
struct Site {
    opened: Instant,
    suppressed: u64,
    level: LogLevel,
    target: Arc<str>,
    first: String,
}

/// The windows of the call sites that logged a WARN or ERROR.
#[derive(Debug)]
pub struct Repeats {
    window: Duration,
    sites: Mutex<HashMap<CallSite, Site>>,
}

impl Repeats {
    /// Windows of `window`.
    #[must_use]
    pub fn new(window: Duration) -> Self {
        Self {
            window,
            sites: Mutex::new(HashMap::new()),
        }
    }

    /// The window length.
    #[must_use]
    pub fn window(&self) -> Duration {
        self.window
    }

    /// Whether a record of `level` and kind `site` for `target` is forwarded
    /// at `now`. A forwarded record opens its kind's window: pass its text to
    /// [`Self::forwarded`].
    pub fn admit(
        &self,
        site: CallSite,
        target: &Arc<str>,
        level: LogLevel,
        now: Instant,
    ) -> Admission {
        let mut sites = self.sites.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = sites.get_mut(&site) {
            if now.duration_since(open.opened) < self.window {
                open.suppressed += 1;
                return Admission::Suppress;
            }
            // The window ended; a drain reports its repeats, unless this
            // record comes first and carries them.
            open.opened = now;
            open.first.clear();
            return Admission::Forward(std::mem::take(&mut open.suppressed));
        }
        if sites.len() >= MAX_SITES {
            sites.retain(|_, open| {
                open.suppressed > 0 || now.duration_since(open.opened) < self.window
            });
            if sites.len() >= MAX_SITES {
                return Admission::Forward(0);
            }
        }
        sites.insert(
            site,
            Site {
                opened: now,
                suppressed: 0,
                level,
                target: Arc::clone(target),
                first: String::new(),
            },
        );
        Admission::Forward(0)
    }

    /// Keeps (the start of) the text of the record that opened `site`'s
    /// window, for the report of its repeats.
    pub fn forwarded(&self, site: CallSite, message: &str) {
        let mut sites = self.sites.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = sites.get_mut(&site) {
            if open.first.is_empty() {
                open.first = cut(message, FIRST_TEXT_BYTES).to_owned();
            }
        }
    }

    /// A report for each call site whose window ended at `now` with records
    /// suppressed in it, at the call site's level and under its target; the
    /// counts start again from zero.
    pub fn take_ended(&self, now: Instant) -> Vec<Record> {
        let mut sites = self.sites.lock().unwrap_or_else(PoisonError::into_inner);
        let window = self.window;
        let mut reports = Vec::new();
        for open in sites.values_mut() {
            if open.suppressed == 0 || now.duration_since(open.opened) < window {
                continue;
            }
            reports.push(Record {
                level: open.level,
                target: Arc::clone(&open.target),
                message: format!(
                    "{} more like this in the {window:?} after it were not logged (one a kind and {window:?}): {}",
                    std::mem::take(&mut open.suppressed),
                    open.first
                ),
            });
        }
        reports
    }
}

/// `text` cut to at most `max` bytes at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
