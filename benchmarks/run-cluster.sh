#!/usr/bin/env bash
# Cluster benchmark: N Floe agents (default 3) on one PostgreSQL and one S3 bucket (S3Proxy), all on this machine.
# Usage: benchmarks/run-cluster.sh [--records N] [--record-size B] [--partitions P] [--agents N] [--producers N]
#        [--producer-processes N] [--group-members N] [--agent-arg ARG] [--out FILE] [--keep-dirs] ...
#        (--help lists them all)
#        benchmarks/run-cluster.sh --stores-only    # PostgreSQL + S3Proxy alone, with the agent options that reach
#                                                   # them printed; Ctrl-C stops both
# Phases: idle (baseline rates), produce (LoadProducer at full load, TailConsumer reading at the tail meanwhile),
# catch-up (GroupConsumer from the start). Each agent's /metrics, S3Proxy's request counts and PostgreSQL's
# pg_stat_database are read before and after each phase. The report (Markdown) is printed and written to --out,
# by default benchmarks/results/cluster-<UTC time>.md.
# Builds this module (driver, tools), resolves its classpath and S3Proxy's (kept apart), builds Floe's launcher jar
# if it is missing (bin/floe), then runs io.floe.benchmarks.cluster.ClusterBenchmark. Installs nothing in ~/.m2.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
target="$here/target"
offline="${MVN_OFFLINE:-}"   # MVN_OFFLINE=-o skips remote checks once everything is in ~/.m2
mvn_q=(mvn -q -B $offline -f "$here/pom.xml")

stores_only=false
help=false
has_out=false
for arg in "$@"; do
  [[ "$arg" == "--stores-only" ]] && stores_only=true
  [[ "$arg" == "--help" || "$arg" == "-h" ]] && help=true
  [[ "$arg" == "--out" ]] && has_out=true
done

"${mvn_q[@]}" package -DskipTests
"${mvn_q[@]}" dependency:build-classpath@driver-classpath
"${mvn_q[@]}" -P s3proxy-runtime dependency:build-classpath@s3proxy-runtime-classpath

driver_cp="$target/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$target/driver.classpath")"
s3proxy_cp="$(cat "$target/s3proxy-runtime.classpath")"
java_opts=(-Xmx256m -Dorg.slf4j.simpleLogger.showDateTime=true -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss
  -Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn)

if $stores_only; then
  exec java "${java_opts[@]}" -cp "$driver_cp" io.floe.benchmarks.cluster.ClusterStores \
    --s3proxy-classpath "$s3proxy_cp"
fi

floe_script="$repo/bin/floe"
if ! $help; then
  # bin/floe builds the agent jar on first use; do that before any timed start.
  "$floe_script" --help >/dev/null 2>&1 || true
fi

out=()
if ! $has_out && ! $help; then
  mkdir -p "$here/results"
  out=(--out "$here/results/cluster-$(date -u +%Y%m%d-%H%M%S).md")
fi

exec java "${java_opts[@]}" \
  "-Dfloe.bench.command=benchmarks/run-cluster.sh $*" \
  -cp "$driver_cp" io.floe.benchmarks.cluster.ClusterBenchmark \
  --driver-classpath "$driver_cp" \
  --s3proxy-classpath "$s3proxy_cp" \
  --floe-script "$floe_script" \
  "${out[@]}" \
  "$@"
