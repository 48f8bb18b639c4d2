#!/usr/bin/env bash
# The whole test suite: installs what it needs on a fresh machine, then runs every stage in
# scripts/test.d/ in name order. Each stage is an executable script run from the repository root
# that exits non-zero on failure. KRABKA_TEST_ONLY=<glob> runs a subset (e.g. KRABKA_TEST_ONLY='1*').
# In a git checkout it fails, naming the files, when the stages created or changed files in the work tree.
set -euo pipefail
cd "$(dirname "$0")/.."
only="${KRABKA_TEST_ONLY:-*}"
# The suite builds dozens of test binaries that each link the whole dependency tree. Incremental
# caches and full debug info made that 20 GB, and a CI disk filled up in stage 20: build without
# incremental caches, with line tables only (backtraces keep file and line). Every stage (the Java
# stage's cargo build too) inherits these, so no stage rebuilds what another built.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
export CARGO_PROFILE_TEST_DEBUG="${CARGO_PROFILE_TEST_DEBUG:-line-tables-only}"
# free_disk: the space left where the build writes, for the log (a full disk fails builds obscurely).
free_disk() { df -h --output=avail . 2>/dev/null | tail -1 | tr -d ' '; }
started=$(date +%s)
failed=()

# work_tree_state: the changed and untracked files of the checkout, one a line: git's status line and the
# hash of the file's content. The test run must leave it as it found it: on a clean checkout (CI), clean.
work_tree_state() {
  local line path
  git status --porcelain --untracked-files=all | while IFS= read -r line; do
    path=${line:3}
    path=${path##* -> }
    echo "$line $(git hash-object -- "$path" 2>/dev/null || echo absent)"
  done | sort
}
in_checkout=
if [[ "$(git rev-parse --show-toplevel 2>/dev/null)" == "$(pwd -P)" ]]; then
  in_checkout=yes
  tree_before=$(work_tree_state)
fi
for stage in scripts/test.d/*.sh; do
  name=$(basename "$stage")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  echo "=== stage $name (disk free: $(free_disk))"
  stage_started=$(date +%s)
  if "$stage"; then
    echo "=== stage $name passed in $(( $(date +%s) - stage_started ))s"
  else
    echo "=== stage $name FAILED after $(( $(date +%s) - stage_started ))s"
    failed+=("$name")
    [[ -n "${KRABKA_KEEP_GOING:-}" ]] || break
  fi
done
if [[ -n $in_checkout ]]; then
  dirtied=$(comm -13 <(echo "$tree_before") <(work_tree_state) | sed '/^$/d')
  if [[ -n $dirtied ]]; then
    echo "=== the test run changed the work tree (git status --porcelain, content hash):"
    echo "$dirtied"
    failed+=("clean work tree")
  fi
fi
echo "=== total $(( $(date +%s) - started ))s (disk free: $(free_disk))"
if (( ${#failed[@]} )); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
echo "all stages passed"
