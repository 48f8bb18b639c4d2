#!/usr/bin/env bash
# Unit, integration, property and doc tests of every crate.
set -euo pipefail
cargo test --workspace --locked
