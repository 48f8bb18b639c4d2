#!/usr/bin/env bash
# Formatting, clippy with warnings as errors, and rustdoc without warnings.
set -euo pipefail
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
