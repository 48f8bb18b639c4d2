#!/usr/bin/env bash
# Short fuzzing of every decoder target (scripts/fuzz-smoke.sh, FUZZ_SECONDS each).
set -euo pipefail
exec "$(dirname "$0")/../fuzz-smoke.sh"
