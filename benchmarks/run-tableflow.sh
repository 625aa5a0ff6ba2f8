#!/usr/bin/env bash
# Tableflow benchmark, with Floe in this JVM on embedded stores (io.floe.benchmarks.tableflow.TableflowBenchmark):
# * throughput: the same 1 KiB JSON records materialized as an append table, append + Delta, upsert and
#   upsert + Delta, per CPU-second of the Tableflow thread; beside them Apache Iceberg's Kafka Connect sink
#   (a Connect worker in a child JVM, reading from this Floe) on the same records, per CPU-second of the worker;
# * delta-cost: the Delta log's extra CPU and object-store requests per commit;
# * lag (only when asked, --phases ...,lag): the table's lag at a steady produce rate.
# Usage: benchmarks/run-tableflow.sh [--records N] [--key-space K] [--partitions P] [--rounds R]
#        [--variants append,append+delta,upsert,upsert+delta] [--phases throughput,delta-cost,lag]
#        [--connect false] [--connect-tasks N] [--out FILE] ...   (benchmarks/README.md lists every option)
# Builds like run-compaction.sh (profile floe-inprocess, from the root reactor, nothing installed in ~/.m2);
# SKIP_BUILD=1 skips the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="$here/target/floe-inprocess"
offline="${MVN_OFFLINE:-}"

connect=true
for ((i = 1; i <= $#; i++)); do
  if [[ "${!i}" == "--connect" ]]; then j=$((i + 1)); connect="${!j}"; fi
done

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -q -B $offline -f "$repo/pom.xml" -pl benchmarks -am -P floe-inprocess package -DskipTests
  if [[ "$connect" == "true" ]]; then
    (cd "$here" && mvn -q -B $offline -P connect-runtime dependency:build-classpath@connect-runtime-classpath)
  fi
fi

connect_args=()
if [[ "$connect" == "true" ]]; then
  connect_args=(--connect-classpath "$here/target/connect-runtime.classpath")
fi

classpath="$build/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$build/runtime.classpath")"
exec java -Xmx1g -XX:+UseG1GC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.log.io.delta.kernel.internal.snapshot.SnapshotManager=error \
  -cp "$classpath" io.floe.benchmarks.tableflow.TableflowBenchmark \
  "$@" "${connect_args[@]}"
