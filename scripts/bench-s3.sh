#!/usr/bin/env bash
# Copy and fetch throughput of 256 MiB and 1 GiB segments through S3RemoteStorage against SeaweedFS on
# loopback, side by side with `aws s3 cp` (awscli from PyPI) of the same files to the same server, with the
# peak resident memory of each process (/usr/bin/time -v). Prints a Markdown table.
#
#   KRABKA_BENCH_SIZES="256 1024"   segment sizes in MiB
#
# Not part of the test command: run it by hand (it needs about 3 GB of free disk and a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh

sizes=(${KRABKA_BENCH_SIZES:-256 1024})
[[ -x /usr/bin/time ]] || { apt-get update -qq && apt-get install -y -qq time; }
install_servers --no-s3s
cargo build --release --locked -p krabka-remote-storage --example s3_bench
bench=target/release/examples/s3_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-bench.XXXXXX")
trap 'stop_servers; rm -rf "$work"' EXIT
start_servers seaweedfs
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1
aws=("$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT")

# measure LABEL SIZE_MIB COMMAND... : one table row from /usr/bin/time -v of COMMAND
measure() {
  local label=$1 mib=$2
  shift 2
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out.txt"
  local wall rss seconds
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  seconds=$(awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<< "$wall")
  printf '| %s | %s MiB | %.2f s | %.0f MiB/s | %.0f MiB |\n' "$label" "$mib" "$seconds" \
    "$(awk -v m="$mib" -v s="$seconds" 'BEGIN { print m / s }')" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
}

echo "| what | size | wall time (whole process) | throughput | peak RSS |"
echo "|---|---|---|---|---|"
seed=1000
for mib in "${sizes[@]}"; do
  file=$work/segment-$mib
  head -c "$((mib * 1024 * 1024))" /dev/urandom > "$file"
  seed=$((seed + 10))
  args=(--endpoint "$KRABKA_S3_ENDPOINT" --bucket test --access-key test --secret-key testtesttest --prefix bench)
  measure "S3RemoteStorage copy" "$mib" "$bench" copy "$file" "$seed" "${args[@]}"
  measure "S3RemoteStorage fetch" "$mib" "$bench" fetch "$file" "$seed" "${args[@]}"
  measure "aws s3 cp upload" "$mib" "${aws[@]}" s3 cp --only-show-errors "$file" "s3://test/bench-aws/segment-$mib"
  measure "aws s3 cp download (to stdout, discarded)" "$mib" \
    bash -c '"$@" > /dev/null' _ "${aws[@]}" s3 cp --only-show-errors "s3://test/bench-aws/segment-$mib" -
  rm -f "$file"
done
