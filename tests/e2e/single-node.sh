#!/usr/bin/env bash
# One end-to-end scenario on a single-node KRaft cluster (combined broker + controller).
#   tests/e2e/single-node.sh <name> <tier: filesystem|s3|azure> <rlmm: topic-based|krabka> <restart: yes|no>
# Environment: E2E_KAFKA, E2E_RSM, E2E_PLUGIN_JAR (tests/e2e/lib/e2e.sh).
# Produces three topics (plain, zstd-compressed, transactional with aborts), waits until their closed
# segments are tiered and deleted locally, reads every record back from offset 0 and checks ListOffsets;
# optionally restarts the broker and reads again; then deleteRecords and retention must remove remote
# segments. Fails on any mismatch and on a stack frame of the plugin's classes in the broker log.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1" tier="$2" rlmm="$3" restart="$4"

e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1

case "$tier" in
  filesystem) export E2E_TIER_DIR="$E2E_WORK/tier"; mkdir -p "$E2E_TIER_DIR"; tier_spec="fs:$E2E_TIER_DIR"; s3=() ;;
  s3) e2e_start_seaweedfs; export E2E_S3_PREFIX="e2e-$name"
      tier_spec="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX"; s3=(--s3-endpoint "$E2E_S3_ENDPOINT") ;;
  azure) e2e_start_azurite; export E2E_AZURE_PREFIX="e2e-$name"
      tier_spec="azure://$E2E_AZURE_CONTAINER/$E2E_AZURE_PREFIX"; s3=(--azure-endpoint "$E2E_AZURE_ENDPOINT") ;;
  *) echo "tier must be filesystem, s3 or azure" >&2; exit 2 ;;
esac
e2e_log "scenario $name: Kafka $KAFKA_VERSION, RSM $E2E_RSM on $tier, RLMM $rlmm, restart $restart"

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$(e2e_rsm_fragment "$tier")" \
  "$E2E_ROOT/tests/e2e/config/rlmm-$rlmm.properties" ${E2E_EXTRA_PROPERTIES:+"$E2E_EXTRA_PROPERTIES"}
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
e2e_log "broker up at $bootstrap (log: ${node#"$E2E_ROOT/"}/logs/server.log)"

topics="e2e-plain:plain,e2e-zstd:zstd,e2e-txn:txn"
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics "$topics" \
  --tier "$tier_spec" "${s3[@]}"

if [[ $restart == yes ]]; then
  e2e_log "restarting the broker"
  node_stop "$node"
  node_start "$node"
  e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics"
fi

e2e_client delete-records,retention --bootstrap "$bootstrap" --topics e2e-plain:plain --tier "$tier_spec" "${s3[@]}"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
e2e_log "scenario $name passed"
