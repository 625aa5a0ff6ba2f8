#!/usr/bin/env bash
# Tableflow benchmark, with Floe in this JVM on embedded stores (io.floe.benchmarks.tableflow.TableflowBenchmark):
# * throughput: the same 1 KiB JSON records materialized as an append table, append + Delta, upsert and
#   upsert + Delta, per CPU-second of the Tableflow thread; beside them Apache Iceberg's Kafka Connect sink
#   (a Connect worker in a child JVM, reading from this Floe) on the same records, per CPU-second of the worker;
# * changes (only when asked, --phases ...,changes): a materialized table's change topic published from its start,
#   in change events per second and per CPU-second of the Tableflow thread and of the agent: append, upsert (its
#   history) and upsert-snapshot (Debezium's initial snapshot);
# * delta-cost: the Delta log's extra CPU and object-store requests per commit;
# * lag (only when asked, --phases ...,lag): the table's lag at a steady produce rate.
# Usage: benchmarks/run-tableflow.sh [--records N] [--key-space K] [--partitions P] [--rounds R]
#        [--variants append,append+delta,upsert,upsert+delta] [--phases throughput,changes,delta-cost,lag]
#        [--change-variants append,upsert,upsert-snapshot] [--change-records N]
#        [--connect false] [--connect-tasks N] [--out FILE] ...   (benchmarks/README.md lists every option)
#        benchmarks/run-tableflow.sh --build before=DIR --build after=DIR [options]
#            builds and measures each checkout DIR (each must have this driver) in one run, interleaved round by
#            round (one JVM per build and round, ABBA order), phases throughput,changes unless --phases says
#            otherwise, no Connect sink; then compares them (BuildComparison): medians per build and ratios to the
#            first build, to --out or target/tableflow-builds-<UTC time>/comparison.md.
# Builds like run-compaction.sh (profile floe-inprocess, from the root reactor, nothing installed in ~/.m2);
# SKIP_BUILD=1 skips the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
offline="${MVN_OFFLINE:-}"

connect=true
builds=()
rounds=3
out=""
args=()
for ((i = 1; i <= $#; i++)); do
  arg="${!i}"
  j=$((i + 1))
  case "$arg" in
    --connect) connect="${!j}"; args+=("$arg" "${!j}"); i=$j ;;
    --build) builds+=("${!j}"); i=$j ;;
    --rounds) rounds="${!j}"; args+=("$arg" "${!j}"); i=$j ;;
    --out) out="${!j}"; args+=("$arg" "${!j}"); i=$j ;;
    *) args+=("$arg") ;;
  esac
done

java_opts=(-Xmx1g -XX:+UseG1GC
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
  -Dorg.slf4j.simpleLogger.log.io.delta.kernel.internal.snapshot.SnapshotManager=error)

# The benchmark's classpath in checkout $1, built there first unless SKIP_BUILD is set.
classpath_of() {
  local checkout="$1" build="$1/benchmarks/target/floe-inprocess"
  if [[ -z "${SKIP_BUILD:-}" ]]; then
    mvn -q -B $offline -f "$checkout/pom.xml" -pl benchmarks -am -P floe-inprocess package -DskipTests >&2
  fi
  echo "$build/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$build/runtime.classpath")"
}

if [[ ${#builds[@]} -eq 0 ]]; then
  classpath="$(classpath_of "$repo")"
  connect_args=()
  if [[ "$connect" == "true" ]]; then
    if [[ -z "${SKIP_BUILD:-}" ]]; then
      (cd "$here" && mvn -q -B $offline -P connect-runtime dependency:build-classpath@connect-runtime-classpath)
    fi
    connect_args=(--connect-classpath "$here/target/connect-runtime.classpath")
  fi
  exec java "${java_opts[@]}" -cp "$classpath" io.floe.benchmarks.tableflow.TableflowBenchmark \
    "$@" "${connect_args[@]}"
fi

# Two or more builds, interleaved: round r runs each build's JVM once (--rounds 1), in the order given on odd rounds
# and reversed on even ones (ABBA), so a drift of the machine's load over the run falls on both alike.
results="$here/target/tableflow-builds-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$results"
names=()
declare -A classpaths
for spec in "${builds[@]}"; do
  name="${spec%%=*}"
  checkout="$(cd "${spec#*=}" && pwd)"
  names+=("$name")
  classpaths[$name]="$(classpath_of "$checkout")"
  git -C "$checkout" log -1 --format="$name: $checkout at %h %s" >> "$results/builds.txt" 2>/dev/null || true
done
per_run=()
phases_given=false
for ((k = 0; k < ${#args[@]}; k++)); do
  case "${args[$k]}" in
    --rounds | --out | --connect) k=$((k + 1)) ;;
    --phases) phases_given=true; per_run+=("${args[$k]}") ;;
    *) per_run+=("${args[$k]}") ;;
  esac
done
$phases_given || per_run+=(--phases throughput,changes)
for ((round = 1; round <= rounds; round++)); do
  order=("${names[@]}")
  if ((round % 2 == 0)); then
    order=()
    for ((k = ${#names[@]} - 1; k >= 0; k--)); do order+=("${names[$k]}"); done
  fi
  for name in "${order[@]}"; do
    echo "== round $round of $rounds: build $name" >&2
    java "${java_opts[@]}" -cp "${classpaths[$name]}" io.floe.benchmarks.tableflow.TableflowBenchmark \
      "${per_run[@]}" --rounds 1 --connect false --build-name "$name" --results "$results/$name.tsv" \
      --out "$results/$name-round-$round.md"
  done
done
cat "$results/builds.txt"
files=()
for name in "${names[@]}"; do files+=("$results/$name.tsv"); done
java -cp "${classpaths[${names[0]}]}" io.floe.benchmarks.tableflow.BuildComparison \
  --out "${out:-$results/comparison.md}" "${files[@]}"
echo "Per-run reports and results files: $results" >&2
