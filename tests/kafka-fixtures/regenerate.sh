#!/usr/bin/env bash
# Regenerates tests/fixtures/kafka/ with Apache Kafka's own classes (see WriteFixtures.java).
# Needs Java 17+ and Maven (Kafka jars come from Maven Central). Commit what it writes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../fixtures/kafka"
cd "$here"
mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
rm -rf "$out"
mkdir -p "$out"
java -cp "target/classes:$(cat target/classpath.txt)" io.krabka.fixtures.WriteFixtures "$out"
du -sh "$out"
