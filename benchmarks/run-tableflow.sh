#!/usr/bin/env bash
# Tableflow benchmark: materialization throughput of 1 KiB JSON records per second and per CPU-second of the
# table job's thread, then the table's lag at a steady produce rate (half the measured throughput by default),
# with Floe in this JVM on embedded stores (io.floe.benchmarks.tableflow.TableflowBenchmark).
# Usage: benchmarks/run-tableflow.sh [--records N] [--partitions P] [--commit-interval-ms N] [--lag-seconds N]
#        [--rate-fraction F]
# Builds like run-compaction.sh (profile floe-inprocess, from the root reactor, nothing installed in ~/.m2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="$here/target/floe-inprocess"
offline="${MVN_OFFLINE:-}"

mvn -q -B $offline -f "$repo/pom.xml" -pl benchmarks -am -P floe-inprocess package -DskipTests

classpath="$build/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$build/runtime.classpath")"
exec java -Xmx1g -XX:+UseG1GC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$classpath" io.floe.benchmarks.tableflow.TableflowBenchmark \
  "$@"
