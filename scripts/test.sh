#!/usr/bin/env bash
# The whole test suite: installs what it needs on a fresh machine, then runs every stage in
# scripts/test.d/ in name order. Each stage is an executable script run from the repository root
# that exits non-zero on failure. KRABKA_TEST_ONLY=<glob> runs a subset (e.g. KRABKA_TEST_ONLY='1*').
# In a git checkout it fails, naming the files, when the stages created or changed files in the work tree.
#
# The stages in KRABKA_TEST_BESIDE (default: the object-store, archive, report and interop stages) run one
# after the other beside the broker end-to-end stage (70): they build nothing (stage 20 built their test
# binaries) and mostly wait on their servers (30-55% of the CPUs busy alone), so they fill what stage 70
# leaves idle. Their output is kept in build/test-stages/ and printed whole when stage 70 has ended (without
# stage 70 selected, they run at the end). KRABKA_TEST_BESIDE= (empty) runs every stage alone in name order.
# Each stage's last line tells its time and how busy the machine's CPUs were meanwhile.
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
# cpu_ticks: busy and total CPU ticks of the machine so far (/proc/stat), "busy total".
cpu_ticks() { awk '/^cpu /{ idle = $5 + $6; total = 0; for (i = 2; i <= NF; i++) total += $i; print total - idle, total; exit }' /proc/stat; }
# busy_since "busy total": the percentage of CPU time busy since then.
busy_since() {
  local then now
  read -r -a then <<<"$1"
  read -r -a now <<<"$(cpu_ticks)"
  echo $(( (now[0] - then[0]) * 100 / (now[1] - then[1] > 0 ? now[1] - then[1] : 1) ))
}
# run_stage NAME: runs one stage; prints its start and end lines; its exit status.
run_stage() {
  local name=$1 began ticks status=0
  echo "=== stage $name (disk free: $(free_disk))"
  began=$(date +%s) ticks=$(cpu_ticks)
  "scripts/test.d/$name" || status=$?
  if (( status == 0 )); then
    echo "=== stage $name passed in $(( $(date +%s) - began ))s (CPU $(busy_since "$ticks")% busy)"
  else
    echo "=== stage $name FAILED after $(( $(date +%s) - began ))s (CPU $(busy_since "$ticks")% busy)"
  fi
  return "$status"
}

beside_of=70-kafka-e2e.sh
beside=" ${KRABKA_TEST_BESIDE-50-object-store.sh 55-worm.sh 57-report.sh 71-kafka-interop.sh} "
main_stages=() side_stages=()
for stage in scripts/test.d/*.sh; do
  name=$(basename "$stage")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  if [[ $beside == *" $name "* ]]; then side_stages+=("$name"); else main_stages+=("$name"); fi
done
side_out=build/test-stages
side_pid=
# start_side: runs the side stages one after the other in the background, each into its own file.
start_side() {
  (( ${#side_stages[@]} > 0 )) || return 0
  rm -rf "$side_out"; mkdir -p "$side_out"
  echo "=== beside: ${side_stages[*]} (their output follows when all of them are done${started_side:+ and $beside_of has ended})"
  (
    for name in "${side_stages[@]}"; do
      status=0
      run_stage "$name" >"$side_out/$name.out" 2>&1 </dev/null || status=$?
      echo "$status" >"$side_out/$name.status"
      (( status == 0 )) || [[ -n "${KRABKA_KEEP_GOING:-}" ]] || break
    done
  ) &
  side_pid=$!
}
# finish_side: waits for the side stages, prints their output and counts their failures.
finish_side() {
  [[ -n $side_pid ]] || return 0
  wait "$side_pid" || true
  side_pid=
  local name
  for name in "${side_stages[@]}"; do
    [[ -f $side_out/$name.out ]] || continue
    cat "$side_out/$name.out"
    [[ $(cat "$side_out/$name.status" 2>/dev/null) == 0 ]] || failed+=("$name")
  done
}
# Interrupted: the side stage running is stopped with its track (its own traps stop its servers).
stop_side() {
  [[ -n $side_pid ]] || return 0
  pkill -TERM -P "$side_pid" 2>/dev/null || true
  kill "$side_pid" 2>/dev/null || true
}
trap stop_side EXIT

# Each main stage's output is also kept in build/test-logs/, so a failed stage's end can be shown again last
# (a CI that keeps only the head and tail of a long run still shows why it failed).
main_out=build/test-logs
rm -rf "$main_out"; mkdir -p "$main_out"
started_side=
for name in ${main_stages[@]+"${main_stages[@]}"}; do
  if [[ $name == "$beside_of" ]]; then started_side=yes; start_side; fi
  set +e
  run_stage "$name" 2>&1 | tee "$main_out/$name.out"
  status=${PIPESTATUS[0]}
  set -e
  if (( status != 0 )); then
    failed+=("$name")
    [[ -n "${KRABKA_KEEP_GOING:-}" ]] || break
  fi
  if [[ $name == "$beside_of" ]]; then finish_side; fi
done
# Without stage 70 selected, the side stages run here (unless a stage failed and KRABKA_KEEP_GOING is unset).
if [[ -z $started_side ]] && { (( ${#failed[@]} == 0 )) || [[ -n "${KRABKA_KEEP_GOING:-}" ]]; }; then
  start_side
fi
finish_side
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
  for name in "${failed[@]}"; do
    out=$main_out/$name.out
    [[ -f $out ]] || out=$side_out/$name.out
    [[ -f $out ]] || continue
    echo "=== the last 100 lines of stage $name (all of it above, and in $out)"
    tail -n 100 "$out"
  done
  echo "FAILED stages: ${failed[*]}"
  exit 1
fi
echo "all stages passed"
