#!/usr/bin/env bash
# JMH: reads one 256 MiB segment through KrabkaRemoteStorageManager (Rust over JNI) and through
# Apache Kafka's LocalTieredStorage, in one JVM run: the whole segment, and 1 MiB from a random
# position then close. Prints MB/s and allocation per operation (JMH `-prof gc`).
#
#   scripts/bench-jmh.sh                 # short settings (about 3 minutes)
#   scripts/bench-jmh.sh -wi 3 -i 10     # any JMH options replace the short ones
#
# Needs about 600 MB free in the temporary directory. Raw results: build/jmh/results.json.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v gradle >/dev/null || { apt-get update -qq; apt-get install -y -qq gradle >/dev/null; }
mkdir -p build/jmh
options="${*:--wi 2 -w 2s -i 3 -r 3s}"
gradle --no-daemon --console=plain -q jmh \
  -PjmhArgs="SegmentReadBenchmark -f 1 $options -prof gc -rf json -rff $PWD/build/jmh/results.json"
python3 - "$PWD/build/jmh/results.json" <<'PY'
import json, sys
MIB = 1024 * 1024
per_op = {"wholeSegment": 256 * MIB, "randomMiB": MIB}
rows = json.load(open(sys.argv[1]))
print()
print(f"{'benchmark':<14} {'implementation':<15} {'ops/s':>10} {'MB/s':>10} {'alloc B/op':>14}")
for row in rows:
    name = row["benchmark"].rsplit(".", 1)[-1]
    impl = row["params"]["implementation"]
    ops = row["primaryMetric"]["score"]
    alloc = row["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score", float("nan"))
    mbs = ops * per_op[name] / 1e6
    print(f"{name:<14} {impl:<15} {ops:>10.2f} {mbs:>10.1f} {alloc:>14.0f}")
PY
