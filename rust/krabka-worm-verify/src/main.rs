//! The `krabka-worm-verify` binary: [`krabka_worm_verify::run_std`] on the
//! process's arguments. See the library for the options and exit codes.

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(krabka_worm_verify::run_std(std::env::args_os().skip(1)))
}
