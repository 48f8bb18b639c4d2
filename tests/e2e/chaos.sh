#!/usr/bin/env bash
# Chaos on a cluster: tests/e2e/chaos.sh <name> [<tier: plain|worm>]
#
# Nodes 1, 2 and 3 are brokers and controllers at once (a quorum of 3 voters, combined, to keep the run to
# 4 JVMs on 2 cores; Kafka recommends separate controllers in production), node 4 is a broker only. The tier
# is a SeaweedFS bucket with our storage manager and our durable metadata manager (its history in the same
# bucket). Topics, replication factor 3, min.insync.replicas=2, segments rolled every 4 s so copies run all the
# time, local retention 1 s (reads from offset 0 come from the tier):
#   chaos-plain, chaos-zstd   10 partitions each, written by Kafka's VerifiableProducer (acks=all, idempotent;
#                             producer zstd on chaos-zstd)
#   chaos-txn                 10 partitions, transactions of 20 records (Chaos txn-produce)
#   krabka-inject-stall-chaos 1 partition, VerifiableProducer; the test-only plugin jar holds its copies (after
#                             the tier write, before COPY_SEGMENT_FINISHED) and its deletes (after the tier delete,
#                             before DELETE_SEGMENT_FINISHED) while a file exists, so a leader can be killed there
# While the producers run, a driver, seeded (KRABKA_CHAOS_SEED, default random, logged), kills -9 the leader of a random partition 5 times, kills the leader mid-copy once and mid-delete once,
# reassigns 6 partitions to replica sets with broker 4 (ReassignPartitionsCommand) and restarts the active
# controller; afterwards every broker is restarted in turn. Then:
#   - every acknowledged record is read back exactly once, at its acknowledged offset, from offset 0 (the tier),
#     read_committed; every committed transaction's records in commit order; ListOffsets earliest 0;
#   - retention deletes chaos-plain's remote segments; chaos-zstd and the injection topic are deleted;
#   - krabka-tier fsck with the cluster's live topics finds 0 orphans, 0 missing objects and no history of a
#     deleted topic (the dead leader's unfinished copy is gone: Kafka deleted it through the plugin);
#   - no broker log holds a stack frame of io.krabka or a Rust panic.
# With tier=worm the bucket is a write-once archive instead (an Object Lock bucket in COMPLIANCE mode behind the
# aws-rules front, every broker signing with the archive key, one archive log), with our durable manager's
# history in it: the same kills, reassignment and restarts (the mid-delete kill becomes a random one: the archive
# refuses deletes, so there is no delete to interrupt), every acknowledged record read back, then every broker
# killed and krabka-worm-verify must exit 0 over the whole bucket: each partition's chain continues across every
# leader change, never forks and leaves no offset uncovered, every seal has its leaf in the archive log, and
# the only notices are what kills leave (objects of an unsealed copy, a leaf claimed twice).
# The seed and the timeline are in build/e2e/runs/<name>/chaos-timeline.txt.
# KRABKA_CHAOS_BREAK=drop-segment deletes one tiered log of chaos-plain before the read-back: the scenario must
# then fail (the check that it can).
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1" tier="${2:-plain}"
[[ $tier == plain || $tier == worm ]] || { echo "tier must be plain or worm, got $tier" >&2; exit 2; }
seed="${KRABKA_CHAOS_SEED:-$(( $(date +%s) % 32768 ))}"

export E2E_RSM=krabka
export E2E_PLUGIN_JAR="${E2E_PANIC_JAR:-$E2E_ROOT/build/libs/krabka-remote-storage-panic-injection.jar}"
e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=3
e2e_start_seaweedfs
export E2E_S3_PREFIX="e2e-$name"
bucket=$E2E_S3_BUCKET
fragments=("$E2E_ROOT/tests/e2e/config/broker-test.properties" "$(e2e_rsm_fragment s3)" "$(e2e_rlmm_fragment krabka s3)")
if [[ $tier == worm ]]; then
  e2e_start_aws_rules_front
  venv=$(e2e_weed_venv)
  export E2E_S3_WORM_BUCKET=archive
  bucket=$E2E_S3_WORM_BUCKET
  aws=("$venv/bin/aws" --endpoint-url "$E2E_S3_ENDPOINT" --region us-east-1 --output json)
  "${aws[@]}" s3api create-bucket --bucket "$bucket" --object-lock-enabled-for-bucket >/dev/null
  "${aws[@]}" s3api put-object-lock-configuration --bucket "$bucket" --object-lock-configuration \
    '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"COMPLIANCE","Days":1}}}'
  # One signing key for every broker (brokers with keys of their own would list each other in worm.trusted.keys).
  export E2E_WORM_KEY="$E2E_WORK/worm-signing-key.pem" E2E_WORM_KEY_ID=e2e-chaos-archive
  openssl genpkey -algorithm ed25519 -out "$E2E_WORM_KEY" 2>/dev/null
  public_key=$(openssl pkey -in "$E2E_WORM_KEY" -pubout -outform DER | tail -c 32 | od -An -tx1 | tr -d ' \n')
  [[ ${#public_key} == 64 ]] || { echo "could not derive the public key" >&2; exit 1; }
  verifier_bin="${E2E_VERIFIER_BIN:-$E2E_ROOT/target/debug/krabka-worm-verify}"
  [[ -x $verifier_bin ]] || { echo "$verifier_bin missing (cargo build -p krabka-worm-verify)" >&2; exit 1; }
  fragments=("$E2E_ROOT/tests/e2e/config/broker-test.properties"
             "$E2E_ROOT/tests/e2e/config/rsm-krabka-s3-worm.properties"
             "$E2E_ROOT/tests/e2e/config/rlmm-krabka-s3-worm.properties")
fi
tier_bin="${E2E_TIER_BIN:-$E2E_ROOT/target/debug/krabka-tier}"
[[ -x $tier_bin ]] || { echo "krabka-tier binary $tier_bin missing (cargo build -p krabka-tier)" >&2; exit 1; }
timeline="$E2E_WORK/chaos-timeline.txt"
RANDOM=$seed
started=$(date +%s)
# Logs an event of the timeline (seconds since the start) to the run's log and to the timeline file.
event() { local line; line="t+$(( $(date +%s) - started ))s $*"; echo "$line" >>"$timeline"; e2e_log "chaos: $line"; }
event "seed $seed (rerun with KRABKA_CHAOS_SEED=$seed)"
e2e_log "scenario $name: Kafka $KAFKA_VERSION, 3 combined nodes and broker 4, SeaweedFS ($tier tier), our RSM and RLMM"

# The cluster: static voters 1, 2, 3.
nodes=()
for id in 1 2 3; do
  node_config "$E2E_WORK/node$id" "$id" broker,controller voters "${fragments[@]}"
  nodes+=("$E2E_WORK/node$id")
done
node_config "$E2E_WORK/node4" 4 broker voters "${fragments[@]}"
nodes+=("$E2E_WORK/node4")
voters="1@127.0.0.1:$(cat "$E2E_WORK/node1/controller.port"),2@127.0.0.1:$(cat "$E2E_WORK/node2/controller.port"),3@127.0.0.1:$(cat "$E2E_WORK/node3/controller.port")"
for node in "${nodes[@]}"; do
  sed -i "s|^controller.quorum.bootstrap.servers=.*|controller.quorum.voters=$voters|" "$node/server.properties"
done
cluster=$(new_cluster_id)
for node in "${nodes[@]}"; do
  # shellcheck disable=SC2086
  java -XX:TieredStopAtLevel=1 ${E2E_CDS:-} \
    -Dlog4j2.configurationFile="$E2E_LIB_DIR/../config/log4j2-client.properties" \
    -De2e.log.file="$node/logs/format-log4j.log" -cp "$(kafka_cp)" kafka.tools.StorageTool format -t "$cluster" \
    -c "$node/server.properties" >"$node/logs/format.log" 2>&1 || { cat "$node/logs/format.log" >&2; exit 1; }
done
export KRABKA_INJECT_STALL_FILE="$E2E_WORK/stall-copy" KRABKA_INJECT_DELETE_STALL_FILE="$E2E_WORK/stall-delete"
export E2E_JVM_OPTS="-Xms128m -Xmx512m -XX:+UseG1GC -XX:TieredStopAtLevel=1"
node_start_all "${nodes[@]}"
bootstrap="$(node_bootstrap "$E2E_WORK/node1"),$(node_bootstrap "$E2E_WORK/node2"),$(node_bootstrap "$E2E_WORK/node3")"
chaos() {
  # shellcheck disable=SC2086
  java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-} \
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$E2E_WORK/client.log" \
    -cp "$KAFKA_HOME/libs/*:$E2E_CLIENT_CLASSES" io.krabka.e2e.Chaos "$1" --bootstrap "$bootstrap" "${@:2}"
}
kafka_tool() {
  # shellcheck disable=SC2086
  java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-} \
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$E2E_WORK/client.log" -cp "$KAFKA_HOME/libs/*" "$@"
}
# As kafka_tool, for a tool run in the background: `exec` makes $! the JVM itself, so it gets the signals.
background_tool() {
  # shellcheck disable=SC2086
  exec java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-} \
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$E2E_WORK/client.log" -cp "$KAFKA_HOME/libs/*" "$@"
}
e2e_log "cluster up: voters $voters, brokers $bootstrap and $(node_bootstrap "$E2E_WORK/node4")"

stall=krabka-inject-stall-chaos
chaos create --topics chaos-plain,chaos-zstd,chaos-txn --partitions 10
chaos create --topics "$stall" --partitions 1
verified=chaos-plain,chaos-zstd,chaos-txn

# Producers, bounded in time (records / throughput).
# VerifiableProducer sets retries=0 unless told otherwise; an idempotent producer retries.
idempotent='enable.idempotence=true\nacks=all\nretries=2147483647\nmax.in.flight.requests.per.connection=5\ndelivery.timeout.ms=120000\n'
printf "${idempotent}compression.type=zstd\n" >"$E2E_WORK/zstd.properties"
printf "$idempotent" >"$E2E_WORK/plain.properties"
producers=()
prefix=0
for spec in chaos-plain:plain chaos-zstd:zstd "$stall:plain"; do
  topic=${spec%%:*}; prefix=$(( prefix + 1 ))
  background_tool org.apache.kafka.tools.VerifiableProducer --bootstrap-server "$bootstrap" --topic "$topic" \
    --acks -1 --throughput 300 --max-messages -1 --value-prefix "$prefix" \
    --command-config "$E2E_WORK/${spec##*:}.properties" >"$E2E_WORK/acked-$topic.jsonl" 2>"$E2E_WORK/producer-$topic.log" &
  producers+=($!)
done
verifiable=("${producers[@]}")
chaos txn-produce --topic chaos-txn --seconds 900 --stop-file "$E2E_WORK/stop-producing" \
  --committed "$E2E_WORK/committed-chaos-txn.txt" >"$E2E_WORK/producer-chaos-txn.log" 2>&1 &
producers+=($!)
sleep 3
for pid in "${producers[@]}"; do
  kill -0 "$pid" 2>/dev/null || { echo "a producer exited at once; see $E2E_WORK/producer-*.log" >&2; tail -n 5 "$E2E_WORK"/producer-*.log >&2; exit 1; }
done
event "producers started: VerifiableProducer on chaos-plain, chaos-zstd, $stall (300/s each), transactions on chaos-txn"

node_of() { echo "$E2E_WORK/node$1"; }
# Kills -9 node $1 (a leader), waits $2 s, starts it again and waits until it is up.
kill_and_restart() {
  local id="$1" pause="$2"
  node_kill "$(node_of "$id")"
  event "kill -9 node $id ($3)"
  sleep "$pause"
  node_start "$(node_of "$id")"
  event "node $id started again"
}
random_kill() {
  local topics=(chaos-plain chaos-zstd chaos-txn) topic partition leader
  topic=${topics[$(( RANDOM % 3 ))]}; partition=$(( RANDOM % 10 ))
  leader=$(chaos leader --topic "$topic" --partition "$partition" | tail -n 1)
  [[ $leader =~ ^[1-4]$ ]] || { event "no leader of $topic-$partition to kill ($leader)"; return 0; }
  kill_and_restart "$leader" $(( 1 + RANDOM % 4 )) "leader of $topic-$partition"
}
# Holds the injection topic's next $1 (copy or delete) with file $2 and kills -9 whichever node reaches it (its
# leader, wherever leadership moved meanwhile).
stalled_kill() {
  local action="$1" file="$2" waited=0 node="" n
  touch "$file"
  while [[ -z $node ]]; do
    for n in 1 2 3 4; do
      grep -q "injected stall: $action of .*$stall" "$(node_of "$n")/logs/server.log" 2>/dev/null && node=$n
    done
    [[ -n $node ]] && break
    (( waited++ < 900 )) || { rm -f "$file"; echo "no leader of $stall reached a $action in 180 s" >&2; return 1; }
    sleep 0.2
  done
  kill_and_restart "$node" 3 "leader of $stall, in the middle of a $action: the tier did its part, the broker was not told"
  rm -f "$file"
}

sleep 8
random_kill
stalled_kill copy "$KRABKA_INJECT_STALL_FILE"
random_kill
# Reassignment: 6 partitions onto replica sets with broker 4.
cat >"$E2E_WORK/reassign.json" <<EOF
{"version":1,"partitions":[
 {"topic":"chaos-plain","partition":0,"replicas":[4,2,3]},{"topic":"chaos-plain","partition":1,"replicas":[1,4,3]},
 {"topic":"chaos-zstd","partition":2,"replicas":[1,2,4]},{"topic":"chaos-zstd","partition":3,"replicas":[4,3,1]},
 {"topic":"chaos-txn","partition":4,"replicas":[2,4,1]},{"topic":"chaos-txn","partition":5,"replicas":[3,1,4]}]}
EOF
kafka_tool org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$bootstrap" \
  --reassignment-json-file "$E2E_WORK/reassign.json" --execute >"$E2E_WORK/reassign.log" 2>&1
event "reassignment of 6 partitions to replica sets with broker 4 started"
random_kill
if [[ $tier == plain ]]; then
  # Retention on the injection topic, with its deletes held: kill the leader mid-delete.
  chaos set --topic "$stall" --config retention.ms=15000 >/dev/null
  stalled_kill delete "$KRABKA_INJECT_DELETE_STALL_FILE"
  chaos set --topic "$stall" --config retention.ms=-1 >/dev/null
else
  random_kill
fi
active=$(kafka_tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$bootstrap" describe --status \
  | sed -n 's/^LeaderId:[[:space:]]*//p')
[[ $active =~ ^[1-3]$ ]] || { echo "no active controller found ($active)" >&2; exit 1; }
node_stop "$(node_of "$active")"; event "active controller node $active stopped"
node_start "$(node_of "$active")"; event "node $active started again"
random_kill
# The producers run as long as the driver: VerifiableProducer stops on SIGTERM once its sends are answered,
# the transactional producer after its current transaction.
touch "$E2E_WORK/stop-producing"
for pid in "${verifiable[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
for pid in "${producers[@]}"; do wait "$pid" || true; done
grep -q '"name":"shutdown_complete"' "$E2E_WORK/acked-chaos-plain.jsonl" \
  || { echo "VerifiableProducer of chaos-plain did not shut down cleanly" >&2; tail -n 5 "$E2E_WORK/producer-chaos-plain.log" >&2; exit 1; }
event "producers stopped"
# Whether all 6 moved partitions are reassigned (the tool's output goes to a file, then is read whole).
reassigned() {
  kafka_tool org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$bootstrap" \
    --reassignment-json-file "$E2E_WORK/reassign.json" --verify >"$E2E_WORK/reassign-verify.log" 2>&1 || true
  (( $(grep -c "^Reassignment of partition .* is completed" "$E2E_WORK/reassign-verify.log" || true) == 6 ))
}
waited=0
until reassigned; do
  (( waited++ < 120 )) || { echo "the reassignment did not complete:" >&2; cat "$E2E_WORK/reassign-verify.log" >&2; exit 1; }
  sleep 1
done
event "reassignment completed"
chaos await-in-sync --topics "$verified,$stall" --timeout 240
for node in "${nodes[@]}"; do
  node_stop "$node"; node_start "$node"
  chaos await-in-sync --topics "$verified,$stall" --timeout 240 >/dev/null
  event "rolling restart: $(basename "$node") restarted, every partition in sync again"
done
sleep 10
chaos tiered --topics "$verified"

if [[ ${KRABKA_CHAOS_BREAK:-} == drop-segment ]]; then
  python3 - "${E2E_S3_DIRECT_ENDPOINT:-$E2E_S3_ENDPOINT}" "$bucket" "$E2E_S3_PREFIX" <<'PY'
import sys, boto3
endpoint, bucket, prefix = sys.argv[1:]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
logs = sorted(o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/chaos-plain-")
              for o in page.get("Contents", []) if o["Key"].endswith(".log"))
s3.delete_object(Bucket=bucket, Key=logs[0])
print(f"KRABKA_CHAOS_BREAK: deleted {logs[0]}")
PY
  event "broken on purpose: one tiered log of chaos-plain deleted"
fi

chaos verify --topic chaos-plain --acked "$E2E_WORK/acked-chaos-plain.jsonl"
chaos verify --topic chaos-zstd --acked "$E2E_WORK/acked-chaos-zstd.jsonl"
chaos verify --topic chaos-txn --acked "$E2E_WORK/committed-chaos-txn.txt" --txn true
chaos verify --topic "$stall" --acked "$E2E_WORK/acked-$stall.jsonl" --from-log-start true
event "every acknowledged record read back"

if [[ $tier == plain ]]; then
  # Retention and topic deletion, then the tier must hold nothing unaccounted for.
  chaos set --topic chaos-plain --config retention.ms=1000 >/dev/null
  chaos await-remote-gone --topic chaos-plain --timeout 240
  chaos delete-topics --topics "chaos-zstd,$stall" --tier "s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX" \
    --s3-endpoint "$E2E_S3_ENDPOINT"
  event "retention emptied chaos-plain's tier; chaos-zstd and $stall deleted, nothing of them left in the tier"
  chaos live-topics --out "$E2E_WORK/live-topics.txt" >/dev/null
  fsck=("$tier_bin" fsck --s3-bucket "$E2E_S3_BUCKET" --s3-endpoint "$E2E_S3_ENDPOINT" --path-style
        --prefix "$E2E_S3_PREFIX" --live-topics "$E2E_WORK/live-topics.txt")
  rc=0; "${fsck[@]}" >"$E2E_WORK/fsck.txt" 2>&1 || rc=$?
  cat "$E2E_WORK/fsck.txt"
  (( rc == 0 )) || { echo "krabka-tier fsck exited $rc" >&2; exit 1; }
  grep -q "^orphans: 0$" "$E2E_WORK/fsck.txt" && grep -q "^missing: 0$" "$E2E_WORK/fsck.txt" \
    || { echo "krabka-tier fsck found orphans or missing objects" >&2; exit 1; }
  event "krabka-tier fsck: 0 orphans, 0 missing, no history of a deleted topic"
else
  # Nothing is produced any more and everything is tiered; the brokers publish the archive log's checkpoint
  # every second (worm.log.checkpoint.interval.ms). Stopping them cleanly one by one would hang on the lost
  # controller quorum, so after a quiet spell they are killed, which the archive must take as well.
  sleep 5
  for node in "${nodes[@]}"; do node_kill "$node"; done
  event "every broker killed after 5 quiet seconds"
  rc=0
  # It reads SeaweedFS directly: the aws-rules front checks writes, and going through its Python made the
  # verifier's reads of some 700 manifests and their objects take over a minute.
  "$verifier_bin" --s3-bucket "$bucket" --s3-endpoint "${E2E_S3_DIRECT_ENDPOINT:-$E2E_S3_ENDPOINT}" --path-style --prefix "$E2E_S3_PREFIX" \
    --key-id "$E2E_WORM_KEY_ID" --public-key "$public_key" --json >"$E2E_WORK/verify.json" 2>"$E2E_WORK/verify.err" || rc=$?
  (( rc == 0 )) || { echo "krabka-worm-verify exited $rc:" >&2; head -c 4000 "$E2E_WORK/verify.json" >&2; cat "$E2E_WORK/verify.err" >&2; exit 1; }
  summary=$(python3 - "$E2E_WORK/verify.json" "$stall" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["outcome"] == "verified", report["outcome"]
partitions = report["report"]["partitions"]
findings = report["report"]["findings"] + [f for p in partitions for f in p["findings"]]
# Notices only: objects a killed leader wrote before it sealed (the archive cannot delete them), and a seal
# whose leaf a killed broker claimed again after a restart. Anything else fails.
notices = {"orphan", "leaf_duplicate"}
unexpected = [f for f in findings if f["kind"] not in notices]
assert not unexpected, f"findings: {unexpected[:5]}"
counts = {kind: sum(1 for f in findings if f["kind"] == kind) for kind in sorted(notices)}
chains = {(p["topic"], p["partition"]): p for p in partitions}
expected = [(t, n) for t in ("chaos-plain", "chaos-zstd", "chaos-txn") for n in range(10)] + [(sys.argv[2], 0)]
missing = [f"{t}-{n}" for t, n in expected if not (chains.get((t, n)) or {}).get("tip")]
assert not missing, f"no signed chain for {missing}"
forks = [f"{p['topic']}-{p['partition']}" for p in partitions if any(e.get("detour_of") for e in p["epochs"])]
assert not forks, f"chains with detours (forks): {forks}"
gaps = {f"{p['topic']}-{p['partition']}": p["gaps"] for p in partitions if p["gaps"]}
assert not gaps, f"offsets no manifest covers: {gaps}"
manifests = sum(p["manifests"] for p in partitions)
log = report["report"]["log"]
assert log is not None and log["newest"] is not None, "no archive log checkpoint"
assert log["pending"] == 0 and log["leaves"] >= manifests, log
print(f"{len(partitions)} partition chains unbroken and unforked, {manifests} manifests; archive log of {log['leaves']} leaves, "
      f"every seal in it; notices: {counts}")
PY
  )
  event "krabka-worm-verify: exit 0, $summary"
fi

for node in "${nodes[@]}"; do
  node_check_log "$node" "$E2E_PLUGIN_FRAMES"
  if grep -q "panicked at" "$node/logs/server.log" "$node/logs/stdout.log" 2>/dev/null; then
    echo "$(basename "$node"): a Rust panic in its log" >&2; exit 1
  fi
done
# The checks are done; a controlled shutdown of four nodes would only cost time (the rolling restart above
# shut each down cleanly once).
[[ $tier == worm ]] || for node in "${nodes[@]}"; do node_kill "$node"; done
E2E_NODES=()
event "passed"
e2e_log "scenario $name passed (timeline: $timeline)"
