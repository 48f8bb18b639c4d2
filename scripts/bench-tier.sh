#!/usr/bin/env bash
# Export throughput of `krabka-tier export` (no broker: the filesystem tier read directly) against reading
# the same topic with a consumer from a broker that serves it from the same tier (our plugin, every
# segment tiered and deleted locally). A real broker (newest Kafka 4.x of tests/e2e) tiers one topic of
# incompressible 1000-byte records; then each round runs both readers over the whole topic, the consumer
# first in odd rounds and the export first in even ones. The consumer is Kafka's own
# ConsumerPerformance (its elapsed time, JVM start excluded); the exports are timed as processes (JSON
# lines to /dev/null, and --format raw to a scratch directory). Throughput is the tier's log bytes of
# the topic over the time; prints the rounds and a Markdown table (median, min, max) with the ratio
# to the consumer.
#
#   KRABKA_BENCH_RECORDS=50000   records of 1000 bytes
#   KRABKA_BENCH_ROUNDS=5        rounds
#
# Not part of the test command: run it by hand. Needs the plugin jar (gradle jar).
set -euo pipefail
cd "$(dirname "$0")/.."
records=${KRABKA_BENCH_RECORDS:-50000}
rounds=${KRABKA_BENCH_ROUNDS:-5}
[[ $records =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] || {
  echo "KRABKA_BENCH_RECORDS and KRABKA_BENCH_ROUNDS must be positive integers" >&2
  exit 64
}
source tests/e2e/lib/e2e.sh
E2E_KAFKA=${E2E_KAFKA:-newest} E2E_RSM=krabka
e2e_setup_kafka
e2e_select_plugin
cargo build --release --locked -q -p krabka-tier
bin="${CARGO_TARGET_DIR:-target}/release/krabka-tier"
export E2E_WORK="$E2E_ROOT/build/e2e/runs/bench-tier"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1 E2E_TIER_DIR="$E2E_WORK/tier"
mkdir -p "$E2E_TIER_DIR"
node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$(e2e_rsm_fragment filesystem)" "$E2E_ROOT/tests/e2e/config/rlmm-krabka.properties"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
topic=bench-plain
E2E_CLIENT_OPTS="-De2e.records=$records" e2e_client create,produce,wait-tiered --bootstrap "$bootstrap" \
  --topics "$topic:plain" --tier "fs:$E2E_TIER_DIR" --timeout 900
bytes=$(find "$E2E_TIER_DIR" -path "*/$topic-0-*" -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { print s }')
e2e_log "$topic: $records records, $bytes bytes of logs in the tier"

consumer() {
  java -Xmx512m -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$E2E_WORK/consumer.log" -cp "$KAFKA_HOME/libs/*" org.apache.kafka.tools.ConsumerPerformance \
    --bootstrap-server "$bootstrap" --topic "$topic" --messages "$records" --timeout 120000 \
    --group "bench-$1" >"$E2E_WORK/consumer-$1.csv"
  # start.time, end.time, data.consumed.in.MB, MB.sec, ...: the elapsed seconds.
  python3 - "$E2E_WORK/consumer-$1.csv" "$records" <<'PY'
import datetime, sys
rows = [l.strip().split(", ") for l in open(sys.argv[1]) if l.strip()]
data = rows[-1]
fmt = "%Y-%m-%d %H:%M:%S:%f"
start, end = (datetime.datetime.strptime(t, fmt) for t in data[:2])
assert int(data[4]) == int(sys.argv[2]), data
print(f"{(end - start).total_seconds():.3f}")
PY
}
timed() {
  local t0 t1; t0=$(date +%s%N); "$@" || { echo "$* failed: $(cat "$E2E_WORK/export.log")" >&2; exit 1; }
  t1=$(date +%s%N)
  (( $(grep -c ": $records record(s) from" "$E2E_WORK/export.log" || true) == 1 )) \
    || { echo "$* did not export $records records: $(cat "$E2E_WORK/export.log")" >&2; exit 1; }
  python3 -c "print(f'{($t1 - $t0) / 1e9:.3f}')"
}
export_json() { "$bin" export --local "$E2E_TIER_DIR" --topic "$topic" >/dev/null 2>"$E2E_WORK/export.log"; }
export_raw() {
  rm -rf "$E2E_WORK/raw"
  "$bin" export --local "$E2E_TIER_DIR" --topic "$topic" --format raw --output-dir "$E2E_WORK/raw" 2>"$E2E_WORK/export.log"
}

results="$E2E_WORK/rounds.tsv"; : >"$results"
for (( r = 1; r <= rounds; r++ )); do
  if (( r % 2 == 1 )); then
    c=$(consumer "$r"); j=$(timed export_json); w=$(timed export_raw)
  else
    w=$(timed export_raw); j=$(timed export_json); c=$(consumer "$r")
  fi
  printf '%s\t%s\t%s\t%s\n' "$r" "$c" "$j" "$w" >>"$results"
  echo "round $r: consumer ${c}s, export (JSON) ${j}s, export (raw) ${w}s"
done
python3 - "$results" "$bytes" "$rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split("\t"))) for l in open(sys.argv[1])]
mb = int(sys.argv[2]) / 1e6
def mbs(col): return [mb / r[col] for r in rows]
consumer = mbs(1)
print(f"\n{mb:.1f} MB of logs, {sys.argv[3]} rounds, load {open('/proc/loadavg').read().split()[0]}\n")
print("| Reader | MB/s median | min | max | ratio to the consumer (median of rounds) |")
print("|---|---|---|---|---|")
for name, col in (("consumer from the broker (ConsumerPerformance)", 1), ("krabka-tier export, JSON lines", 2),
                  ("krabka-tier export --format raw", 3)):
    v = mbs(col)
    ratio = statistics.median(r[1] / r[col] for r in rows)
    print(f"| {name} | {statistics.median(v):.1f} | {min(v):.1f} | {max(v):.1f} | {ratio:.2f} |")
PY
node_stop "$node"
