#!/usr/bin/env bash
# Rust toolchain components the later stages use.
set -euo pipefail
command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
cargo --version
