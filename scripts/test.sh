#!/usr/bin/env bash
# The whole test suite: installs what it needs on a fresh machine, then runs every stage in
# scripts/test.d/ in name order. Each stage is an executable script run from the repository root
# that exits non-zero on failure. KRABKA_TEST_ONLY=<glob> runs a subset (e.g. KRABKA_TEST_ONLY='1*').
# In a git checkout it fails, naming the files, when the stages created or changed files in the work tree.
set -euo pipefail
cd "$(dirname "$0")/.."
only="${KRABKA_TEST_ONLY:-*}"
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
if [[ -n $in_checkout ]]; then
  dirtied=$(comm -13 <(echo "$tree_before") <(work_tree_state) | sed '/^$/d')
  if [[ -n $dirtied ]]; then
    echo "=== the test run changed the work tree (git status --porcelain, content hash):"
    echo "$dirtied"
    failed+=("clean work tree")
  fi
fi
echo "=== total $(( $(date +%s) - started ))s"
if (( ${#failed[@]} )); then
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
echo "all stages passed"
