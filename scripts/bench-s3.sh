#!/usr/bin/env bash
# The copy path (issue 28): one segment of random bytes copied through S3RemoteStorage (release build of
# examples/s3_bench.rs, default tuning) and through `aws s3 cp` (awscli, its defaults: 8 MiB parts, 10 at
# once) to the same SeaweedFS on loopback, two ways:
#   direct   straight to SeaweedFS. On 2 cores this is bound by SeaweedFS's own CPU (it hashes every byte
#            with MD5 three times), which neither client can change; the CPU columns show it.
#   capped   through a toxiproxy that lets each connection send at most KRABKA_BENCH_CONN_MBPS MB/s and adds
#            KRABKA_BENCH_LATENCY_MS to every answer: a store that serves each connection at a bounded rate,
#            as Amazon S3 does (about 85-90 MB/s a connection), scaled down so that SeaweedFS is not the
#            limit. Here a copy goes as fast as its parts in flight.
# and the filesystem tier (LocalTieredStorage, which fsyncs what it writes) against `cp` followed by `sync` of
# the copy (only that file: a bare `sync` would also write back what SeaweedFS wrote),
# and a fetch of the whole segment against `aws s3 cp` to stdout. KRABKA_BENCH_ALSO adds our copy with other
# part sizes and parts in flight ("MIBxN", e.g. the tuning before issue 28: "16x4").
#
# Each round runs every case, the order of the pair reversed every other round. Printed: medians over the
# rounds of the wall time of the whole process (start-up included), the throughput, the CPU seconds per GB
# of the client, of SeaweedFS and of the proxy, the peak resident memory (highest of the rounds) and the ratio of the
# baseline's time to ours (median of the per-round ratios; above 1 is faster than the baseline).
#
#   KRABKA_BENCH_MIB=1024           segment size in MiB
#   KRABKA_BENCH_ROUNDS=5           rounds
#   KRABKA_BENCH_CONN_MBPS=8        capped: MB/s a connection
#   KRABKA_BENCH_LATENCY_MS=25      capped: added to every answer
#   KRABKA_BENCH_ALSO=""            other tunings of our copy, "MIBxN ..."
#   KRABKA_BENCH_TSV=FILE           also write every figure as tab-separated lines (for a report)
#
# Not part of the test command: run it by hand (it needs about 3 GB of free disk and a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh
# shellcheck source=scripts/lib/bench.sh
source scripts/lib/bench.sh

mib=${KRABKA_BENCH_MIB:-1024}
rounds=${KRABKA_BENCH_ROUNDS:-5}
conn_mbps=${KRABKA_BENCH_CONN_MBPS:-8}
latency=${KRABKA_BENCH_LATENCY_MS:-25}
for value in "$mib" "$rounds" "$conn_mbps" "$latency"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "the KRABKA_BENCH_* values must be positive integers" >&2; exit 64; }
done
read -r -a also <<< "${KRABKA_BENCH_ALSO:-}"
for tuning in "${also[@]}"; do
  [[ $tuning =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "KRABKA_BENCH_ALSO takes MIBxN, got $tuning" >&2; exit 64; }
done
TOXIPROXY_VERSION=v2.5.0
toxiproxy=$KRABKA_TOOLS/go/bin/server
if [[ ! -x $toxiproxy ]]; then
  echo "installing toxiproxy $TOXIPROXY_VERSION (go install)"
  GOBIN=$KRABKA_TOOLS/go/bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
fi
[[ -x /usr/bin/time ]] || { apt-get update -qq && apt-get install -y -qq time; }
install_servers --no-s3s
cargo build --release --locked -q -p krabka-remote-storage --example s3_bench
bench=target/release/examples/s3_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-bench-s3.XXXXXX")
toxi_pid=
cleanup() {
  [[ -n $toxi_pid ]] && kill "$toxi_pid" 2>/dev/null
  stop_servers
  rm -rf "$work"
}
trap cleanup EXIT
# Volumes of 4 GB: with weed mini's 128 MB, the server stalls to grow
# volumes every few hundred MB written, at the same point of every round, and whichever copy runs then
# pays a second for it (measured: ours 2.7 s when it ran first in a round, 1.7 s when second).
KRABKA_WEED_VOLUME_MB=${KRABKA_WEED_VOLUME_MB:-4096} start_servers seaweedfs
api_port=$(free_port)
capped_port=$(free_port)
"$toxiproxy" -host 127.0.0.1 -port "$api_port" > "$work/toxiproxy.log" 2>&1 &
toxi_pid=$!
wait_http "http://127.0.0.1:$api_port/version" toxiproxy
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies" \
  -d "{\"name\":\"capped\",\"listen\":\"127.0.0.1:$capped_port\",\"upstream\":\"${WEED_ENDPOINT#http://}\"}"
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies/capped/toxics" \
  -d "{\"name\":\"latency\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$latency}}"
# toxiproxy's rate is in KB/s, per connection.
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies/capped/toxics" \
  -d "{\"name\":\"rate\",\"type\":\"bandwidth\",\"stream\":\"upstream\",\"attributes\":{\"rate\":$((conn_mbps * 1000))}}"
capped_endpoint=http://127.0.0.1:$capped_port
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1
aws=("$VENV/bin/aws")
s3_common=(--bucket test --access-key test --secret-key testtesttest --prefix bench)
direct_args=(--endpoint "$WEED_ENDPOINT" "${s3_common[@]}")
capped_args=(--endpoint "$capped_endpoint" "${s3_common[@]}")

segment=$work/segment
head -c "$((mib * 1048576))" /dev/urandom > "$segment"
bytes=$((mib * 1048576))

# cpu_ticks PID...: user + system CPU time the processes have used so far, in ticks of 1/100 s
cpu_ticks() {
  local pid total=0 f
  for pid in "$@"; do
    read -r -a f < <(sed 's/^.*) //' "/proc/$pid/stat")
    total=$(( total + f[11] + f[12] ))
  done
  echo "$total"
}

# measure NAME COMMAND...: runs COMMAND under /usr/bin/time -v and files its wall time, client and
# SeaweedFS CPU seconds per GB and peak RSS under $work/NAME.*
measure() {
  local name=$1 weed_before proxy_before
  shift
  weed_before=$(cpu_ticks "${SERVER_PIDS[@]}")
  proxy_before=$(cpu_ticks "$toxi_pid")
  /usr/bin/time -v -o "$work/time.txt" "$@" > /dev/null
  local weed=$(( $(cpu_ticks "${SERVER_PIDS[@]}") - weed_before ))
  local proxy=$(( $(cpu_ticks "$toxi_pid") - proxy_before ))
  local wall user sys rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" \
    | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  echo "$wall" >> "$work/$name.wall"
  awk -v u="$user" -v s="$sys" -v b="$bytes" 'BEGIN { printf "%.2f\n", (u + s) / (b / 1e9) }' >> "$work/$name.client"
  awk -v t="$weed" -v b="$bytes" 'BEGIN { printf "%.2f\n", t / 100 / (b / 1e9) }' >> "$work/$name.server"
  awk -v t="$proxy" -v b="$bytes" 'BEGIN { printf "%.2f\n", t / 100 / (b / 1e9) }' >> "$work/$name.proxy"
  echo $(( rss / 1024 )) >> "$work/$name.rss"
}

# pair ROUND OURS BASELINE: runs the two case functions, ours first in odd rounds, and files the ratio of
# the baseline's wall time to ours
pair() {
  local round=$1 ours=$2 baseline=$3
  if (( round % 2 )); then "$ours" "$round"; "$baseline" "$round"; else "$baseline" "$round"; "$ours" "$round"; fi
  awk -v b="$(tail -n 1 "$work/$baseline.wall")" -v o="$(tail -n 1 "$work/$ours.wall")" \
    'BEGIN { printf "%.3f\n", b / o }' >> "$work/$ours.ratio"
  echo "round $round: $ours $(tail -n 1 "$work/$ours.wall") s, $baseline $(tail -n 1 "$work/$baseline.wall") s" >&2
}

seed=1000
next_seed() { seed=$((seed + 10)); }
ours_direct() { next_seed; measure ours_direct "$bench" copy "$segment" "$seed" "${direct_args[@]}"; }
aws_direct() { measure aws_direct "${aws[@]}" --endpoint-url "$WEED_ENDPOINT" s3 cp --only-show-errors "$segment" "s3://test/aws/direct-$1"; }
ours_capped() { next_seed; measure ours_capped "$bench" copy "$segment" "$seed" "${capped_args[@]}"; }
aws_capped() { measure aws_capped "${aws[@]}" --endpoint-url "$capped_endpoint" s3 cp --only-show-errors "$segment" "s3://test/aws/capped-$1"; }
ours_fs() { rm -rf "$work/tier"; mkdir "$work/tier"; measure ours_fs "$bench" copy "$segment" 7 --filesystem "$work/tier"; }
cp_fs() { rm -f "$work/copy"; measure cp_fs bash -c 'cp "$1" "$2" && sync "$2"' _ "$segment" "$work/copy"; }
ours_fetch() { measure ours_fetch "$bench" fetch "$segment" 1010 "${direct_args[@]}"; }
aws_fetch() { measure aws_fetch bash -c '"$@" > /dev/null' _ "${aws[@]}" --endpoint-url "$WEED_ENDPOINT" s3 cp --only-show-errors s3://test/aws/direct-1 -; }
# ours with another tuning, through the capped proxy: ours_tuned_MIBxN
tuned() {
  local tuning=$1 round=$2
  next_seed
  measure "ours_tuned_$tuning" "$bench" copy "$segment" "$seed" "${capped_args[@]}" \
    --part-mib "${tuning%x*}" --parts-in-flight "${tuning#*x}"
  awk -v b="$(tail -n 1 "$work/aws_capped.wall")" -v o="$(tail -n 1 "$work/ours_tuned_$tuning.wall")" \
    'BEGIN { printf "%.3f\n", b / o }' >> "$work/ours_tuned_$tuning.ratio"
}

# A fresh server's first writes are slow (it creates its first volumes): one untimed copy of each first.
"$bench" copy "$segment" 1 "${direct_args[@]}" > /dev/null
"${aws[@]}" --endpoint-url "$WEED_ENDPOINT" s3 cp --only-show-errors "$segment" s3://test/aws/warm-up
for round in $(seq 1 "$rounds"); do
  echo "round $round of $rounds" >&2
  pair "$round" ours_direct aws_direct
  pair "$round" ours_capped aws_capped
  for tuning in "${also[@]}"; do tuned "$tuning" "$round"; done
  pair "$round" ours_fs cp_fs
  pair "$round" ours_fetch aws_fetch
  rm -f "$work/copy"
done

highest() { sort -g "$1" | tail -n 1; }
row() { # NAME LABEL [BASELINE-LABEL]
  local name=$1 label=$2 wall ratio=–
  wall=$(median "$work/$name.wall")
  [[ -f $work/$name.ratio ]] && ratio="**$(median "$work/$name.ratio")**"
  printf '| %s | %.2f s | %.0f MB/s | %s | %s | %s | %s MiB | %s |\n' "$label" "$wall" \
    "$(awk -v b="$bytes" -v s="$wall" 'BEGIN { print b / 1e6 / s }')" \
    "$(median "$work/$name.client")" "$(median "$work/$name.server")" "$(median "$work/$name.proxy")" \
    "$(highest "$work/$name.rss")" "$ratio"
  if [[ -n ${KRABKA_BENCH_TSV:-} ]]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$wall" "$(median "$work/$name.client")" \
      "$(median "$work/$name.server")" "$(median "$work/$name.proxy")" "$(highest "$work/$name.rss")" \
      "$( [[ -f $work/$name.ratio ]] && median "$work/$name.ratio" || echo -)" "$label" >> "$KRABKA_BENCH_TSV"
  fi
}

echo
echo "$mib MiB, $rounds rounds; capped: $conn_mbps MB/s a connection, +$latency ms an answer"
echo
echo "| what | wall time | throughput | client CPU s/GB | SeaweedFS CPU s/GB | proxy CPU s/GB | peak RSS | baseline's time / ours |"
echo "|---|---|---|---|---|---|---|---|"
row ours_direct "copy, S3RemoteStorage, direct"
row aws_direct "copy, aws s3 cp, direct"
row ours_capped "copy, S3RemoteStorage, capped"
row aws_capped "copy, aws s3 cp, capped"
for tuning in "${also[@]}"; do
  row "ours_tuned_$tuning" "copy, S3RemoteStorage ${tuning%x*} MiB x ${tuning#*x}, capped"
done
row ours_fs "copy, LocalTieredStorage (fsync)"
row cp_fs "copy, cp + sync"
row ours_fetch "fetch, S3RemoteStorage, direct"
row aws_fetch "fetch, aws s3 cp to stdout, direct"
