#!/usr/bin/env bash
# Interoperability of our Rust LocalTieredStorage with Apache Kafka's own (kafka-storage test jar):
#   - the same segments copied by each into its own tier give identical directory trees, byte for byte;
#   - a tier written by Kafka's is read by ours, and one written by ours is read by Kafka's: every segment
#     (whole and from a position), every index, and "not found" for a missing transaction index.
# The Rust side is the example kafka_tier_interop of krabka-remote-storage; INTEROP_RUST_BIN overrides it.
set -euo pipefail
source "$(dirname "$0")/../e2e/lib/e2e.sh"
cd "$E2E_ROOT"

E2E_KAFKA=${E2E_KAFKA:-newest} e2e_setup_kafka
work="$E2E_ROOT/build/interop"
rm -rf "$work"; mkdir -p "$work/classes"
test_jar=$(ls "$KAFKA_HOME"/plugins/kafka-storage-*-test.jar)
javac -Xlint:all -Werror --release 17 -d "$work/classes" -cp "$KAFKA_HOME/libs/*:$test_jar" \
  tests/interop/src/io/krabka/interop/*.java
kafka_tier() {
  java -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile="$E2E_ROOT/tests/e2e/config/log4j2-client.properties" \
    -De2e.log.file="$work/kafka-tier.log" \
    -cp "$work/classes:$KAFKA_HOME/libs/*:$test_jar:$(ls "$KAFKA_HOME"/plugins/compat/*.jar)" \
    io.krabka.interop.KafkaTier "$@"
}
rust_bin="${INTEROP_RUST_BIN:-}"
if [[ -z $rust_bin ]]; then
  cargo build -q --locked -p krabka-remote-storage --example kafka_tier_interop
  rust_bin="$E2E_ROOT/target/debug/examples/kafka_tier_interop"
fi

echo "interop: Apache Kafka $(basename "$test_jar" .jar) LocalTieredStorage <-> krabka LocalTieredStorage"
kafka_tier fixture "$work/src"
kafka_tier copy "$work/tier-kafka" "$work/src"
"$rust_bin" copy "$work/tier-krabka" "$work/src"
if ! diff -r "$work/tier-kafka" "$work/tier-krabka"; then
  echo "interop: the two implementations wrote different tiers from the same segments" >&2
  exit 1
fi
echo "  both tiers are identical: $(find "$work/tier-kafka" -type f | wc -l) files, same names, same bytes"
"$rust_bin" fetch "$work/tier-kafka" "$work/src" "$work/krabka-reads-kafka"
kafka_tier fetch "$work/tier-krabka" "$work/src" "$work/kafka-reads-krabka"

# Every fetched file against its source: segments whole and from a position, indexes, missing ones.
python3 - "$work/src" "$work/krabka-reads-kafka" "$work/kafka-reads-krabka" <<'PY'
import os, sys
src, outs = sys.argv[1], sys.argv[2:]
suffixes = [".index", ".timeindex", ".snapshot", ".leader_epoch_checkpoint", ".txnindex"]
names = [l.split()[0] for l in open(os.path.join(src, "manifest")) if l.strip() and not l.startswith("#")]
failures = 0
for out in outs:
    checked = 0
    for name in names:
        log = open(os.path.join(src, name + ".log"), "rb").read()
        pos = len(log) // 3
        pairs = [(name + ".log", log), (f"{name}.log@{pos}", log[pos:])]
        for s in suffixes:
            path = os.path.join(src, name + s)
            if os.path.exists(path):
                pairs.append((name + s, open(path, "rb").read()))
            elif not os.path.exists(os.path.join(out, name + s + ".missing")):
                print(f"  {os.path.basename(out)}/{name}{s}: missing in the source, but not reported as not found")
                failures += 1
            else:
                checked += 1
        for fetched, want in pairs:
            path = os.path.join(out, fetched)
            got = open(path, "rb").read() if os.path.exists(path) else None
            if got != want:
                print(f"  {os.path.basename(out)}/{fetched}: " + ("not fetched" if got is None else
                      f"{len(got)} bytes differ from the {len(want)} source bytes"))
                failures += 1
            checked += 1
    print(f"  {os.path.basename(out)}: {checked} fetches checked byte for byte against the source")
sys.exit(1 if failures else 0)
PY
echo "interop: passed"
