# shellcheck shell=bash
# Switching a node from Kafka's TopicBasedRemoteLogMetadataManager to our durable manager (issue 14), sourced
# by the scenarios after tests/e2e/lib/e2e.sh. Needs our plugin jar (E2E_PLUGIN_CP) and a filesystem tier.
#
# e2e_rlmm_import NODE TOPICS METADATA_PARTITIONS
#   The switch-over of docs/metadata.md, as an operator runs it: the broker is stopped; its server.properties
#   gets tests/e2e/config/rlmm-krabka.properties in place of rlmm-topic-based.properties; the import tool
#   (io.krabka.remote.storage.tools.ImportTopicBasedMetadata, in the plugin jar) reads __remote_log_metadata from
#   the node's log directory into the tier directory, with that server.properties as its configuration, and must
#   report every tiered partition imported; a second run must write nothing; the tier directory must then hold
#   metadata records. The broker starts on our manager, and every record of TOPICS (name:kind,...) must read
#   back from offset 0 with the right ListOffsets; then __remote_log_metadata is deleted with Kafka's TopicCommand.
#   The scenario's later steps (deleteRecords, retention) then run on our manager, without the old topic.
e2e_rlmm_import() {
  local node="$1" topics="$2" partitions="$3" out="$E2E_WORK/rlmm-import" t0
  t0=$(date +%s)
  mkdir -p "$out"
  node_stop "$node"
  node_replace_fragment "$node" "$E2E_ROOT/tests/e2e/config/rlmm-topic-based.properties" \
    "$E2E_ROOT/tests/e2e/config/rlmm-krabka.properties"
  # shellcheck disable=SC2206
  local import=(java -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-}
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties"
    -De2e.log.file="$out/import-log4j.log" -cp "$KAFKA_HOME/libs/*:$E2E_PLUGIN_CP"
    io.krabka.remote.storage.tools.ImportTopicBasedMetadata --log-dir "$node/data"
    --config "$node/server.properties" --metadata-partitions "$partitions")
  local run rc tiered
  tiered=$(echo "${topics//,/ }" | wc -w)
  for run in 1 2; do
    rc=0; "${import[@]}" >"$out/run-$run.out" 2>"$out/run-$run.err" || rc=$?
    cat "$out/run-$run.out"
    (( rc == 0 )) || { cat "$out/run-$run.err" >&2; echo "FAIL: import run $run exited $rc" >&2; return 1; }
  done
  # Every topic's partition imported, segments in the store; the second run found everything there.
  (( $(grep -c "^partitions: $tiered imported, 0 deleted" "$out/run-1.out" || true) == 1 )) \
    || { echo "FAIL: the import did not report $tiered partitions imported" >&2; return 1; }
  (( $(grep -c -E '^segments: [1-9][0-9]* in the store' "$out/run-1.out" || true) == 1 )) \
    || { echo "FAIL: the import reported no segment" >&2; return 1; }
  (( $(grep -c -E '^events: [1-9][0-9]* imported, 0 already in the store' "$out/run-1.out" || true) == 1 )) \
    || { echo "FAIL: the first import run imported nothing, or found events already there" >&2; return 1; }
  (( $(grep -c -E '^events: 0 imported, [1-9][0-9]* already in the store' "$out/run-2.out" || true) == 1 )) \
    || { echo "FAIL: the second import run wrote events again" >&2; return 1; }
  [[ -n $(find "$E2E_TIER_DIR/remote-log-metadata" -path '*/log/*' -type f) ]] \
    || { echo "FAIL: no metadata record in the tier directory after the import" >&2; return 1; }
  e2e_log "__remote_log_metadata imported into the tier directory, a rerun wrote nothing ($(( $(date +%s) - t0 ))s)"

  node_start "$node"
  (( $(grep -c 'Configured krabka remote log metadata manager: durable' "$node/logs/server.log" || true) > 0 )) \
    || { echo "FAIL: the broker did not start with our durable manager" >&2; return 1; }
  local bootstrap; bootstrap=$(node_bootstrap "$node")
  e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics"
  # The old topic is not needed any more: it is deleted as docs/metadata.md says, and the cluster goes on without it.
  # shellcheck disable=SC2206
  local topic_tool=(java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-}
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties"
    -De2e.log.file="$out/topic-tool-log4j.log" -cp "$KAFKA_HOME/libs/*" org.apache.kafka.tools.TopicCommand
    --bootstrap-server "$bootstrap")
  "${topic_tool[@]}" --delete --topic __remote_log_metadata >"$out/delete-topic.out" 2>&1 \
    || { cat "$out/delete-topic.out" >&2; echo "FAIL: __remote_log_metadata could not be deleted" >&2; return 1; }
  "${topic_tool[@]}" --list >"$out/topics.out" 2>&1 || { cat "$out/topics.out" >&2; return 1; }
  (( $(grep -c '^__remote_log_metadata$' "$out/topics.out" || true) == 0 )) \
    || { echo "FAIL: __remote_log_metadata is still listed after its deletion" >&2; return 1; }
  e2e_log "broker restarted on our durable manager: every record read back from the tier; __remote_log_metadata deleted ($(( $(date +%s) - t0 ))s in all)"
}
