#!/usr/bin/env bash
# Model-checks spec/floe.pml with SPIN: every safety and liveness property on both configurations of
# the model (each must hold), the coverage witnesses (each fence must reject something in some run)
# and the negative controls (each model with one fence removed must produce a counterexample).
# Prints a table; exits non-zero on any unexpected outcome. Installs nothing: needs spin and a C
# compiler on PATH. Works from any directory; builds in a temporary directory.
#
#   spec/check.sh            everything
#   SPIN_MEMLIM_MB=8000      memory limit per verifier run (default 12000)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
model="$here/floe.pml"
memlim="${SPIN_MEMLIM_MB:-12000}"

if ! command -v spin >/dev/null 2>&1; then
    echo "spec/check.sh: 'spin' is not on PATH. Install SPIN 6.5 (Debian/Ubuntu: apt-get install spin)." >&2
    exit 2
fi
cc="${CC:-cc}"
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "spec/check.sh: no C compiler '$cc' on PATH (SPIN's verifiers are C programs); install gcc." >&2
    exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/floe-spin.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "== SPIN model check of spec/floe.pml ($(spin -V | head -n 1)), work dir $work"

# build NAME "SPIN_FLAGS" "CC_FLAGS": generate and compile one verifier in $work/NAME
build() {
    local name="$1" spin_flags="$2" cc_flags="$3" dir="$work/$1"
    mkdir -p "$dir"
    cp "$model" "$dir/floe.pml"
    # shellcheck disable=SC2086
    if ! (cd "$dir" && spin $spin_flags -a floe.pml >spin.log 2>&1); then
        echo "spec/check.sh: spin failed for $name:" >&2
        cat "$dir/spin.log" >&2
        exit 1
    fi
    # shellcheck disable=SC2086
    if ! (cd "$dir" && "$cc" -O2 -w -DMEMLIM="$memlim" $cc_flags -o pan pan.c >cc.log 2>&1); then
        echo "spec/check.sh: compiling the verifier $name failed:" >&2
        cat "$dir/cc.log" >&2
        exit 1
    fi
}

failures=0
rows=()
# check KIND BUILD PROPERTY EXPECT PAN_FLAGS: run one verifier; EXPECT is hold (0 errors) or fail
check() {
    local kind="$1" name="$2" property="$3" expect="$4" flags="$5" dir="$work/$2"
    local log="$dir/$property.log"
    rm -f "$dir"/*.trail
    # shellcheck disable=SC2086
    (cd "$dir" && ./pan $flags -N "$property" >"$log" 2>&1) || true
    local errors states time depth outcome verdict
    errors="$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)"
    states="$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$log" | tail -n 1)"
    time="$(sed -n 's/^pan: elapsed time \([0-9.e+]*\) seconds.*/\1/p' "$log" | tail -n 1)"
    depth="$(sed -n 's/.*(at depth \([0-9][0-9]*\)).*/\1/p' "$log" | head -n 1)"
    errors="${errors:-?}"; states="${states:-?}"; time="${time:-?}"
    if grep -qE 'Search not completed|max search depth too small|out of memory|error: max search depth' "$log" \
        && [ "$errors" = "0" ]; then
        outcome="incomplete"
    elif [ "$errors" = "0" ]; then
        outcome="holds"
    elif [ "$errors" = "?" ]; then
        outcome="no result"
    else
        outcome="counterexample, ${depth:-?} steps"
    fi
    if { [ "$expect" = hold ] && [ "$outcome" = holds ]; } \
        || { [ "$expect" = fail ] && [ "${outcome%%,*}" = counterexample ]; }; then
        verdict="ok"
    else
        verdict="UNEXPECTED"
        failures=$((failures + 1))
        echo "---- $kind $name $property: expected $expect, got $outcome; verifier output:" >&2
        tail -n 40 "$log" >&2
    fi
    rows+=("$(printf '%-9s %-16s %-20s %-6s %12s %9s  %-28s %s' \
        "$kind" "$name" "$property" "$expect" "$states" "${time}s" "$outcome" "$verdict")")
    echo "${rows[-1]}"
}

printf '%-9s %-16s %-20s %-6s %12s %9s  %-28s %s\n' \
    kind model property expect states time outcome verdict

# The two configurations (see spec/README.md): PRODUCE is the detailed produce path (two producers,
# two agents, retries, an epoch bump, lost replies, crashes, the sweeper); MAINTAIN is compaction,
# retention, Tableflow writer and zombie, the sweeper and cleaner, and a fetch, fed by flushes.
build produce      ""                          "-DSAFETY"
build maintain     "-DMAINTAIN"                "-DSAFETY"
build produce-L    "-DLIVENESS"                "-DNFAIR=3"
build maintain-L   "-DMAINTAIN -DLIVENESS -DNO_FETCHER" "-DNFAIR=3"

safety="-m10000"
liveness="-m10000 -a -f"
for p in NoAckedLoss UniqueDenseOffsets NoDuplicateAppend ConsistentRead NoDanglingReference \
         RefCountsExact Fencing MonotoneMarkers; do
    check safety produce "$p" hold "$safety"
done
for p in NoAckedLoss UniqueDenseOffsets NoDuplicateAppend ConsistentRead NoDanglingReference \
         RefCountsExact Fencing MonotoneMarkers ExactlyOnceTable; do
    check safety maintain "$p" hold "$safety"
done
for p in ProduceAnswered AckedFetchable GarbageDeleted; do
    check liveness produce-L "$p" hold "$liveness"
done
for p in AckedFetchable TableCatchesUp GarbageDeleted; do
    check liveness maintain-L "$p" hold "$liveness"
done

# Coverage witnesses: each fence rejects a stale commit in some run (else it is never exercised).
check witness produce  WitnessSweptCommit fail "$safety"
check witness produce  WitnessStaleEpoch  fail "$safety"
check witness maintain WitnessStalePlan   fail "$safety"
check witness maintain WitnessStaleTable  fail "$safety"

# Negative controls: one fence removed each; breadth-first, so the counterexample is a shortest one.
build no-sweep-fence   "-DNO_SWEEP_FENCE"                "-DSAFETY -DBFS"
build no-compact-cas   "-DMAINTAIN -DNO_COMPACTION_CAS"  "-DSAFETY -DBFS"
build no-table-cas     "-DMAINTAIN -DNO_TABLE_CAS"       "-DSAFETY -DBFS"
build no-delete-delay  "-DMAINTAIN -DNO_DELETE_DELAY"    "-DSAFETY -DBFS"
build no-listing-L     "-DNO_LISTING -DLIVENESS"         "-DNFAIR=3"
check control no-sweep-fence  NoAckedLoss         fail "$safety"
check control no-sweep-fence  Fencing             fail "$safety"
check control no-compact-cas  NoDanglingReference fail "$safety"
check control no-compact-cas  Fencing             fail "$safety"
check control no-table-cas    ExactlyOnceTable    fail "$safety"
check control no-table-cas    Fencing             fail "$safety"
check control no-delete-delay NoDanglingReference fail "$safety"
check control no-listing-L    GarbageDeleted      fail "$liveness"

echo
if [ "$failures" -ne 0 ]; then
    echo "spec/check.sh: $failures unexpected outcome(s)" >&2
    exit 1
fi
echo "spec/check.sh: all ${#rows[@]} checks as expected"
