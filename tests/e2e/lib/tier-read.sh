# shellcheck shell=bash
# Reading a tier without its broker (issue 15), sourced by the scenarios after tests/e2e/lib/e2e.sh.
#
#   E2E_TIER_BIN     the krabka-tier binary              default target/debug/krabka-tier
#   E2E_REPLAY_JAR   the replay jar (gradle tierReplayJar)  default build/libs/krabka-tier-replay.jar
#
# e2e_tier_read TOPICS RECORD_DIR SOURCE_ARGS...
#   With the broker stopped (its disk plays no part): `krabka-tier export` of every topic of TOPICS
#   (name:kind,...) must yield exactly the committed records the consumers read (RECORD_DIR, written by
#   `E2e verify --record-dir`), record by record; then a second, fresh single-node cluster is started, each
#   topic is replayed into it (the transactional one in two runs: up to offset 1000, then all, which must
#   resume after what the target holds), read back with read_committed and compared (keys, values,
#   headers, timestamps); a replay into a topic that holds other records must be refused (exit 4).
e2e_tier_read() {
  local topics="$1" records="$2"; shift 2
  local source=("$@") bin="${E2E_TIER_BIN:-$E2E_ROOT/target/debug/krabka-tier}"
  local jar="${E2E_REPLAY_JAR:-$E2E_ROOT/build/libs/krabka-tier-replay.jar}" out="$E2E_WORK/tier-read"
  [[ -x $bin ]] || { echo "krabka-tier binary $bin missing (cargo build -p krabka-tier)" >&2; return 1; }
  [[ -f $jar ]] || { echo "replay jar $jar missing (gradle tierReplayJar)" >&2; return 1; }
  mkdir -p "$out"
  local spec topic rc t0
  t0=$(date +%s)
  for spec in ${topics//,/ }; do
    topic=${spec%%:*}
    rc=0; "$bin" export "${source[@]}" --topic "$topic" >"$out/$topic.jsonl" 2>"$out/$topic.export.log" || rc=$?
    (( rc == 0 )) || { cat "$out/$topic.export.log" >&2; echo "krabka-tier export of $topic exited $rc" >&2; return 1; }
    python3 "$E2E_ROOT/tests/e2e/lib/compare-export.py" "$out/$topic.jsonl" "$records/$topic.tsv"
  done
  e2e_log "krabka-tier export: every committed record of $topics as the consumers read it ($(( $(date +%s) - t0 ))s)"

  local target="$E2E_WORK/replay-node" fragment="$E2E_WORK/replay-node.properties"
  grep -v '^remote\.' "$E2E_ROOT/tests/e2e/config/broker-test.properties" >"$fragment"
  node_config "$target" 1 broker,controller self "$fragment"
  node_format "$target" "$(new_cluster_id)"
  node_start "$target"
  local bootstrap; bootstrap=$(node_bootstrap "$target")
  e2e_log "replay target cluster at $bootstrap"
  # shellcheck disable=SC2206
  local replay=(java -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-}
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties"
    -De2e.log.file="$out/replay-client.log" -cp "$KAFKA_HOME/libs/*:$jar" io.krabka.remote.storage.TierReplay
    --bootstrap-servers "$bootstrap")
  e2e_client create-plain --bootstrap "$bootstrap" --topics "$topics"
  for spec in ${topics//,/ }; do
    topic=${spec%%:*}
    if [[ ${spec#*:} == txn ]]; then
      # An interrupted replay: a first run up to offset 1000, then the whole topic.
      "${replay[@]}" "${source[@]}" --topic "$topic" --to-offset 1000 >"$out/$topic.replay-1.out" 2>"$out/$topic.replay-1.log" \
        || { cat "$out/$topic.replay-1.log" >&2; return 1; }
    fi
    "${replay[@]}" "${source[@]}" --topic "$topic" >"$out/$topic.replay.out" 2>"$out/$topic.replay.log" \
      || { cat "$out/$topic.replay.log" >&2; return 1; }
    cat "$out/$topic.replay.out"
    if [[ ${spec#*:} == txn ]] && (( $(grep -c ' 0 already in the target' "$out/$topic.replay.out" || true) > 0 )); then
      echo "the second replay of $topic did not resume after the records of the first" >&2; return 1
    fi
  done
  e2e_client verify-replayed --bootstrap "$bootstrap" --topics "$topics" --record-dir "$records"
  # A target that holds other records is refused, and nothing is written to it.
  local first=${topics%%,*} second=${topics#*,}; first=${first%%:*}; second=${second%%[:,]*}
  rc=0; "${replay[@]}" "${source[@]}" --topic "$second" --target-topic "$first" \
    >"$out/mismatch.out" 2>"$out/mismatch.log" || rc=$?
  (( rc == 4 && $(grep -c 'is not a replay of this source' "$out/mismatch.log" || true) > 0 )) \
    || { cat "$out/mismatch.log" >&2; echo "replaying $second into $first exited $rc, expected 4" >&2; return 1; }
  e2e_client verify-replayed --bootstrap "$bootstrap" --topics "$first:plain" --record-dir "$records"
  node_stop "$target"
  e2e_log "krabka-tier replay: every topic read back from a fresh cluster as the consumers read it; a mismatched target refused ($(( $(date +%s) - t0 ))s in all)"
}
