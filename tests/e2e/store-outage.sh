#!/usr/bin/env bash
# The object store goes away for 30 s under a running broker (issue 27): tests/e2e/store-outage.sh <name>
# Single-node KRaft, our RSM and our durable manager on SeaweedFS (both in the bucket).
#   1. e2e-before is tiered (not read: nothing of it is in the read cache).
#   2. SeaweedFS is stopped (its process ends: every request is refused). For 30 s: a new topic e2e-during
#      is produced to and read back from offset 0 (the broker serves its local data: nothing of it can be
#      copied), while a reader of e2e-before from offset 0 (remote data) starts and waits.
#   3. SeaweedFS starts again on the same ports and data. e2e-during's segments are tiered (copies resume),
#      the waiting reader finishes, and both topics read back from offset 0 exactly once (nothing lost or
#      duplicated).
#   4. The broker's log: copies were tried while the store was down and none finished then, reads of remote
#      data failed (Kafka's ERROR, with no frame of our classes: a store condition carries no stack trace), yet
#      each kind of native WARN or ERROR (logger and message, fields apart), and each line of the object-store
#      client's retry loop, appears at most twice (once, and once the count of its repeats: one a kind and
#      minute, not one a retry); no stack frame of our classes anywhere.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1"
outage_seconds=30

export E2E_RSM=krabka
e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1
e2e_start_seaweedfs
export E2E_S3_PREFIX="e2e-$name"
tier=(--tier "s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX" --s3-endpoint "$E2E_S3_ENDPOINT")
e2e_log "scenario $name: Kafka $KAFKA_VERSION, our RSM and RLMM on SeaweedFS, which goes away for ${outage_seconds}s"

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$(e2e_rsm_fragment s3)" "$(e2e_rlmm_fragment krabka s3)"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
log="$node/logs/server.log"

# Tiered but not read yet: nothing of it is in the read cache, so reading it needs the store.
e2e_client create,produce,wait-tiered --bootstrap "$bootstrap" --topics e2e-before:plain "${tier[@]}"
e2e_client create --bootstrap "$bootstrap" --topics e2e-during:plain "${tier[@]}"
# Its copy task runs once our manager has loaded the (empty) partition: wait for that, so that the outage
# meets copies, not a partition that is not ready yet.
waited=0
until grep -q "partition: .*e2e-during-0 after becoming leader" "$log"; do
  (( waited++ < 300 )) || { echo "no copy task for e2e-during-0 within 60 s" >&2; exit 1; }
  sleep 0.2
done

e2e_stop_seaweedfs
down=$(date +%s)
lines_before=$(wc -l <"$log")
e2e_log "SeaweedFS stopped"
# A reader of remote data: it cannot get anything until the store is back, then must read everything.
e2e_client verify --bootstrap "$bootstrap" --topics e2e-before:plain >"$E2E_WORK/remote-reader.out" 2>&1 &
reader=$!
# Local data is served meanwhile: produced and read from offset 0 with the store down.
e2e_client produce,verify --bootstrap "$bootstrap" --topics e2e-during:plain "${tier[@]}"
kill -0 "$reader" 2>/dev/null || { echo "the reader of remote data ended while the store was down:" >&2; cat "$E2E_WORK/remote-reader.out" >&2; exit 1; }
e2e_log "with the store down: e2e-during produced and read back from the broker's local log; the remote reader waits"
sleep $(( outage_seconds - ($(date +%s) - down) > 0 ? outage_seconds - ($(date +%s) - down) : 0 ))
lines_down=$(( $(wc -l <"$log") - lines_before ))
E2E_WEED_RESTART=yes e2e_start_seaweedfs
up=$(date +%s)
e2e_log "SeaweedFS started again after $(( up - down ))s"

wait "$reader" || { echo "the reader of remote data failed after the store came back:" >&2; cat "$E2E_WORK/remote-reader.out" >&2; exit 1; }
sed 's/^/  remote reader: /' "$E2E_WORK/remote-reader.out"
e2e_client wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics e2e-during:plain "${tier[@]}"
e2e_client offsets,verify --bootstrap "$bootstrap" --topics e2e-before:plain "${tier[@]}"
e2e_log "after the outage: e2e-during tiered, both topics read back from offset 0"

# What the outage wrote into the broker's log.
tail -n +"$(( lines_before + 1 ))" "$log" >"$E2E_WORK/outage.log"
python3 - "$E2E_WORK/outage.log" "$lines_down" <<'PY'
import re, sys
from collections import Counter
lines = open(sys.argv[1], errors="replace").read().splitlines()
down = lines[:int(sys.argv[2])]
# Copies were tried while the store was down, none finished then (they fail as retriable and quietly: Kafka
# logs those at DEBUG), and the read of remote data failed and was retried.
tried = sum(1 for l in down if re.search(r"Copying \d+\.log to remote storage", l) and "e2e-during" in l)
finished = sum(1 for l in down if "Copied" in l and "e2e-during" in l)
reads = sum(1 for l in down if "Error occurred while reading the remote data" in l and "e2e-before" in l)
kinds = Counter()
for l in lines:
    m = re.match(r"^\[[^]]*\] (WARN|ERROR|INFO) (.*) \((io\.krabka\.native\.[^)]*)\)$", l)
    if m and m.group(1) == "INFO" and not m.group(3).endswith(".retry"):
        continue
    if not m:
        continue
    text = re.sub(r"^\S+\{[^}]*\}: ", "", m.group(2))  # the segment span
    text = re.sub(r"^\d+ more like this in the .*? were not logged \(one a kind and [^)]*\): ", "", text)
    text = re.split(r" \w+=", text, maxsplit=1)[0]       # fields apart
    text = re.sub(r" \(\d+ more like this in the .* before were not logged\)$", "", text)
    if m.group(3).endswith(".retry"):
        text = re.split(r"\d", text, maxsplit=1)[0]      # a retry line's numbers apart
    kinds[(m.group(3), m.group(1), text)] += 1
print(f"  outage log: {len(lines)} line(s), {len(down)} while the store was down: {tried} copy attempt(s), "
      f"{finished} finished, {reads} failed remote read(s) (Kafka's ERROR, no frame of ours); "
      f"{sum(kinds.values())} native WARN/ERROR line(s) of {len(kinds)} kind(s)")
for (logger, level, text), n in kinds.most_common():
    print(f"    {n} x {level} {logger}: {text[:160]}")
assert tried >= 1 and finished == 0, "no copy was tried while the store was down, or one finished"
assert reads >= 1, "no read of remote data failed while the store was down"
loud = {k: n for k, n in kinds.items() if n > 2}
assert not loud, f"native WARN/ERROR kinds logged more than once and their report: {loud}"
PY
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
e2e_log "scenario $name passed"
