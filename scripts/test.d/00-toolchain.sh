#!/usr/bin/env bash
# Rust toolchain components the later stages use.
set -euo pipefail
command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
# The list is read whole, then searched: under pipefail, grep -q stopping at its first match can kill
# rustup with SIGPIPE and make the pipeline fail although the component is there.
installed=$(rustup component list --installed 2>/dev/null || true)
grep -q '^rustfmt' <<<"$installed" || rustup component add rustfmt
grep -q '^clippy' <<<"$installed" || rustup component add clippy
cargo --version
