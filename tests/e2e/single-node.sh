#!/usr/bin/env bash
# One end-to-end scenario on a single-node KRaft cluster (combined broker + controller).
#   tests/e2e/single-node.sh <name> <tier: filesystem|s3|azure> <rlmm: topic-based|krabka|krabka-memory>
#                            <restart: yes|no> [<metrics: yes|no>] [<tier-read: yes|no>] [<import: yes|no>]
# Environment: E2E_KAFKA, E2E_RSM, E2E_PLUGIN_JAR (tests/e2e/lib/e2e.sh).
# Produces three topics (plain, zstd-compressed, transactional with aborts), waits until their closed
# segments are tiered and deleted locally, reads every record back from offset 0 and checks ListOffsets;
# optionally restarts the broker and reads again; then deleteRecords and retention must remove remote
# segments, and deleting a topic must remove its remote segments. With our durable manager (krabka) the
# cluster must have no __remote_log_metadata topic and the tier must hold the metadata. Fails on any mismatch and on a stack frame of the plugin's classes in the broker log.
# With metrics=yes (filesystem tier, our RSM) the broker runs Prometheus's JMX exporter agent with
# examples/prometheus-jmx-exporter.yaml, and the plugin's metrics read over HTTP must match the tier:
# segments and bytes copied, fetches after the read-back, deletes after retention (lib/metrics.py). On
# Kafka 4.1+ the broker runs KrabkaMonitorableRemoteStorageManager, so they come through the broker's
# own metrics (KIP-877); on 4.0 through the plugin's own JMX reporter.
# Metrics=yes also runs the tiering lifecycle at the end (io.krabka.e2e.Lifecycle, KIP-950): a new topic's copies
# disabled and enabled again, tiering disabled with remote.log.delete.on.disable (no segment left in the tier)
# and enabled again, every record read back at each step.
# With tier-read (and restart), while the broker is stopped, `krabka-tier export` and `replay` into a second
# cluster must yield the committed records the consumers read (tests/e2e/lib/tier-read.sh).
# With import (TopicBased RLMM, filesystem tier, our RSM, restart), the node then switches to our durable manager:
# stopped, __remote_log_metadata imported with the import tool, its configuration rewritten, started, every record
# read back (tests/e2e/lib/rlmm-import.sh); deleteRecords and retention then run on our manager.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
source "$(dirname "$0")/lib/tier-read.sh"
source "$(dirname "$0")/lib/rlmm-import.sh"
name="$1" tier="$2" rlmm="$3" restart="$4" metrics="${5:-no}" tier_read="${6:-no}" import="${7:-no}"

e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1

case "$tier" in
  filesystem) export E2E_TIER_DIR="$E2E_WORK/tier"; mkdir -p "$E2E_TIER_DIR"; tier_spec="fs:$E2E_TIER_DIR"; s3=()
      tier_source=(--local "$E2E_TIER_DIR") ;;
  s3) e2e_start_seaweedfs; export E2E_S3_PREFIX="e2e-$name"
      tier_spec="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX"; s3=(--s3-endpoint "$E2E_S3_ENDPOINT")
      tier_source=(--s3-bucket "$E2E_S3_BUCKET" --s3-endpoint "$E2E_S3_ENDPOINT" --path-style --prefix "$E2E_S3_PREFIX") ;;
  azure) e2e_start_azurite; export E2E_AZURE_PREFIX="e2e-$name"
      tier_spec="azure://$E2E_AZURE_CONTAINER/$E2E_AZURE_PREFIX"; s3=(--azure-endpoint "$E2E_AZURE_ENDPOINT")
      tier_source=() ;;
  *) echo "tier must be filesystem, s3 or azure" >&2; exit 2 ;;
esac
e2e_log "scenario $name: Kafka $KAFKA_VERSION, RSM $E2E_RSM on $tier, RLMM $rlmm, restart $restart"
if [[ $import == yes ]]; then
  [[ $rlmm == topic-based && $tier == filesystem && $E2E_RSM == krabka && $restart == yes ]] \
    || { echo "import=yes needs the topic-based RLMM, the filesystem tier, our RSM and restart=yes" >&2; exit 2; }
fi

metrics_fragment=() plugin_class=-
if [[ $metrics == yes ]]; then
  [[ $tier == filesystem && $E2E_RSM == krabka ]] || { echo "metrics=yes needs our RSM on the filesystem tier" >&2; exit 2; }
  metrics_port=$(free_port)
  metrics_url="http://127.0.0.1:$metrics_port/metrics"
  export E2E_JVM_EXTRA="-javaagent:$(e2e_prometheus_agent)=127.0.0.1:$metrics_port:$E2E_ROOT/examples/prometheus-jmx-exporter.yaml"
  if [[ $KAFKA_VERSION != 4.0.* ]]; then
    metrics_fragment=("$E2E_ROOT/tests/e2e/config/rsm-krabka-monitorable.properties")
    plugin_class=KrabkaMonitorableRemoteStorageManager
  fi
fi

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$(e2e_rsm_fragment "$tier")" ${metrics_fragment[@]+"${metrics_fragment[@]}"} \
  "$(e2e_rlmm_fragment "$rlmm" "$tier")" ${E2E_EXTRA_PROPERTIES:+"$E2E_EXTRA_PROPERTIES"}
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
e2e_log "broker up at $bootstrap (log: ${node#"$E2E_ROOT/"}/logs/server.log)"

topics="e2e-plain:plain,e2e-zstd:zstd,e2e-txn:txn"
records=()
[[ $tier_read == yes ]] && records=(--record-dir "$E2E_WORK/records")
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics "$topics" \
  --tier "$tier_spec" "${s3[@]}" "${records[@]}"
if [[ $tier == azure ]]; then
  # krabka-tier reads the container without the broker: every tiered topic, each copy with its last offset.
  listed="$E2E_WORK/tier-list.json"
  AZURE_STORAGE_ACCESS_KEY=$E2E_AZURE_KEY "${E2E_TIER_BIN:-$E2E_ROOT/target/debug/krabka-tier}" list \
    --azure-container "$E2E_AZURE_CONTAINER" --azure-account "$E2E_AZURE_ACCOUNT" \
    --azure-endpoint "$E2E_AZURE_ENDPOINT" --prefix "$E2E_AZURE_PREFIX" --json > "$listed"
  python3 - "$listed" <<'PY'
import json, sys
listing = json.load(open(sys.argv[1]))
topics = {p["topic"] for p in listing}
assert {"e2e-plain", "e2e-zstd", "e2e-txn"} <= topics, topics
for p in listing:
    for s in p["segments"]:
        d = s["details"]
        assert d["end_offset"] is not None and d["end_offset"] >= s["start_offset"], (p["topic"], s)
        assert not d["problems"], d["problems"]
copies = sum(len(p["segments"]) for p in listing)
print(f"krabka-tier list on Azurite: {len(listing)} partitions, {copies} segment copies, last offsets read")
PY
fi
if [[ $metrics == yes ]]; then
  python3 "$E2E_ROOT/tests/e2e/lib/metrics.py" copies "$metrics_url" "$E2E_TIER_DIR" "$plugin_class"
  segments_before=$(find "$E2E_TIER_DIR" -name '*.log' | wc -l)
fi

if [[ $restart == yes ]]; then
  e2e_log "restarting the broker"
  node_stop "$node"
  if [[ $tier_read == yes ]]; then
    e2e_tier_read "$topics" "$E2E_WORK/records" "${tier_source[@]}"
  fi
  node_start "$node"
  e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics"
fi

if [[ $import == yes ]]; then
  # rlmm-topic-based.properties makes __remote_log_metadata with 3 partitions.
  e2e_rlmm_import "$node" "$topics" 3
fi

if [[ $rlmm == krabka || $import == yes ]]; then
  # Our manager keeps metadata with the data: no __remote_log_metadata topic, records in the tier.
  e2e_client metadata-in-tier --bootstrap "$bootstrap" --topics "$topics" --tier "$tier_spec" "${s3[@]}"
fi

e2e_client delete-records,retention --bootstrap "$bootstrap" --topics e2e-plain:plain --tier "$tier_spec" "${s3[@]}"
if [[ $metrics == yes ]]; then
  python3 "$E2E_ROOT/tests/e2e/lib/metrics.py" deletes "$metrics_url" "$segments_before" "$E2E_TIER_DIR"
fi
# Deleting a topic deletes its remote segments through the plugin.
e2e_client delete-topic --bootstrap "$bootstrap" --topics e2e-zstd:zstd --tier "$tier_spec" "${s3[@]}"
if [[ $metrics == yes ]]; then
  # KIP-950's switches (copies off and on, tiering off with deletion and on again) on our plugin and
  # manager, after the metrics checks: the fs-krabka-rlmm scenario, on the oldest and the newest Kafka.
  e2e_client tiering-lifecycle --bootstrap "$bootstrap" --topics e2e-life:plain --tier "$tier_spec" "${s3[@]}"
fi
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
e2e_log "scenario $name passed"
