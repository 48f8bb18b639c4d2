#!/usr/bin/env bash
# The main demo: builds the plugin jar, starts a single-node Apache Kafka broker (newest 4.x, from Maven
# Central) with krabka-remote-storage on the filesystem tier, produces records, waits until they are
# tiered and gone from the broker's local disk, reads them back from offset 0 (so from the remote tier)
# and compares every record, then stops the broker. Prints what happened in a few lines.
#   scripts/run-demo.sh
# The metadata manager is ours, durable, keeping its history in the tier directory (no Kafka topic);
# KRABKA_DEMO_RLMM=topic-based uses Kafka's TopicBased one instead.
# E2E_PLUGIN_JAR=<jar> uses a jar built elsewhere; E2E_RSM=kafka-local runs the same demo with Apache
# Kafka's own LocalTieredStorage.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/e2e/lib/e2e.sh

for tool in java:openjdk-17-jdk-headless javac:openjdk-17-jdk-headless mvn:maven python3:python3; do
  command -v "${tool%%:*}" >/dev/null && continue
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq "${tool##*:}" >/dev/null
  else
    echo "run-demo: ${tool%%:*} is required (Debian package ${tool##*:})" >&2; exit 1
  fi
done
if [[ ${E2E_RSM:-krabka} == krabka && -z ${E2E_PLUGIN_JAR:-} ]]; then
  command -v gradle >/dev/null || { [[ $(id -u) == 0 ]] && apt-get update -qq && apt-get install -y -qq gradle >/dev/null; } \
    || { echo "run-demo: gradle is required (Debian package gradle)" >&2; exit 1; }
  echo "building the plugin jar (gradle jar)"
  gradle --no-daemon -q jar
fi
export E2E_RSM=${E2E_RSM:-krabka}
E2E_KAFKA=newest e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/demo"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1 E2E_TIER_DIR="$E2E_WORK/tier"

node="$E2E_WORK/broker"
rlmm_default=topic-based
[[ $E2E_RSM == krabka ]] && rlmm_default=krabka # ours needs our jar
rlmm="${KRABKA_DEMO_RLMM:-$rlmm_default}"
node_config "$node" 1 broker,controller self tests/e2e/config/broker-test.properties \
  "$(e2e_rsm_fragment filesystem)" "tests/e2e/config/rlmm-$rlmm.properties"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
rsm_class=$(grep '^remote.log.storage.manager.class.name=' "$node/server.properties" | cut -d= -f2)
rlmm_class=$(grep '^remote.log.metadata.manager.class.name=' "$node/server.properties" | cut -d= -f2)
echo "Kafka $KAFKA_VERSION broker on $(node_bootstrap "$node") with $rsm_class and $rlmm_class, tier ${E2E_TIER_DIR#"$PWD/"}"
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$(node_bootstrap "$node")" \
  --topics demo:plain --tier "fs:$E2E_TIER_DIR"
echo "  in the tier: $(find "$E2E_TIER_DIR" -name '*.log' | wc -l) segments, e.g. $(find "$E2E_TIER_DIR" -name '*.log' | sort | sed -n 1p | sed "s|$E2E_TIER_DIR/||")"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES" >/dev/null
echo "broker stopped; its log is ${node#"$PWD/"}/logs/server.log"
