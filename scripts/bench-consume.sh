#!/usr/bin/env bash
# A consumer catching up a fully tiered topic through a real broker (issue 12, end to end): the newest Kafka
# with our plugin on SeaweedFS behind a toxiproxy latency proxy (KRABKA_BENCH_LATENCY_MS added to every
# answer, as a real object store's first byte), our durable metadata manager in the same bucket. Two topics
# hold the same volume of records: `tiered` (remote storage on, 16 MiB segments by default, local retention 1 s, so
# everything but the active segment is read from the tier) and `local` (no remote storage, read from the
# broker's disk). Kafka's own ConsumerPerformance reads each from the beginning with a new group; each round
# reads both, in alternating order. The figure is the median over the rounds of the ratio of the consumers'
# fetch rates (MB/s of fetching, rebalance excluded): tiered / local. The first round also stands alone: the
# read cache is cold then (later rounds find what the earlier ones left in it when the topic fits).
#
#   KRABKA_BENCH_MIB=256          megabytes produced to each topic
#   KRABKA_BENCH_ROUNDS=3         rounds
#   KRABKA_BENCH_SEGMENT_MIB=16   segment size of both topics (Kafka's default is 1024)
#   KRABKA_BENCH_FETCH_BYTES=1048576  the consumer's max.partition.fetch.bytes (ConsumerPerformance --fetch-size)
#   KRABKA_BENCH_LATENCY_MS=25    latency the proxy adds; 0: no proxy, the broker reaches SeaweedFS directly
#   KRABKA_BENCH_CACHE=on         off: the broker runs with rsm.config.fetch.cache.size.bytes=0
#   KRABKA_BENCH_BROKER_JVM=      more JVM options for the broker (both topics are read through it)
#   KRABKA_BENCH_PROPERTIES=      more broker properties, space-separated key=value (e.g.
#                                 rsm.config.fetch.cache.size.bytes=1073741824)
#   KRABKA_BENCH_TIER=s3          s3: our plugin on SeaweedFS through the latency proxy (the figure);
#                                 filesystem: our plugin's filesystem tier on the broker's disk, no proxy;
#                                 kafka-local: Kafka's own LocalTieredStorage on the broker's disk with the
#                                 topic-based metadata manager, no plugin of ours: the rate Kafka's remote-read
#                                 path itself allows on this machine, a ceiling for any plugin
#   KRABKA_BENCH_CPUS=shared      shared: every process on every CPU; split: SeaweedFS and the proxy on the
#                                 last CPU, everything else (broker, producers, consumers) on the others, as a
#                                 cloud's object store runs on machines of its own and charges the broker's
#                                 CPUs nothing (both topics are read with the same CPUs)
#
# The broker runs with the JVM options Kafka's own start script gives it (1 GiB heap, G1 with Kafka's pause
# target, both JIT compilers), and the consumer with both JIT compilers: the test suite's quick-start options
# (C1 only, 768 MiB heap) slow the broker's remote-read path, which runs more Java per byte than the local
# log's `sendfile`, and the consumer alike. E2E_JVM_OPTS and E2E_CLIENT_OPTS override them.
#
# Not part of the test command: run it by hand. Needs the plugin jar (built with gradle if missing), SeaweedFS
# (PyPI) and toxiproxy (`go install`, Go module proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/e2e/lib/e2e.sh
source tests/e2e/lib/e2e.sh

mib=${KRABKA_BENCH_MIB:-256}
rounds=${KRABKA_BENCH_ROUNDS:-3}
latency=${KRABKA_BENCH_LATENCY_MS:-25}
cache=${KRABKA_BENCH_CACHE:-on}
tier=${KRABKA_BENCH_TIER:-s3}
segment_mib=${KRABKA_BENCH_SEGMENT_MIB:-16}
fetch_bytes=${KRABKA_BENCH_FETCH_BYTES:-1048576}
cpus=${KRABKA_BENCH_CPUS:-shared}
[[ $latency =~ ^[0-9]+$ ]] || { echo "KRABKA_BENCH_LATENCY_MS must be a whole number of milliseconds" >&2; exit 64; }
for value in "$mib" "$rounds" "$segment_mib" "$fetch_bytes"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "the KRABKA_BENCH_* values must be positive integers" >&2; exit 64; }
done
[[ $cache == on || $cache == off ]] || { echo "KRABKA_BENCH_CACHE must be on or off" >&2; exit 64; }
[[ $tier == s3 || $tier == filesystem || $tier == kafka-local ]] \
  || { echo "KRABKA_BENCH_TIER must be s3, filesystem or kafka-local" >&2; exit 64; }
[[ $cpus == shared || $cpus == split ]] || { echo "KRABKA_BENCH_CPUS must be shared or split" >&2; exit 64; }
last_cpu=$(( $(nproc) - 1 ))
if [[ $cpus == split ]] && (( last_cpu < 1 )); then
  echo "KRABKA_BENCH_CPUS=split needs at least 2 CPUs" >&2; exit 64
fi
# on_cpus LIST: this shell (and so every process it starts from now on) runs on those CPUs only.
on_cpus() { [[ $cpus == shared ]] || taskset -pc "$1" $$ > /dev/null; }

tools=${KRABKA_TOOLS:-$HOME/.cache/krabka-test}
toxiproxy=$tools/go/bin/server
if [[ $tier == s3 ]] && (( latency > 0 )) && [[ ! -x $toxiproxy ]]; then
  echo "installing toxiproxy v2.5.0 (go install)"
  GOBIN=$tools/go/bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0"
fi
[[ -f ${E2E_PLUGIN_JAR:-build/libs/krabka-remote-storage.jar} ]] || gradle --no-daemon -q jar

export E2E_KAFKA=${E2E_KAFKA:-newest} E2E_RSM=krabka
[[ $tier == kafka-local ]] && E2E_RSM=kafka-local
export E2E_JVM_OPTS=${E2E_JVM_OPTS:-"-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent"}
export E2E_CLIENT_OPTS=${E2E_CLIENT_OPTS:-"-XX:TieredStopAtLevel=4 -Xmx512m"}
e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/bench/consume"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
toxi_pid=
cleanup() {
  e2e_cleanup
  [[ -z $toxi_pid ]] || { kill "$toxi_pid" 2>/dev/null || true; wait "$toxi_pid" 2>/dev/null || true; }
}
trap cleanup EXIT
export E2E_RF=1 E2E_TIER_DIR="$E2E_WORK/tier"
mkdir -p "$E2E_TIER_DIR"

on_cpus "$last_cpu"
if [[ $tier == s3 ]]; then
  e2e_start_seaweedfs
  export E2E_S3_PREFIX=bench-consume
  where="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX, SeaweedFS reached directly"
fi
if [[ $tier == s3 ]] && (( latency > 0 )); then
  api_port=$(free_port) proxy_port=$(free_port)
  "$toxiproxy" -host 127.0.0.1 -port "$api_port" > "$E2E_WORK/toxiproxy.log" 2>&1 &
  toxi_pid=$!
  waited=0
  until curl -sf -o /dev/null "http://127.0.0.1:$api_port/version"; do
    (( waited++ < 100 )) || { echo "toxiproxy not up after 20s" >&2; exit 1; }
    sleep 0.2
  done
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies" \
    -d "{\"name\":\"s3\",\"listen\":\"127.0.0.1:$proxy_port\",\"upstream\":\"${E2E_S3_ENDPOINT#http://}\"}"
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies/s3/toxics" \
    -d "{\"name\":\"latency\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$latency}}"
  # The broker reaches the bucket through the proxy.
  export E2E_S3_ENDPOINT="http://127.0.0.1:$proxy_port"
  where="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX through toxiproxy (+${latency} ms)"
fi
on_cpus "0-$(( last_cpu - 1 ))"
extra="$E2E_WORK/bench.properties"
{
  [[ $cache == on ]] || echo "rsm.config.fetch.cache.size.bytes=0"
  for property in ${KRABKA_BENCH_PROPERTIES:-}; do echo "$property"; done
} > "$extra"

# The plugin's metrics (Prometheus JMX exporter agent): what the read cache did, printed at the end. The
# example rules, plus the broker's own Fetch request timers (queue, local, purgatory, response), which the
# script reads before and after each consumer to tell where a tiered fetch's time goes.
metrics_port=$(free_port)
exporter="$E2E_WORK/prometheus-jmx-exporter.yaml"
sed 's/^includeObjectNames:$/&\n  - "kafka.network:type=RequestMetrics,request=Fetch,*"/' \
  "$E2E_ROOT/examples/prometheus-jmx-exporter.yaml" > "$exporter"
cat >> "$exporter" <<'RULES'
  - pattern: 'kafka.network<type=RequestMetrics, name=([A-Za-z]+), request=Fetch><>(Count|Mean)'
    name: bench_fetch_$1_$2
    type: GAUGE
RULES
export E2E_JVM_EXTRA="-javaagent:$(e2e_prometheus_agent)=127.0.0.1:$metrics_port:$exporter ${KRABKA_BENCH_BROKER_JVM:-}"
node="$E2E_WORK/node1"
case $tier in
  s3) fragments=("$(e2e_rsm_fragment s3)" "$(e2e_rlmm_fragment krabka s3)") ;;
  filesystem) fragments=("$(e2e_rsm_fragment filesystem)" "$(e2e_rlmm_fragment krabka filesystem)")
      where="our filesystem tier on the broker's disk" ;;
  kafka-local) fragments=("$(e2e_rsm_fragment filesystem)" "$(e2e_rlmm_fragment topic-based filesystem)")
      where="Kafka's LocalTieredStorage on the broker's disk, topic-based metadata" ;;
esac
node_config "$node" 1 broker,controller self "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "${fragments[@]}" "$extra"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
e2e_log "broker at $bootstrap, tier $where, read cache $cache, CPUs $cpus"

kafka() { java -Xmx512m -cp "$KAFKA_HOME/libs/*" "$@"; }
records=$(( mib * 1024 ))
for topic in tiered local; do
  configs=(--config segment.bytes=$(( segment_mib * 1048576 )))
  [[ $topic == tiered ]] && configs+=(--config remote.storage.enable=true --config local.retention.ms=1000)
  kafka org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create --topic "$topic" \
    --partitions 1 --replication-factor 1 "${configs[@]}" > /dev/null
  kafka org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$records" --record-size 1024 \
    --throughput -1 --producer-props "bootstrap.servers=$bootstrap" acks=1 linger.ms=20 batch.size=262144 \
    > "$E2E_WORK/produce-$topic.txt"
  e2e_log "produced $records records of 1 KiB to $topic: $(tail -n 1 "$E2E_WORK/produce-$topic.txt" | cut -d, -f2)"
done

# Tiered: every closed segment copied and deleted locally, so only the active segment is on the broker's disk.
waited=0
while :; do
  local_logs=$(find "$node/data/tiered-0" -maxdepth 1 -name '*.log' | wc -l)
  first=$(find "$node/data/tiered-0" -maxdepth 1 -name '*.log' -printf '%f\n' | sort | sed -n 1p)
  (( local_logs == 1 )) && [[ $first != 00000000000000000000.log ]] && break
  (( waited++ < 1800 )) || { echo "tiered not tiered after 15 min: $local_logs local segment(s)" >&2; exit 1; }
  sleep 0.5
done
e2e_log "tiered: every closed segment in the tier, the local log starts at offset $((10#${first%.log}))"

# counters: from one scrape of the broker's metrics, its Fetch request timers as "name count sum-of-ms"
# lines (sum = mean × count) and the read cache's chunk misses and the time fetches waited for them as a
# "misses N MS" line (0 0 without our plugin's metrics).
counters() {
  { curl -sf "http://127.0.0.1:$metrics_port/metrics" || true; } \
    | awk '/^bench_fetch_[A-Za-z]+_(count|mean)[ {]/ {
             split($1, part, "_"); name = part[3]; sub(/\{.*/, "", part[4])
             if (part[4] == "count") count[name] = $NF; else mean[name] = $NF
           }
           /^krabka_rsm_read_cache_misses_total[ {]/ { misses += $NF }
           /^krabka_rsm_read_cache_miss_wait_time_total[ {]/ { waited += $NF }
           END { for (name in count) printf "%s %s %.3f\n", name, count[name], count[name] * mean[name]
                 printf "misses %d %.3f\n", misses, waited }'
}

# cpu_ms PID...: the CPU time (user and system, in ms) each process has used so far, one line each (0 for
# none or one gone).
cpu_ms() {
  local pid hz; hz=$(getconf CLK_TCK)
  for pid in "$@"; do
    { [[ $pid != 0 ]] && awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$pid/stat" \
        2>/dev/null; } || echo 0
  done
}
# The processes whose CPU time each consumer costs: the broker, SeaweedFS and the proxy (0: not running).
watched=("$(cat "$node/pid")" "${E2E_WEED_PID:-0}" "${toxi_pid:-0}")

# consume TOPIC: the consumer's fetch rate in MB/s (ConsumerPerformance's fetch.MB.sec). Appends the mean
# of each of the broker's Fetch timers over this consumer's requests to $E2E_WORK/timers-TOPIC.txt, and the
# read cache's misses during it and the milliseconds fetches waited for them to $E2E_WORK/misses-TOPIC.txt,
# and the CPU time per MB of the broker, the consumer, SeaweedFS and the proxy to $E2E_WORK/cpu-TOPIC.txt.
consume() {
  local before after cpu_before cpu_after consumer_cpu TIMEFORMAT='%U %S'
  before=$(counters)
  cpu_before=$(cpu_ms "${watched[@]}")
  consumer_cpu=$({ time kafka org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" \
    --topic "$1" --messages "$records" --timeout 600000 --fetch-size "$fetch_bytes" \
    --group "bench-$1-$RANDOM$RANDOM" > "$E2E_WORK/consume.txt" 2> "$E2E_WORK/consume.err"; } 2>&1)
  cpu_after=$(cpu_ms "${watched[@]}")
  after=$(counters)
  # CPU milliseconds per MB consumed: broker, consumer, object store, proxy.
  paste <(echo "$cpu_before") <(echo "$cpu_after") \
    | awk -v mb="$mib" -v consumer="$consumer_cpu" '
        { used[NR] = $2 - $1 }
        END { split(consumer, c, " ")
              printf "%.2f %.2f %.2f %.2f\n", used[1] / mb, (c[1] + c[2]) * 1000 / mb, used[2] / mb, used[3] / mb }' \
    >> "$E2E_WORK/cpu-$1.txt"
  awk 'NR == FNR { count[$1] = $2; sum[$1] = $3; next }
       $1 == "misses" { printf "%d %.0f\n", $2 - count["misses"], $3 - sum["misses"] >> misses; next }
       $2 > count[$1] { printf "%s %d %.3f\n", $1, $2 - count[$1], ($3 - sum[$1]) / ($2 - count[$1]) }' \
    misses="$E2E_WORK/misses-$1.txt" <(echo "$before") <(echo "$after") >> "$E2E_WORK/timers-$1.txt"
  awk -F', *' '/^start\.time/ { for (i = 1; i <= NF; i++) if ($i == "fetch.MB.sec") col = i; next }
               col && !done { print $col; done = 1 }' "$E2E_WORK/consume.txt"
}

: > "$E2E_WORK/ratios.txt"
for (( round = 1; round <= rounds; round++ )); do
  if (( round % 2 )); then order=(tiered local); else order=(local tiered); fi
  declare -A rate=()
  for topic in "${order[@]}"; do rate[$topic]=$(consume "$topic"); done
  ratio=$(awk -v t="${rate[tiered]}" -v l="${rate[local]}" 'BEGIN { printf "%.3f", t / l }')
  echo "$ratio" >> "$E2E_WORK/ratios.txt"
  e2e_log "round $round (${order[*]}): tiered ${rate[tiered]} MB/s, local ${rate[local]} MB/s, ratio $ratio, read cache misses $(tail -n 1 "$E2E_WORK/misses-tiered.txt" | awk '{ printf "%d (waited %d ms)", $1, $2 }')"
done
median=$(sort -g "$E2E_WORK/ratios.txt" \
  | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "consumer catch-up, ${mib} MB in ${segment_mib} MiB segments, fetches of $fetch_bytes bytes, tier $where, read cache $cache, CPUs $cpus: tiered / local fetch rate, median of $rounds rounds: $median; first round (cold cache): $(sed -n 1p "$E2E_WORK/ratios.txt")"
# Where a Fetch request's time goes, per topic: the mean of each timer over the rounds (ms), and requests.
# With kafka-local the topic-based metadata manager's own consumers fetch from the same broker: their long
# polls count too, so there the timers say little.
for topic in tiered local; do
  awk -v topic="$topic" '{ n[$1] += $2; total[$1] += $2 * $3 }
    END { line = ""
          for (name in n) if (name ~ /timems$/) line = line sprintf(" %s %.2f", name, total[name] / n[name])
          printf "broker Fetch requests while the %s consumers ran (%d): mean ms per request:%s\n",
                 topic, n["totaltimems"], line }' "$E2E_WORK/timers-$topic.txt" 2>/dev/null || true
done
# What each MB read costs in CPU, per topic: the mean over the rounds. The consumer's is its whole process
# (the JVM's start and JIT compilation included); the others' are what they used while it ran.
for topic in tiered local; do
  awk -v topic="$topic" '{ for (i = 1; i <= 4; i++) sum[i] += $i }
    END { printf "CPU ms per MB while the %s consumers ran: broker %.2f, consumer %.2f, SeaweedFS %.2f, proxy %.2f\n",
                 topic, sum[1] / NR, sum[2] / NR, sum[3] / NR, sum[4] / NR }' "$E2E_WORK/cpu-$topic.txt"
done
curl -sf "http://127.0.0.1:$metrics_port/metrics" > "$E2E_WORK/metrics.txt" || true
echo "plugin counters after the rounds (both topics; only tiered reads reach the plugin):"
grep -E '^krabka_rsm_(fetch_(total|bytes_requested_total|bytes_served_total|first_byte_time_(avg|max))|read_cache_(hits|misses|miss_wait_time|gets|bytes_fetched|prefetched_bytes|prefetch_unread_bytes|warmed_objects)_total|index_fetch_total)[ {]' \
  "$E2E_WORK/metrics.txt" | sed 's/^/  /' || true
