#!/usr/bin/env bash
# Compressed and encrypted segments through a real broker (single-node KRaft, our durable metadata
# manager): tests/e2e/encrypted.sh <name> <tier: filesystem|s3>
# Key pairs made with openssl as an operator makes them (genpkey, pkey -pubout, chmod 600). The broker
# runs with compression and encryption under key pair k1: three topics (plain, producer-zstd,
# transactional) are tiered and read back from offset 0. Then a rotation: the broker is stopped, k2 is
# made the active pair with k1 kept, the broker starts, every record is read back (the k1 segments
# through k1), a new topic is produced and tiered under k2, and all are read again. Then
# `krabka-tier rewrap` (broker stopped) puts every segment under k2 without changing a stored log, k1's
# private key is taken away and dropped from the configuration, and every record still reads back.
# With tier-read (yes), while the broker is stopped after the rewrap, `krabka-tier export` and `replay`
# into a second cluster, given k2, must yield the committed records the consumers read
# (tests/e2e/lib/tier-read.sh). deleteRecords, retention and a topic deletion remove remote segments and
# their envelopes; no stack frame of the plugin in the broker log.
# After each phase an independent reader of the format written from its specification
# (tests/chunked-interop/decode.py: Python's cryptography and zstandard, boto3 for the bucket) decodes
# every stored segment with the private keys it is given, checks that each log is Kafka record batches
# with right CRCs, that every .log has its envelope and none holds a record key in the clear, and says
# which key ids wrap each topic; it checks the specification's test vectors first.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
source "$(dirname "$0")/lib/tier-read.sh"
name="$1" tier="$2" tier_read="${3:-no}"

e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1
export E2E_KEY_DIR="$E2E_WORK/keys"
mkdir -p "$E2E_KEY_DIR"
for id in k1 k2; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$E2E_KEY_DIR/$id-private.pem" 2>/dev/null
  chmod 600 "$E2E_KEY_DIR/$id-private.pem"
  openssl pkey -in "$E2E_KEY_DIR/$id-private.pem" -pubout -out "$E2E_KEY_DIR/$id-public.pem"
done
case "$tier" in
  filesystem) export E2E_TIER_DIR="$E2E_WORK/tier"; mkdir -p "$E2E_TIER_DIR"
      tier_spec="fs:$E2E_TIER_DIR"; s3=(); tier_source=(--local "$E2E_TIER_DIR"); stored="$E2E_TIER_DIR" ;;
  s3) e2e_start_seaweedfs; export E2E_S3_PREFIX="e2e-$name"
      tier_spec="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX"; s3=(--s3-endpoint "$E2E_S3_ENDPOINT")
      tier_source=(--s3-bucket "$E2E_S3_BUCKET" --s3-endpoint "$E2E_S3_ENDPOINT" --path-style --prefix "$E2E_S3_PREFIX")
      stored="s3://$E2E_S3_BUCKET/$E2E_S3_PREFIX" ;;
  *) echo "tier must be filesystem or s3" >&2; exit 2 ;;
esac

# The independent reader: Python's cryptography, zstandard and boto3 from PyPI in a private venv.
venv=$(e2e_chunked_venv)
# decode_tier EXPECTED...: decodes the whole tier; each EXPECTED is TOPIC=KEY_IDS (comma-separated,
# sorted), the key ids that must wrap that topic's segments.
decode_tier() {
  local out="$E2E_WORK/decode.out" expected
  S3_ENDPOINT=${E2E_S3_ENDPOINT:-} "$venv/bin/python" "$E2E_ROOT/tests/chunked-interop/decode.py" \
    tier "$stored" "$E2E_KEY_DIR" | tee "$out"
  for expected in "$@"; do
    grep -q "^independent decoder: ${expected%%=*}: .* keys ${expected#*=}: " "$out" \
      || { echo "the segments of ${expected%%=*} are not under exactly ${expected#*=}" >&2; return 1; }
  done
}
"$venv/bin/python" "$E2E_ROOT/tests/chunked-interop/decode.py" vectors "$E2E_ROOT/docs/chunked-format.md"
e2e_log "scenario $name: Kafka $KAFKA_VERSION, compressed and encrypted segments on the $tier tier"

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$(e2e_rsm_fragment "$tier")" "$E2E_ROOT/tests/e2e/config/format-encrypted-k1.properties" \
  "$(e2e_rlmm_fragment krabka "$tier")"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")

topics="e2e-plain:plain,e2e-zstd:zstd,e2e-txn:txn"
records=()
[[ $tier_read == yes ]] && records=(--record-dir "$E2E_WORK/records")
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics "$topics" \
  --tier "$tier_spec" "${s3[@]}" "${records[@]}"
decode_tier e2e-plain=k1 e2e-zstd=k1 e2e-txn=k1

e2e_log "rotation: k2 active, k1 kept"
node_stop "$node"
node_replace_fragment "$node" format-encrypted-k1.properties "$E2E_ROOT/tests/e2e/config/format-encrypted-k2.properties"
node_start "$node"
e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics"
# A topic written after the rotation: its segments go under k2.
e2e_client create,produce,wait-tiered,verify --bootstrap "$bootstrap" --topics e2e-later:plain \
  --tier "$tier_spec" "${s3[@]}"
e2e_client verify --bootstrap "$bootstrap" --topics "$topics"
decode_tier e2e-plain=k1 e2e-later=k2

e2e_log "krabka-tier rewrap: every segment under k2, then k1 dropped"
node_stop "$node"
tier_bin="${E2E_TIER_BIN:-$E2E_ROOT/target/debug/krabka-tier}"
"$tier_bin" rewrap "${tier_source[@]}" --active k2 \
  --key-pair "k1=$E2E_KEY_DIR/k1-public.pem,$E2E_KEY_DIR/k1-private.pem" \
  --key-pair "k2=$E2E_KEY_DIR/k2-public.pem,$E2E_KEY_DIR/k2-private.pem" | tee "$E2E_WORK/rewrap.out"
grep -q ' 0 failed$' "$E2E_WORK/rewrap.out"
mv "$E2E_KEY_DIR/k1-private.pem" "$E2E_KEY_DIR/k1-private.pem.retired"
# The reader has k2's private key only now: every segment must be under k2.
decode_tier e2e-plain=k2 e2e-zstd=k2 e2e-txn=k2 e2e-later=k2
if [[ $tier_read == yes ]]; then
  e2e_tier_read "$topics" "$E2E_WORK/records" "${tier_source[@]}" \
    --key-pair "k2=$E2E_KEY_DIR/k2-public.pem,$E2E_KEY_DIR/k2-private.pem"
fi
node_replace_fragment "$node" format-encrypted-k2.properties "$E2E_ROOT/tests/e2e/config/format-encrypted-k2-only.properties"
node_start "$node"
e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics,e2e-later:plain"

e2e_client metadata-in-tier --bootstrap "$bootstrap" --topics "$topics" --tier "$tier_spec" "${s3[@]}"
e2e_client delete-records,retention --bootstrap "$bootstrap" --topics e2e-plain:plain --tier "$tier_spec" "${s3[@]}"
e2e_client delete-topic --bootstrap "$bootstrap" --topics e2e-zstd:zstd --tier "$tier_spec" "${s3[@]}"
# Nothing of the deleted topic is left: no log, no envelope.
if "$tier_bin" list "${tier_source[@]}" --json \
  --key-pair "k2=$E2E_KEY_DIR/k2-public.pem,$E2E_KEY_DIR/k2-private.pem" | python3 -c '
import json, sys
left = [s for p in json.load(sys.stdin) if p["topic"] == "e2e-zstd" for s in p["segments"]]
sys.exit(1 if left else 0)'; then
  e2e_log "deleted topic e2e-zstd: no segment file left, envelopes included"
else
  echo "the deleted topic e2e-zstd left segment files in the tier" >&2; exit 1
fi
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
e2e_log "scenario $name passed"
