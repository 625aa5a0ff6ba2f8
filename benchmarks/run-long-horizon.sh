#!/usr/bin/env bash
# A longer simulation campaign than the 500 seeds every build runs: each seed is a run of the real agents,
# maintenance and Tableflow under faults, ending with at least 30 virtual days of a Kafka Streams-like
# exactly_once_v2 application between quiet periods (module simulation, SimulationTest; docs/verification.md).
# Usage: benchmarks/run-long-horizon.sh [--seeds N] [--from S|random] [--threads T] [--out FILE]
# Defaults: 5000 seeds from 501 (the builds run 1-500), the processors as threads; about 8 minutes a thousand
# seeds on 2 cores. Prints a replay command for every failing seed; exits non-zero if any failed. Builds from
# this reactor only (never installs into ~/.m2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
offline="${MVN_OFFLINE:-}"   # MVN_OFFLINE=-o skips remote checks once everything is in ~/.m2

seeds=5000
from=501
threads=""
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --from) from="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$out" ]]; then
  mkdir -p "$here/results"
  out="$here/results/long-horizon-$(date -u +%Y%m%d-%H%M%S).log"
fi
props=(-Dsim.seeds="$seeds" -Dsim.from="$from")
if [[ -n "$threads" ]]; then
  props+=(-Dsim.threads="$threads")
fi
echo "simulation campaign: $seeds seeds from $from, build $(git -C "$repo" rev-parse --short HEAD), log $out"
status=0
mvn -B $offline -f "$repo/pom.xml" -pl simulation -am test -Dtest=SimulationTest \
  -Dsurefire.failIfNoSpecifiedTests=false "${props[@]}" > "$out" 2>&1 || status=$?
grep -a -E 'simulation: [0-9]+ seeds|^long horizon: |seed [0-9]+: VIOLATED|^  [A-Za-z]+: |^  replay: ' "$out" \
  | grep -a -v -E '^(Expecting|\[ERROR\]| *")' | sed -E 's/^.*(simulation: [0-9]+ seeds|seed [0-9]+: VIOLATED)/\1/' || true
exit "$status"
