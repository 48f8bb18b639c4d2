#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a short time (FUZZ_SECONDS each, default 10; FUZZ_JOBS at once,
# default 2), seeded with
# the Kafka-written fixtures of tests/fixtures/kafka/. Needs the nightly toolchain; installs
# cargo-fuzz from crates.io when it is missing. A crash fails the script and leaves the input under
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-10}"

if ! cargo +nightly --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal \
    || { echo "fuzz-smoke: the nightly toolchain is required (rustup toolchain install nightly)"; exit 1; }
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fixtures=tests/fixtures/kafka
seed() { # seed TARGET SUFFIX: copy every fixture file ending in SUFFIX into the target's seeds
  mkdir -p "$work/corpus/$1" "$work/seeds/$1"
  find "$fixtures" -type f -name "*$2" -exec cp --backup=numbered -t "$work/seeds/$1" {} +
}
seed offset_index .index
seed time_index .timeindex
seed txn_index .txnindex
seed batch_scan .log

# The decoders are `forbid(unsafe_code)`, so AddressSanitizer has nothing of ours to watch; the smoke
# run builds without it (much faster) and still fails on any panic, overflow or timeout.
# FUZZ_SANITIZER=address restores the full instrumentation for long runs.
sanitizer="${FUZZ_SANITIZER:-none}"
# cargo fuzz has no --locked: this resolution fails first when fuzz/Cargo.lock is stale, so the build
# below never rewrites the committed lock file (the test command leaves the work tree clean).
if ! cargo +nightly metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null; then
  echo "fuzz-smoke: fuzz/Cargo.lock is stale; refresh it with" \
    "'cargo +nightly update --workspace --manifest-path fuzz/Cargo.toml' and commit it"
  exit 1
fi
cargo +nightly fuzz build --fuzz-dir fuzz --sanitizer "$sanitizer"
# fuzz_one TARGET: runs one target for the given time; its summary (or, on a crash, its log) on stdout.
fuzz_one() {
  local target="$1" log="$work/$1.log" status=0
  mkdir -p "$work/corpus/$target" "$work/seeds/$target"
  # New inputs go to the first (scratch) corpus; the seeds stay untouched.
  cargo +nightly fuzz run --fuzz-dir fuzz --sanitizer "$sanitizer" "$target" "$work/corpus/$target" "$work/seeds/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1 || status=$?
  if (( status != 0 )); then
    tail -n 80 "$log"
    echo "fuzz-smoke: $target FAILED (exit $status); the input is under fuzz/artifacts/$target/"
    return "$status"
  fi
  echo "fuzz-smoke: $target for ${seconds}s"
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
}
# Each libFuzzer run is one process on one core: FUZZ_JOBS (default 2) targets run at once.
jobs="${FUZZ_JOBS:-2}"
mapfile -t targets < <(cargo +nightly fuzz list --fuzz-dir fuzz)
for (( i = 0; i < ${#targets[@]}; i += jobs )); do
  batch=("${targets[@]:i:jobs}") pids=()
  for target in "${batch[@]}"; do
    fuzz_one "$target" >"$work/$target.summary" 2>&1 &
    pids+=($!)
  done
  failed=0
  for j in "${!pids[@]}"; do
    status=0; wait "${pids[$j]}" || status=$?
    cat "$work/${batch[$j]}.summary"
    (( status == 0 )) || failed=$status
  done
  (( failed == 0 )) || exit "$failed"
done
echo "fuzz-smoke: all targets ran ${seconds}s without a crash"
