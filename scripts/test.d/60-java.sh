#!/usr/bin/env bash
# The Kafka plugin jar: builds rust/krabka-jni, the jar build/libs/krabka-remote-storage.jar and
# runs the adapters' JUnit tests against the oldest and the newest Kafka 4.x (`gradle build`).
# Then the verifier jar build/libs/krabka-worm-verify.jar (built by the same `gradle build`)
# against the krabka-worm-verify binary: same exit codes and output (tests/jar.rs).
# Installs Java 17 and Debian's Gradle when missing; Gradle fetches Kafka, JUnit and JMH from
# Maven Central.
set -euo pipefail
install() {
  if ! dpkg -s "$@" >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  fi
}
command -v javac >/dev/null || install openjdk-17-jdk-headless
command -v gradle >/dev/null || install gradle
command -v mkfifo >/dev/null || install coreutils
gradle --version | sed -n 's/^Gradle /gradle /p'
gradle --no-daemon --console=plain build
ls -l build/libs/krabka-remote-storage.jar
ls -l build/libs/krabka-worm-verify.jar
KRABKA_WORM_VERIFY_JAR="$PWD/build/libs/krabka-worm-verify.jar" \
  cargo test --workspace --locked --features krabka-worm-verify/jar-test --test jar
