#!/usr/bin/env bash
# What the native library logs reaches the broker's server.log (issue 13). Single-node KRaft, our RSM on
# an S3 endpoint where nothing listens (a free loopback port), with retries off: when the plugin opens the
# tier, the native side cannot check whether the bucket holds a write-once archive and logs a WARN from
# Rust (krabka-jni's backend), and the broker starts anyway.
#   tests/e2e/native-logs.sh <name>
# Environment: E2E_KAFKA, E2E_PLUGIN_JAR (tests/e2e/lib/e2e.sh).
# Checks, within seconds of the broker being up: server.log holds that WARN at WARN level under the
# logger io.krabka.native.krabka_jni.backend with the error's cause; no line of an io.krabka logger holds
# the S3 secret key; no stack frame of our classes.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1"

export E2E_RSM=krabka
e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1
# Nothing listens on a free port: every request is refused at once.
port=$(free_port)
export E2E_S3_ENDPOINT="http://127.0.0.1:$port" E2E_S3_BUCKET=tiered E2E_S3_PREFIX="e2e-$name"
export E2E_S3_ACCESS_KEY=e2e E2E_S3_SECRET_KEY="e2e-secret-$RANDOM$RANDOM$RANDOM"
no_retries="$E2E_WORK/no-retries.properties"
printf '%s\n' 'rsm.config.max.retries=0' 'rsm.config.retry.timeout.ms=1000' \
  'rsm.config.connect.timeout.ms=1000' >"$no_retries"
e2e_log "scenario $name: Kafka $KAFKA_VERSION, RSM krabka on an unreachable S3 endpoint $E2E_S3_ENDPOINT"

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$E2E_ROOT/tests/e2e/config/rsm-krabka-s3.properties" \
  "$E2E_ROOT/tests/e2e/config/rlmm-krabka-memory.properties" "$no_retries"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
log="$node/logs/server.log"
e2e_log "broker up (log: ${log#"$E2E_ROOT/"})"

# The drain thread forwards within a fraction of a second; allow 20 s for a slow machine.
warning='^\[[^]]*\] WARN cannot check whether the bucket holds a write-once archive; starting the plain tier error=.* \(io\.krabka\.native\.krabka_jni\.backend\)$'
waited=0
until grep -E -q "$warning" "$log"; do
  (( waited++ < 100 )) || {
    echo "no native WARN of io.krabka.native.krabka_jni.backend in server.log after 20s; native lines:" >&2
    grep -F 'io.krabka' "$log" | tail -n 20 >&2
    exit 1
  }
  sleep 0.2
done
e2e_log "native WARN in server.log: $(grep -E -m 1 "$warning" "$log" | cut -c 1-240)"
# grep -c reads all its input: a reader that stops at the first match (grep -q) could kill the writer with
# SIGPIPE under pipefail, and the failed pipeline would hide the very leak it found.
leaks=$(grep -F '(io.krabka' "$log" | grep -F -c -e "$E2E_S3_SECRET_KEY" || true)
if (( leaks > 0 )); then
  echo "$leaks line(s) of io.krabka loggers hold the S3 secret key" >&2
  exit 1
fi
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
e2e_log "scenario $name passed"
