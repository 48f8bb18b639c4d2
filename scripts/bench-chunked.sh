#!/usr/bin/env bash
# What compression and encryption (the chunked format, docs/chunked-format.md) cost against plain
# segments on SeaweedFS, each figure a ratio to the plain baseline measured in the same run, rounds
# alternating which goes first (examples/chunked_bench.rs, one process per measurement):
#   copy text:  a log of uncompressed JSON-like record batches, compressed (zstd 3) and encrypted
#               (AES-256-GCM, 4 MiB chunks, an RSA-3072 key pair from openssl) against plain:
#               throughput and bytes stored;
#   copy zstd:  a log of producer-zstd batches (the heuristic stores it as it is) against plain;
#   read:       a consumer's catch-up as the broker makes it (1 MiB fetches, each closed, through the read
#               cache) of the text segment, through toxiproxy adding KRABKA_BENCH_LATENCY_MS to every
#               answer, chunked against plain;
#   read zstd:  the same of the producer-zstd segment, where the chunked format saves no bytes: what
#               decryption and the envelope cost a read.
# CPU time of each process is reported per GiB, and its peak resident memory (/usr/bin/time). Prints Markdown tables (every round, then the medians).
#
#   KRABKA_BENCH_MIB=256 KRABKA_BENCH_ROUNDS=5 KRABKA_BENCH_LATENCY_MS=25   (--full: 1024 MiB)
#
# Not part of the test command: run it by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh
# shellcheck source=scripts/lib/bench.sh
source scripts/lib/bench.sh

mib=${KRABKA_BENCH_MIB:-256}
[[ ${1:-} == --full ]] && mib=1024
rounds=${KRABKA_BENCH_ROUNDS:-5}
latency=${KRABKA_BENCH_LATENCY_MS:-25}
TOXIPROXY_VERSION=v2.5.0
toxiproxy=$KRABKA_TOOLS/go/bin/server
if [[ ! -x $toxiproxy ]]; then
  echo "installing toxiproxy $TOXIPROXY_VERSION (go install)"
  GOBIN=$KRABKA_TOOLS/go/bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
fi
[[ -x /usr/bin/time ]] || { apt-get update -qq && apt-get install -y -qq time; }
install_servers --no-s3s
cargo build --release --locked -q -p krabka-remote-storage --example chunked_bench
bench=target/release/examples/chunked_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/krabka-chunked-bench.XXXXXX")
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
s3() { echo --endpoint "$1" --bucket test --access-key test --secret-key testtesttest --prefix "$2"; }

mkdir -p "$work/keys"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$work/keys/k1-private.pem" 2>/dev/null
chmod 600 "$work/keys/k1-private.pem"
openssl pkey -in "$work/keys/k1-private.pem" -pubout -out "$work/keys/k1-public.pem"
"$bench" write text "$work/text.log" "$mib"
"$bench" write zstd "$work/zstd.log" "$mib"

echo
echo "$mib MiB segments, $rounds rounds, SeaweedFS $("$VENV/bin/weed" version 2>/dev/null | sed -n 1p), +$latency ms for reads"
echo "load at start: $(uptime)"
echo
echo "| round | workload | order | plain | chunked | chunked / plain throughput | stored chunked / plain | CPU s/GiB plain | CPU s/GiB chunked |"
echo "|---|---|---|---|---|---|---|---|---|"
seed=100
for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then order="plain chunked"; else order="chunked plain"; fi
  for workload in text zstd read readz; do
    for format in $order; do
      seed=$((seed + 10))
      if [[ $workload == read* ]]; then
        source_log=$work/text.log
        [[ $workload == readz ]] && source_log=$work/zstd.log
        # shellcheck disable=SC2046
        "$bench" copy "$format" "$source_log" "$seed" "$work/keys" $(s3 "$WEED_ENDPOINT" "r$round") > /dev/null
        # shellcheck disable=SC2046
        line=$(/usr/bin/time -f '%M' -o "$work/rss" "$bench" read "$format" "$(stat -c %s "$source_log")" "$seed" "$work/keys" \
          $(s3 "http://127.0.0.1:$proxy_port" "r$round"))
      else
        sync
        # shellcheck disable=SC2046
        line=$(/usr/bin/time -f '%M' -o "$work/rss" "$bench" copy "$format" "$work/$workload.log" "$seed" "$work/keys" \
          $(s3 "$WEED_ENDPOINT" "r$round"))
        field stored_bytes <<< "$line" > "$work/$workload-$format-stored-$round"
      fi
      tail -n 1 "$work/rss" >> "$work/$workload-$format-rss"
      field seconds <<< "$line" > "$work/$workload-$format-$round"
      field cpu_seconds <<< "$line" > "$work/$workload-$format-cpu-$round"
    done
    p=$(cat "$work/$workload-plain-$round"); c=$(cat "$work/$workload-chunked-$round")
    awk -v p="$p" -v c="$c" 'BEGIN { print p / c }' >> "$work/$workload-ratio"
    stored=-
    if [[ $workload != read* ]]; then
      stored=$(awk -v p="$(cat "$work/$workload-plain-stored-$round")" -v c="$(cat "$work/$workload-chunked-stored-$round")" \
        'BEGIN { printf "%.3f", c / p }')
      echo "$stored" >> "$work/$workload-stored-ratio"
    fi
    per_gib() { awk -v s="$1" -v m="$mib" 'BEGIN { printf "%.2f", s / (m / 1024) }'; }
    printf '| %s | %s | %s | %.2f s | %.2f s | %.3f | %s | %s | %s |\n' "$round" "$workload" "${order/ /, }" "$p" "$c" \
      "$(tail -n 1 "$work/$workload-ratio")" "$stored" "$(per_gib "$(cat "$work/$workload-plain-cpu-$round")")" \
      "$(per_gib "$(cat "$work/$workload-chunked-cpu-$round")")"
  done
done
echo
echo "load at end: $(uptime)"
echo
echo "| median of $rounds rounds | ratio | target |"
echo "|---|---|---|"
printf '| copy, uncompressed text: throughput chunked / plain | %.3f | ≥ 0.8 |\n' "$(median "$work/text-ratio")"
printf '| copy, uncompressed text: bytes stored chunked / plain | %.3f | ≤ 0.35 |\n' "$(median "$work/text-stored-ratio")"
printf '| copy, producer-zstd: throughput chunked / plain | %.3f | ≥ 0.95 |\n' "$(median "$work/zstd-ratio")"
printf '| copy, producer-zstd: bytes stored chunked / plain | %.3f | ≤ 1.01 |\n' "$(median "$work/zstd-stored-ratio")"
printf '| catch-up read at +%s ms (1 MiB fetches), text: throughput chunked / plain | %.3f | ≥ 0.9 |\n' "$latency" "$(median "$work/read-ratio")"
printf '| catch-up read at +%s ms, producer-zstd (nothing saved): throughput chunked / plain | %.3f | ≥ 0.9 |\n' "$latency" "$(median "$work/readz-ratio")"
echo
echo "| peak RSS of the process (median, MiB) | plain | chunked |"
echo "|---|---|---|"
for workload in text zstd read readz; do
  mib_of() { awk -v k="$(median "$1")" 'BEGIN { printf "%d", k / 1024 }'; }
  printf '| %s | %s | %s |\n' "$workload" "$(mib_of "$work/$workload-plain-rss")" "$(mib_of "$work/$workload-chunked-rss")"
done
