#!/usr/bin/env bash
# Model-checks spec/floe.pml, spec/sequences.pml, spec/topicdelete.pml and spec/transactions.pml with SPIN (spec/README.md says what each row means):
#   safety    every invariant in every reachable state of each configuration: must hold
#   liveness  the eventual properties: must hold
#   witness   each fence rejects a stale commit in some run: must find that run
#   control   the model with one fence removed: must produce a counterexample to the named invariant
#   impl      the implementation's own statement-level atomicity on PostgreSQL (READ COMMITTED), where
#             it differs from the protocol: what holds, and the open bug (a counterexample, expected
#             until LogCleanup#truncate is fixed; docs/verification.md)
# Prints a table and exits non-zero on any unexpected outcome, or when a search that must hold was
# not complete. Searches run one at a time. Installs nothing: needs spin and a C compiler on PATH.
#
#   spec/check.sh                  everything (about 2.5 CPU minutes, under 1 GB per verifier)
#   KEEP=1 spec/check.sh           keep the work directory: verifier logs and counterexample trails
#                                  (replay one with: cd DIR && spin FLAGS -t -p MODEL.pml)
#   SPIN_MEMLIM_MB=4000            memory limit per verifier (default 4000)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
memlim="${SPIN_MEMLIM_MB:-4000}"
depth=10000

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
if [ "${KEEP:-0}" = 1 ]; then
    trap 'echo "work directory kept: $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
started=$SECONDS
echo "== SPIN model check of spec/floe.pml, sequences.pml, topicdelete.pml, transactions.pml ($(spin -V | head -n 1))"

# build NAME "SPIN_FLAGS" "CC_FLAGS" OPT [MODEL]: generate and compile one verifier in $work/NAME (once)
# from spec/MODEL (default floe.pml)
declare -A built
build() {
    local name="$1" spin_flags="$2" cc_flags="$3" opt="$4" model="${5:-floe.pml}" dir="$work/$1"
    [ -n "${built[$name]:-}" ] && return 0
    mkdir -p "$dir"
    cp "$here/$model" "$dir/$model"
    echo "$spin_flags" >"$dir/spin-flags"
    # shellcheck disable=SC2086
    if ! (cd "$dir" && spin $spin_flags -a "$model" >spin.log 2>&1); then
        echo "spec/check.sh: spin failed for $name:" >&2
        cat "$dir/spin.log" >&2
        exit 1
    fi
    # shellcheck disable=SC2086
    if ! (cd "$dir" && "$cc" "$opt" -w -DMEMLIM="$memlim" $cc_flags -o pan pan.c >cc.log 2>&1); then
        echo "spec/check.sh: compiling the verifier $name failed:" >&2
        cat "$dir/cc.log" >&2
        exit 1
    fi
    built[$name]=1
}

failures=0
checks=0
# check KIND BUILD PROPERTY EXPECT PAN_FLAGS: run one verifier. EXPECT is hold (no error, complete
# search) or fail (a counterexample to PROPERTY itself, not to one of the model's own assertions).
check() {
    local kind="$1" name="$2" property="$3" expect="$4" flags="$5" dir="$work/$2"
    local log="$dir/$property.log"
    rm -f "$dir"/*.trail
    # shellcheck disable=SC2086
    (cd "$dir" && nice -n 10 ./pan $flags -m"$depth" -N "$property" >"$log" 2>&1) || true
    local errors states reached time outcome verdict violated
    errors="$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)"
    states="$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$log" | tail -n 1)"
    reached="$(sed -n 's/.*depth reached \([0-9][0-9]*\),.*/\1/p' "$log" | tail -n 1)"
    time="$(sed -n 's/^pan: elapsed time \([0-9.e+]*\) seconds.*/\1/p' "$log" | tail -n 1)"
    violated="$(grep -m 1 -E 'assertion violated|acceptance cycle' "$log" || true)"
    errors="${errors:-?}"; states="${states:-?}"; reached="${reached:-?}"; time="${time:-?}"
    if [ "$errors" = "0" ]; then
        if grep -qE 'Search not completed|max search depth too small|out of memory|error: max search depth' "$log" \
            || [ "$reached" = "?" ] || [ "$reached" -ge "$depth" ]; then
            outcome="INCOMPLETE search"
        else
            outcome="holds"
        fi
    elif [ "$errors" = "?" ]; then
        outcome="no result"
    elif echo "$violated" | grep -qE 'assertion violated \((nextObj|o)<'; then
        outcome="model assertion failed"       # a bound of the model, not the property
    else
        outcome="counterexample, $(sed -n 's/.*(at depth \([0-9][0-9]*\)).*/\1/p' "$log" | head -n 1) steps"
    fi
    if { [ "$expect" = hold ] && [ "$outcome" = holds ]; } \
        || { [ "$expect" = fail ] && [ "${outcome%%,*}" = counterexample ]; }; then
        verdict="ok"
    else
        verdict="UNEXPECTED"
        failures=$((failures + 1))
        echo "---- $kind $name $property: expected $expect, got $outcome; verifier output:" >&2
        tail -n 30 "$log" >&2
    fi
    checks=$((checks + 1))
    printf '%-8s %-18s %-20s %-5s %10s %6s %7ss  %-27s %s\n' \
        "$kind" "$name" "$property" "$expect" "$states" "$reached" "$time" "$outcome" "$verdict"
    # A combined safety claim that fails: name the invariant(s) it broke.
    if [ "$property" = Safety ] && [ "$verdict" != ok ]; then
        for p in NoAckedLoss UniqueDenseOffsets NoDuplicateAppend ConsistentRead NoDanglingReference \
                 RefCountsExact Fencing MonotoneMarkers ExactlyOnceTable; do
            check "$kind" "$name" "$p" hold "$flags"
        done
    fi
    if [ "$property" = TxnSafety ] && [ "$verdict" != ok ]; then
        for p in NoAbortedRead AtomicVisibility LsoMonotone LsoBelowOpen ZombieFenced OffsetsAtomic; do
            check "$kind" "$name" "$p" hold "$flags"
        done
    fi
}

printf '%-8s %-18s %-20s %-5s %10s %6s %8s  %-27s %s\n' \
    kind model property expect states depth time outcome verdict

# ---- the protocol: every invariant holds (Safety = all nine at once; see floe.pml)
build produce        ""                                   "-DSAFETY" -O2
build maintain       "-DMAINTAIN"                         "-DSAFETY" -O2
build fetch          "-DMAINTAIN -DFETCHER -DNO_ZOMBIE"   "-DSAFETY" -O2
check safety produce  Safety hold ""
check safety maintain Safety hold ""
check safety fetch    Safety hold ""

# ---- liveness (pan -a; no fairness assumption needed, see floe.pml)
build produce-L      ""                                   ""         -O2
build maintain-L     "-DMAINTAIN"                         ""         -O2
check liveness produce-L  ProduceAnswered hold "-a"
check liveness produce-L  AckedFetchable  hold "-a"
check liveness produce-L  GarbageDeleted  hold "-a"
check liveness maintain-L AckedFetchable  hold "-a"
check liveness maintain-L TableCatchesUp  hold "-a"
check liveness maintain-L GarbageDeleted  hold "-a"

# ---- coverage: each fence does reject a stale commit in some run
build produce-W      "-DWITNESS"                          "-DSAFETY" -O0
build maintain-W     "-DMAINTAIN -DWITNESS"               "-DSAFETY" -O0
check witness produce-W  WitnessSweptCommit fail ""
check witness produce-W  WitnessStaleEpoch  fail ""
check witness maintain-W WitnessStalePlan   fail ""
check witness maintain-W WitnessStaleTable  fail ""

# ---- negative controls: one fence removed each; breadth-first (a shortest counterexample) where that
# search is small, depth-first where it is not
build no-sweep-fence    "-DNO_SWEEP_FENCE"                "-DSAFETY -DBFS" -O0
build no-compaction-cas "-DMAINTAIN -DNO_COMPACTION_CAS"  "-DSAFETY -DBFS" -O0
build no-table-cas      "-DMAINTAIN -DNO_TABLE_CAS"       "-DSAFETY -DBFS" -O0
build no-table-hold     "-DMAINTAIN -DNO_TABLE_HOLD"      "-DSAFETY -DBFS" -O0
build no-offset-lock    "-DNO_OFFSET_LOCK"                "-DSAFETY"       -O0
build no-dedupe         "-DNO_DEDUPE"                     "-DSAFETY"       -O0
build no-listing-L      "-DNO_LISTING"                    ""               -O0
check control no-sweep-fence    NoAckedLoss         fail ""
check control no-sweep-fence    Fencing             fail ""
check control no-compaction-cas NoDanglingReference fail ""
check control no-compaction-cas RefCountsExact      fail ""
check control no-compaction-cas Fencing             fail ""
check control no-table-cas      ExactlyOnceTable    fail ""
check control no-table-cas      MonotoneMarkers     fail ""
check control no-table-cas      Fencing             fail ""
check control no-table-hold     ExactlyOnceTable    fail ""
check control no-offset-lock    UniqueDenseOffsets  fail ""
check control no-offset-lock    ConsistentRead      fail ""
check control no-dedupe         NoDuplicateAppend   fail ""
check control no-listing-L      GarbageDeleted      fail "-a"

# ---- one producer's sequences with two requests in flight and failures between them (sequences.pml):
# the rules hold, also when the producer's state expires (where a retry older than the expiry may be stored
# again, as in Kafka: NoDuplicateAppend is not claimed there); the rule before issue 16 loses a batch.
build seq            ""             "-DSAFETY"       -O2 sequences.pml
build seq-expiry     "-DEXPIRY"     "-DSAFETY"       -O2 sequences.pml
build seq-old-rule   "-DOLD_RULE"   "-DSAFETY -DBFS" -O0 sequences.pml
check safety  seq          NoAckedLoss       hold ""
check safety  seq          NoDuplicateAppend hold ""
check safety  seq          ProducerOrder     hold ""
check safety  seq-expiry   NoAckedLoss       hold ""
check safety  seq-expiry   ProducerOrder     hold ""
check control seq-expiry   NoDuplicateAppend fail ""
check control seq-old-rule NoAckedLoss       fail ""

# ---- the implementation at READ COMMITTED (PostgreSQL). The code deletes retention's rows and counts the
# references they held in one statement (DELETE ... RETURNING, FIX_TRUNCATE) and expires a registration only
# if it is still one (FIX_SWEEP): every property holds, also without the foreign key batches -> objects.
# The code before these fixes (unlocked SELECT, then DELETE) is kept as controls: the model found that the
# truncation leaked compaction outputs and that only the foreign key kept the sweep from losing records.
fixes="-DREAD_COMMITTED -DFIX_TRUNCATE -DFIX_SWEEP"
build impl-rc           "$fixes"                          "-DSAFETY" -O2
build impl-rc-nofk      "$fixes -DNO_FOREIGN_KEY"         "-DSAFETY" -O2
build impl-rc-maintain  "-DMAINTAIN $fixes"               "-DSAFETY" -O2
build impl-rc-maint-L   "-DMAINTAIN $fixes"               ""         -O2
check impl impl-rc          Safety          hold ""
check impl impl-rc-nofk     Safety          hold ""
check impl impl-rc-maintain Safety          hold ""
check impl impl-rc-maint-L  GarbageDeleted  hold "-a"
build prefix-rc-nofk      "-DREAD_COMMITTED -DNO_FOREIGN_KEY" "-DSAFETY -DBFS" -O0
build prefix-rc-maintain  "-DMAINTAIN -DREAD_COMMITTED"     "-DSAFETY -DBFS" -O0
build prefix-rc-maint-L   "-DMAINTAIN -DREAD_COMMITTED"     ""               -O0
check control prefix-rc-nofk     NoAckedLoss     fail ""
check control prefix-rc-maintain RefCountsExact  fail ""
check control prefix-rc-maint-L  GarbageDeleted  fail "-a"

# ---- topic deletion against compaction, key compaction, retention and the sweep at READ COMMITTED
# (topicdelete.pml): the deletion as implemented (locks its rows, DELETE ... RETURNING, releases what that
# returned) keeps every count exact and never deadlocks; the deletion before issue 16 (an UPDATE with a
# correlated COUNT from its snapshot) released a swap's input twice.
build topic-delete      ""               "-DSAFETY"       -O2 topicdelete.pml
build topic-delete-L    ""               ""               -O2 topicdelete.pml
build old-topic-delete   "-DOLD_DELETE"  "-DSAFETY -DBFS" -O0 topicdelete.pml
build old-topic-delete-L "-DOLD_DELETE"  ""               -O0 topicdelete.pml
check impl    topic-delete       RefCountsExact      hold ""
check impl    topic-delete       NoDanglingReference hold ""
check impl    topic-delete       CountsStayNatural   hold ""
check impl    topic-delete-L     EveryWriterEnds     hold "-a"
check control old-topic-delete   RefCountsExact      fail ""
check control old-topic-delete   NoDanglingReference fail ""
check control old-topic-delete   CountsStayNatural   fail ""
check control old-topic-delete-L EveryWriterEnds     fail "-a"

# ---- Kafka transactions (transactions.pml, issue 18): one transactional id, two producer incarnations
# (each fences the other by InitProducerId), two partitions, timeout aborts by two agents, a
# read_committed reader; every transaction operation one store transaction. TxnSafety = the six
# invariants at once. Maintenance runs on one partition with a Tableflow-like materializer, compaction
# and retention in separate configurations (together they are too many states). Controls: the produce
# without the epoch check, EndTxn split into a store transaction per partition, the LSO ignoring open
# transactions, a marker removed under a fetch in flight (compaction, retention), an abort marker
# removed before its records, no timeout abort. The snapshot rows: a fetch that reads its entries and the
# aborted index in one store read needs no guard for fetches in flight.
txc="-DMAINT -DONEPART -DNREC0=1 -DNRET=0"      # key compaction, reader, materializer
txr="-DMAINT -DONEPART -DNREC0=1 -DNCOMP=0"     # retention, reader, materializer
build txn              ""                          "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
build txn-tv1          "-DTV1"                     "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
build txn-2tx          "-DNTX1=2"                  "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
build txn-compact      "$txc"                      "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
build txn-retain       "$txr"                      "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
build txn-L            ""                          "-DCOLLAPSE"          -O2 transactions.pml
build txn-snapshot     "$txc -DNO_LAG_GUARD -DATOMIC_FETCH" "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
build txn-snap-retain  "$txr -DNO_LAG_GUARD -DATOMIC_FETCH" "-DSAFETY -DCOLLAPSE" -O2 transactions.pml
check safety   txn             TxnSafety        hold ""
check safety   txn-tv1         TxnSafety        hold ""
check safety   txn-2tx         TxnSafety        hold ""
check safety   txn-compact     TxnSafety        hold ""
check safety   txn-retain      TxnSafety        hold ""
check liveness txn-L           TxnEnds          hold "-a"
check safety   txn-snapshot    TxnSafety        hold ""
check safety   txn-snap-retain TxnSafety        hold ""
build txn-no-epoch     "-DNO_EPOCH_CHECK"          "-DSAFETY -DBFS" -O0 transactions.pml
build txn-tv1-no-epoch "-DTV1 -DNO_EPOCH_CHECK"    "-DSAFETY -DBFS" -O0 transactions.pml
build txn-split-end    "-DSPLIT_END"               "-DSAFETY -DBFS" -O0 transactions.pml
build txn-lso-open     "-DNO_LSO_OPEN"             "-DSAFETY -DBFS" -O0 transactions.pml
build txn-no-lag       "$txc -DNO_LAG_GUARD"       "-DSAFETY -DBFS" -O0 transactions.pml
build txn-no-lag-ret   "$txr -DNO_LAG_GUARD"       "-DSAFETY -DBFS" -O0 transactions.pml
build txn-marker-first "$txc -DNO_RECORDS_FIRST"   "-DSAFETY -DBFS" -O0 transactions.pml
build txn-no-timeout-L "-DNO_TIMEOUT"              ""               -O0 transactions.pml
check control txn-no-epoch     ZombieFenced     fail ""
check control txn-tv1-no-epoch ZombieFenced     fail ""
check control txn-split-end    AtomicVisibility fail ""
check control txn-split-end    OffsetsAtomic    fail ""
check control txn-lso-open     LsoBelowOpen     fail ""
check control txn-lso-open     NoAbortedRead    fail ""
check control txn-lso-open     AtomicVisibility fail ""
check control txn-no-lag       NoAbortedRead    fail ""
check control txn-no-lag-ret   NoAbortedRead    fail ""
check control txn-marker-first NoAbortedRead    fail ""
check control txn-no-timeout-L TxnEnds          fail "-a"

echo
echo "spec/check.sh: $checks checks in $((SECONDS - started)) s"
if [ "$failures" -ne 0 ]; then
    echo "spec/check.sh: $failures unexpected outcome(s)" >&2
    exit 1
fi
echo "spec/check.sh: all as expected"
