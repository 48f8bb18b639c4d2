#!/usr/bin/env bash
# End-to-end scenario with replication factor 2: a controller node and brokers 2 and 3.
#   tests/e2e/two-brokers.sh <name>
# Environment: E2E_KAFKA, E2E_RSM, E2E_PLUGIN_JAR (tests/e2e/lib/e2e.sh). Filesystem tier shared by both
# brokers, Kafka's TopicBasedRemoteLogMetadataManager.
# Broker 3 is stopped while data is produced to leader 2 and tiered; when it comes back its log ends
# below the leader's local log start, so it must rebuild its state from the tier (fetchIndex
# LEADER_EPOCH and PRODUCER_SNAPSHOT) and then catch up. Then leader 2 is stopped and every record is
# read back from broker 3, tiered data included.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1"

e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=2 E2E_TIER_DIR="$E2E_WORK/tier"
mkdir -p "$E2E_TIER_DIR"
tier_spec="fs:$E2E_TIER_DIR"
e2e_log "scenario $name: Kafka $KAFKA_VERSION, RSM $E2E_RSM on filesystem, RLMM topic-based, brokers 2 and 3"

fragments=("$E2E_ROOT/tests/e2e/config/broker-test.properties" "$(e2e_rsm_fragment filesystem)"
           "$E2E_ROOT/tests/e2e/config/rlmm-topic-based.properties" ${E2E_EXTRA_PROPERTIES:+"$E2E_EXTRA_PROPERTIES"})
controller="$E2E_WORK/node1" b2="$E2E_WORK/node2" b3="$E2E_WORK/node3"
node_config "$controller" 1 controller self "${fragments[@]}"
quorum="127.0.0.1:$(cat "$controller/controller.port")"
node_config "$b2" 2 broker "$quorum" "${fragments[@]}"
node_config "$b3" 3 broker "$quorum" "${fragments[@]}"
cluster=$(new_cluster_id)
node_format_all "$cluster" "$controller" "$b2" "$b3"
node_start "$controller"
node_start_all "$b2" "$b3"
bootstrap2=$(node_bootstrap "$b2") bootstrap3=$(node_bootstrap "$b3")
e2e_log "controller and brokers 2 ($bootstrap2) and 3 ($bootstrap3) up"

topics="e2e-plain:plain,e2e-zstd:zstd,e2e-txn:txn"
e2e_client create,await-isr --bootstrap "$bootstrap2" --topics "$topics" --replicas 2,3
e2e_log "stopping broker 3 before any record is produced"
node_stop "$b3"
e2e_client await-isr,produce,wait-tiered,offsets --bootstrap "$bootstrap2" --topics "$topics" \
  --replicas 2 --tier "$tier_spec"

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

e2e_log "stopping leader 2: broker 3 must serve everything, tiered data included"
node_stop "$b2"
e2e_client await-isr,offsets,verify --bootstrap "$bootstrap3" --topics "$topics" --replicas 3
for n in "$b3" "$b2" "$controller"; do node_check_log "$n" "$E2E_PLUGIN_FRAMES"; done
nodes_stop_all
e2e_log "scenario $name passed"
