#!/usr/bin/env bash
# What the archive log costs (examples/worm_log_bench.rs), each figure a ratio to its baseline measured
# in the same run, rounds alternating which goes first:
#   copy:   WORM copies to a SeaweedFS Object Lock bucket (COMPLIANCE, 1 day) with the archive log kept
#           (a checkpoint at most every second) against without it; one process per side and round
#           copies KRABKA_BENCH_SEGMENTS segments of KRABKA_BENCH_MIB MiB of one partition in a row.
#   verify: a shallow verify of a local archive of KRABKA_BENCH_PARTITIONS × KRABKA_BENCH_PER_PARTITION
#           manifests with its log (the tree rebuilt, every checkpoint, tile and leaf checked) against
#           the same archive with the log moved aside; wall and CPU time and peak memory.
# Prints Markdown tables (every round, then the medians).
#
#   KRABKA_BENCH_MIB=16 KRABKA_BENCH_SEGMENTS=20 KRABKA_BENCH_PARTITIONS=100
#   KRABKA_BENCH_PER_PARTITION=1000 KRABKA_BENCH_ROUNDS=5
#
# Not part of the test command: run it by hand (the 100,000-manifest archive takes a few minutes to
# write and about 1 GiB of disk).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh
# shellcheck source=scripts/lib/bench.sh
source scripts/lib/bench.sh

mib=${KRABKA_BENCH_MIB:-16}
segments=${KRABKA_BENCH_SEGMENTS:-20}
partitions=${KRABKA_BENCH_PARTITIONS:-100}
per_partition=${KRABKA_BENCH_PER_PARTITION:-1000}
rounds=${KRABKA_BENCH_ROUNDS:-5}
install_servers --no-s3s
cargo build --release --locked -p krabka-remote-storage --example worm_log_bench
bench=target/release/examples/worm_log_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-worm-log-bench.XXXXXX")
trap 'stop_servers; rm -rf "$work"' EXIT
start_servers seaweedfs
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1
aws=("$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT")
"${aws[@]}" s3api create-bucket --bucket worm --object-lock-enabled-for-bucket > /dev/null
"${aws[@]}" s3api put-object-lock-configuration --bucket worm --object-lock-configuration \
  '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"COMPLIANCE","Days":1}}}'
: > "$work/empty"
"${aws[@]}" s3api put-object --bucket worm --key warm-up --body "$work/empty" > /dev/null
s3=(--endpoint "$KRABKA_S3_ENDPOINT" --access-key test --secret-key testtesttest --bucket worm)

echo
echo "copies: $segments × $mib MiB of one partition per process, $rounds rounds, SeaweedFS $("$VENV/bin/weed" version 2>/dev/null | sed -n 1p)"
echo "load at start: $(uptime)"
echo
echo "| round | order | log off | log on | on / off | last checkpoint at close |"
echo "|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then order="off on"; else order="on off"; fi
  for mode in $order; do
    sync
    line=$("$bench" copy "$mode" "$mib" "$segments" "$work/segment" "${s3[@]}" --prefix "r$round-$mode")
    field seconds <<< "$line" > "$work/copy-$mode-$round"
    if [[ $mode == on ]]; then field close_seconds <<< "$line" > "$work/close-$round"; fi
  done
  off=$(cat "$work/copy-off-$round"); on=$(cat "$work/copy-on-$round")
  awk -v a="$on" -v b="$off" 'BEGIN { print a / b }' >> "$work/copy-ratio"
  printf '| %s | %s | %.2f s | %.2f s | %.3f | %.2f s |\n' "$round" "${order/ /, }" "$off" "$on" \
    "$(tail -n 1 "$work/copy-ratio")" "$(cat "$work/close-$round")"
done

echo
echo "verify: writing $partitions × $per_partition manifests with their log (local directory)"
"$bench" archive "$partitions" "$per_partition" "$work/archive-dir"
echo
echo "| round | order | without log | with log | with / without (wall) | CPU without | CPU with | CPU with / without | peak RSS without | peak RSS with |"
echo "|---|---|---|---|---|---|---|---|---|---|"
log_dir=$work/archive-dir/archive/_krabka-log
for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then order="without with"; else order="with without"; fi
  for side in $order; do
    if [[ $side == without ]]; then mv "$log_dir" "$work/log-aside"; fi
    line=$("$bench" verify "$work/archive-dir")
    if [[ $side == without ]]; then mv "$work/log-aside" "$log_dir"; fi
    field seconds <<< "$line" > "$work/verify-$side-$round"
    field cpu_seconds <<< "$line" > "$work/cpu-$side-$round"
    field peak_rss_kib <<< "$line" > "$work/rss-$side-$round"
  done
  w=$(cat "$work/verify-with-$round"); wo=$(cat "$work/verify-without-$round")
  cw=$(cat "$work/cpu-with-$round"); cwo=$(cat "$work/cpu-without-$round")
  awk -v a="$w" -v b="$wo" 'BEGIN { print a / b }' >> "$work/verify-ratio"
  awk -v a="$cw" -v b="$cwo" 'BEGIN { print a / b }' >> "$work/cpu-ratio"
  printf '| %s | %s | %.2f s | %.2f s | %.3f | %.2f s | %.2f s | %.3f | %d MiB | %d MiB |\n' "$round" \
    "${order/ /, }" "$wo" "$w" "$(tail -n 1 "$work/verify-ratio")" "$cwo" "$cw" "$(tail -n 1 "$work/cpu-ratio")" \
    "$(( $(cat "$work/rss-without-$round") / 1024 ))" "$(( $(cat "$work/rss-with-$round") / 1024 ))"
done

echo
echo "load at end: $(uptime)"
echo
echo "| median of $rounds rounds | ratio | target |"
echo "|---|---|---|"
printf '| WORM copy, log on / off (%s × %s MiB) | %.3f | ≤ 1.05 |\n' "$segments" "$mib" "$(median "$work/copy-ratio")"
printf '| shallow verify of %s manifests, with the log / without, wall | %.3f | ≤ 1.10 |\n' \
  "$((partitions * per_partition))" "$(median "$work/verify-ratio")"
printf '| the same, CPU time | %.3f | |\n' "$(median "$work/cpu-ratio")"
