#!/usr/bin/env bash
# End-to-end tests against real Apache Kafka brokers (oldest and newest 4.x from Maven Central), each
# started as an operator does: StorageTool format, then kafka.Kafka server.properties, plugin jar on the
# classpath. Scenarios (tests/e2e/*.sh):
#   both:   worm: a write-once archive on a SeaweedFS Object Lock bucket (refused deletes, verifier
#           binary and jar, an overwrite caught by --deep, the server refusing deletes of versions; on the
#           newest every segment stored compressed and encrypted, verified with no key);
#           fs-krabka-rlmm: filesystem tier + our durable RLMM with a restart (and the Prometheus agent:
#           metrics checked); s3-krabka-rlmm: SeaweedFS (S3) + our durable RLMM, its history in the
#           bucket, with a restart; every single-node scenario ends with deleteRecords, retention and a
#           topic deletion removing remote segments
#   newest: filesystem + Kafka's TopicBasedRemoteLogMetadataManager with a broker restart, then switched to
#           our durable manager (__remote_log_metadata imported with
#           io.krabka.remote.storage.tools.ImportTopicBasedMetadata, restarted, read back, deleteRecords,
#           retention and topic deletion on our manager); Azurite (Azure
#           Blob Storage, npm) + our in-memory RLMM; the two restart scenarios fs-topic-based and
#           s3-krabka-rlmm also read the tier while the broker is down: krabka-tier export, and replay
#           into a second cluster (tests/e2e/lib/tier-read.sh);
#           rf2-leader-killed: two brokers with RF 2 on SeaweedFS with our durable RLMM, the follower
#           rebuilding from the tier, then the leader killed with SIGKILL mid-copy (test-only jar) and the
#           follower taking over;
#           native-logs: a native WARN (S3 endpoint unreachable at start) reaches server.log under its
#           io.krabka.native.* logger, with no secret;
#           encrypted-s3 (and encrypted-fs on the oldest): compressed and encrypted segments (key pairs
#           from openssl) on SeaweedFS (the filesystem), read back, a key rotation across a restart,
#           krabka-tier rewrap and the old key dropped, krabka-tier export and replay given the key (s3),
#           an independent Python reader of the format, retention and topic deletion;
#           kms: the single-node flow on the filesystem with every segment encrypted under an AWS KMS key
#           (moto's server mode, PyPI), restart included;
#           panic-injection: a Rust panic injected into the copies of one topic (the test-only jar of
#           `gradle panicInjectionJar`) surfaces as RemoteStorageException while another topic keeps tiering;
#           chaos: 3 combined brokers/controllers and a fourth broker, RF 3, under kills -9 (one mid-copy,
#           one mid-delete), a reassignment, an active-controller restart and a rolling restart; every
#           acknowledged record read back once; krabka-tier fsck finds 0 orphans (tests/e2e/chaos.sh);
#           chaos-worm: the same on a write-once archive (Object Lock bucket, aws-rules front), then
#           krabka-worm-verify exits 0 over the bucket: every chain unbroken, unforked, in the archive log;
#           store-outage: SeaweedFS stopped for 30 s under a broker: local data served, copies and remote
#           reads held and resumed, nothing lost, one log line a failure kind (tests/e2e/store-outage.sh)
#   oldest: rf2: two brokers with RF 2 on the filesystem with our durable RLMM, the leader stopped
#           (Kafka's topic-based manager runs in the oldest's worm scenario)
# E2E_RSM=kafka-local runs the harness with Apache Kafka's own LocalTieredStorage instead of our jar
# (scenarios that need our classes are skipped). KRABKA_E2E_ONLY=<glob> selects scenarios by name.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

# selected NAME...: whether KRABKA_E2E_ONLY (a glob, default all) selects one of the scenarios.
selected() {
  local n
  # shellcheck disable=SC2053
  for n in "$@"; do [[ $n == ${KRABKA_E2E_ONLY:-*} ]] && return 0; done
  return 1
}
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need java openjdk-17-jdk-headless
need javac openjdk-17-jdk-headless
need mvn maven
need curl curl
need python3 python3
need npm npm

rsm="${E2E_RSM:-auto}"
if [[ $rsm == auto ]]; then
  if [[ -f build.gradle ]]; then rsm=krabka; else rsm=kafka-local; fi
fi
export E2E_RSM=$rsm
s3="${E2E_S3:-auto}"
if [[ $rsm == krabka ]]; then
  need unzip unzip
  # What the selected scenarios need and the caller did not give, built in one gradle run and one cargo
  # run (each start of gradle costs seconds, and each switch of target/release between the plugin's
  # library and the panic-injection one recompiles krabka-jni).
  gradle_tasks=() bins=()
  [[ -n ${E2E_PLUGIN_JAR:-} ]] || gradle_tasks+=(jar)
  # The replay jar of the tier-read checks.
  if [[ -z ${E2E_REPLAY_JAR:-} ]] && selected newest-fs-topic-based newest-s3-krabka-rlmm newest-encrypted-s3; then
    gradle_tasks+=(tierReplayJar)
  fi
  # The panic-injection scenarios need the test-only jar (E2E_PANIC_JAR, built unless given).
  if [[ -z ${E2E_PANIC_JAR:-} ]] && selected newest-panic-injection newest-rf2-leader-killed newest-chaos newest-chaos-worm; then
    gradle_tasks+=(panicInjectionJar)
  fi
  # The worm scenarios need the verifier jar and binary.
  if [[ -z ${E2E_VERIFIER_JAR:-} ]] && selected newest-worm oldest-worm; then
    gradle_tasks+=(verifierJar)
  fi
  if [[ -z ${E2E_VERIFIER_BIN:-} ]] && selected newest-worm oldest-worm newest-chaos-worm; then
    bins+=(-p krabka-worm-verify)
    export E2E_VERIFIER_BIN=$PWD/target/release/krabka-worm-verify
  fi
  # krabka-tier: fsck, export and replay of a tier without the broker, listing the Azure container.
  if [[ -z ${E2E_TIER_BIN:-} ]] && selected newest-worm oldest-worm newest-chaos newest-chaos-worm newest-azure-krabka-memory \
    newest-encrypted-s3 oldest-encrypted-fs newest-fs-topic-based newest-s3-krabka-rlmm; then
    bins+=(-p krabka-tier)
    export E2E_TIER_BIN=$PWD/target/release/krabka-tier
  fi
  if (( ${#gradle_tasks[@]} > 0 )); then
    need gradle gradle
    gradle --no-daemon -q "${gradle_tasks[@]}"
  fi
  # Release builds: their dependencies are the plugin library's (same features), already compiled.
  (( ${#bins[@]} == 0 )) || cargo build --release --locked -q "${bins[@]}"
  jar="${E2E_PLUGIN_JAR:-build/libs/krabka-remote-storage.jar}"
  # auto: the S3 scenario runs once the plugin has an S3 backend: its configuration knows s3.bucket and
  # its native library no longer refuses the object-store backends.
  if [[ $s3 == auto ]]; then
    # grep -c reads everything: with pipefail, grep -q could stop unzip with SIGPIPE and fail the pipe.
    knows=$(unzip -p "$jar" '*.class' 2>/dev/null | grep -a -c 's3\.bucket' || true)
    refuses=$(unzip -p "$jar" 'native/*' 2>/dev/null | grep -a -c 'backends are not in this build' || true)
    if (( knows > 0 && refuses == 0 )); then s3=yes; else s3=no; fi
  fi
else
  s3=no
  echo "70-kafka-e2e: using Apache Kafka's LocalTieredStorage as the RSM (E2E_RSM=$rsm)"
fi

scenarios=()
for kafka in newest oldest; do
  # Arguments of single-node.sh: tier, metadata manager, restart, metrics (Prometheus agent), tier-read.
  [[ $rsm == krabka ]] && scenarios+=("$kafka fs-krabka-rlmm tests/e2e/single-node.sh filesystem krabka yes yes")
  # tier-read (krabka-tier export and replay, broker stopped) on the newest only: it adds a cluster start.
  tier_read=no; [[ $kafka == newest && $rsm == krabka ]] && tier_read=yes
  # Kafka's topic-based manager with our storage manager: the newest here, the oldest in the worm scenario.
  # import (switch to our durable manager: __remote_log_metadata imported, broker restarted on it) on the
  # newest only, with our RSM.
  import=no; [[ $kafka == newest && $rsm == krabka ]] && import=yes
  [[ $kafka == newest || $rsm != krabka ]] \
    && scenarios+=("$kafka fs-topic-based tests/e2e/single-node.sh filesystem topic-based yes no $tier_read $import")
  [[ $s3 == yes ]] && scenarios+=("$kafka s3-krabka-rlmm tests/e2e/single-node.sh s3 krabka yes no $tier_read")
  [[ $kafka == newest && $s3 == yes ]] && scenarios+=("$kafka azure-krabka-memory tests/e2e/single-node.sh azure krabka-memory no")
  # Arguments of two-brokers.sh: tier, metadata manager, how the leader is lost.
  if [[ $rsm != krabka ]]; then
    scenarios+=("$kafka rf2 tests/e2e/two-brokers.sh filesystem topic-based stop")
  elif [[ $kafka == newest && $s3 == yes ]]; then
    scenarios+=("$kafka rf2-leader-killed tests/e2e/two-brokers.sh s3 krabka kill")
  else
    scenarios+=("$kafka rf2 tests/e2e/two-brokers.sh filesystem krabka stop")
  fi
  # The newest's archive keeps our durable metadata manager's history in the archive bucket; the oldest's
  # runs Kafka's topic-based manager.
  worm_rlmm=topic-based; [[ $kafka == newest ]] && worm_rlmm=krabka
  # The newest's archive stores its segments compressed and encrypted (the chunked format).
  worm_encrypted=no; [[ $kafka == newest ]] && worm_encrypted=yes
  [[ $s3 == yes ]] && scenarios+=("$kafka worm tests/e2e/worm.sh $worm_rlmm $worm_encrypted")
  if [[ $kafka == newest && $rsm == krabka ]]; then
    scenarios+=("$kafka panic-injection tests/e2e/panic-injection.sh")
    [[ $s3 == yes ]] && scenarios+=("$kafka encrypted-s3 tests/e2e/encrypted.sh s3 yes")
    scenarios+=("$kafka kms tests/e2e/kms.sh filesystem")
  fi
  [[ $kafka == newest && $s3 == yes ]] && scenarios+=("$kafka native-logs tests/e2e/native-logs.sh")
  # SeaweedFS stopped for 30 s under a running broker (tests/e2e/store-outage.sh).
  [[ $kafka == newest && $s3 == yes && $rsm == krabka ]] && scenarios+=("$kafka store-outage tests/e2e/store-outage.sh")
  # Three brokers (and a fourth) under kill -9, reassignment and restarts; fsck at the end (tests/e2e/chaos.sh).
  # The same as a write-once archive: krabka-worm-verify exits 0 over the whole bucket with no finding.
  [[ $kafka == newest && $s3 == yes && $rsm == krabka ]] \
    && scenarios+=("$kafka chaos tests/e2e/chaos.sh plain" "$kafka chaos-worm tests/e2e/chaos.sh worm")
  [[ $kafka == oldest && $rsm == krabka ]] && scenarios+=("$kafka encrypted-fs tests/e2e/encrypted.sh filesystem")
done
[[ $rsm == krabka && $s3 == no ]] && echo "70-kafka-e2e: SKIPPED s3-krabka-rlmm, rf2-leader-killed, worm, native-logs (the plugin jar has no S3 backend yet)"
[[ $rsm != krabka ]] && echo "70-kafka-e2e: SKIPPED fs-krabka-rlmm, panic-injection (need our plugin jar)"

# The selected scenarios, heaviest first (the chaos scenario's four brokers start while the other lane is
# light; its archive twin joins halfway), each "kafka name script args".
selected_scenarios=()
for s in "${scenarios[@]}"; do
  read -r kafka name _ <<<"$s"
  # shellcheck disable=SC2053
  [[ $kafka-$name == ${KRABKA_E2E_ONLY:-*} ]] || continue
  if [[ $name == chaos ]]; then selected_scenarios=("$s" ${selected_scenarios[@]+"${selected_scenarios[@]}"})
  elif [[ $name == chaos-worm ]]; then heavy_later=$s
  else selected_scenarios+=("$s"); fi
done
# The second chaos run starts once the first lane has done a few light scenarios, not beside the first.
if [[ -n ${heavy_later:-} ]]; then
  half=$(( (${#selected_scenarios[@]} + 1) / 2 ))
  selected_scenarios=("${selected_scenarios[@]:0:half}" "$heavy_later" "${selected_scenarios[@]:half}")
fi

# Scenarios run E2E_LANES at once (default 2): most of a scenario's time is waiting (brokers starting,
# retention and copy intervals, a consumer catching up), not CPU. Everything they would install on first
# use is installed here first, once; each scenario has its own directory, servers and free ports (the
# port ledger of tests/e2e/lib/broker.sh), and its output is printed whole when it ends.
lanes=${E2E_LANES:-2}
if (( ${#selected_scenarios[@]} > 0 )); then
  kafkas=$(for s in "${selected_scenarios[@]}"; do echo "${s%% *}"; done | sort -u | paste -sd' ')
  (
    source tests/e2e/lib/e2e.sh
    KAFKAS=$kafkas e2e_install_shared
  )
fi
mkdir -p build/e2e/runs
passed=0 failed=0 failed_names=()
declare -A running=()  # pid -> run name
declare -A began=()    # run name -> start time
# reap: waits for one scenario to end, prints its output and counts it.
reap() {
  local pid run status=0
  wait -n -p pid "${!running[@]}" || status=$?
  run=${running[$pid]}
  unset "running[$pid]"
  cat "build/e2e/runs/$run.out"
  if (( status == 0 )); then
    passed=$((passed + 1)); echo "70-kafka-e2e: $run passed in $(( $(date +%s) - began[$run] ))s"
  else
    failed=$((failed + 1)); failed_names+=("$run")
    echo "70-kafka-e2e: $run FAILED after $(( $(date +%s) - began[$run] ))s (logs: build/e2e/runs/$run)"
  fi
}
for s in ${selected_scenarios[@]+"${selected_scenarios[@]}"}; do
  read -r kafka name script args <<<"$s"
  run="$kafka-$name"
  while (( ${#running[@]} >= lanes )); do reap; done
  began[$run]=$(date +%s)
  echo "70-kafka-e2e: $run started"
  # shellcheck disable=SC2086
  # A bound per scenario: 10 minutes, 15 for the cluster scenarios (a slow shared machine stretches them).
  limit=600; [[ $name == chaos* ]] && limit=900
  E2E_KAFKA=$kafka timeout "$limit" "$script" "$run" $args >"build/e2e/runs/$run.out" 2>&1 &
  running[$!]=$run
done
while (( ${#running[@]} > 0 )); do reap; done
echo "70-kafka-e2e: Kafka $(grep -v '^#' tests/e2e/kafka-versions | awk '{print $1}' | paste -sd' '), RSM $rsm, $(( $(date +%s) - started ))s"
echo "e2e: $passed passed, $failed failed"
if (( failed > 0 )); then
  # Each failed scenario's end again, last: the whole output of each is above, and in build/e2e/runs/.
  for run in "${failed_names[@]}"; do
    echo "--- the last 30 lines of $run (build/e2e/runs/$run.out; its brokers' logs: build/e2e/runs/$run/)"
    tail -n 30 "build/e2e/runs/$run.out"
  done
  echo "failed scenarios: ${failed_names[*]}"
  exit 1
fi
