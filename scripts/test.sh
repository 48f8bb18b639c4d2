#!/usr/bin/env bash
# The whole test suite: installs what it needs on a fresh machine, then runs every stage in
# scripts/test.d/ in name order. Each stage is an executable script run from the repository root
# that exits non-zero on failure. KRABKA_TEST_ONLY=<glob> runs a subset (e.g. KRABKA_TEST_ONLY='1*').
set -euo pipefail
cd "$(dirname "$0")/.."
only="${KRABKA_TEST_ONLY:-*}"
started=$(date +%s)
failed=()
for stage in scripts/test.d/*.sh; do
  name=$(basename "$stage")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  echo "=== stage $name"
  stage_started=$(date +%s)
  if "$stage"; then
    echo "=== stage $name passed in $(( $(date +%s) - stage_started ))s"
  else
    echo "=== stage $name FAILED after $(( $(date +%s) - stage_started ))s"
    failed+=("$name")
    [[ -n "${KRABKA_KEEP_GOING:-}" ]] || break
  fi
done
echo "=== total $(( $(date +%s) - started ))s"
if (( ${#failed[@]} )); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
echo "all stages passed"
