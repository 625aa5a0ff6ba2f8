#!/usr/bin/env bash
# Compaction benchmark: the cost of compaction (bytes read and written per byte ingested) and read-all throughput
# from uncompacted versus compacted storage, with Floe in this JVM (io.floe.benchmarks.compaction.CompactionBenchmark).
# Usage: benchmarks/run-compaction.sh [--records N] [--value-bytes B] [--batch-records R] [--partitions P]
#        [--flush-interval-ms N] [--flush-bytes N] [--target-bytes N] [--small-object-bytes N] [--out FILE]
#        [--keep-dir]   (--help lists them all)
# Builds Floe's modules and this one with the floe-inprocess profile from the root reactor (never from ~/.m2, and
# without installing anything there), which also writes the runtime classpath to target/floe-inprocess/, then runs
# the benchmark. The end-to-end driver's build (run-e2e.sh, target/) is untouched.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="$here/target/floe-inprocess"
offline="${MVN_OFFLINE:-}"   # MVN_OFFLINE=-o skips remote checks once everything is in ~/.m2

mvn -q -B $offline -f "$repo/pom.xml" -pl benchmarks -am -P floe-inprocess package -DskipTests

classpath="$build/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$build/runtime.classpath")"
exec java -Xmx1g \
  -Dorg.slf4j.simpleLogger.showDateTime=true \
  -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss \
  "-Dfloe.bench.command=benchmarks/run-compaction.sh $*" \
  -cp "$classpath" io.floe.benchmarks.compaction.CompactionBenchmark \
  "$@"
