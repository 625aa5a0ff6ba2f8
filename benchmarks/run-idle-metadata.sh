#!/usr/bin/env bash
# Idle-agent metadata benchmark: the SQL statements, transactions and rows read per second that one agent with its
# maintenance jobs and no clients makes against PostgreSQL, with nothing stored and with 100,000 transactional ids
# and 10,000 groups stored (io.floe.benchmarks.idle.IdleMetadataBenchmark). The target: the same figures for both.
# Usage: benchmarks/run-idle-metadata.sh [--baseline REF] [--ids N] [--groups N] [--seconds S] [--warmup-seconds S]
#        [--offsets-check-seconds S] [--out FILE]
# Runs two builds in one run, side by side: REF (default: the merge base of HEAD and main) and this working tree.
# The baseline is checked out in a temporary git worktree with this tree's benchmarks/ module laid over it (the
# driver is the same for both), and each is built with the floe-inprocess profile from its own reactor (never from
# ~/.m2, installing nothing there). About 5 minutes of measuring plus two builds.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
offline="${MVN_OFFLINE:-}"   # MVN_OFFLINE=-o skips remote checks once everything is in ~/.m2

baseline=""
out=""
driver_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --baseline) baseline="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --ids|--groups|--seconds|--warmup-seconds|--offsets-check-seconds) driver_args+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$baseline" ]]; then
  baseline="$(git -C "$repo" merge-base HEAD main)"
fi
if [[ -z "$out" ]]; then
  mkdir -p "$here/results"
  out="$here/results/idle-metadata-$(date -u +%Y%m%d-%H%M%S).md"
fi
current="$(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . ':!benchmarks' || echo '+changes')"
base_label="$(git -C "$repo" rev-parse --short "$baseline")"

build() { # build <repo root>: the benchmark jar and its runtime classpath under benchmarks/target/floe-inprocess
  mvn -q -B $offline -f "$1/pom.xml" -pl benchmarks -am -P floe-inprocess package -DskipTests
}
classpath() {
  local build_dir="$1/benchmarks/target/floe-inprocess"
  echo "$build_dir/floe-benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$build_dir/runtime.classpath")"
}
run() { # run <classpath> <label>
  java -Xmx1g -Dorg.slf4j.simpleLogger.showDateTime=true -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss \
    -cp "$1" io.floe.benchmarks.idle.IdleMetadataBenchmark --label "$2" --out "$rows" "${driver_args[@]}"
}

base_tree="$(mktemp -d /tmp/floe-idle-baseline-XXXXXX)"
rows="$(mktemp /tmp/floe-idle-rows-XXXXXX)"
cleanup() {
  git -C "$repo" worktree remove --force "$base_tree" >/dev/null 2>&1 || rm -rf "$base_tree"
  rm -f "$rows"
}
trap cleanup EXIT
git -C "$repo" worktree add --detach "$base_tree" "$baseline" >/dev/null
rm -rf "$base_tree/benchmarks"
cp -r "$here" "$base_tree/benchmarks"
rm -rf "$base_tree/benchmarks/target"

echo "building baseline $base_label and current $current" >&2
build "$base_tree"
build "$repo"

run "$(classpath "$base_tree")" "before ($base_label)"
run "$(classpath "$repo")" "after ($current)"

{
  echo "## Idle agent: metadata queries per second ($(date -u +%Y-%m-%d))"
  echo
  echo "\`benchmarks/run-idle-metadata.sh ${driver_args[*]:-}\` on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| build | transactional ids | groups | SQL statements/s | transactions/s | rows read/s | store operations/s | most frequent statements |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  cat "$rows"
} | tee "$out"
echo "wrote $out" >&2
