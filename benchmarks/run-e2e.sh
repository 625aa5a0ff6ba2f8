#!/usr/bin/env bash
# End-to-end produce/consume benchmark: Floe vs Apache Kafka 4.4 on this machine.
# Usage: benchmarks/run-e2e.sh [--records N] [--record-size B] [--partitions P] [--rounds R]
#        [--consumer perf|assign|both] [--latency-rate N] [--latency-records M] [--kafka-only]
#        [--flush-interval-ms N] [--out FILE] [--keep-dirs] ...   (--help lists them all)
# Per round and system: ProducerPerformance unthrottled (throughput at saturation), the consumers, then the
# steady-rate latency phase: ProducerPerformance at --latency-rate records/s (default 5000; 0 skips it) for
# --latency-records records (default 15 x the rate, ~15 s) into topic bench-latency, the first
# --latency-warmup-records (default a fifth) left out of its figures.
# Builds the driver, resolves the driver's and Kafka's classpaths (kept apart: Kafka 4.4 logs through slf4j 1.7),
# builds Floe's launcher jar if needed, then runs io.floe.benchmarks.e2e.ProduceConsumeBenchmark.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
target="$here/target"
offline="${MVN_OFFLINE:-}"   # MVN_OFFLINE=-o skips remote checks once everything is in ~/.m2
mvn_q=(mvn -q -B $offline -f "$here/pom.xml")

needs_floe=true
for arg in "$@"; do
  [[ "$arg" == "--kafka-only" ]] && needs_floe=false
  [[ "$arg" == "--help" || "$arg" == "-h" ]] && needs_floe=false
done

# The parent POM must be resolvable for a standalone -f build of this module.
if ! ls ~/.m2/repository/io/floe/floe-parent/0.1.0-SNAPSHOT/*.pom >/dev/null 2>&1; then
  mvn -q -B $offline -f "$repo/pom.xml" -N install
fi
"${mvn_q[@]}" package -DskipTests
"${mvn_q[@]}" dependency:build-classpath@driver-classpath
"${mvn_q[@]}" -P kafka-runtime dependency:build-classpath@kafka-runtime-classpath

floe_script="$repo/bin/floe"
if $needs_floe; then
  if [[ ! -x "$floe_script" ]]; then
    echo "run-e2e: $floe_script is missing; run with --kafka-only to validate the driver against Kafka alone" >&2
    exit 2
  fi
  # bin/floe builds the agent jar on first use; do that before any timed start.
  "$floe_script" --help >/dev/null 2>&1 || true
fi

driver_cp="$target/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$target/driver.classpath")"
exec java -Xmx256m \
  -Dorg.slf4j.simpleLogger.showDateTime=true \
  -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss \
  -Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn \
  -Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients.NetworkClient=error \
  "-Dfloe.bench.command=benchmarks/run-e2e.sh $*" \
  -cp "$driver_cp" io.floe.benchmarks.e2e.ProduceConsumeBenchmark \
  --kafka-classpath "$(cat "$target/kafka-runtime.classpath")" \
  --driver-classpath "$driver_cp" \
  --floe-script "$floe_script" \
  "$@"
