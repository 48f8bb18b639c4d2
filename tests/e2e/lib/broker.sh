# shellcheck shell=bash
# Kafka node lifecycle for the end-to-end tests and the demo, sourced by bash scripts.
#
# Every node is started the way an operator starts Kafka from its jars:
#   java -cp <kafka libs>:<plugin> kafka.tools.StorageTool format -t <cluster id> -c server.properties ...
#   java -cp <kafka libs>:<plugin> kafka.Kafka server.properties
# on loopback ports picked free at run time, logging to <node>/logs/server.log. Nodes started here are
# stopped when the calling script exits (trap), newest first so that brokers shut down while their
# controller is still up.
#
# Inputs (environment):
#   KAFKA_HOME        a directory made by scripts/fetch-kafka.sh (libs/ holds the broker classpath)
#   E2E_PLUGIN_CP     classpath entries for the tiered-storage plugin (our jar, or Kafka's test jar)
#   E2E_WORK          scratch directory of this run
#   E2E_JVM_OPTS      optional JVM options for the broker processes
#   E2E_JVM_EXTRA     more JVM options for the broker processes, after those (e.g. a -javaagent)
#   E2E_CDS           JVM options mapping a class archive of KAFKA_HOME's libs (tests/e2e/lib/e2e.sh)
# Placeholders @NAME@ in property fragments are replaced with the value of the variable E2E_NAME.

E2E_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
E2E_NODES=()

e2e_log() { printf '[e2e %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# Prints free TCP ports on 127.0.0.1 for servers to listen on: free_port [OFFSET [COUNT]] (see
# scripts/lib/free_port.py: below the ephemeral range, each with port+OFFSET free too, never one another
# caller on this machine got in the last 10 minutes).
free_port() { python3 "$E2E_ROOT/scripts/lib/free_port.py" "$@"; }

# Prints a new cluster id in Kafka's text form (URL-safe base64 of 16 random bytes, never starting with '-').
new_cluster_id() {
  python3 -c 'import base64, uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s); break'
}

kafka_cp() { printf '%s/libs/*%s' "$KAFKA_HOME" "${E2E_PLUGIN_CP:+:$E2E_PLUGIN_CP}"; }

# Appends a properties fragment to a file, replacing @NAME@ with $E2E_NAME.
append_fragment() {
  local fragment="$1" target="$2"
  python3 - "$fragment" "$target" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
def value(m):
    name = "E2E_" + m.group(1)
    if name not in os.environ:
        sys.exit(f"{sys.argv[1]}: placeholder @{m.group(1)}@ needs ${name}")
    return os.environ[name]
text = re.sub(r"@([A-Z0-9_]+)@", value, text)
with open(sys.argv[2], "a") as out:
    out.write(f"\n# --- from {os.path.basename(sys.argv[1])}\n{text}")
PY
}

# node_replace_fragment DIR OLD NEW  replaces, in DIR/server.properties, the lines node_config appended
#   from the fragment file OLD (its "# --- from <name>" section) with the fragment file NEW (at the end).
node_replace_fragment() {
  local dir="$1" old="$2" new="$3"
  python3 - "$dir/server.properties" "$(basename "$old")" <<'PY' || return 1
import sys
path, name = sys.argv[1], sys.argv[2]
out, skipping, found = [], False, False
for line in open(path).read().split("\n"):
    if line.startswith("# --- from "):
        skipping = line == f"# --- from {name}"
        found = found or skipping
    if not skipping:
        out.append(line)
if not found:
    sys.exit(f"{path}: no section from {name}")
open(path, "w").write("\n".join(out))
PY
  append_fragment "$new" "$dir/server.properties"
}

# node_config DIR NODE_ID ROLES QUORUM FRAGMENT...
#   ROLES is broker,controller | controller | broker. QUORUM is the controller's host:port, or "self"
#   for a node that is itself the (single) controller. Writes DIR/server.properties and DIR/port
#   (the PLAINTEXT port of a broker), DIR/controller.port (of a controller).
node_config() {
  local dir="$1" id="$2" roles="$3" quorum="$4"; shift 4
  mkdir -p "$dir/data" "$dir/logs"
  local listeners="" port cport props="$dir/server.properties"
  if [[ $roles == *broker* ]]; then
    port=$(free_port); echo "$port" >"$dir/port"
    listeners="PLAINTEXT://127.0.0.1:$port"
  fi
  if [[ $roles == *controller* ]]; then
    cport=$(free_port); echo "$cport" >"$dir/controller.port"
    listeners="${listeners:+$listeners,}CONTROLLER://127.0.0.1:$cport"
    [[ $quorum == self ]] && quorum="127.0.0.1:$cport"
  fi
  cat >"$props" <<EOF
process.roles=$roles
node.id=$id
controller.quorum.bootstrap.servers=$quorum
listeners=$listeners
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
EOF
  if [[ $roles == *broker* ]]; then
    cat >>"$props" <<EOF
advertised.listeners=PLAINTEXT://127.0.0.1:$port
inter.broker.listener.name=PLAINTEXT
EOF
  fi
  local fragment
  for fragment in "$@"; do append_fragment "$fragment" "$props"; done
}

# node_format DIR CLUSTER_ID  (a controller of a one-node quorum is formatted --standalone)
# The logging configuration is given explicitly: otherwise log4j2 takes the first one on the classpath,
# and Kafka's kafka-storage test jar (LocalTieredStorage) carries one that writes ./storage.log into the
# current directory, the repository root.
node_format() {
  local dir="$1" cluster="$2" quorum_flag=--no-initial-controllers
  grep -q '^process.roles=.*controller' "$dir/server.properties" && quorum_flag=--standalone
  # shellcheck disable=SC2086
  java -XX:TieredStopAtLevel=1 ${E2E_CDS:-} \
    -Dlog4j2.configurationFile="$E2E_LIB_DIR/../config/log4j2-client.properties" \
    -De2e.log.file="$dir/logs/format-log4j.log" -cp "$(kafka_cp)" kafka.tools.StorageTool format -t "$cluster" \
    -c "$dir/server.properties" $quorum_flag >"$dir/logs/format.log" 2>&1 \
    || { cat "$dir/logs/format.log" >&2; [[ ! -f $dir/logs/format-log4j.log ]] || cat "$dir/logs/format-log4j.log" >&2
         return 1; }
}

# node_format_all CLUSTER_ID DIR...  formats several nodes at once.
node_format_all() {
  local cluster="$1" pids=() pid; shift
  local dir
  for dir in "$@"; do node_format "$dir" "$cluster" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || return 1; done
}

# node_launch DIR  starts kafka.Kafka in the background; node_await DIR waits until it reports
# "Kafka Server started". node_start DIR does both; node_start_all DIR... launches several, then waits.
node_launch() {
  local dir="$1"
  local before=0
  [[ -f "$dir/logs/server.log" ]] && before=$(grep -c 'Kafka Server started' "$dir/logs/server.log" || true)
  echo "$before" >"$dir/started.before"
  # shellcheck disable=SC2086
  java ${E2E_JVM_OPTS:--Xms256m -Xmx768m -XX:+UseG1GC -XX:TieredStopAtLevel=1} ${E2E_CDS:-} ${E2E_JVM_EXTRA:-} \
    -Dlog4j2.configurationFile="$E2E_LIB_DIR/../config/log4j2.properties" -Dkafka.logs.dir="$dir/logs" \
    -cp "$(kafka_cp)" kafka.Kafka "$dir/server.properties" >>"$dir/logs/stdout.log" 2>&1 &
  echo $! >"$dir/pid"
  E2E_NODES+=("$dir")
}

node_await() {
  local dir="$1" timeout="${E2E_START_TIMEOUT:-120}" before waited=0 now
  before=$(cat "$dir/started.before")
  while :; do
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "node $(basename "$dir") exited during start; its first errors:" >&2
      grep -m 3 -A 4 '^\[[^]]*\] ERROR' "$dir/logs/server.log" >&2 2>/dev/null
      tail -n 5 "$dir/logs/stdout.log" >&2 2>/dev/null
      return 1
    fi
    now=0
    [[ -f "$dir/logs/server.log" ]] && now=$(grep -c 'Kafka Server started' "$dir/logs/server.log" || true)
    (( now > before )) && return 0
    (( waited >= timeout * 5 )) && { echo "node $(basename "$dir") not started after ${timeout}s" >&2; return 1; }
    sleep 0.2; waited=$((waited + 1))
  done
}

node_start() { node_launch "$1" && node_await "$1"; }

node_start_all() {
  local dir
  for dir in "$@"; do node_launch "$dir"; done
  for dir in "$@"; do node_await "$dir" || return 1; done
}

# node_stop DIR  SIGTERM (controlled shutdown), SIGKILL after 60 s.
node_stop() {
  local dir="$1" pid
  [[ -f "$dir/pid" ]] || return 0
  pid=$(cat "$dir/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null && (( waited < 300 )); do sleep 0.2; waited=$((waited + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
      echo "node $(basename "$dir") did not stop in 60s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid"
}

# node_kill DIR  SIGKILL (kill -9): the broker dies mid-work, as in a crash.
node_kill() {
  local dir="$1" pid
  [[ -f "$dir/pid" ]] || return 0
  pid=$(cat "$dir/pid")
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
}

# Stops every node this shell started, newest first.
nodes_stop_all() {
  local i
  for (( i=${#E2E_NODES[@]}-1; i>=0; i-- )); do node_stop "${E2E_NODES[$i]}"; done
  E2E_NODES=()
}

node_bootstrap() { echo "127.0.0.1:$(cat "$1/port")"; }

# node_check_log DIR PATTERN  fails when the node's log holds a stack frame of a class matching PATTERN
# (an extended regex on the class name, e.g. 'io\.krabka\.'), printing the first ones.
node_check_log() {
  local dir="$1" pattern="$2" hits
  hits=$(grep -E -c "^[[:space:]]+at ($pattern)" "$dir/logs/server.log" || true)
  if (( hits > 0 )); then
    echo "$(basename "$dir"): $hits stack frame(s) of $pattern in server.log:" >&2
    grep -E -B 30 -m 3 "^[[:space:]]+at ($pattern)" "$dir/logs/server.log" | sed -n 1,80p >&2
    return 1
  fi
  local errors
  errors=$(grep -c '^\[[^]]*\] ERROR' "$dir/logs/server.log" || true)
  e2e_log "$(basename "$dir"): no stack frame of $pattern in server.log ($errors ERROR line(s) in all)"
}
