#!/usr/bin/env bash
# Upsert table benchmark: the cost of finding each changed key's current row, for a table of --keys keys
# (default 1,000,000) and rounds of --round-keys changed keys (default 10,000), with Floe in this JVM on
# embedded stores (io.floe.benchmarks.tableflow.UpsertBenchmark).
# Usage: benchmarks/run-upsert.sh [--keys N] [--round-keys N] [--rounds N] [--partitions P] [--value-bytes B]
#        [--topic-config NAME=VALUE ...] [--bloom false]
# JAVA_OPTS (default -Xmx2g) sets the JVM's options. Builds like run-tableflow.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="$here/target/floe-inprocess"
offline="${MVN_OFFLINE:-}"

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -q -B $offline -f "$repo/pom.xml" -pl benchmarks -am -P floe-inprocess package -DskipTests
fi

classpath="$build/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$build/runtime.classpath")"
exec java ${JAVA_OPTS:--Xmx2g} -XX:+UseG1GC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$classpath" io.floe.benchmarks.tableflow.UpsertBenchmark \
  "$@"
