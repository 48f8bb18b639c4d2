#!/usr/bin/env bash
# Remote reads at object-store latency (issue 12): reads through S3RemoteStorage from SeaweedFS on loopback,
# directly and through a toxiproxy latency proxy (25 ms added to every answer), with the read cache (the
# default) and without it (`nocache`, the read path before the cache). The figure with latency also pays
# the proxy's own CPU (on 2 cores, at hundreds of MB/s, a large share); a second proxy adding 0 ms as the
# baseline was tried and dropped: toxiproxy measured slower with 0 ms than with 25 ms for concurrent readers.
# Workloads (examples/fetch_bench.rs):
#   catchup   fetches of 1 MiB, each opened where the previous one stopped and closed, as a consumer
#             catching up; on 1 partition and on KRABKA_BENCH_PARTITIONS partitions at once
#   random    as many 1 MiB fetches at pseudo-random positions
#   stream    one fetch of the whole segment
# Each round runs every case with and without latency, in alternating order; the figure is the median of the
# per-round ratios "with latency / without", and for the cache, GETs and bytes fetched per byte served; the
# TCP connections the proxy accepted during the run with latency (median) and the reader's peak resident
# memory (the highest of the rounds, with latency).
#
#   KRABKA_BENCH_MIB=256          segment size in MiB (one partition)
#   KRABKA_BENCH_PARTITIONS=16    partitions of the concurrent catch-up
#   KRABKA_BENCH_PART_MIB=64      segment size of each of those partitions
#   KRABKA_BENCH_ROUNDS=5         rounds
#   KRABKA_BENCH_LATENCY_MS=25    latency the proxy adds
#   KRABKA_BENCH_ONLY='*'         a glob of the cases to run (e.g. 'stream-*')
#
# Not part of the test command: run it by hand. toxiproxy is installed with `go install` (Go module proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh

mib=${KRABKA_BENCH_MIB:-256}
partitions=${KRABKA_BENCH_PARTITIONS:-16}
part_mib=${KRABKA_BENCH_PART_MIB:-64}
rounds=${KRABKA_BENCH_ROUNDS:-5}
latency=${KRABKA_BENCH_LATENCY_MS:-25}
for value in "$mib" "$partitions" "$part_mib" "$rounds" "$latency"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "the KRABKA_BENCH_* values must be positive integers" >&2; exit 64; }
done
TOXIPROXY_VERSION=v2.5.0
toxiproxy=$KRABKA_TOOLS/go/bin/server
if [[ ! -x $toxiproxy ]]; then
  echo "installing toxiproxy $TOXIPROXY_VERSION (go install)"
  GOBIN=$KRABKA_TOOLS/go/bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
fi
install_servers --no-s3s
cargo build --release --locked -q -p krabka-remote-storage --example fetch_bench
bench=target/release/examples/fetch_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-fetch-bench.XXXXXX")
toxi_pid=
cleanup() {
  [[ -n $toxi_pid ]] && kill "$toxi_pid" 2>/dev/null
  stop_servers
  rm -rf "$work"
}
trap cleanup EXIT
start_servers seaweedfs
api_port=$(free_port)
proxy_port=$(free_port)
"$toxiproxy" -host 127.0.0.1 -port "$api_port" > "$work/toxiproxy.log" 2>&1 &
toxi_pid=$!
wait_http "http://127.0.0.1:$api_port/version" toxiproxy
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies" \
  -d "{\"name\":\"s3\",\"listen\":\"127.0.0.1:$proxy_port\",\"upstream\":\"${WEED_ENDPOINT#http://}\"}"
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies/s3/toxics" \
  -d "{\"name\":\"latency\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$latency}}"

s3() { echo --endpoint "$1" --bucket test --access-key test --secret-key testtesttest; }
# shellcheck disable=SC2207
direct=($(s3 "$WEED_ENDPOINT"))
# shellcheck disable=SC2207
slow=($(s3 "http://127.0.0.1:$proxy_port"))
fast=("${direct[@]}")
head -c $((mib * 1048576)) /dev/urandom > "$work/one.log"
head -c $((part_mib * 1048576)) /dev/urandom > "$work/part.log"
"$bench" copy "$work/one.log" 1000 1 "${direct[@]}"
"$bench" copy "$work/part.log" 2000 "$partitions" "${direct[@]}"

# accepted_connections: the TCP connections the latency proxy has accepted so far (it logs each one)
accepted_connections() { grep 'Accepted client' "$work/toxiproxy.log" | grep -c '"name":"s3"' || true; }
# field NAME: the value after "NAME": in the JSON line on stdin
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([0-9.a-z]*\).*/\1/p"; }
median() {
  sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# case NAME WORKLOAD FILE SEED PARTITIONS CACHE: one round of NAME, with and without latency
run_case() {
  local name=$1 workload=$2 file=$3 seed=$4 n=$5 cache=$6 round=$7 order fast_line slow_line
  if (( round % 2 )); then order="fast slow"; else order="slow fast"; fi
  local accepted_before accepted_after
  for which in $order; do
    if [[ $which == fast ]]; then
      fast_line=$("$bench" read "$workload" "$file" "$seed" "$n" "$cache" "${fast[@]}")
    else
      accepted_before=$(accepted_connections)
      slow_line=$("$bench" read "$workload" "$file" "$seed" "$n" "$cache" "${slow[@]}")
      accepted_after=$(accepted_connections)
    fi
  done
  echo $(( accepted_after - accepted_before )) >> "$work/$name.connections"
  field peak_rss_kib <<< "$slow_line" >> "$work/$name.rss"
  local fast slow ratio
  fast=$(field mb_per_s <<< "$fast_line")
  slow=$(field mb_per_s <<< "$slow_line")
  ratio=$(awk -v s="$slow" -v f="$fast" 'BEGIN { printf "%.3f", s / f }')
  echo "$fast" >> "$work/$name.fast"
  echo "$slow" >> "$work/$name.slow"
  echo "$ratio" >> "$work/$name.ratio"
  if [[ $cache == cache ]]; then
    local bytes gets fetched
    bytes=$(field bytes <<< "$slow_line")
    gets=$(field gets <<< "$slow_line")
    fetched=$(field bytes_fetched <<< "$slow_line")
    awk -v f="$fetched" -v b="$bytes" 'BEGIN { printf "%.3f\n", f / b }' >> "$work/$name.amplification"
    awk -v g="$gets" -v b="$bytes" 'BEGIN { printf "%.3f\n", g / (b / 1048576) }' >> "$work/$name.gets"
  fi
  printf '| %s | %s | %s | %.0f MB/s | %.0f MB/s | %s |\n' "$round" "$name" "${order/ /, }" "$fast" "$slow" "$ratio"
}

cases=(
  "catchup-1 catchup $work/one.log 1000 1 cache"
  "catchup-1-nocache catchup $work/one.log 1000 1 nocache"
  "catchup-$partitions catchup $work/part.log 2000 $partitions cache"
  "random-1 random $work/one.log 1000 1 cache"
  "random-1-nocache random $work/one.log 1000 1 nocache"
  "stream-1 stream $work/one.log 1000 1 cache"
  "stream-1-nocache stream $work/one.log 1000 1 nocache"
)
selected=()
for c in "${cases[@]}"; do
  # shellcheck disable=SC2053
  [[ ${c%% *} == ${KRABKA_BENCH_ONLY:-*} ]] && selected+=("$c")
done
cases=("${selected[@]}")
echo
echo "segment: $mib MiB; concurrent: $partitions x $part_mib MiB; latency +$latency ms; $rounds rounds; $(nproc) cores"
echo "load at start: $(uptime)"
echo
echo "| round | case | order | no latency | +${latency} ms | ratio |"
echo "|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    run_case $c "$round"
  done
done
echo
echo "load at end: $(uptime)"
echo
echo "| case (median of $rounds rounds) | no latency | +${latency} ms | with / without latency | bytes fetched / served | GETs per MiB served | connections opened | peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  name=${c%% *}
  amp=-; gets=-
  [[ -s $work/$name.amplification ]] && amp=$(median "$work/$name.amplification")
  [[ -s $work/$name.gets ]] && gets=$(median "$work/$name.gets")
  printf '| %s | %.0f MB/s | %.0f MB/s | %s | %s | %s | %s | %.0f MiB |\n' "$name" "$(median "$work/$name.fast")" \
    "$(median "$work/$name.slow")" "$(median "$work/$name.ratio")" "$amp" "$gets" \
    "$(median "$work/$name.connections")" "$(awk '{ print $1 / 1024 }' "$work/$name.rss" | sort -g | tail -1)"
done
