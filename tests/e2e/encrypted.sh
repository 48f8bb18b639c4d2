#!/usr/bin/env bash
# Compressed and encrypted segments through a real broker (single-node KRaft, filesystem tier, our
# durable metadata manager): tests/e2e/encrypted.sh <name>
# Every stored segment is also decoded by an independent reader of the format written from its
# specification (tests/chunked-interop/decode.py, Python's cryptography and zstandard), which checks the
# spec's test vectors too and that each decoded log is Kafka record batches with right CRCs.
# Key pairs made with openssl as an operator makes them (genpkey, pkey -pubout, chmod 600). The broker
# runs with compression and encryption under key pair k1: three topics (plain, producer-zstd,
# transactional) are tiered and read back from offset 0; no stored .log holds a record key in the clear
# and every segment has its envelope. Then a rotation: the broker is stopped, k2 is made the active pair
# with k1 kept, the broker starts, every record is read back (the k1 segments through k1), more records
# of a new topic are produced and tiered under k2 (their envelopes name k2), and all are read again.
# Then `krabka-tier rewrap` (broker stopped) puts every segment under k2 without changing a stored log,
# k1's private key is taken away and dropped from the configuration, and every record still reads back. deleteRecords,
# retention and a topic deletion remove remote segments and their envelopes; no stack frame of the
# plugin in the broker log.
set -euo pipefail
source "$(dirname "$0")/lib/e2e.sh"
name="$1"

e2e_setup_kafka
e2e_select_plugin
export E2E_WORK="$E2E_ROOT/build/e2e/runs/$name"
rm -rf "$E2E_WORK"; mkdir -p "$E2E_WORK"
trap e2e_cleanup EXIT
export E2E_RF=1
export E2E_TIER_DIR="$E2E_WORK/tier" E2E_KEY_DIR="$E2E_WORK/keys"
mkdir -p "$E2E_TIER_DIR" "$E2E_KEY_DIR"
for id in k1 k2; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$E2E_KEY_DIR/$id-private.pem" 2>/dev/null
  chmod 600 "$E2E_KEY_DIR/$id-private.pem"
  openssl pkey -in "$E2E_KEY_DIR/$id-private.pem" -pubout -out "$E2E_KEY_DIR/$id-public.pem"
done
tier_spec="fs:$E2E_TIER_DIR"
# The independent decoder (tests/chunked-interop/decode.py): Python's cryptography and zstandard, from
# PyPI into a private venv.
venv="${KRABKA_TOOLS:-$HOME/.cache/krabka-test}/venv-chunked"
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import cryptography, zstandard' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check cryptography==50.0.2 zstandard==0.25.0
fi
decode() { "$venv/bin/python" "$E2E_ROOT/tests/chunked-interop/decode.py" "$@"; }
decode vectors "$E2E_ROOT/docs/chunked-format.md"
e2e_log "scenario $name: Kafka $KAFKA_VERSION, compressed and encrypted segments on the filesystem tier"

node="$E2E_WORK/node1"
node_config "$node" 1 broker,controller self \
  "$E2E_ROOT/tests/e2e/config/broker-test.properties" \
  "$(e2e_rsm_fragment filesystem)" "$E2E_ROOT/tests/e2e/config/format-encrypted-k1.properties" \
  "$(e2e_rlmm_fragment krabka filesystem)"
node_format "$node" "$(new_cluster_id)"
node_start "$node"
bootstrap=$(node_bootstrap "$node")

# stored_check TOPIC KEY_ID: every stored .log of TOPIC has an envelope beside it, holds no record key
# in the clear, and (with KEY_ID) at least one envelope names KEY_ID. Prints the number of segments.
stored_check() {
  python3 - "$E2E_TIER_DIR" "$1" "${2:-}" <<'PY'
import os, sys
tier, topic, key_id = sys.argv[1], sys.argv[2], sys.argv[3]
logs = envelopes_with_key = 0
for root, _, files in os.walk(tier):
    if not os.path.basename(root).startswith(topic + "-"):
        continue
    for name in files:
        if not name.endswith(".log"):
            continue
        logs += 1
        data = open(os.path.join(root, name), "rb").read()
        assert data[:8] == b"KRBKCHK\x01", f"{name} is not in the chunked format"
        assert (topic + "/").encode() not in data, f"{name} holds a record key in the clear"
        envelope = os.path.join(root, name[:-4] + ".envelope")
        assert os.path.exists(envelope), f"{name} has no envelope"
        raw = open(envelope, "rb").read()
        assert raw[:8] == b"KRBKENV\x01", envelope
        if key_id and key_id.encode() in raw:
            envelopes_with_key += 1
assert logs > 0, f"no tiered segment of {topic}"
if key_id:
    assert envelopes_with_key > 0, f"no envelope of {topic} names key {key_id}"
print(logs)
PY
}

topics="e2e-plain:plain,e2e-zstd:zstd,e2e-txn:txn"
e2e_client create,produce,wait-tiered,offsets,verify --bootstrap "$bootstrap" --topics "$topics" \
  --tier "$tier_spec"
for topic in e2e-plain e2e-zstd e2e-txn; do
  e2e_log "$topic: $(stored_check "$topic" k1) segments stored encrypted under k1"
done
decode tier "$E2E_TIER_DIR" "$E2E_KEY_DIR"

e2e_log "rotation: k2 active, k1 kept"
node_stop "$node"
node_replace_fragment "$node" format-encrypted-k1.properties "$E2E_ROOT/tests/e2e/config/format-encrypted-k2.properties"
node_start "$node"
e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics"
# A topic written after the rotation: its segments go under k2.
e2e_client create,produce,wait-tiered,verify --bootstrap "$bootstrap" --topics e2e-later:plain --tier "$tier_spec"
e2e_log "e2e-later: $(stored_check e2e-later k2) segments stored encrypted under k2"
e2e_client verify --bootstrap "$bootstrap" --topics "$topics"
decode tier "$E2E_TIER_DIR" "$E2E_KEY_DIR"

e2e_log "krabka-tier rewrap: every segment under k2, then k1 dropped"
node_stop "$node"
logs_before=$(find "$E2E_TIER_DIR" -name '*.log' -exec sha256sum {} + | sort)
"${E2E_TIER_BIN:-$E2E_ROOT/target/debug/krabka-tier}" rewrap --local "$E2E_TIER_DIR" --active k2 \
  --key-pair "k1=$E2E_KEY_DIR/k1-public.pem,$E2E_KEY_DIR/k1-private.pem" \
  --key-pair "k2=$E2E_KEY_DIR/k2-public.pem,$E2E_KEY_DIR/k2-private.pem" | tee "$E2E_WORK/rewrap.out"
grep -q ' 0 failed$' "$E2E_WORK/rewrap.out"
[[ $logs_before == "$(find "$E2E_TIER_DIR" -name '*.log' -exec sha256sum {} + | sort)" ]] \
  || { echo "rewrap changed a stored log" >&2; exit 1; }
mv "$E2E_KEY_DIR/k1-private.pem" "$E2E_KEY_DIR/k1-private.pem.retired"
node_replace_fragment "$node" format-encrypted-k2.properties "$E2E_ROOT/tests/e2e/config/format-encrypted-k2-only.properties"
node_start "$node"
e2e_client offsets,verify --bootstrap "$bootstrap" --topics "$topics,e2e-later:plain"
for topic in e2e-plain e2e-zstd e2e-txn e2e-later; do stored_check "$topic" k2 > /dev/null; done
# The independent reader has k2's private key only now.
decode tier "$E2E_TIER_DIR" "$E2E_KEY_DIR"

e2e_client metadata-in-tier --bootstrap "$bootstrap" --topics "$topics" --tier "$tier_spec"
e2e_client delete-records,retention --bootstrap "$bootstrap" --topics e2e-plain:plain --tier "$tier_spec"
e2e_client delete-topic --bootstrap "$bootstrap" --topics e2e-zstd:zstd --tier "$tier_spec"
leftover=$(find "$E2E_TIER_DIR" -path '*e2e-zstd-*' -name '*.envelope' | wc -l)
(( leftover == 0 )) || { echo "a deleted topic left $leftover envelopes" >&2; exit 1; }
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
node_stop "$node"
node_check_log "$node" "$E2E_PLUGIN_FRAMES"
e2e_log "scenario $name passed"
