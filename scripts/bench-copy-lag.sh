#!/usr/bin/env bash
# Copy lag under sustained produce (issue 28): how long a closed segment waits before it is in the tier,
# through a real broker, with our plugin against Kafka's own LocalTieredStorage in the same run.
#
# Each round starts a fresh single-node broker (the newest Kafka) twice, once with our plugin and once with
# LocalTieredStorage (Kafka's reference plugin, copying to the broker's own disk, with Kafka's topic-based
# metadata manager), in alternating order. Each run creates one topic of KRABKA_BENCH_PARTITIONS partitions
# with remote storage on and produces to it for KRABKA_BENCH_SECONDS at KRABKA_BENCH_MB_PER_SEC (Kafka's
# ProducerPerformance, 1 KiB records, acks=1), then waits until every closed segment is copied.
#
# A segment's copy lag is from its roll (the broker's "Rolled new log segment" line for the segment after
# it) to the end of its copy (RemoteLogManager's "Copied <segment>.log to remote storage" line, logged once
# COPY_SEGMENT_FINISHED is stored). Both lines carry the broker's clock to the millisecond. Its two parts:
# waiting for the partition's copy task (until its "Copying <segment>.log" line) and copying. The figure is
# the median over the rounds of the ratio of the median lags, Kafka's plugin / ours (above 1: ours copies
# sooner), with the 95th percentiles and the produce rate each run reached beside it.
#
#   KRABKA_BENCH_TIER=s3             ours: s3 (SeaweedFS, our durable metadata manager in the same bucket)
#                                    or filesystem (our filesystem tier on the broker's disk, our durable
#                                    metadata manager beside it)
#   KRABKA_BENCH_LATENCY_MS=0        with s3: latency a toxiproxy adds to every answer of SeaweedFS
#   KRABKA_BENCH_MB_PER_SEC=50       produce rate (the producer's --throughput, in 1 KiB records)
#   KRABKA_BENCH_SECONDS=40          how long each run produces
#   KRABKA_BENCH_PARTITIONS=8        partitions of the topic
#   KRABKA_BENCH_SEGMENT_MIB=16      segment.bytes of the topic (Kafka's default is 1024: sized for this
#                                    machine, so segments roll every few seconds a partition)
#   KRABKA_BENCH_ROUNDS=3            rounds
#
# The broker runs with the JVM options Kafka's start script gives it (1 GiB heap, G1), both runs with the
# test suite's RLM task interval (remote.log.manager.task.interval.ms=500, tests/e2e/config). Not part of
# the test command: run it by hand on a quiet machine. Needs the plugin jar (built with gradle if missing),
# SeaweedFS (PyPI) and, with a latency, toxiproxy (`go install`, Go module proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/e2e/lib/e2e.sh
source tests/e2e/lib/e2e.sh

tier=${KRABKA_BENCH_TIER:-s3}
latency=${KRABKA_BENCH_LATENCY_MS:-0}
rate=${KRABKA_BENCH_MB_PER_SEC:-50}
seconds=${KRABKA_BENCH_SECONDS:-40}
partitions=${KRABKA_BENCH_PARTITIONS:-8}
segment_mib=${KRABKA_BENCH_SEGMENT_MIB:-16}
rounds=${KRABKA_BENCH_ROUNDS:-3}
[[ $tier == s3 || $tier == filesystem ]] || { echo "KRABKA_BENCH_TIER must be s3 or filesystem" >&2; exit 64; }
[[ $latency =~ ^[0-9]+$ ]] || { echo "KRABKA_BENCH_LATENCY_MS must be a whole number of milliseconds" >&2; exit 64; }
for value in "$rate" "$seconds" "$partitions" "$segment_mib" "$rounds"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "the KRABKA_BENCH_* values must be positive integers" >&2; exit 64; }
done

tools=${KRABKA_TOOLS:-$HOME/.cache/krabka-test}
toxiproxy=$tools/go/bin/server
if [[ $tier == s3 ]] && (( latency > 0 )) && [[ ! -x $toxiproxy ]]; then
  echo "installing toxiproxy v2.5.0 (go install)"
  GOBIN=$tools/go/bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0"
fi
[[ -f ${E2E_PLUGIN_JAR:-build/libs/krabka-remote-storage.jar} ]] || gradle --no-daemon -q jar

export E2E_KAFKA=${E2E_KAFKA:-newest}
export E2E_JVM_OPTS=${E2E_JVM_OPTS:-"-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent"}
e2e_setup_kafka
export E2E_WORK="$E2E_ROOT/build/bench/copy-lag"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
toxi_pid=
cleanup() {
  e2e_cleanup
  [[ -z $toxi_pid ]] || { kill "$toxi_pid" 2>/dev/null || true; wait "$toxi_pid" 2>/dev/null || true; }
}
trap cleanup EXIT
export E2E_RF=1

where="our filesystem tier on the broker's disk, our durable metadata manager"
if [[ $tier == s3 ]]; then
  e2e_start_seaweedfs
  where="our plugin on SeaweedFS, our durable metadata manager in the bucket"
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
  export E2E_S3_ENDPOINT="http://127.0.0.1:$proxy_port"
  where="$where, through toxiproxy (+${latency} ms)"
fi

kafka() { java -Xmx512m -cp "$KAFKA_HOME/libs/*" "$@"; }
records=$(( rate * seconds * 1024 ))

# lags LOG: one line per copied segment, "partition lag-ms waited-ms copying-ms", from a broker's
# server.log: each partition's rolls in order (the segment before each roll's new offset closed then), each
# copy's start (the lag's part spent waiting for the copy task) and end (the part spent copying: the
# storage manager's copy and the metadata manager's two updates).
lags() {
  awk '
    function ms(line,    d, t) {  # "[2026-12-08 01:02:03,456] ..." -> milliseconds of the day
      d = substr(line, 13, 12); split(d, t, /[:,]/)
      return ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + t[4]
    }
    /Rolled new log segment at offset/ {
      if (!match($0, /partition=[^,]*/)) next
      p = substr($0, RSTART + 10, RLENGTH - 10)
      closed[p, (p in last) ? last[p] : 0] = ms($0)
      match($0, /at offset [0-9]+/); last[p] = substr($0, RSTART + 10, RLENGTH - 10) + 0
      next
    }
    # "[RemoteLogManager=1 partition=<topic id>:lag-0] Copying 000...0.log to remote storage." when the
    # copy task takes the segment up, "Copied 000...0.log to remote storage with segment-id: ..." at its end.
    /Cop(ying|ied) [0-9]+\.log to remote storage/ {
      if (!match($0, /partition=[^] ,]*/)) next
      p = substr($0, RSTART + 10, RLENGTH - 10); sub(/^[^:]*:/, "", p)
      match($0, /Cop(ying|ied) [0-9]+\.log/); name = substr($0, RSTART, RLENGTH)
      base = substr(name, index(name, " ") + 1) + 0
      if (!((p, base) in closed)) next
      if (name ~ /^Copying/) { started[p, base] = ms($0); next }
      lag = ms($0) - closed[p, base]; if (lag < 0) lag += 86400000
      copy = ((p, base) in started) ? ms($0) - started[p, base] : -1; if (copy < -1) copy += 86400000
      print p, lag, lag - copy, copy
    }' "$1"
}
# percentile P: the P-th percentile (nearest rank) of the numbers on stdin.
percentile() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { if (NR) { i = int((NR * p + 99) / 100); print v[i < 1 ? 1 : i] } }'; }

# run NAME: a fresh broker with NAME's plugin (ours | kafka), the topic produced to, every closed segment
# copied; appends "median p95 segments MB/s" to $E2E_WORK/NAME.txt.
run() {
  local name=$1 node="$E2E_WORK/$1-$round" fragments=()
  if [[ $name == ours ]]; then
    export E2E_RSM=krabka E2E_TIER_DIR="$node/tier" E2E_S3_PREFIX="copy-lag-$round"
    fragments=("$(e2e_rsm_fragment "$tier")" "$(e2e_rlmm_fragment krabka "$tier")")
  else
    export E2E_RSM=kafka-local E2E_TIER_DIR="$node/tier"
    fragments=("$(e2e_rsm_fragment filesystem)" "$(e2e_rlmm_fragment topic-based filesystem)")
  fi
  e2e_select_plugin
  mkdir -p "$E2E_TIER_DIR"
  node_config "$node" 1 broker,controller self "$E2E_ROOT/tests/e2e/config/broker-test.properties" "${fragments[@]}"
  node_format "$node" "$(new_cluster_id)"
  node_start "$node"
  local bootstrap; bootstrap=$(node_bootstrap "$node")
  kafka org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create --topic lag \
    --partitions "$partitions" --replication-factor 1 --config remote.storage.enable=true \
    --config segment.bytes=$(( segment_mib * 1048576 )) --config local.retention.ms=5000 > /dev/null
  kafka org.apache.kafka.tools.ProducerPerformance --topic lag --num-records "$records" --record-size 1024 \
    --throughput $(( rate * 1024 )) --producer-props "bootstrap.servers=$bootstrap" acks=1 linger.ms=10 \
    batch.size=262144 > "$E2E_WORK/produce-$name-$round.txt"
  local produced; produced=$(tail -n 1 "$E2E_WORK/produce-$name-$round.txt" | sed -E 's/.*\(([0-9.]+) MB\/sec\).*/\1/')
  # Every segment rolled is copied: as many copies as rolls, within 5 minutes.
  local rolls copies waited=0
  while :; do
    rolls=$(grep 'partition=lag-' "$node/logs/server.log" | grep -c 'Rolled new log segment at offset' || true)
    copies=$(grep -E 'partition=[^ ]*:lag-[0-9]+\] Copied [0-9]+\.log to remote storage' "$node/logs/server.log" \
      | wc -l)
    (( copies >= rolls )) && break
    (( waited++ < 3000 )) || { echo "$name: $copies of $rolls segments copied after 5 min" >&2; exit 1; }
    sleep 0.1
  done
  node_stop "$node"
  lags "$node/logs/server.log" > "$E2E_WORK/lags-$name-$round.txt"
  local count median p95 waited copying
  count=$(wc -l < "$E2E_WORK/lags-$name-$round.txt")
  (( count > 0 )) || { echo "$name: no copy matched to its roll in $node/logs/server.log" >&2; exit 1; }
  median=$(cut -d' ' -f2 "$E2E_WORK/lags-$name-$round.txt" | percentile 50)
  p95=$(cut -d' ' -f2 "$E2E_WORK/lags-$name-$round.txt" | percentile 95)
  waited=$(cut -d' ' -f3 "$E2E_WORK/lags-$name-$round.txt" | percentile 50)
  copying=$(cut -d' ' -f4 "$E2E_WORK/lags-$name-$round.txt" | percentile 50)
  echo "$median $p95 $count $produced $waited $copying" >> "$E2E_WORK/$name.txt"
  e2e_log "round $round $name: $count segments, copy lag median $median ms (waiting $waited, copying $copying), p95 $p95 ms, produced at $produced MB/s"
  rm -rf "$node/data" "$node/tier"
}

: > "$E2E_WORK/ratios.txt"
for (( round = 1; round <= rounds; round++ )); do
  if (( round % 2 )); then order=(ours kafka); else order=(kafka ours); fi
  for name in "${order[@]}"; do run "$name"; done
  ratio=$(awk -v o="$(tail -n 1 "$E2E_WORK/ours.txt" | cut -d' ' -f1)" \
    -v k="$(tail -n 1 "$E2E_WORK/kafka.txt" | cut -d' ' -f1)" 'BEGIN { printf "%.3f", k / (o > 0 ? o : 1) }')
  echo "$ratio" >> "$E2E_WORK/ratios.txt"
done
median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column_median() { cut -d' ' -f"$2" "$E2E_WORK/$1.txt" | median_of; }
echo "copy lag (segment roll -> copy finished), ${partitions} partitions at ${rate} MB/s for ${seconds} s, ${segment_mib} MiB segments, ours: $where; baseline: Kafka's LocalTieredStorage with the topic-based metadata manager; medians of $rounds rounds:"
for name in ours kafka; do
  label=$name; [[ $name == kafka ]] && label=Kafka
  printf '  %-6s median lag %s ms (waiting for the copy task %s, copying %s), p95 %s ms, %s segments, produced at %s MB/s\n' \
    "$label:" "$(column_median "$name" 1)" "$(column_median "$name" 5)" "$(column_median "$name" 6)" \
    "$(column_median "$name" 2)" "$(column_median "$name" 3)" "$(column_median "$name" 4)"
done
echo "  Kafka's median lag / ours (above 1: ours copies sooner): $(median_of < "$E2E_WORK/ratios.txt")"
