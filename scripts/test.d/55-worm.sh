#!/usr/bin/env bash
# The write-once archive mode against real servers: SeaweedFS with an Object Lock bucket
# (COMPLIANCE, 1 day), a versioned bucket without Object Lock (for the tamper cases that delete
# versions) and its plain bucket, s3s-fs (refused), and the in-repo GCS server (which
# enforces Google's Bucket Lock rules) with a bucket under a locked retention policy and without
# versioning, as Google allows. Reuses scripts/lib/object-store-servers.sh.
# Every S3 request goes through the aws-rules front (tests/aws-rules/front.py), which refuses what
# Amazon S3 refuses and SeaweedFS lets through (an upload into an Object Lock bucket without a
# checksum header, ...); KRABKA_S3_ENDPOINT names the front. litewitness (an independent C2SP
# tlog-witness) cosigns the archive log's checkpoints.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh

install_servers
trap stop_servers EXIT

echo "--- the aws-rules front's own tests"
"$VENV/bin/python" rust/krabka-remote-storage/tests/aws-rules/test_front.py

start_servers seaweedfs aws-rules s3s gcs litewitness

echo "--- Object Lock bucket on SeaweedFS (created through the aws-rules front)"
WORM_BUCKET=worm-$(date +%s)
AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1 \
  "$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT" s3api create-bucket --bucket "$WORM_BUCKET" \
  --object-lock-enabled-for-bucket > /dev/null
AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1 \
  "$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT" s3api put-object-lock-configuration \
  --bucket "$WORM_BUCKET" \
  --object-lock-configuration '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"COMPLIANCE","Days":1}}}'
export KRABKA_S3_WORM_BUCKET=$WORM_BUCKET

echo "--- Versioned bucket without Object Lock on SeaweedFS (versions can be deleted there)"
VERSIONED_BUCKET=versioned-$(date +%s)
AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1 \
  "$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT" s3api create-bucket --bucket "$VERSIONED_BUCKET" > /dev/null
AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest AWS_DEFAULT_REGION=us-east-1 \
  "$VENV/bin/aws" --endpoint-url "$KRABKA_S3_ENDPOINT" s3api put-bucket-versioning \
  --bucket "$VERSIONED_BUCKET" --versioning-configuration Status=Enabled
export KRABKA_S3_VERSIONED_BUCKET=$VERSIONED_BUCKET

echo "--- Bucket Lock bucket on the GCS test server: locked retention policy, no versioning"
curl -sf -o /dev/null -X POST -H 'content-type: application/json' "$KRABKA_GCS_ENDPOINT/storage/v1/b?project=test" \
  -d '{"name":"worm","retentionPolicy":{"retentionPeriod":"86400"}}'
curl -sf -o /dev/null -X POST "$KRABKA_GCS_ENDPOINT/storage/v1/b/worm/lockRetentionPolicy?ifMetagenerationMatch=1"
export KRABKA_GCS_WORM_BUCKET=worm

echo "--- Rust WORM tests against the servers"
cargo test --workspace --locked --test worm_servers -- --nocapture "$@"
cargo test --workspace --locked --test worm_tamper_servers -- "$@"
cargo test --workspace --locked --test worm_gcs -- --nocapture "$@"
cargo test --workspace --locked --test cli_servers -- "$@"
echo "--- the archive log with litewitness, Go's note and tlog, and SeaweedFS"
cargo test --workspace --locked --test witness_servers -- "$@"
