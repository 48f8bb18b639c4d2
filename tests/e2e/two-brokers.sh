#!/usr/bin/env bash
# End-to-end scenario with replication factor 2: a controller node and brokers 2 and 3.
#   tests/e2e/two-brokers.sh <name> <tier: filesystem|s3> <rlmm: topic-based|krabka> <leader loss: stop|kill>
# Environment: E2E_KAFKA, E2E_RSM, E2E_PLUGIN_JAR (tests/e2e/lib/e2e.sh); with kill, E2E_PANIC_JAR. One tier
# (a directory or a SeaweedFS bucket) shared by both brokers; the metadata manager Kafka's topic-based one
# or our durable one (its history in the same tier).
# Broker 3 is stopped while data is produced to leader 2 and tiered; when it comes back its log ends
# below the leader's local log start, so it must rebuild its state from the tier (fetchIndex
# LEADER_EPOCH and PRODUCER_SNAPSHOT) and then catch up. Then leader 2 is lost and every record is
# read back from broker 3, tiered data included:
#   stop  leader 2 shuts down cleanly.
#   kill  leader 2 is killed with SIGKILL in the middle of a copy: both brokers run the test-only jar
#         (`gradle panicInjectionJar`), whose copies of topics named krabka-inject-stall* hold after the
#         tier wrote the segment and before the broker records COPY_SEGMENT_FINISHED, while the file
#         $KRABKA_INJECT_STALL_FILE exists. Broker 3 must take over: tier that topic itself, serve every
#         record of every topic, and its metadata manager must never show the dead leader's unfinished
#         segment as copied. Broker 2 then restarts after the crash and rejoins the ISR.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1" tier="${2:-filesystem}" rlmm="${3:-topic-based}" loss="${4:-stop}"

if [[ $loss == kill ]]; then
  export E2E_RSM=krabka
  export E2E_PLUGIN_JAR="${E2E_PANIC_JAR:-$E2E_ROOT/build/libs/krabka-remote-storage-panic-injection.jar}"
fi
e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=2
case "$tier" in
  filesystem) export E2E_TIER_DIR="$E2E_WORK/tier"; mkdir -p "$E2E_TIER_DIR"; tier_spec="fs:$E2E_TIER_DIR"; s3=() ;;
  s3) e2e_start_seaweedfs; export E2E_S3_PREFIX="e2e-$name"
      tier_spec="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX"; s3=(--s3-endpoint "$E2E_S3_ENDPOINT") ;;
  *) echo "tier must be filesystem or s3" >&2; exit 2 ;;
esac
e2e_log "scenario $name: Kafka $KAFKA_VERSION, RSM $E2E_RSM on $tier, RLMM $rlmm, brokers 2 and 3, leader loss: $loss"

fragments=("$E2E_ROOT/tests/e2e/config/broker-test.properties" "$(e2e_rsm_fragment "$tier")"
           "$(e2e_rlmm_fragment "$rlmm" "$tier")" ${E2E_EXTRA_PROPERTIES:+"$E2E_EXTRA_PROPERTIES"})
controller="$E2E_WORK/node1" b2="$E2E_WORK/node2" b3="$E2E_WORK/node3"
node_config "$controller" 1 controller self "${fragments[@]}"
quorum="127.0.0.1:$(cat "$controller/controller.port")"
node_config "$b2" 2 broker "$quorum" "${fragments[@]}"
node_config "$b3" 3 broker "$quorum" "${fragments[@]}"
cluster=$(new_cluster_id)
node_format_all "$cluster" "$controller" "$b2" "$b3"
export KRABKA_INJECT_STALL_FILE="$E2E_WORK/stall"
node_start "$controller"
node_start_all "$b2" "$b3"
bootstrap2=$(node_bootstrap "$b2") bootstrap3=$(node_bootstrap "$b3")
e2e_log "controller and brokers 2 ($bootstrap2) and 3 ($bootstrap3) up"

topics="e2e-plain:plain,e2e-zstd:zstd,e2e-txn:txn"
e2e_client create,await-isr --bootstrap "$bootstrap2" --topics "$topics" --replicas 2,3
e2e_log "stopping broker 3 before any record is produced"
node_stop "$b3"
e2e_client await-isr,produce,wait-tiered,offsets --bootstrap "$bootstrap2" --topics "$topics" \
  --replicas 2 --tier "$tier_spec" "${s3[@]}"

e2e_log "starting broker 3 again: it must catch up from the tier"
node_start "$b3"
e2e_client await-isr --bootstrap "$bootstrap2" --topics "$topics" --replicas 2,3
for spec in ${topics//,/ }; do
  topic=${spec%%:*}
  first=$(find "$b3/data/$topic-0/" -maxdepth 1 -regextype posix-extended -regex '.*/[0-9]{20}\.log' -printf '%f\n' \
    | sort | sed -n 1p)
  if [[ -z $first || $first == 00000000000000000000.log ]]; then
    echo "broker 3 replicated $topic from offset 0 (first local segment: ${first:-none}), not from the tier" >&2
    exit 1
  fi
  e2e_log "broker 3 holds $topic from offset $((10#${first%.log})) on: earlier offsets only in the tier"
done
# TierStateMachine logs "Updated the epoch cache from remote tier" once fetchIndex(LEADER_EPOCH) was applied,
# then (at DEBUG) "Built the leader epoch cache and producer snapshots from remote tier" once the file of
# fetchIndex(PRODUCER_SNAPSHOT) was written and loaded.
for spec in ${topics//,/ }; do
  topic=${spec%%:*}
  for line in "Updated the epoch cache from remote tier" "Built the leader epoch cache and producer snapshots from remote tier"; do
    if ! grep -q "$line.*Topic: $topic; Partition: 0;" "$b3/logs/server.log"; then
      echo "broker 3 did not rebuild $topic-0 from the tier: no \"$line\" in its log" >&2
      exit 1
    fi
  done
  e2e_log "broker 3 rebuilt $topic-0 from the tier: leader epochs (LEADER_EPOCH) and producer state (PRODUCER_SNAPSHOT)"
done

if [[ $loss == kill ]]; then
  stalled=krabka-inject-stall-plain
  touch "$KRABKA_INJECT_STALL_FILE"
  e2e_client create,await-isr,produce --bootstrap "$bootstrap2" --topics "$stalled:plain" --replicas 2,3
  # The stall's WARN comes through the native log bridge once leader 2's first copy of the topic holds.
  waited=0
  until (( $(grep -c "injected stall: copy of .*$stalled" "$b2/logs/server.log" || true) > 0 )); do
    (( waited++ < 600 )) || { echo "leader 2 never started copying $stalled" >&2; exit 1; }
    sleep 0.2
  done
  stalled_id=$(grep -h -m 1 -o "injected stall: copy of segment [A-Za-z0-9_-]*" "$b2/logs/server.log" | awk '{print $NF}')
  e2e_log "leader 2 is mid-copy of $stalled, segment $stalled_id (written to the tier, not recorded as finished): kill -9"
  node_kill "$b2"
  rm -f "$KRABKA_INJECT_STALL_FILE"
  topics="$topics,$stalled:plain"
  e2e_client await-isr --bootstrap "$bootstrap3" --topics "$topics" --replicas 3
  e2e_client wait-tiered --bootstrap "$bootstrap3" --topics "$stalled:plain" --tier "$tier_spec" "${s3[@]}"
  # Broker 3 copied the segment again under its own id: its metadata manager, reading the dead leader's
  # history, did not count the unfinished copy as tiered. The dead leader's files stay as an orphan.
  e2e_client tier-list --bootstrap "$bootstrap3" --topics "$stalled:plain" --tier "$tier_spec" "${s3[@]}" \
    > "$E2E_WORK/stalled-files.txt"
  stalled_start=$(grep -o "[0-9]\{20\}-$stalled_id\.log" "$E2E_WORK/stalled-files.txt" | cut -c 1-20 || true)
  [[ -n $stalled_start ]] || { echo "the stalled copy $stalled_id is not in the tier:" >&2; cat "$E2E_WORK/stalled-files.txt" >&2; exit 1; }
  copies=$(grep -c "/$stalled_start-.*\.log\$" "$E2E_WORK/stalled-files.txt" || true)
  (( copies == 2 )) || { echo "expected the unfinished copy and broker 3's copy of offset $((10#$stalled_start)), found $copies:" >&2
                         cat "$E2E_WORK/stalled-files.txt" >&2; exit 1; }
  e2e_log "broker 3 leads everything and tiered $stalled itself, the segment at offset $((10#$stalled_start)) copied again"
else
  e2e_log "stopping leader 2: broker 3 must serve everything, tiered data included"
  node_stop "$b2"
fi
e2e_client await-isr,offsets,verify --bootstrap "$bootstrap3" --topics "$topics" --replicas 3
[[ $rlmm == krabka ]] && e2e_client metadata-in-tier --bootstrap "$bootstrap3" --topics "$topics" --tier "$tier_spec" "${s3[@]}"
if [[ $loss == kill ]]; then
  e2e_log "starting broker 2 again after its crash: it must recover and rejoin"
  node_start "$b2"
  e2e_client await-isr,offsets --bootstrap "$bootstrap3" --topics "$topics" --replicas 2,3
fi
for n in "$b3" "$b2" "$controller"; do node_check_log "$n" "$E2E_PLUGIN_FRAMES"; done
nodes_stop_all
e2e_log "scenario $name passed"
