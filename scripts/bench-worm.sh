#!/usr/bin/env bash
# Cost of the WORM archive mode over a plain copy against a real S3 server with multipart uploads:
# SeaweedFS on loopback, a plain bucket and an Object Lock bucket (COMPLIANCE, 1 day). Each round
# copies the same segment (with its indexes) through S3RemoteStorage to the plain bucket, then
# through S3RemoteStorage::with_worm to the lock bucket, then deep-verifies that WORM copy from S3
# (examples/worm_bench.rs, default multipart tuning). Rounds alternate, and so does which copy
# goes first, to keep the comparison fair on a shared machine. Prints the rounds and a Markdown
# table (median, min, max) with the load.
#
#   KRABKA_BENCH_MIB=1024    segment size in MiB
#   KRABKA_BENCH_ROUNDS=6    rounds: two copies (plain first in odd rounds, WORM first in even
#                            ones), then a deep verify of the WORM copy
#
# Not part of the test command: run it by hand (it needs about (2 × rounds + 1) × size of free disk).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh

mib=${KRABKA_BENCH_MIB:-1024}
rounds=${KRABKA_BENCH_ROUNDS:-6}
[[ $mib =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] || {
  echo "KRABKA_BENCH_MIB and KRABKA_BENCH_ROUNDS must be positive integers" >&2
  exit 64
}
install_servers --no-s3s
cargo build --release --locked -p krabka-remote-storage --example worm_bench
bench=target/release/examples/worm_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-worm-bench.XXXXXX")
trap 'stop_servers; rm -rf "$work"' EXIT
start_servers seaweedfs
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1
aws=("$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT")
"${aws[@]}" s3api create-bucket --bucket plain > /dev/null
"${aws[@]}" s3api create-bucket --bucket worm --object-lock-enabled-for-bucket > /dev/null
"${aws[@]}" s3api put-object-lock-configuration --bucket worm --object-lock-configuration \
  '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"COMPLIANCE","Days":1}}}'
# The first write into a new bucket waits about a second for SeaweedFS to grow a volume for it;
# take that out of the first round (the WORM step's bucket proof would otherwise hide it on one side).
: > "$work/empty"
for bucket in plain worm; do
  "${aws[@]}" s3api put-object --bucket "$bucket" --key warm-up --body "$work/empty" > /dev/null
done
s3=(--endpoint "$KRABKA_S3_ENDPOINT" --access-key test --secret-key testtesttest)

# step NAME BUCKET ROUND: runs one worm_bench step, prints its JSON line's "seconds"
step() {
  local out
  out=$("$bench" s3 "$1" "$mib" "$work/segment" "${s3[@]}" --bucket "$2" --prefix "round-$3")
  echo "$out" >> "$work/steps.jsonl"
  sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' <<< "$out"
}

# stats FILE: median, min and max of the numbers in FILE (one per line)
stats() {
  sort -g "$1" | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

load_start=$(uptime)
echo
echo "segment: $mib MiB, $rounds rounds, SeaweedFS $("$VENV/bin/weed" version 2>/dev/null | sed -n 1p)"
echo "load at start: $load_start"
echo
echo "| round | order | plain copy | WORM copy | WORM / plain | deep verify | load (1 min) |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  load=$(awk '{ print $1 }' /proc/loadavg)
  # The second copy of a round ran 10–15 % faster than the first, whichever it was, so odd
  # rounds copy plain first and even rounds WORM first; `sync` before each step keeps one step's
  # dirty pages out of the next one's time.
  if (( round % 2 )); then order="plain, WORM"; else order="WORM, plain"; fi
  for what in ${order/,/}; do
    sync
    case $what in
      plain) plain=$(step plain plain "$round") ;;
      WORM) worm=$(step worm worm "$round") ;;
    esac
  done
  sync
  verify=$(step verify worm "$round")
  echo "$plain" >> "$work/plain"
  echo "$worm" >> "$work/worm"
  echo "$verify" >> "$work/verify"
  awk -v p="$plain" -v w="$worm" 'BEGIN { print w / p }' >> "$work/ratio"
  printf '| %s | %s | %.2f s | %.2f s | %.3f | %.2f s | %s |\n' "$round" "$order" "$plain" "$worm" \
    "$(tail -n 1 "$work/ratio")" "$verify" "$load"
done
hashed=$(sed -n '/"step":"verify","bytes":[0-9]/{s/.*"step":"verify","bytes":\([0-9]*\).*/\1/p;q;}' "$work/steps.jsonl")
echo
echo "load at end: $(uptime)"
echo
echo "| $mib MiB, $rounds rounds | median | min | max | median throughput |"
echo "|---|---|---|---|---|"
row() { # LABEL FILE BYTES UNIT DIVISOR
  local median min max
  read -r median min max < <(stats "$2")
  printf '| %s | %.2f s | %.2f s | %.2f s | %.0f %s |\n' "$1" "$median" "$min" "$max" \
    "$(awk -v b="$3" -v d="$5" -v s="$median" 'BEGIN { print b / d / s }')" "$4"
}
row "plain copy (multipart)" "$work/plain" "$((mib * 1024 * 1024))" MiB/s 1048576
row "WORM copy (multipart, Object Lock bucket)" "$work/worm" "$((mib * 1024 * 1024))" MiB/s 1048576
row "deep verify of the WORM copy" "$work/verify" "$hashed" MB/s 1000000
read -r median min max < <(stats "$work/ratio")
printf '| WORM / plain (per round) | %.3f (%+.1f %%) | %.3f | %.3f | target < 1.15 |\n' \
  "$median" "$(awk -v m="$median" 'BEGIN { print (m - 1) * 100 }')" "$min" "$max"
