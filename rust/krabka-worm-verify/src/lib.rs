//! `krabka-worm-verify`: audits a Krabka write-once archive.
//!
//! Argument parsing and printing only; the checks are
//! [`krabka_worm::verify_archive_config_observed`]. The command
//! line is a library so that every way of starting it runs the same code:
//! the `krabka-worm-verify` binary and the verifier jar
//! (`java -jar krabka-worm-verify.jar …`, whose native method in
//! `rust/krabka-jni` calls [`run_std`]) take the same arguments, print the
//! same output and exit with the same codes.
//!
//! Exit codes ([`exit`]): 0 verified, 1 evidence of tampering, 2 incomplete
//! attestation (unsigned or untrusted manifests, unknown format version,
//! `--expect-head` with several partitions in scope), 3 the archive could
//! not be read (or the report could not be written, or the verifier failed
//! inside), 64 usage error. The report goes to stdout as the human
//! [`summary`] or, with `--json`, as JSON; errors go to stderr with their
//! cause chain.
//!
//! `--report FILE.html` also writes the audit report for people ([`html`]).
//!
//! `--deep` prints progress lines on stderr when `--progress` says so
//! (`auto`, the default: when stderr is a terminal); stdout carries only the
//! report.

#![forbid(unsafe_code)]

mod chunks;
mod cli;
pub mod exit;
pub mod html;
mod progress;
mod summary;

pub use {exit::exit_code, summary::summary};

use std::{
    ffi::OsString,
    fmt,
    io::{IsTerminal, Write},
    panic::{AssertUnwindSafe, catch_unwind},
};

/// Where the verifier writes: the report to `out`, errors and progress to
/// `err`.
pub struct Console<'a> {
    /// The report (summary or JSON).
    pub out: &'a mut dyn Write,
    /// Usage errors, read errors and progress lines.
    pub err: &'a mut (dyn Write + Send),
    /// Whether `err` is a terminal (`--progress auto` prints only then).
    pub err_is_terminal: bool,
}

impl fmt::Debug for Console<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Console")
            .field("err_is_terminal", &self.err_is_terminal)
            .finish_non_exhaustive()
    }
}

/// Runs the verifier on `args` (the arguments after the program name) and
/// returns its exit code.
///
/// Never panics: a panic inside is reported on `console.err` as an internal
/// error and yields [`exit::UNREADABLE`].
pub fn run<I, T>(args: I, console: &mut Console<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    match catch_unwind(AssertUnwindSafe(|| cli::execute(args, console))) {
        Ok(code) => code,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            let _ = writeln!(console.err, "{}: internal error: {message}", cli::NAME);
            let _ = console.err.flush();
            exit::UNREADABLE
        }
    }
}

/// [`run`] on the process's standard output and standard error (file
/// descriptors 1 and 2), flushed before it returns.
pub fn run_std<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut err = std::io::stderr();
    let err_is_terminal = err.is_terminal();
    let code = run(
        args,
        &mut Console {
            out: &mut out,
            err: &mut err,
            err_is_terminal,
        },
    );
    let _ = out.flush();
    let _ = err.flush();
    code
}
