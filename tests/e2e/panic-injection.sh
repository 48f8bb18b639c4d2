#!/usr/bin/env bash
# A Rust panic inside a copy surfaces as RemoteStorageException and the broker keeps tiering other
# partitions (issue 4, "Done when"). Single-node KRaft, filesystem tier, our RSM from the panic-injection
# jar (`gradle panicInjectionJar`: copies of topics named krabka-inject-panic* panic inside Rust), our RLMM.
#   tests/e2e/panic-injection.sh <name>
# Environment: E2E_KAFKA, E2E_PANIC_JAR (default build/libs/krabka-remote-storage-panic-injection.jar),
# E2E_PANIC_TIMEOUT (seconds to wait for the first panic, default 60).
#  1. produce to krabka-inject-panic-plain and wait until the broker log reports the first failed copy;
#  2. only then create and produce e2e-plain: it must be tiered, deleted locally and read back from the
#     tier record by record, so every copy of it happens after the first panic;
#  3. the injected topic: no file of it in the tier, latest-tiered says none, all its records still local;
#  4. the broker process is alive, its log holds the panic as RemoteStorageException for the injected
#     topic (more than once: the broker retries), copies of e2e-plain logged after the first panic, and
#     no stack frame of our classes in any other log entry.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1"

export E2E_RSM=krabka
export E2E_PLUGIN_JAR="${E2E_PANIC_JAR:-$E2E_ROOT/build/libs/krabka-remote-storage-panic-injection.jar}"
e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1 E2E_TIER_DIR="$E2E_WORK/tier"
mkdir -p "$E2E_TIER_DIR"
tier_spec="fs:$E2E_TIER_DIR"
injected=krabka-inject-panic-plain normal=e2e-plain
e2e_log "scenario $name: Kafka $KAFKA_VERSION, RSM from ${E2E_PLUGIN_JAR#"$E2E_ROOT/"} on filesystem, RLMM krabka"

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$E2E_ROOT/tests/e2e/config/rsm-krabka-filesystem.properties" \
  "$E2E_ROOT/tests/e2e/config/rlmm-krabka-memory.properties"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
log="$node/logs/server.log"
e2e_log "broker up at $bootstrap (log: ${node#"$E2E_ROOT/"}/logs/server.log)"

fail() { echo "panic-injection: $*" >&2; exit 1; }

e2e_client create,produce --bootstrap "$bootstrap" --topics "$injected:plain"
# The broker's copier logs a failed copy as ERROR with the exception (Kafka's RemoteLogManager).
waited=0
until grep -q "injected panic copying" "$log"; do
  kill -0 "$(cat "$node/pid")" 2>/dev/null || fail "the broker exited"
  (( waited < ${E2E_PANIC_TIMEOUT:-60} * 5 )) \
    || fail "no injected panic in the broker log after ${E2E_PANIC_TIMEOUT:-60}s (is ${E2E_PLUGIN_JAR#"$E2E_ROOT/"} the panic-injection jar?)"
  sleep 0.2; waited=$((waited + 1))
done
first_panic=$(grep -n -m 1 "injected panic copying" "$log" | cut -d: -f1)
e2e_log "first injected panic at server.log line $first_panic; now producing to $normal"

e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics "$normal:plain" \
  --tier "$tier_spec"
e2e_client untiered,verify --bootstrap "$bootstrap" --topics "$injected:plain" --tier "$tier_spec"

kill -0 "$(cat "$node/pid")" 2>/dev/null || fail "the broker process is gone"
# Nothing of the injected topic in the tier at all, not even a partial or temporary file.
# (The tier names partition directories <topic>-<partition>-<topic id>: the same search finds the normal topic.)
leftovers=$(find "$E2E_TIER_DIR" -path "*$injected*" | sed -n 1,5p)
[[ -z $leftovers ]] || fail "files of $injected in the tier: $leftovers"
[[ -n $(find "$E2E_TIER_DIR" -path "*/$normal-0-*" -name '*.log') ]] || fail "no segment file of $normal found in the tier"

python3 - "$log" "$injected" "$normal" "$first_panic" <<'PY'
import re, sys
log, injected, normal, first_panic = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
# Log entries: a line "[timestamp] LEVEL ..." and its continuation lines (stack traces).
entries, current = [], None
for number, line in enumerate(open(log, errors="replace"), 1):
    if re.match(r"^\[\d{4}-\d\d-\d\d ", line):
        current = {"line": number, "text": line}
        entries.append(current)
    elif current is not None:
        current["text"] += line
problems = []
panics = [e for e in entries if "injected panic copying" in e["text"]]
surfaced = [e for e in panics
            if re.search(r"org\.apache\.kafka\.server\.log\.remote\.storage\.RemoteStorageException: "
                         r"native panic: injected panic copying", e["text"]) and injected in e["text"]]
if not surfaced:
    problems.append("no log entry shows RemoteStorageException: native panic: injected panic copying for " + injected)
if len(surfaced) < 2:
    problems.append(f"{len(surfaced)} failed copy of {injected} logged; the broker should retry")
copied = [e for e in entries if re.search(r"Copied .* to remote storage", e["text"]) and normal in e["text"]]
if not copied:
    problems.append(f"no 'Copied ... to remote storage' entry for {normal}")
elif copied[0]["line"] <= first_panic:
    problems.append(f"{normal} was copied (line {copied[0]['line']}) before the first panic (line {first_panic})")
after = [e for e in surfaced if copied and e["line"] > copied[0]["line"]]
# Our classes may appear in stack traces only of the injected topic's failed copies.
ours = re.compile(r"^\s+at io\.krabka\.", re.M)
stray = [e for e in entries if ours.search(e["text"]) and not (injected in e["text"] and "injected panic" in e["text"])]
if stray:
    problems.append(f"{len(stray)} other log entr(y/ies) with a stack frame of io.krabka, first:\n"
                    + "".join(stray[0]["text"].splitlines(True)[:25]))
# The in-memory metadata manager (this scenario's, loss on restart accepted) warns once for every partition
# it has no history of, the expected state of a new topic: that WARN is its design, not a copy problem.
memory_rlmm = "the in-memory remote log metadata manager holds nothing for this partition"
normal_errors = [e for e in entries if re.match(r"^\[[^]]*\] (ERROR|WARN)", e["text"]) and normal in e["text"]
                 and memory_rlmm not in e["text"]]
if normal_errors:
    problems.append(f"{len(normal_errors)} ERROR/WARN entr(y/ies) about {normal}, first: {normal_errors[0]['text'][:500]}")
if problems:
    print("panic-injection: " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
message = re.search(r"RemoteStorageException: (native panic: injected panic copying [^\n]+)", surfaced[0]["text"]).group(1)
print(f"  {len(surfaced)} failed copies of {injected} logged as RemoteStorageException (first at line "
      f"{surfaced[0]['line']}: \"{message}\"), {len(after)} of them after the first copy of {normal}")
print(f"  {len(copied)} segment(s) of {normal} copied to the tier, the first at line {copied[0]['line']}, "
      f"after the first panic at line {first_panic}; no stack frame of io.krabka elsewhere")
PY

node_stop "$node"
e2e_log "scenario $name passed"
