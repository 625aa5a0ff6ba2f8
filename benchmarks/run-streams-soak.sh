#!/usr/bin/env bash
# Kafka Streams exactly-once soak (issue 27's acceptance): a Streams exactly_once_v2 application (a count per key in
# a state store, so its changelog is compact-only and gets a transaction marker per commit) runs against three
# agents in child JVMs on one PostgreSQL server and an S3 bucket (S3Proxy), fed by a plain idempotent producer,
# while agents are paused past their leases (SIGSTOP, SIGCONT) and killed (SIGKILL, started again). Then:
# * the output, read committed, must count every input record exactly once (per key 1:s1, 2:s2, ... n:sn);
# * the changelog's metadata rows in PostgreSQL (batches, txn_markers, producer_state) must be, per partition,
#   no more at the end (the application caught up, then idle until the rows settle, at most --rows-settle-seconds)
#   than at the baseline (a minute in) plus the partition's live keys;
# * the application must catch up once the input stops, and no agent may die on its own.
# Prints one line starting "STREAMS-SOAK PASS|FAIL" to paste into docs; exits 0 only if every check passed.
# Usage: benchmarks/run-streams-soak.sh [--seconds N] [--seed S] [--keys K] [--rate R] [--partitions P]
#        [--instances N] [--baseline-seconds N] [--short-pause MIN-MAX] [--long-pause-seconds N]
#        [--kill-down MIN-MAX] [--fault-gap MIN-MAX] [--settle-seconds N] [--rows-settle-seconds N]
#        [--changelog-delete-retention-ms N] [--logs DIR]
# Defaults: 600 s, a random seed (printed, with the command that replays the run), 60 keys at 100 records/s (10 live
# keys a partition: a bound that rows kept per transaction pass within minutes).
# The driver (io.floe.cli.e2e.soak.StreamsSoak) lives in the cli module's test sources beside the fault tests
# whose harness it uses; this script compiles them in the reactor (nothing installed in ~/.m2) and runs it with
# the test classpath. SKIP_BUILD=1 skips the build; MVN_OFFLINE=-o skips Maven's remote checks.
# Logs (agents' logs, the driver's output, report.md) go to benchmarks/target/streams-soak-<UTC time>/ unless
# --logs says otherwise. About the run's length plus the agents' start-up (a minute or more on a busy machine), the
# catch-up, and up to --rows-settle-seconds (240) for the rows to come within the bound.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
offline="${MVN_OFFLINE:-}"
classpath_file="$repo/cli/target/soak-test.classpath"

if [[ -z "${SKIP_BUILD:-}" ]]; then
  # build-classpath runs in every module of the reactor; each writes its own target/soak-test.classpath and
  # resolves its sibling modules to their target/classes.
  mvn -q -B $offline -f "$repo/pom.xml" -pl cli -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/soak-test.classpath -Dmdep.includeScope=test
fi

log_dir="$here/target/streams-soak-$(date -u +%Y%m%d-%H%M%S)"
for ((i = 1; i <= $#; i++)); do
  if [[ "${!i}" == "--logs" ]]; then j=$((i + 1)); log_dir="${!j}"; fi
done
mkdir -p "$log_dir"
log_dir="$(cd "$log_dir" && pwd)"

build="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then build="$build+dirty"; fi

# The agents restarted mid-run load their classes again: run from a copy of the build's class directories, so a
# build in this checkout during the run cannot change them.
stage="$log_dir/classes"
rm -rf "$stage"
mkdir -p "$stage"
classpath=""
IFS=':' read -r -a entries <<< "$repo/cli/target/test-classes:$repo/cli/target/classes:$(cat "$classpath_file")"
for entry in "${entries[@]}"; do
  if [[ -d "$entry" && "$entry" == "$repo"/* ]]; then
    copy="$stage/$(echo "${entry#"$repo"/}" | tr '/' '_')"
    cp -r "$entry" "$copy"
    entry="$copy"
  fi
  classpath="${classpath:+$classpath:}$entry"
done
java -Xmx1g -XX:+UseG1GC -Dsoak.build="$build" -cp "$classpath" io.floe.cli.e2e.soak.StreamsSoak \
  "$@" --logs "$log_dir" 2>&1 | tee "$log_dir/driver.log"
exit "${PIPESTATUS[0]}"
