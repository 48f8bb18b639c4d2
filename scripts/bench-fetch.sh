#!/usr/bin/env bash
# Remote reads at object-store latency (issue 12): reads through S3RemoteStorage from SeaweedFS on loopback
# three ways: directly, through a toxiproxy proxy with no toxic (+0 ms), and through one that adds 25 ms to
# every answer; with the read cache (the default) and without it (`nocache`, the read path before the cache).
# The run through the latency proxy also pays the proxy's CPU, which on 2 cores at hundreds of MB/s is a
# large share: the +0 ms proxy is the baseline that pays the same, so the ratio to it isolates the latency
# (the ratio to the direct read is printed too). The CPU each process used per GB served and the machine's
# busy and stolen CPU during each run show when a run is bound by CPU rather than by latency.
# Workloads (examples/fetch_bench.rs):
#   catchup   fetches of 1 MiB, each opened where the previous one stopped and closed, as a consumer
#             catching up; on 1 partition and on KRABKA_BENCH_PARTITIONS partitions at once
#   random    as many 1 MiB fetches at pseudo-random positions
#   stream    one fetch of the whole segment
# Each round runs every case the three ways, the order reversed every other round; the figures are medians
# of the rounds (of the per-round ratios for the ratios); with the cache, GETs and bytes fetched per byte
# served; the TCP connections the latency proxy accepted during its run (median) and the reader's peak
# resident memory (the highest of the rounds, with latency).
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
# shellcheck source=scripts/lib/bench.sh
source scripts/lib/bench.sh

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
plain_port=$(free_port)
"$toxiproxy" -host 127.0.0.1 -port "$api_port" > "$work/toxiproxy.log" 2>&1 &
toxi_pid=$!
wait_http "http://127.0.0.1:$api_port/version" toxiproxy
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies" \
  -d "{\"name\":\"s3\",\"listen\":\"127.0.0.1:$proxy_port\",\"upstream\":\"${WEED_ENDPOINT#http://}\"}"
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies" \
  -d "{\"name\":\"plain\",\"listen\":\"127.0.0.1:$plain_port\",\"upstream\":\"${WEED_ENDPOINT#http://}\"}"
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies/s3/toxics" \
  -d "{\"name\":\"latency\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$latency}}"

s3() { echo --endpoint "$1" --bucket test --access-key test --secret-key testtesttest; }
# shellcheck disable=SC2207
direct=($(s3 "$WEED_ENDPOINT"))
# shellcheck disable=SC2207
slow=($(s3 "http://127.0.0.1:$proxy_port"))
# shellcheck disable=SC2207
plain=($(s3 "http://127.0.0.1:$plain_port"))
head -c $((mib * 1048576)) /dev/urandom > "$work/one.log"
head -c $((part_mib * 1048576)) /dev/urandom > "$work/part.log"
"$bench" copy "$work/one.log" 1000 1 "${direct[@]}"
"$bench" copy "$work/part.log" 2000 "$partitions" "${direct[@]}"

# accepted_connections: the TCP connections the proxies have accepted so far (toxiproxy logs each one)
accepted_connections() { grep -c 'Accepted client' "$work/toxiproxy.log" || true; }

# cpu_ticks PID...: user + system CPU time the processes have used so far, in ticks of 1/100 s
cpu_ticks() {
  local pid total=0 f
  for pid in "$@"; do
    read -r -a f < <(sed 's/^.*) //' "/proc/$pid/stat")
    total=$(( total + f[11] + f[12] ))
  done
  echo "$total"
}
# per_gb TICKS BYTES: CPU seconds per GB served
per_gb() { awk -v t="$1" -v b="$2" 'BEGIN { printf "%.2f\n", t / 100 / (b / 1e9) }'; }

# run_variant NAME VARIANT WORKLOAD FILE SEED PARTITIONS CACHE: one read through VARIANT (direct: to
# SeaweedFS; plain: through the proxy with no toxic; slow: through the proxy adding the latency); prints
# its JSON line and files its throughput and CPU figures under $work/NAME.VARIANT.*
run_variant() {
  local name=$1 variant=$2 workload=$3 file=$4 seed=$5 n=$6 cache=$7 line target
  case $variant in
    direct) target=("${direct[@]}") ;;
    plain) target=("${plain[@]}") ;;
    slow) target=("${slow[@]}") ;;
  esac
  local accepted_before weed_before proxy_before busy_before steal_before all_before
  accepted_before=$(accepted_connections)
  weed_before=$(cpu_ticks "${SERVER_PIDS[@]}")
  proxy_before=$(cpu_ticks "$toxi_pid")
  read -r busy_before steal_before all_before < <(machine_ticks)
  line=$("$bench" read "$workload" "$file" "$seed" "$n" "$cache" "${target[@]}")
  local busy steal all bytes prefix=$work/$name.$variant
  read -r busy steal all < <(machine_ticks)
  bytes=$(field bytes <<< "$line")
  field mb_per_s <<< "$line" >> "$prefix.mbps"
  field peak_rss_kib <<< "$line" >> "$prefix.rss"
  echo $(( $(accepted_connections) - accepted_before )) >> "$prefix.connections"
  awk -v c="$(field cpu_seconds <<< "$line")" -v b="$bytes" 'BEGIN { printf "%.2f\n", c / (b / 1e9) }' >> "$prefix.reader"
  per_gb $(( $(cpu_ticks "${SERVER_PIDS[@]}") - weed_before )) "$bytes" >> "$prefix.weed"
  per_gb $(( $(cpu_ticks "$toxi_pid") - proxy_before )) "$bytes" >> "$prefix.proxy"
  percent $(( busy - busy_before )) $(( all - all_before )) >> "$prefix.busy"
  percent $(( steal - steal_before )) $(( all - all_before )) >> "$prefix.steal"
  echo "$line"
}

# run_case NAME WORKLOAD FILE SEED PARTITIONS CACHE ROUND: one round of NAME through each variant, the
# order reversed every other round
run_case() {
  local name=$1 round=$7 order variant line slow_line
  if (( round % 2 )); then order="direct plain slow"; else order="slow plain direct"; fi
  for variant in $order; do
    line=$(run_variant "$name" "$variant" "${@:2:5}")
    [[ $variant == slow ]] && slow_line=$line
  done
  local fast plain slow ratio plain_ratio
  fast=$(tail -1 "$work/$name.direct.mbps")
  plain=$(tail -1 "$work/$name.plain.mbps")
  slow=$(tail -1 "$work/$name.slow.mbps")
  ratio=$(awk -v s="$slow" -v f="$fast" 'BEGIN { printf "%.3f", s / f }')
  plain_ratio=$(awk -v s="$slow" -v f="$plain" 'BEGIN { printf "%.3f", s / f }')
  echo "$ratio" >> "$work/$name.ratio"
  echo "$plain_ratio" >> "$work/$name.plain-ratio"
  if [[ $6 == cache ]]; then
    local bytes gets fetched
    bytes=$(field bytes <<< "$slow_line")
    gets=$(field gets <<< "$slow_line")
    fetched=$(field bytes_fetched <<< "$slow_line")
    awk -v f="$fetched" -v b="$bytes" 'BEGIN { printf "%.3f\n", f / b }' >> "$work/$name.amplification"
    awk -v g="$gets" -v b="$bytes" 'BEGIN { printf "%.3f\n", g / (b / 1048576) }' >> "$work/$name.gets"
  fi
  printf '| %s | %s | %s | %.0f MB/s | %.0f MB/s | %.0f MB/s | %s | %s |\n' "$round" "$name" "${order// /, }" \
    "$fast" "$plain" "$slow" "$ratio" "$plain_ratio"
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
echo "| round | case | order | direct | proxy, +0 ms | proxy, +${latency} ms | +${latency} ms / direct | +${latency} ms / proxy +0 ms |"
echo "|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    run_case $c "$round"
  done
done
echo
echo "load at end: $(uptime)"
echo
echo "| case (median of $rounds rounds) | direct | proxy, +0 ms | proxy, +${latency} ms | +${latency} ms / direct | +${latency} ms / proxy +0 ms | bytes fetched / served | GETs per MiB served | connections opened | peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  name=${c%% *}
  amp=-; gets=-
  [[ -s $work/$name.amplification ]] && amp=$(median "$work/$name.amplification")
  [[ -s $work/$name.gets ]] && gets=$(median "$work/$name.gets")
  printf '| %s | %.0f MB/s | %.0f MB/s | %.0f MB/s | %s | %s | %s | %s | %s | %.0f MiB |\n' "$name" \
    "$(median "$work/$name.direct.mbps")" "$(median "$work/$name.plain.mbps")" "$(median "$work/$name.slow.mbps")" \
    "$(median "$work/$name.ratio")" "$(median "$work/$name.plain-ratio")" "$amp" "$gets" \
    "$(median "$work/$name.slow.connections")" "$(awk '{ print $1 / 1024 }' "$work/$name.slow.rss" | sort -g | tail -1)"
done
echo
echo "CPU seconds per GB served (median): the reader, SeaweedFS, the proxy; and the machine's CPU busy and stolen"
echo
echo "| case | variant | reader | SeaweedFS | proxy | all three | machine busy | stolen |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  name=${c%% *}
  for variant in direct plain slow; do
    prefix=$work/$name.$variant
    reader=$(median "$prefix.reader"); weed=$(median "$prefix.weed"); proxy=$(median "$prefix.proxy")
    printf '| %s | %s | %s | %s | %s | %s | %s %% | %s %% |\n' "$name" "$variant" "$reader" "$weed" "$proxy" \
      "$(awk -v a="$reader" -v b="$weed" -v c="$proxy" 'BEGIN { printf "%.2f", a + b + c }')" \
      "$(median "$prefix.busy")" "$(median "$prefix.steal")"
  done
done
