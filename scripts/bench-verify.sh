#!/usr/bin/env bash
# Deep verification against the machine's hashing speed, on a local directory store: a WORM archive
# of KRABKA_BENCH_SEGMENTS segments of KRABKA_BENCH_MIB MiB is written once (examples/worm_bench.rs,
# `local archive`), then each round runs, in alternating order, `local sha256` (every archived file
# hashed with SHA-256 on one thread in 1 MiB reads: the single-core baseline over the same bytes)
# and `local verify` (a deep verification of the archive, as `krabka-worm-verify --deep`). Prints
# the rounds and a Markdown table: median throughput of each, and verify / (baseline x cores used),
# the issue's figure "per core it uses" (target >= 0.8). It also prints the same figure by CPU time:
# bytes verified per CPU second used / bytes hashed per CPU second by the baseline. On a virtual machine
# whose hypervisor steals CPU time (see `stolen`), a second thread loses more of its wall-clock time than
# a single-threaded baseline; the CPU-time figure is free of that, the wall-clock one is not.
#
#   KRABKA_BENCH_MIB=256       segment size in MiB
#   KRABKA_BENCH_SEGMENTS=8    segments in the archive
#   KRABKA_BENCH_ROUNDS=5      rounds
#
# Not part of the test command: run it by hand (it needs about segments x size of free disk).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/bench.sh
source scripts/lib/bench.sh

mib=${KRABKA_BENCH_MIB:-256}
segments=${KRABKA_BENCH_SEGMENTS:-8}
rounds=${KRABKA_BENCH_ROUNDS:-5}
for value in "$mib" "$segments" "$rounds"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || {
    echo "KRABKA_BENCH_MIB, KRABKA_BENCH_SEGMENTS and KRABKA_BENCH_ROUNDS must be positive integers" >&2
    exit 64
  }
done
cargo build --release --locked -q -p krabka-remote-storage --example worm_bench
bench=target/release/examples/worm_bench
work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-verify-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bench" local archive "$mib" "$segments" "$work" > /dev/null

echo
echo "archive: $segments segments of $mib MiB (local directory), $rounds rounds, $(nproc) cores"
echo "load at start: $(uptime)"
echo
echo "| round | order | SHA-256, 1 thread | deep verify | cores | verify / (SHA-256 x cores) | by CPU time | stolen |"
echo "|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then order="sha256 verify"; else order="verify sha256"; fi
  read -r _ stolen_before all_before < <(machine_ticks)
  for step in $order; do
    line=$("$bench" local "$step" "$work")
    case $step in
      sha256)
        sha=$(field mb_per_s <<< "$line")
        sha_cpu=$(awk -v b="$(field bytes <<< "$line")" -v c="$(field cpu_seconds <<< "$line")" 'BEGIN { print b / c }')
        ;;
      verify)
        verify=$(field mb_per_s <<< "$line"); cores=$(field cores <<< "$line")
        verify_cpu=$(awk -v b="$(field bytes <<< "$line")" -v c="$(field cpu_seconds <<< "$line")" 'BEGIN { print b / c }')
        ;;
    esac
  done
  read -r _ stolen all < <(machine_ticks)
  stolen=$(percent $(( stolen - stolen_before )) $(( all - all_before )))
  by_cpu=$(awk -v v="$verify_cpu" -v s="$sha_cpu" 'BEGIN { printf "%.3f", v / s }')
  echo "$by_cpu" >> "$work/by_cpu"
  used=$(( cores < 8 ? cores : 8 ))
  (( used >= 2 )) || used=1
  ratio=$(awk -v v="$verify" -v s="$sha" -v c="$used" 'BEGIN { printf "%.3f", v / (s * c) }')
  echo "$sha" >> "$work/sha"
  echo "$verify" >> "$work/verify"
  echo "$ratio" >> "$work/ratio"
  printf '| %s | %s | %.0f MB/s | %.0f MB/s | %s | %s | %s | %s %% |\n' "$round" "${order/ /, }" "$sha" "$verify" \
    "$used" "$ratio" "$by_cpu" "$stolen"
done
echo
echo "load at end: $(uptime)"
echo
echo "| median of $rounds rounds | SHA-256, 1 thread | deep verify | verify / (SHA-256 x cores) | by CPU time |"
echo "|---|---|---|---|---|"
printf '| %s segments x %s MiB | %.0f MB/s | %.0f MB/s | %s (target >= 0.8) | %s |\n' "$segments" "$mib" \
  "$(median "$work/sha")" "$(median "$work/verify")" "$(median "$work/ratio")" "$(median "$work/by_cpu")"
