#!/usr/bin/env bash
# The write-once archive inside a real broker, on a SeaweedFS bucket with Object Lock (COMPLIANCE),
# every S3 request through the aws-rules front (rust/krabka-remote-storage/tests/aws-rules/front.py),
# which refuses what Amazon S3 refuses and SeaweedFS accepts (an upload without a checksum header).
#   tests/e2e/worm.sh <name> [<rlmm: topic-based|krabka>] [<encrypted: yes|no>]
# The metadata manager is Kafka's topic-based one, or our durable one with its history in the archive
# bucket itself (create-only records under the bucket's Object Lock retention, like the archive).
# With encrypted=yes the archive stores every segment compressed and encrypted (the chunked format under
# an openssl RSA key pair, docs/chunked-format.md): every check below runs the same, the verifier with no
# key at all (the manifests' digests are of the stored bytes), krabka-tier export given the key pair.
# Environment: E2E_KAFKA, E2E_PLUGIN_JAR (tests/e2e/lib/e2e.sh); E2E_VERIFIER_JAR (default
# build/libs/krabka-worm-verify.jar), E2E_VERIFIER_BIN (default target/debug/krabka-worm-verify) and
# E2E_TIER_BIN (default target/debug/krabka-tier).
#
# 0. On a bucket without Object Lock, a broker with rsm.config.worm.enabled=true refuses to start.
# 1. A broker with rsm.config.worm.enabled=true tiers two topics (plain, zstd); consumers read every
#    record back from the archive.
# 2. Retention (retention.ms=1 s) on one topic, deletion of another, and tiering turned off with deletion
#    (KIP-950) on a third: Kafka drops the segments, the plugin retains them with exactly one WARN per
#    partition and one INFO line per further segment, no stack trace, and every segment file stays in the
#    bucket. A fourth topic (transactions) is tiered afterwards: copying goes on.
# 3. Ordinary failures never read as tampering: the front fails every manifest write of a topic for a
#    while (the broker's retries finish the commit), then holds one manifest write while the broker is
#    killed with kill -9 between seal and manifest (the restarted broker finishes it).
# 4. The verifier binary and the verifier jar both verify the bucket (exit 0) with the same report (the
#    archive log's last checkpoint, written at shutdown, covering every seal) and
#    tips; --expect-head with a recorded tip passes. Encrypted, the same with no key, and --deep
#    --key-pair opens every chunk of every segment.
#    krabka-tier export --verify (the broker gone) yields the committed records the consumers read.
# 5. A PUT that overwrites an archived segment is caught by --deep (exit 1), by both; krabka-tier export
#    --verify refuses that partition (exit 1, nothing exported) and still exports the others.
# 6. The server refuses to delete any archived object version.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1" rlmm="${2:-topic-based}" encrypted="${3:-no}"

e2e_setup_kafka
e2e_select_plugin
[[ $E2E_RSM == krabka ]] || { echo "worm.sh needs our plugin jar (E2E_RSM=krabka)" >&2; exit 2; }
verifier_jar="${E2E_VERIFIER_JAR:-$E2E_ROOT/build/libs/krabka-worm-verify.jar}"
verifier_bin="${E2E_VERIFIER_BIN:-$E2E_ROOT/target/debug/krabka-worm-verify}"
for f in "$verifier_jar" "$verifier_bin"; do
  [[ -f $f ]] || { echo "$f missing (gradle verifierJar; cargo build -p krabka-worm-verify)" >&2; exit 2; }
done
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1
case "$rlmm" in
  topic-based) rlmm_fragment="$E2E_ROOT/tests/e2e/config/rlmm-topic-based.properties" ;;
  krabka) rlmm_fragment="$E2E_ROOT/tests/e2e/config/rlmm-krabka-s3-worm.properties" ;;
  *) echo "rlmm must be topic-based or krabka" >&2; exit 2 ;;
esac

e2e_start_seaweedfs
e2e_start_aws_rules_front
venv=$(e2e_weed_venv)
aws=("$venv/bin/aws" --endpoint-url "$E2E_S3_ENDPOINT" --region us-east-1 --output json)
export E2E_S3_WORM_BUCKET=archive E2E_S3_PREFIX="e2e-$name"
"${aws[@]}" s3api create-bucket --bucket "$E2E_S3_WORM_BUCKET" --object-lock-enabled-for-bucket >/dev/null
"${aws[@]}" s3api put-object-lock-configuration --bucket "$E2E_S3_WORM_BUCKET" --object-lock-configuration \
  '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"COMPLIANCE","Days":1}}}'
e2e_log "Object Lock bucket $E2E_S3_WORM_BUCKET (COMPLIANCE, 1 day)"

# The front refuses what Amazon S3 refuses: a PUT into the lock bucket without a checksum header (awscli
# with its default checksum turned off). SeaweedFS alone would store it.
if AWS_REQUEST_CHECKSUM_CALCULATION=when_required "${aws[@]}" s3api put-object --bucket "$E2E_S3_WORM_BUCKET" \
  --key front-probe/no-checksum --body "$E2E_ROOT/tests/e2e/worm.sh" >/dev/null 2>"$E2E_WORK/front-probe.err"; then
  echo "the aws-rules front let an upload without a checksum into $E2E_S3_WORM_BUCKET" >&2; exit 1
fi
grep -q 'Content-MD5 OR x-amz-checksum- HTTP header is required' "$E2E_WORK/front-probe.err" \
  || { echo "unexpected answer to an upload without a checksum:" >&2; cat "$E2E_WORK/front-probe.err" >&2; exit 1; }
e2e_log "aws-rules front: an upload without a checksum into $E2E_S3_WORM_BUCKET is refused, as on AWS"

# The signing key (PKCS#8 PEM) and its public half as hex, the way an operator publishes it.
export E2E_WORM_KEY="$E2E_WORK/worm-signing-key.pem" E2E_WORM_KEY_ID=e2e-archive-2026
openssl genpkey -algorithm ed25519 -out "$E2E_WORM_KEY" 2>/dev/null
public_key=$(openssl pkey -in "$E2E_WORM_KEY" -pubout -outform DER | tail -c 32 | od -An -tx1 | tr -d ' \n')
[[ ${#public_key} == 64 ]] || { echo "could not derive the public key" >&2; exit 1; }

# A bucket without Object Lock: the broker must refuse to start, saying why.
refused="$E2E_WORK/refused"
E2E_S3_WORM_BUCKET=$E2E_S3_BUCKET node_config "$refused" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$E2E_ROOT/tests/e2e/config/rsm-krabka-s3-worm.properties" "$rlmm_fragment"
node_format "$refused" "$(new_cluster_id)"
if E2E_START_TIMEOUT=90 node_start "$refused" 2>/dev/null; then
  echo "a broker started in WORM mode on the unlocked bucket $E2E_S3_BUCKET" >&2; exit 1
fi
node_stop "$refused"
reason=$(grep -h -m 1 -o 'write-once archive cannot start: .*' "$refused"/logs/*.log | cut -c 1-200 || true)
[[ -n $reason ]] || { echo "the refused broker's log does not say why:" >&2; tail -n 20 "$refused/logs/server.log" >&2; exit 1; }
e2e_log "unlocked bucket $E2E_S3_BUCKET: the broker refused to start: $reason"

format_fragment=() key_pair_args=()
if [[ $encrypted == yes ]]; then
  export E2E_KEY_DIR="$E2E_WORK/keys"
  mkdir -p "$E2E_KEY_DIR"
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$E2E_KEY_DIR/k1-private.pem" 2>/dev/null
  chmod 600 "$E2E_KEY_DIR/k1-private.pem"
  openssl pkey -in "$E2E_KEY_DIR/k1-private.pem" -pubout -out "$E2E_KEY_DIR/k1-public.pem"
  format_fragment=("$E2E_ROOT/tests/e2e/config/format-encrypted-k1.properties")
  key_pair_args=(--key-pair "k1=$E2E_KEY_DIR/k1-public.pem,$E2E_KEY_DIR/k1-private.pem")
fi

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$E2E_ROOT/tests/e2e/config/rsm-krabka-s3-worm.properties" "$rlmm_fragment" ${format_fragment[@]+"${format_fragment[@]}"}
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
log="$node/logs/server.log"
e2e_log "scenario $name: Kafka $KAFKA_VERSION, WORM archive on SeaweedFS (log: ${log#"$E2E_ROOT/"})"
tier=(--tier "s3://$E2E_S3_WORM_BUCKET/$E2E_S3_PREFIX" --s3-endpoint "$E2E_S3_ENDPOINT")

e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" \
  --topics e2e-plain:plain,e2e-zstd:zstd "${tier[@]}"
if [[ $rlmm == krabka ]]; then
  e2e_client metadata-in-tier --bootstrap "$bootstrap" --topics e2e-plain:plain,e2e-zstd:zstd "${tier[@]}"
fi

# segments_in_tier TOPIC: the number of segment files of TOPIC in the archive.
segments_in_tier() {
  e2e_client tier-count --bootstrap "$bootstrap" --topics "$1:plain" "${tier[@]}" | awk 'NR == 1 { print $1 }'
}

# The retained-delete lines of TOPIC's partition 0 in the broker log: the partition's WARN, and the INFO
# line of each further segment.
retained_warns_of() {
  grep -E '^\[[^]]*\] WARN .*WORM archive retains the segments Kafka deletes of' "$log" | grep -F "$1-0 " || true
}
retained_infos_of() {
  grep -E '^\[[^]]*\] INFO .*WORM archive retains segment' "$log" | grep -F " of $1-0 " || true
}

# expect_one_warn_per_partition TOPIC SEGMENTS: waits (bounded) until the log accounts for SEGMENTS
# retained segments of TOPIC, then checks: one WARN, SEGMENTS - 1 INFO lines, SEGMENTS distinct ids.
expect_one_warn_per_partition() {
  local topic="$1" segments="$2" waited=0 warns infos ids
  while (( $(retained_warns_of "$topic" | wc -l) + $(retained_infos_of "$topic" | wc -l) < segments \
      && waited < 240 )); do
    sleep 0.5; waited=$((waited + 1))
  done
  warns=$(retained_warns_of "$topic" | wc -l)
  infos=$(retained_infos_of "$topic" | wc -l)
  ids=$( { retained_warns_of "$topic"; retained_infos_of "$topic"; } \
    | grep -oE "segment [A-Za-z0-9_-]{22}" | sort -u | wc -l)
  if (( warns != 1 || infos != segments - 1 || ids != segments )); then
    echo "expected one WARN and $((segments - 1)) INFO line(s) naming $segments segment(s) of $topic," \
      "found $warns WARN(s) and $infos INFO line(s) naming $ids:" >&2
    { retained_warns_of "$topic"; retained_infos_of "$topic"; } | sed -n 1,5p >&2
    return 1
  fi
  e2e_log "$topic: $segments retained segment(s), one WARN: $(retained_warns_of "$topic" | cut -c 1-240)"
}

plain_segments=$(segments_in_tier e2e-plain)
e2e_client retention-archived --bootstrap "$bootstrap" --topics e2e-plain:plain "${tier[@]}"
expect_one_warn_per_partition e2e-plain "$plain_segments"

zstd_segments=$(segments_in_tier e2e-zstd)
e2e_client delete-topic-archived --bootstrap "$bootstrap" --topics e2e-zstd:zstd "${tier[@]}"
expect_one_warn_per_partition e2e-zstd "$zstd_segments"

e2e_client create,produce,wait-tiered --bootstrap "$bootstrap" --topics e2e-off:plain "${tier[@]}"
off_segments=$(segments_in_tier e2e-off)
e2e_client disable-tiering-archived --bootstrap "$bootstrap" --topics e2e-off:plain "${tier[@]}"
expect_one_warn_per_partition e2e-off "$off_segments"

e2e_log "copying goes on after the refusals"
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics e2e-txn:txn "${tier[@]}" \
  --record-dir "$E2E_WORK/records"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"

# --- Ordinary failures between the seal (the commit point) and the manifest beside the segment. The
# failed copies log Kafka's stack traces (with our frames), so this runs after the log check above.
# The object-store client's own retries (10 by default) would absorb a few 503s: off for this part, so
# that each manifest write the front fails is one the writer sees.
echo "rsm.config.max.retries=0" >>"$node/server.properties"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
# faults METHOD [QUERY]: the aws-rules front's test faults (front.py, "Test faults"); prints its counters.
faults() { curl -sf -X "$1" "$E2E_S3_ENDPOINT/_krabka-faults${2:-}"; }
# counter NAME: one counter of the front's faults.
counter() { faults GET | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }

# Every manifest write fails (503 SlowDown) for a while: each copy's seal lands, its manifest does not
# after the writer's own retries, the copy fails, and Kafka retries it until the faults run out; the
# copy that gets through first finishes the unfinished commit.
faults DELETE >/dev/null
faults POST "?suffix=.manifest&count=12&mode=fail" >/dev/null
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics e2e-faulty:plain "${tier[@]}"
failed=$(counter failed)
(( failed == 12 )) || { echo "the front failed $failed manifest write(s), expected 12" >&2; exit 1; }
faults DELETE >/dev/null
# Kafka logs a failed copy as "Copy failed with retriable error" (4.2+, our error is retriable) or
# "Error occurred while copying" (older). Four writes per copy: the first copy's seal lands and its manifest
# fails, the next two fail finishing it, the fourth finishes it and goes on.
copy_failures=$(grep -E -c "(Copy failed with retriable error for segment|Error occurred while copying log segments of partition).*e2e-faulty-0" "$log" || true)
(( copy_failures >= 3 )) || { echo "expected 3 failed copies of e2e-faulty in the log, found $copy_failures" >&2; exit 1; }
e2e_log "e2e-faulty: 12 manifest writes failed (503), $copy_failures copies failed; the broker's retries finished every commit"

# kill -9 between seal and manifest: the front holds the next manifest write, the broker dies while it
# waits, and the restarted broker finishes the commit before it extends the chain.
faults POST "?suffix=.manifest&count=1&mode=hold" >/dev/null
e2e_client create,produce --bootstrap "$bootstrap" --topics e2e-crash:plain "${tier[@]}"
waited=0
while (( $(counter holding) < 1 && waited < 240 )); do sleep 0.5; waited=$((waited + 1)); done
(( $(counter holding) == 1 )) || { echo "no manifest write was held within 120 s" >&2; exit 1; }
node_kill "$node"
faults DELETE >/dev/null
e2e_log "e2e-crash: broker killed (kill -9) while a manifest write was held between seal and manifest"
node_start "$node"
bootstrap=$(node_bootstrap "$node")
e2e_client wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics e2e-crash:plain "${tier[@]}" \
  --record-dir "$E2E_WORK/records"
e2e_log "e2e-crash: the restarted broker tiered on; every record reads back"
node_stop "$node"


# --- The verifier, as a binary and as a jar, over the bucket.
source_args=(--s3-bucket "$E2E_S3_WORM_BUCKET" --s3-endpoint "$E2E_S3_ENDPOINT" --path-style
  --prefix "$E2E_S3_PREFIX" --key-id "$E2E_WORM_KEY_ID" --public-key "$public_key")
verify_bin() { "$verifier_bin" "${source_args[@]}" "$@"; }
verify_jar() { java -XX:TieredStopAtLevel=1 -jar "$verifier_jar" "${source_args[@]}" "$@"; }

# expect_exit CODE FILE COMMAND...: runs COMMAND with stdout to FILE; fails unless it exits CODE.
expect_exit() {
  local want="$1" out="$2" rc=0; shift 2
  "$@" >"$out" 2>"$out.err" || rc=$?
  if (( rc != want )); then
    echo "$* exited $rc, expected $want; stdout and stderr:" >&2
    head -n 40 "$out" "$out.err" >&2
    return 1
  fi
}

expect_exit 0 "$E2E_WORK/verify-bin.json" verify_bin --json
expect_exit 0 "$E2E_WORK/verify-jar.json" verify_jar --json
cmp -s "$E2E_WORK/verify-bin.json" "$E2E_WORK/verify-jar.json" \
  || { echo "binary and jar reports differ:" >&2; diff "$E2E_WORK/verify-bin.json" "$E2E_WORK/verify-jar.json" | sed -n 1,40p >&2; exit 1; }
tips=$(python3 - "$E2E_WORK/verify-bin.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["outcome"] == "verified", report["outcome"]
parts = {p["topic"]: p for p in report["report"]["partitions"]}
for topic in ("e2e-plain", "e2e-zstd", "e2e-off", "e2e-faulty", "e2e-crash", "e2e-txn"):
    p = parts.get(topic)
    assert p is not None and p["tip"] and p["manifests"] > 0, f"{topic}: no signed chain in the report"
    print(f"{topic}-0: tip {p['tip']} after {p['manifests']} manifest(s)")
# The archive log: the broker's last checkpoint (at shutdown) covers every seal.
log = report["report"]["log"]
assert log is not None and log["newest"] is not None, "the broker published no archive log checkpoint"
manifests = sum(p["manifests"] for p in report["report"]["partitions"])
findings = report["report"]["findings"] + [f for p in report["report"]["partitions"] for f in p["findings"]]
unlogged = [f for f in findings if f["kind"] == "not_in_log"]
assert not unlogged, f"seals without a leaf: {unlogged}"
assert log["pending"] == 0 and log["leaves"] >= manifests, log
print(f"archive log {log['origin']}: checkpoint {log['newest']['source'].rsplit('/', 1)[-1]} of {log['leaves']} leaves over {manifests} manifest(s)")
PY
)
e2e_log "binary and jar: verified (exit 0), identical reports; tips:"
printf '  %s\n' "${tips//$'\n'/$'\n'  }"
if [[ $encrypted == yes ]]; then
  # Verified above with no key; an auditor holding the key pair also opens every chunk.
  expect_exit 0 "$E2E_WORK/verify-chunks.json" verify_bin --json --deep "${key_pair_args[@]}"
  opened=$(grep -o 'chunks: [0-9]* segment(s) in the chunked format, [0-9]* chunk(s) opened' \
    "$E2E_WORK/verify-chunks.json.err" || true)
  [[ $opened =~ chunks:\ [1-9] ]] || { echo "--deep --key-pair opened no chunk:" >&2; cat "$E2E_WORK/verify-chunks.json.err" >&2; exit 1; }
  e2e_log "verifier --deep --key-pair: $opened"
fi

# The human summary carries the tip to record; --expect-head with it passes, for both.
expect_exit 0 "$E2E_WORK/summary.txt" verify_bin --topic e2e-plain --partition 0
plain_tip=$(sed -n '/^  tip: [0-9a-f]\{64\}$/{s/^  tip: //p;q;}' "$E2E_WORK/summary.txt")
[[ -n $plain_tip ]] || { echo "no tip in the summary:" >&2; cat "$E2E_WORK/summary.txt" >&2; exit 1; }
expect_exit 0 "$E2E_WORK/expect-bin.txt" verify_bin --topic e2e-plain --partition 0 --expect-head "$plain_tip"
expect_exit 0 "$E2E_WORK/expect-jar.txt" verify_jar --topic e2e-plain --partition 0 --expect-head "$plain_tip"
e2e_log "--expect-head $plain_tip: verified by both"

# --- krabka-tier export --verify, the broker gone: each partition is authenticated (deep) first, then
# exported; the committed records are those the consumers read.
tier_bin="${E2E_TIER_BIN:-$E2E_ROOT/target/debug/krabka-tier}"
tier_export() { "$tier_bin" export "${source_args[@]}" ${key_pair_args[@]+"${key_pair_args[@]}"} --verify "$@"; }
for topic in e2e-txn e2e-crash; do
  expect_exit 0 "$E2E_WORK/export-$topic.jsonl" tier_export --topic "$topic"
  python3 "$E2E_ROOT/tests/e2e/lib/compare-export.py" "$E2E_WORK/export-$topic.jsonl" "$E2E_WORK/records/$topic.tsv"
done
e2e_log "krabka-tier export --verify: e2e-txn and e2e-crash authenticated and exported as the consumers read them"

# --- An overwrite: a new version of an archived segment with the same length.
# The listing is read whole before it is searched: under pipefail, a reader that stops at the first match
# (awk's exit, head, grep -q) can kill the writer with SIGPIPE ("Broken pipe") and fail the pipeline.
listing=$("${aws[@]}" s3api list-objects-v2 --bucket "$E2E_S3_WORM_BUCKET" --prefix "$E2E_S3_PREFIX/" \
  --query 'Contents[].[Key,Size]' --output text)
victim=$(awk '$1 ~ /\/e2e-txn-[^/]*\/[0-9]+-[^/]*\.log$/ { print; exit }' <<<"$listing")
if [[ $encrypted == yes ]]; then
  envelopes=$(grep -c '\.envelope\s' <<<"$listing" || true)
  (( envelopes > 0 )) || { echo "encrypted archive without envelopes in the bucket" >&2; exit 1; }
  e2e_log "the archive holds $envelopes segments in the chunked format, each envelope sealed in its manifest"
fi
read -r victim_key victim_size <<<"$victim"
[[ -n ${victim_key:-} ]] || { echo "no segment of e2e-txn in the bucket" >&2; exit 1; }
head -c "$victim_size" /dev/urandom >"$E2E_WORK/forged.log"
"${aws[@]}" s3api put-object --bucket "$E2E_S3_WORM_BUCKET" --key "$victim_key" --body "$E2E_WORK/forged.log" >/dev/null
e2e_log "overwrote $victim_key ($victim_size bytes) with a new version"
expect_exit 1 "$E2E_WORK/deep-bin.json" verify_bin --deep --json
expect_exit 1 "$E2E_WORK/deep-jar.json" verify_jar --deep --json
cmp -s "$E2E_WORK/deep-bin.json" "$E2E_WORK/deep-jar.json" \
  || { echo "binary and jar deep reports differ" >&2; diff "$E2E_WORK/deep-bin.json" "$E2E_WORK/deep-jar.json" | sed -n 1,40p >&2; exit 1; }
python3 - "$E2E_WORK/deep-bin.json" "$victim_key" <<'PY'
import json, sys
report, key = json.load(open(sys.argv[1])), sys.argv[2]
assert report["outcome"] == "tampered", report["outcome"]
found = [f for p in report["report"]["partitions"] for f in p["findings"] if f.get("key") == key]
assert any(f["kind"] == "hash_mismatch" and f.get("original_survives") for f in found), \
    f"no hash mismatch with the original beneath for {key}: {found}"
PY
e2e_log "--deep: evidence of tampering (exit 1) from both: hash mismatch of ${victim_key##*/}, original version beneath"
# The export refuses the tampered partition whole (exit 1, nothing on stdout) and still exports the others.
expect_exit 1 "$E2E_WORK/export-tampered.jsonl" tier_export --topic e2e-txn
[[ ! -s $E2E_WORK/export-tampered.jsonl ]] \
  || { echo "krabka-tier export --verify wrote records of the tampered e2e-txn" >&2; exit 1; }
(( $(grep -c 'e2e-txn-0: refused: the archive does not verify' "$E2E_WORK/export-tampered.jsonl.err" || true) == 1 )) \
  || { cat "$E2E_WORK/export-tampered.jsonl.err" >&2; echo "no refusal of e2e-txn-0" >&2; exit 1; }
expect_exit 0 "$E2E_WORK/export-crash-after.jsonl" tier_export --topic e2e-crash
python3 "$E2E_ROOT/tests/e2e/lib/compare-export.py" "$E2E_WORK/export-crash-after.jsonl" "$E2E_WORK/records/e2e-crash.tsv"
e2e_log "krabka-tier export --verify refuses the tampered e2e-txn-0 (exit 1, nothing exported); e2e-crash still exports"

# --- The server refuses to delete any archived version.
"${aws[@]}" s3api list-object-versions --bucket "$E2E_S3_WORM_BUCKET" --prefix "$E2E_S3_PREFIX/" \
  >"$E2E_WORK/versions-before.json"
python3 - "$E2E_WORK/versions-before.json" "$E2E_WORK/delete-batches" <<'PY'
import json, os, sys
versions = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in json.load(open(sys.argv[1])).get("Versions", [])]
assert versions, "no object versions listed"
os.makedirs(sys.argv[2], exist_ok=True)
for i in range(0, len(versions), 500):
    with open(os.path.join(sys.argv[2], f"{i:06}.json"), "w") as out:
        json.dump({"Objects": versions[i:i + 500], "Quiet": False}, out)
PY
deleted=0
for batch in "$E2E_WORK"/delete-batches/*.json; do
  # shellcheck disable=SC2016  # the backticks are a JMESPath literal, not a command substitution
  n=$("${aws[@]}" s3api delete-objects --bucket "$E2E_S3_WORM_BUCKET" --delete "file://$batch" \
    --query 'length(Deleted || `[]`)' --output text)
  deleted=$((deleted + n))
done
"${aws[@]}" s3api list-object-versions --bucket "$E2E_S3_WORM_BUCKET" --prefix "$E2E_S3_PREFIX/" \
  >"$E2E_WORK/versions-after.json"
python3 - "$E2E_WORK/versions-before.json" "$E2E_WORK/versions-after.json" "$deleted" <<'PY'
import json, sys
def versions(path):
    return sorted((v["Key"], v["VersionId"]) for v in json.load(open(path)).get("Versions", []))
before, after, deleted = versions(sys.argv[1]), versions(sys.argv[2]), int(sys.argv[3])
assert deleted == 0, f"the server deleted {deleted} archived version(s)"
assert before == after, f"versions changed: {len(before)} before, {len(after)} after"
print(f"  the server refused to delete all {len(before)} archived object version(s)")
PY
e2e_log "scenario $name passed"
