#!/usr/bin/env bash
# Segments encrypted under AWS KMS through a real broker: moto's server mode (PyPI), a KMS-compatible
# server, on a free loopback port with one key; then the single-node scenario (tests/e2e/single-node.sh:
# three topics tiered and read back from offset 0, a restart and everything read again, deleteRecords,
# retention and a topic deletion removing remote segments) on the given tier with our durable manager,
# the broker compressing and encrypting every segment with data keys from that KMS key
# (rsm.config.encryption.kms.*; credentials from the AWS environment, the ambient chain).
#   tests/e2e/kms.sh <name> <tier: filesystem|s3>
# Afterwards moto must have served GenerateDataKey (one per segment copy) and Decrypt calls: the broker
# really went to KMS.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
name="$1" tier="$2"
work="$root/build/e2e/runs/$name-kms"
rm -rf "$work"; mkdir -p "$work"
# shellcheck source=tests/e2e/lib/e2e.sh
source "$here/lib/e2e.sh"
venv=$(e2e_moto_venv)
port=$(free_port)
"$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
moto_pid=$!
trap 'kill "$moto_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/moto-api/" && break
  sleep 0.2
done
export AWS_ACCESS_KEY_ID=e2e AWS_SECRET_ACCESS_KEY=e2e-secret-key AWS_REGION=us-east-1
key=$(curl -sf -X POST "http://127.0.0.1:$port/" -H 'Content-Type: application/x-amz-json-1.1' \
  -H 'X-Amz-Target: TrentService.CreateKey' \
  -H 'Authorization: AWS4-HMAC-SHA256 Credential=e2e/20260101/us-east-1/kms/aws4_request, SignedHeaders=host, Signature=0' \
  -d '{"Description":"krabka e2e"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["KeyMetadata"]["Arn"])')
fragment="$work/format-kms.properties"
printf '%s\n' '# Compression and encryption under a KMS key (tests/e2e/kms.sh).' \
  'rsm.config.chunk.size=1048576' 'rsm.config.compression.enabled=true' 'rsm.config.encryption.enabled=true' \
  "rsm.config.encryption.kms.key.id=$key" 'rsm.config.encryption.kms.region=us-east-1' \
  "rsm.config.encryption.kms.endpoint=http://127.0.0.1:$port" >"$fragment"
echo "[kms] moto at http://127.0.0.1:$port, key $key"
E2E_EXTRA_PROPERTIES="$fragment" "$here/single-node.sh" "$name" "$tier" krabka yes
# The broker's calls, as moto logged them.
generated=$(grep -c 'TrentService.GenerateDataKey\|"POST / HTTP' "$work/moto.log" || true)
(( generated > 1 )) || { echo "moto served no request but the key's creation: the broker did not use KMS" >&2; tail -n 20 "$work/moto.log" >&2; exit 1; }
echo "[kms] moto served $generated KMS request(s)"
