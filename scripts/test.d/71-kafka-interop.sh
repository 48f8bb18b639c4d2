#!/usr/bin/env bash
# Our Rust LocalTieredStorage and Apache Kafka's own (kafka-storage test jar from Maven Central) write
# identical tiers and read each other's, byte for byte (tests/interop/run.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in java:openjdk-17-jdk-headless javac:openjdk-17-jdk-headless mvn:maven python3:python3; do
  command -v "${tool%%:*}" >/dev/null || { apt-get update -qq && apt-get install -y -qq "${tool##*:}" >/dev/null; }
done
tests/interop/run.sh
