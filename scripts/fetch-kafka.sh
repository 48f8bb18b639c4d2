#!/usr/bin/env bash
# Downloads an Apache Kafka broker runtime from Maven Central into build/kafka/<version>/ and prints that
# directory. Idempotent: a completed download is reused.
#   scripts/fetch-kafka.sh [oldest|newest|<version>]     (default: newest, see tests/e2e/kafka-versions)
# Layout: libs/ the broker classpath (kafka_2.13, tools, clients, log4j2); plugins/ Apache Kafka's own
# LocalTieredStorage (the kafka-storage test jar) and, in plugins/compat, the kafka-clients jar of that release.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=tests/e2e/kafka-versions
want="${1:-newest}"
case "$want" in
  oldest) line=$(awk '!/^#/ { print; exit }' "$versions") ;;
  newest) line=$(grep -v '^#' "$versions" | tail -n1) ;;
  *) line=$(awk -v v="$want" '!/^#/ && $1 == v { print; exit }' "$versions")
     [[ -n "$line" ]] || line="$want $want" ;;
esac
read -r version test_version <<<"$line"
out="$PWD/build/kafka/$version"
if [[ ! -f "$out/.complete" ]]; then
  command -v mvn >/dev/null || { echo "fetch-kafka: mvn is required (apt-get install maven)" >&2; exit 1; }
  rm -rf "$out"; mkdir -p "$(dirname "$out")"
  echo "fetch-kafka: resolving Apache Kafka $version (LocalTieredStorage from $test_version) from Maven Central" >&2
  if ! mvn -B -q -f tests/e2e/kafka-runtime/pom.xml -Dkafka.version="$version" \
      -Dkafka.test.version="$test_version" -Dkafka.out="$out" package >"$out.mvn.log" 2>&1; then
    tail -n 30 "$out.mvn.log" >&2
    echo "fetch-kafka: download of Kafka $version failed (log: $out.mvn.log)" >&2
    exit 1
  fi
  echo "$version $test_version" >"$out/.complete"
fi
echo "$out"
