#!/usr/bin/env bash
# Formatting, clippy with warnings as errors, and rustdoc without warnings.
set -euo pipefail
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The test-only panic-injection build of the JNI crate (its own jar) is linted too.
cargo clippy -p krabka-jni --all-targets --locked --features panic-injection -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
