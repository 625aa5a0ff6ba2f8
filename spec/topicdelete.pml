/*
 * Topic deletion against the other writers of batch rows and reference counts, at the atomicity the
 * SQL store has on PostgreSQL at READ COMMITTED (issue 16, defect 3; spec/README.md). floe.pml has no
 * topic deletion; this model has nothing else: one input object X holding two batches of the doomed
 * topic (rows 0 and 1) and one of a kept topic (row 2), and five transactions running at once:
 *
 *   Compaction    segment compaction's swap: moves row 0 into its registered output Y
 *   KeyCompaction key compaction's swap without output: removes row 1 (no record of it is left)
 *   Retention     truncates the kept topic: deletes row 2
 *   DeleteTopic   deletes the doomed topic (TopicCatalog#delete)
 *   Sweep         expires Y's registration (when it is old enough) and schedules objects at count 0
 *
 * Each step is one SQL statement's effect on one row. A writer locks a row before it changes it and
 * keeps the lock to its commit; its changes become visible, all at once, at its commit (d_step).
 * A statement that waited on a row's lock sees that row's latest committed version (PostgreSQL
 * rechecks the row), but what it computed from its snapshot before the wait stays: that is how the
 * old deletion (-DOLD_DELETE: UPDATE objects SET ref_count = ref_count - (SELECT COUNT(*) ...)) came
 * to release X twice for a row a swap had moved. The deletion as implemented locks the topic's rows
 * in (partition, offset) order, deletes them with DELETE ... RETURNING object_key and releases what
 * that returned, objects in key order.
 *
 * Properties (checked in every state; the first once every transaction ended):
 *   RefCountsExact       every objects row's ref_count is the number of rows pointing into it
 *   NoDanglingReference  no objects row is deleted while a batch row points into it (the foreign key)
 *   CountsStayNatural    no count goes below 0 (the CHECK constraint)
 * and EveryWriterEnds (pan -a): no two writers wait for each other's locks, as they take them in
 * one global order (Dialect); PostgreSQL would break such a deadlock by aborting one of them.
 */

#define NROW     3
#define X        0      /* the input object */
#define Y        1      /* compaction's output: registered, no row points into it yet */
#define NOBJ     2
#define NONE     255    /* a deleted row */
#define FREE     0
#define NPROC    5

byte rowObj[NROW];      /* committed: the object each batch row points into, NONE once deleted */
byte ref[NOBJ];         /* committed: objects.ref_count */
bool present[NOBJ];     /* committed: the objects row exists (not moved to the deletion schedule) */
bool registered;        /* committed: Y's state is REGISTERED (false once the swap committed it) */
byte rowLock[NROW];     /* row locks: FREE, or the holder's _pid + 1 */
byte objLock[NOBJ];
bool fkViolated;
bool negative;
byte finished;

#define ROWS(o)   ((rowObj[0] == o) + (rowObj[1] == o) + (rowObj[2] == o))
#define EXACT(o)  (!present[o] || ref[o] == ROWS(o))

ltl RefCountsExact      { [] (finished == NPROC -> (EXACT(X) && EXACT(Y))) }
ltl NoDanglingReference { [] !fkViolated }
ltl CountsStayNatural   { [] !negative }
ltl EveryWriterEnds     { <> (finished == NPROC) }     /* no deadlock (pan -a: a stuck run stutters) */

inline lockRow(r) {
    atomic { (rowLock[r] == FREE || rowLock[r] == _pid + 1) -> rowLock[r] = _pid + 1 }
}

inline lockObj(o) {
    atomic { (objLock[o] == FREE || objLock[o] == _pid + 1) -> objLock[o] = _pid + 1 }
}

/* The end of a transaction (commit or rollback): every lock it holds goes. */
inline unlockAll() {
    d_step {
        if :: rowLock[0] == _pid + 1 -> rowLock[0] = FREE :: else fi;
        if :: rowLock[1] == _pid + 1 -> rowLock[1] = FREE :: else fi;
        if :: rowLock[2] == _pid + 1 -> rowLock[2] = FREE :: else fi;
        if :: objLock[X] == _pid + 1 -> objLock[X] = FREE :: else fi;
        if :: objLock[Y] == _pid + 1 -> objLock[Y] = FREE :: else fi;
        finished++
    }
}

/* Drops n references of o (o locked); inside a commit's d_step, after the transaction's row changes. */
inline release(o, n) {
    ref[o] = ref[o] - n;
    if :: ref[o] > 200 -> negative = true :: else fi     /* byte arithmetic: below 0 wraps */
}

/* ObjectReferences#release then schedules an object left at 0: its objects row is deleted. */
inline scheduleIfZero(o) {
    if
    :: ref[o] == 0 -> present[o] = false; if :: ROWS(o) > 0 -> fkViolated = true :: else fi
    :: else
    fi
}

proctype Compaction() {
    lockObj(Y);                                     /* requireRegistered: SELECT ... FOR UPDATE */
    if :: !(present[Y] && registered) -> goto done :: else fi;
    lockRow(0);                                     /* UPDATE batches ... WHERE the row is as read */
    if :: rowObj[0] != X -> goto done :: else fi;    /* compare-and-swap failed: roll back */
    lockObj(X);
    d_step {                                        /* commit */
        rowObj[0] = Y; registered = false; ref[Y] = 1;
        release(X, 1); scheduleIfZero(X)
    }
done:
    unlockAll()
}

proctype KeyCompaction() {
    lockRow(1);
    if :: rowObj[1] != X -> goto done :: else fi;
    lockObj(X);
    d_step { rowObj[1] = NONE; release(X, 1); scheduleIfZero(X) }
done:
    unlockAll()
}

proctype Retention() {
    byte o;
    lockRow(2);                                     /* DELETE ... RETURNING object_key */
    o = rowObj[2];
    if :: o == NONE -> goto done :: else fi;
    lockObj(o);
    d_step { rowObj[2] = NONE; release(o, 1); scheduleIfZero(o) }
done:
    unlockAll()
}

proctype DeleteTopic() {
    byte inX, inY;
#ifdef OLD_DELETE
    byte s0, s1;
    d_step { s0 = rowObj[0]; s1 = rowObj[1] }       /* the UPDATE's snapshot */
    inX = (s0 == X) + (s1 == X);                    /* the correlated COUNT, from that snapshot */
    inY = (s0 == Y) + (s1 == Y);
    if :: inX > 0 -> lockObj(X) :: else fi;         /* the row rechecked, the COUNT kept */
    if :: inY > 0 -> lockObj(Y) :: else fi;
    lockRow(0);                                     /* then DELETE FROM batches, a new statement */
    lockRow(1);
#else
    lockRow(0);                                     /* SELECT ... ORDER BY partition_id, base_offset FOR UPDATE */
    lockRow(1);
    inX = (rowObj[0] == X) + (rowObj[1] == X);      /* DELETE ... RETURNING object_key: the latest rows */
    inY = (rowObj[0] == Y) + (rowObj[1] == Y);
    if :: inX > 0 -> lockObj(X) :: else fi;         /* decremented in key order */
    if :: inY > 0 -> lockObj(Y) :: else fi;
#endif
    d_step {                                        /* commit; objects left at 0 are the sweep's */
        rowObj[0] = NONE; rowObj[1] = NONE;
        release(X, inX); release(Y, inY)
    }
    unlockAll()
}

/*
 * DELETE FROM objects WHERE object_key = o AND condition: waits for o's row lock, rechecks the
 * condition on the latest row, and keeps the lock only when it deleted the row.
 */
inline deleteIf(o, condition) {
    atomic {
        (objLock[o] == FREE || objLock[o] == _pid + 1) ->
        if
        :: present[o] && (condition) ->
            objLock[o] = _pid + 1; present[o] = false;
            if :: ROWS(o) > 0 -> fkViolated = true :: else fi
        :: else
        fi
    }
}

proctype Sweep() {
    /* One transaction: the expired registrations (state = 'REGISTERED'), then the unreferenced
     * objects (state = 'COMMITTED' AND ref_count = 0), one DELETE each. */
    if
    :: true -> skip                                 /* Y's registration is young: not a candidate */
    :: true -> deleteIf(Y, registered)
    fi;
    deleteIf(X, ref[X] == 0);
    unlockAll()
}

init {
    d_step {
        rowObj[0] = X; rowObj[1] = X; rowObj[2] = X;
        ref[X] = 3; ref[Y] = 0;
        present[X] = true; present[Y] = true;
        registered = true
    }
    atomic {
        run Compaction(); run KeyCompaction(); run Retention(); run DeleteTopic(); run Sweep()
    }
}
