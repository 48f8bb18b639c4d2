//! Progress lines of `--deep` on stderr, at most one a second plus a final
//! one:
//!
//! ```text
//! deep verify: 1.2 GiB of 5.0 GiB, 34/120 objects, 180 MB/s
//! deep verify: 5.0 GiB of 5.0 GiB, 120/120 objects, 175 MB/s, done
//! ```

use {
    krabka_worm::{DeepProgress, VerifyObserver},
    std::{
        io::Write,
        sync::Mutex,
        time::{Duration, Instant},
    },
};

/// The least time between two progress lines (the final line is always
/// printed).
pub(crate) const INTERVAL: Duration = Duration::from_secs(1);

/// A [`VerifyObserver`] printing rate-limited progress lines to a writer.
pub(crate) struct ProgressPrinter<'a> {
    state: Mutex<State<'a>>,
}

struct State<'a> {
    err: &'a mut (dyn Write + Send),
    started: Instant,
    last: Instant,
}

impl<'a> ProgressPrinter<'a> {
    /// Prints to `err`; the rate is measured from now.
    pub(crate) fn new(err: &'a mut (dyn Write + Send)) -> Self {
        let now = Instant::now();
        Self {
            state: Mutex::new(State {
                err,
                started: now,
                last: now,
            }),
        }
    }
}

impl VerifyObserver for ProgressPrinter<'_> {
    fn deep_progress(&self, progress: &DeepProgress) {
        // A poisoned lock means an earlier line panicked half-way: print no more.
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = Instant::now();
        if !due(progress, state.last, now) {
            return;
        }
        state.last = now;
        let text = line(progress, now.saturating_duration_since(state.started));
        // Progress is best effort: a closed stderr does not stop the audit.
        let _ = writeln!(state.err, "{text}");
        let _ = state.err.flush();
    }
}

/// Whether a line is due at `now` when the last one was at `last`.
pub(crate) fn due(progress: &DeepProgress, last: Instant, now: Instant) -> bool {
    progress.finished || now.saturating_duration_since(last) >= INTERVAL
}

/// One progress line, `elapsed` after the start.
pub(crate) fn line(progress: &DeepProgress, elapsed: Duration) -> String {
    let mut text = format!(
        "deep verify: {} of {}, {}/{} objects, {}",
        size(progress.bytes_hashed),
        size(progress.bytes_total),
        progress.objects_done,
        progress.objects_total,
        rate(progress.bytes_hashed, elapsed),
    );
    if progress.finished {
        text.push_str(", done");
    }
    text
}

/// `bytes` in binary units with one decimal (`512 B`, `1.5 KiB`, `5.0 GiB`).
pub(crate) fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    #[allow(clippy::cast_precision_loss)] // a display value
    let mut value = bytes as f64 / 1024.0;
    let mut unit = UNITS[0];
    for next in &UNITS[1..] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    format!("{value:.1} {unit}")
}

/// The hashing rate in decimal megabytes a second.
pub(crate) fn rate(bytes: u64, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    if seconds <= 0.0 {
        return "- MB/s".to_owned();
    }
    #[allow(clippy::cast_precision_loss)] // a display value
    let mb = bytes as f64 / seconds / 1e6;
    if mb < 10.0 {
        format!("{mb:.1} MB/s")
    } else {
        format!("{mb:.0} MB/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(hashed: u64, total: u64, done: u64, objects: u64, finished: bool) -> DeepProgress {
        let mut progress = DeepProgress::default();
        progress.bytes_hashed = hashed;
        progress.bytes_total = total;
        progress.objects_done = done;
        progress.objects_total = objects;
        progress.finished = finished;
        progress
    }

    #[test]
    fn sizes_use_binary_units() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(5 << 30), "5.0 GiB");
        assert_eq!(size(1_288_490_189), "1.2 GiB");
        assert_eq!(size(u64::MAX), "16384.0 PiB");
    }

    #[test]
    fn rates_are_decimal_megabytes() {
        assert_eq!(rate(180_000_000, Duration::from_secs(1)), "180 MB/s");
        assert_eq!(rate(2_500_000, Duration::from_secs(1)), "2.5 MB/s");
        assert_eq!(rate(10, Duration::ZERO), "- MB/s");
    }

    #[test]
    fn a_line_names_bytes_objects_and_rate() {
        let p = progress(1_288_490_189, 5 << 30, 34, 120, false);
        assert_eq!(
            line(&p, Duration::from_secs(7)),
            "deep verify: 1.2 GiB of 5.0 GiB, 34/120 objects, 184 MB/s"
        );
        let p = progress(5 << 30, 5 << 30, 120, 120, true);
        assert!(line(&p, Duration::from_secs(30)).ends_with(", done"));
    }

    #[test]
    fn lines_are_rate_limited_but_the_final_one_is_not() {
        let start = Instant::now();
        let running = progress(1, 2, 0, 1, false);
        assert!(!due(&running, start, start));
        assert!(!due(&running, start, start + Duration::from_millis(999)));
        assert!(due(&running, start, start + INTERVAL));
        let finished = progress(2, 2, 1, 1, true);
        assert!(due(&finished, start, start));
    }

    #[test]
    fn the_printer_writes_the_final_line_at_once() {
        let mut out: Vec<u8> = Vec::new();
        {
            let printer = ProgressPrinter::new(&mut out);
            printer.deep_progress(&progress(0, 10, 0, 1, false));
            printer.deep_progress(&progress(10, 10, 1, 1, true));
        }
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("deep verify: 10 B of 10 B, 1/1 objects, "),
            "{text}"
        );
        assert!(text.ends_with(", done\n"), "{text}");
    }
}
