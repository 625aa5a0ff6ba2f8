/*
 * floe.pml -- the Floe protocol model: produce and commit (DESIGN §3), maintenance (§5: orphan
 * sweep, object cleanup, compaction, retention), Tableflow (§6) and fetch (§4). Checked with SPIN
 * by spec/check.sh; spec/README.md states every invariant in words and maps each part of this
 * model to the code that implements it.
 *
 * One partition. Configurations keep each state space small enough for an exhaustive search:
 *   PRODUCE (default)  two idempotent producers (one retries, times out, bumps its epoch), two agents
 *                      that flush them (one flush may carry both producers' batches), lost replies,
 *                      agent crashes, the orphan sweeper and the object cleaner
 *   MAINTAIN           one agent's flushes of four records, compaction, retention, a Tableflow
 *                      writer and a stale second writer (a zombie), the sweeper and the cleaner
 *   MAINTAIN FETCHER NO_ZOMBIE   the same with a consumer's fetch instead of the zombie
 *
 * Granularity: one metadata transaction = one atomic step (the protocol as DESIGN states it; the
 * READ_COMMITTED switch splits the two transactions whose implementation is not atomic at
 * PostgreSQL's READ COMMITTED into their statements); one object-store PUT, GET, DELETE or LIST =
 * one atomic step; everything in between interleaves with every other process. Agents and jobs may
 * crash between their steps; a crash loses everything in memory, never what the stores hold.
 * Two steps are merged where that provably loses no behaviour the properties can see (README,
 * "What is abstracted away"): an agent crash between registering and uploading (the crash after
 * the upload does everything it can), and an expired registration's DELETE of its object (it
 * commutes with every step but a late upload of the same key, which the listing then deletes).
 *
 * Fences, each removable for a negative control (spin -DNAME -a floe.pml):
 *   NO_SWEEP_FENCE     a commit does not consume its upload's registration (a time-based sweep)
 *   NO_COMPACTION_CAS  the compaction swap does not compare the rows with the ones it planned from
 *   NO_TABLE_CAS       the Tableflow commit does not compare-and-swap the table's metadata pointer
 *   NO_TABLE_HOLD      retention does not wait for Tableflow to read a record before removing it
 *   NO_OFFSET_LOCK     a commit takes next_offset from a read outside its transaction
 *   NO_DEDUPE          a commit appends without the idempotent-producer sequence check
 *   NO_LISTING         the cleaner never lists the object store for objects no row knows
 * Implementation switches:
 *   READ_COMMITTED     the retention truncation and the orphan sweep as the code runs them on
 *                      PostgreSQL: an unlocked SELECT, then a DELETE in a later statement
 *   FIX_TRUNCATE       with READ_COMMITTED: the truncation deletes the rows and counts the released
 *                      references in one statement (DELETE ... RETURNING object_key)
 *   FIX_SWEEP          with READ_COMMITTED: the sweep deletes a registration only if it is still
 *                      one (DELETE ... AND state = 'REGISTERED')
 *   NO_FOREIGN_KEY     without the schema's foreign key batches.object_key -> objects
 */

/* ------------------------------------------------------------------ bounds */
#define NONE      255
#define MAXOFF    4     /* offsets: every record is appended once (a control may append more) */
#define NREC      4     /* records; ghost arrays are indexed by record */
#ifndef MAINTAIN
#define NP        2     /* producers */
#define NB        2     /* producer 0's batches; record r = p*NB + b, one record per batch */
#ifndef NB1
#define NB1       1     /* producer 1's batches */
#endif
#define NBATCH(p) (p == 0 -> NB : NB1)
#ifndef RETRIES
#define RETRIES   1     /* idempotent retries (producer 0) */
#endif
#define NEPOCH    2     /* producer epochs: one bump, after a failed send */
#define MAXOBJ    4     /* one flush per attempt at most: NB + NB1 + RETRIES */
#else
#ifndef FLUSHES
#define FLUSHES   3     /* flush objects */
#endif
#ifndef MAXCOMP
#define MAXCOMP   1     /* compaction outputs */
#endif
#define MAXOBJ    (FLUSHES + MAXCOMP)
#endif
#ifndef EARLY
#define EARLY     1     /* registrations swept while their uploader is still at work */
#endif

#if MAXOBJ == 4
#define ALLOBJ(P) (P(0) && P(1) && P(2) && P(3))
#elif MAXOBJ == 5
#define ALLOBJ(P) (P(0) && P(1) && P(2) && P(3) && P(4))
#endif
#define REFSUM(x) ((rowObj[0] == x) + (rowObj[1] == x) + (rowObj[2] == x) + (rowObj[3] == x))
#define ALLOFF(P) (P(0) && P(1) && P(2) && P(3))
#define ALLREC(P) (P(0) && P(1) && P(2) && P(3))

/* ------------------------------------------------------------------ metadata store */
/* objects: the state column, plus FREE (never registered), DELETING (moved to object_deletions)
   and GONE (no row in either table) */
#define FREE      0
#define REG       1     /* REGISTERED: an upload may be under way; no batch row points to it */
#define COMMITTED 2     /* ref = ref_count, the batch rows that point into it */
#define DELETING  3     /* in object_deletions: the cleaner deletes the object, then the row */
#define GONE      4
byte ost[MAXOBJ];
byte ref[MAXOBJ];
byte nextObj;           /* keys are never reused; index order = registration order */

/* the partition row and its batch rows [ls, hw); one record per batch */
byte ls, hw;            /* log_start_offset, next_offset (the high watermark) */
byte rowObj[MAXOFF] = NONE;
byte rowRec[MAXOFF] = NONE;   /* the record the row's byte range holds */

/* ------------------------------------------------------------------ object store */
#define ABSENT    0
#define PRESENT   1
#define DELETED   2
byte sto[MAXOBJ];
byte content[MAXOBJ];   /* bit r: the object holds record r */
#define HAS(x, r) (((content[x] >> (r)) & 1) == 1)
inline objDelete(x) {
  if :: sto[x] == PRESENT -> sto[x] = DELETED; content[x] = 0 :: else -> skip fi
}

/* ------------------------------------------------------------------ Tableflow's table */
byte tableVer;          /* the catalog's metadata pointer: what the commit compares and swaps */
byte tableWM;           /* snapshot summary: the offsets below it are in the table */
byte tblCnt[MAXOFF];    /* how many rows the table holds for each offset */
byte tblRec[MAXOFF] = NONE;

/* ------------------------------------------------------------------ uploads in progress */
byte aobj[2] = NONE;    /* the object each agent (or the flusher) is uploading and committing */
byte cobj = NONE;       /* the compaction output being written */
#define ALIVE(x)  (aobj[0] == x || aobj[1] == x || cobj == x)
byte early;             /* registrations swept while ALIVE */

/* ------------------------------------------------------------------ ghosts (observation only) */
byte seen[MAXOFF] = NONE;       /* the record at each offset when it first became visible */
byte assigned[MAXOFF];          /* how often each offset was assigned */
byte appended[8];               /* how often each (producer, epoch, sequence) was appended */
byte ackOff[NREC] = NONE;       /* the offset a producer was acknowledged for the record */
bit  readWrong;                 /* a fetch returned another record than the offset's */
byte lsMax, hwMax, wmMax;       /* the highest value each marker had */
byte fence;                     /* stale commits that were accepted (bits F_*): Fencing keeps it 0 */
#ifdef WITNESS
byte rejected;                  /* stale commits that were rejected (bits F_*): coverage witnesses */
#define REJECT(f)  rejected = rejected | (f)
#else
#define REJECT(f)  skip         /* kept out of the state unless a witness needs it */
#endif
#define F_REG     1             /* commit or swap into a registration the sweep expired */
#define F_EPOCH   2             /* batch of a fenced producer epoch */
#define F_PLAN    4             /* compaction swap of rows that changed since the plan */
#define F_TABLE   8             /* table commit of a writer whose snapshot is stale */

inline see(o, r) {
  if :: seen[o] == NONE -> seen[o] = r :: else -> skip fi
}
inline setHw(v) {
  hw = v; if :: hw > hwMax -> hwMax = hw :: else -> skip fi
}
inline setLs(v) {
  ls = v; if :: ls > lsMax -> lsMax = ls :: else -> skip fi
}
inline setWm(v) {
  tableWM = v; if :: tableWM > wmMax -> wmMax = tableWM :: else -> skip fi
}

#define CRASH     true  /* a job crashes (every run is bounded, so crashes need no bound) */

/* ObjectReferences#release, one reference: the last one moves the object to the schedule. */
inline release(x) {
  if
  :: ost[x] == COMMITTED && ref[x] > 0 ->
     ref[x]--;
     if :: ref[x] == 0 -> ost[x] = DELETING :: else -> skip fi
  :: else -> skip                              /* no objects row any more: the UPDATE changes nothing */
  fi
}

#ifndef NO_SWEEP_FENCE
#define UPLOAD_REGISTERED(x)  (ost[x] == REG)
#else
#define UPLOAD_REGISTERED(x)  true             /* the registration is not consulted */
#endif

#ifndef MAINTAIN
/* ================================================================== produce (§3) */

byte pb[NP];            /* the batch being sent (NBATCH(p) when done) */
byte pa[NP];            /* its attempt */
byte pe[NP];            /* producer epoch */
byte ps[NP];            /* its sequence number in the epoch */
bit  wait[NP];          /* a request is out and not yet answered */
bit  live[NP];          /* ... and an agent still holds it (else: error, lost reply, crash) */
#define TAG(p)    (pb[p]*(RETRIES + 1) + pa[p] + 1)   /* the attempt a reply must match */
byte retries;

/* producer_state: epoch, last sequence, the base offset of each sequence of the epoch */
byte hEpoch[NP] = NONE;
byte hLast[NP]  = NONE;
byte hOff[NP*NB] = NONE;

/* the agents' open flush buffers: bit p = producer p's batch waits in it */
byte buf[2];
bit  busy[2];           /* the agent's flush is sealed and in progress */
byte bufE[4]; byte bufS[4]; byte bufB[4]; byte bufT[4];

/* A Kafka producer, idempotent, one request in flight. An attempt that got an error or no answer is
   retried with the same producer id, epoch and sequence (in a new flush, so a new object) while the
   retry budget lasts; or the send fails (delivery timeout, also while the request is still in
   flight): the application is told, and the producer bumps its epoch and starts its next batch at
   sequence 0, as Kafka's idempotent producer does. */
#define FAIL_SEND pa[p] = 0; \
                  if \
                  :: pe[p] + 1 < NEPOCH -> pe[p]++; ps[p] = 0; pb[p]++ \
                  :: else -> pb[p] = NBATCH(p) \
                  fi
#define FREEAGENT(k) (!busy[k] && (buf[k] & (1 << p)) == 0)
proctype Producer(byte p) {
  byte k;
end_p:
  do
  :: atomic {                                  /* send: into an agent's open flush buffer */
       !wait[p] && pb[p] < NBATCH(p) && (FREEAGENT(0) || FREEAGENT(1)) ->
       if
       :: FREEAGENT(0) -> k = 0
       :: FREEAGENT(1) && !(!busy[0] && buf[0] == 0 && buf[1] == 0) -> k = 1   /* idle agents are alike */
       fi;
       buf[k] = buf[k] | (1 << p);
       bufE[k*NP + p] = pe[p]; bufS[k*NP + p] = ps[p]; bufB[k*NP + p] = pb[p]; bufT[k*NP + p] = TAG(p);
       wait[p] = 1; live[p] = 1; k = 0 }
  :: atomic {                                  /* an error or no answer: retry, or fail the send */
       wait[p] && !live[p] -> wait[p] = 0;
       if
       :: p == 0 && retries < RETRIES -> retries++; pa[p]++
       :: true -> FAIL_SEND
       fi }
  :: atomic {                                  /* delivery timeout while the request is in flight */
       p == 0 && wait[p] && live[p] -> wait[p] = 0; live[p] = 0; FAIL_SEND }
  od
}

/* SequenceCheck#check: v = 0 append, 1 duplicate, 2 refuse */
inline sequenceCheck() {
  if
  :: hEpoch[p] == NONE -> v = 0
  :: hEpoch[p] != NONE && fe[p] < hEpoch[p] -> v = 2                 /* PRODUCER_FENCED */
  :: hEpoch[p] != NONE && fe[p] > hEpoch[p] && fs[p] == 0 -> v = 0
  :: hEpoch[p] != NONE && fe[p] > hEpoch[p] && fs[p] != 0 -> v = 2   /* OUT_OF_ORDER_SEQUENCE */
  :: hEpoch[p] != NONE && fe[p] == hEpoch[p] && fs[p] <= hLast[p] -> v = 1
  :: hEpoch[p] != NONE && fe[p] == hEpoch[p] && fs[p] == hLast[p] + 1 -> v = 0
  :: hEpoch[p] != NONE && fe[p] == hEpoch[p] && fs[p] > hLast[p] + 1 -> v = 2
  fi;
#ifdef NO_DEDUPE
  v = 0;
#endif
}

/* An agent: seal its flush buffer, register, upload, commit, answer. It may crash after every step
   (and restart with nothing in memory). */
#define MINE(p)   ((fl & (1 << p)) != 0 && wait[p] && live[p] && TAG(p) == ft[p])
proctype Agent(byte k) {
  byte fl, obj, p, n, v, r, o, base;
  bit lost;
  byte fe[NP], fs[NP], fb[NP], ft[NP];
end_idle:
  atomic {                                     /* 2. seal the flush (any time after its first batch) */
    buf[k] != 0 ->
    fl = buf[k]; buf[k] = 0; busy[k] = 1;
    p = 0;
    do
    :: p < NP ->
       fe[p] = bufE[k*NP + p]; fs[p] = bufS[k*NP + p]; fb[p] = bufB[k*NP + p]; ft[p] = bufT[k*NP + p];
       bufE[k*NP + p] = 0; bufS[k*NP + p] = 0; bufB[k*NP + p] = 0; bufT[k*NP + p] = 0;
       p++
    :: else -> break
    od;
    p = 0;
    /* 3. register the upload (RegisteredKeys registers keys ahead of use: the same row, earlier) */
    assert(nextObj < MAXOBJ); obj = nextObj; nextObj++; ost[obj] = REG; aobj[k] = obj }
  d_step {                                     /* 4. upload under the key, create-only */
       sto[obj] = PRESENT;
       p = 0;
       do
       :: p < NP && (fl & (1 << p)) != 0 -> content[obj] = content[obj] | (1 << (p*NB + fb[p])); p++
       :: p < NP && (fl & (1 << p)) == 0 -> p++
       :: else -> break
       od;
       p = 0;
#ifdef NO_OFFSET_LOCK
       base = hw                               /* next_offset read before the transaction */
#endif
  };
  if                                           /* 5. commit: one transaction; 6. answer */
  :: goto crash
  :: atomic {
       if
       :: lost = 0
       :: lost = 1                             /* the replies will be lost (or the outcome unknown) */
       fi;
       if
       :: UPLOAD_REGISTERED(obj) ->            /* the commit consumes the registration */
          if :: ost[obj] != REG -> fence = fence | F_REG :: else -> skip fi;
#ifndef NO_OFFSET_LOCK
          o = hw;                              /* the partition row, read FOR UPDATE */
#else
          o = base;
#endif
          n = 0; p = 0;
          do
          :: p < NP && (fl & (1 << p)) == 0 -> p++
          :: p < NP && (fl & (1 << p)) != 0 ->
             sequenceCheck();
             if
             :: v == 0 ->                      /* assign the next offset, insert the batch row */
                assert(o < MAXOFF);
                if :: hEpoch[p] != NONE && fe[p] < hEpoch[p] -> fence = fence | F_EPOCH :: else -> skip fi;
                r = p*NB + fb[p];
                rowObj[o] = obj; rowRec[o] = r; see(o, r); assigned[o]++;
                appended[p*NEPOCH*NB + fe[p]*NB + fs[p]]++;
                if
                :: hEpoch[p] != fe[p] -> hOff[p*NB] = NONE; hOff[p*NB + 1] = NONE; hEpoch[p] = fe[p]
                :: else -> skip
                fi;
                hLast[p] = fs[p]; hOff[p*NB + fs[p]] = o;
                v = o; o++; n++
             :: v == 1 -> v = hOff[p*NB + fs[p]]     /* Duplicate: answered with the original offset */
             :: v == 2 -> v = NONE;
                if :: fe[p] < hEpoch[p] -> REJECT(F_EPOCH) :: else -> skip fi
             fi;
             if                                /* 6. answer, if the producer still waits for it */
             :: !lost && MINE(p) && v != NONE ->                  /* acknowledged */
                ackOff[p*NB + fb[p]] = v; pb[p]++; ps[p]++; pa[p] = 0; wait[p] = 0; live[p] = 0
             :: !lost && MINE(p) && v == NONE -> live[p] = 0      /* retriable error */
             :: else -> skip
             fi;
             v = 0; r = 0; p++
          :: p == NP -> break
          od;
          if :: n > 0 -> setHw(o) :: else -> skip fi;
          ost[obj] = COMMITTED; ref[obj] = n;  /* n = 0 (only duplicates): the sweep schedules it */
          n = 0; p = 0; o = 0
       :: else ->                              /* Rejected: the sweep expired the registration */
          REJECT(F_REG)
       fi }
  fi;
crash:
  atomic {                                     /* done, or crashed: whoever still waits times out */
    if :: MINE(0) -> live[0] = 0 :: else -> skip fi;
    if :: MINE(1) -> live[1] = 0 :: else -> skip fi;
    fl = 0; obj = 0; p = 0; n = 0; v = 0; r = 0; o = 0; base = 0; lost = 0;
    fe[0] = 0; fe[1] = 0; fs[0] = 0; fs[1] = 0; fb[0] = 0; fb[1] = 0; ft[0] = 0; ft[1] = 0;
    busy[k] = 0; aobj[k] = NONE };
  goto end_idle
}

#else
/* ================================================================== produce, coarse (§3) */

/* The MAINTAIN configuration's producer side: one agent's flushes of the records 0..NREC-1, in
   order, one or two records per flush; register, upload, commit, each a step, a crash after each.
   Acknowledged at once (lost replies and retries are the PRODUCE configuration's). */
byte nextRec;           /* records committed so far */
byte nflush;            /* flushes sealed */
proctype Flusher() {
  byte obj, n, r;
end_fl:
  do
  :: atomic {                                  /* seal the flush, register its key */
       nextRec < NREC && nflush < FLUSHES -> nflush++;
       if
       :: n = 1
       :: nextRec + 1 < NREC -> n = 2
       fi;
       assert(nextObj < MAXOBJ); obj = nextObj; nextObj++; ost[obj] = REG; aobj[0] = obj }
     if                                        /* upload, create-only */
     :: goto fcrash
     :: d_step { sto[obj] = PRESENT; content[obj] = ((1 << n) - 1) << nextRec }
     fi;
     if                                        /* commit: one transaction, and acknowledge */
     :: goto fcrash
     :: d_step {
          if
          :: UPLOAD_REGISTERED(obj) ->
             if :: ost[obj] != REG -> fence = fence | F_REG :: else -> skip fi;
             r = 0;
             do
             :: r < n ->
                rowObj[hw] = obj; rowRec[hw] = nextRec; see(hw, nextRec); assigned[hw]++;
                appended[nextRec]++; ackOff[nextRec] = hw; setHw(hw + 1); nextRec++; r++
             :: else -> break
             od;
             ost[obj] = COMMITTED; ref[obj] = n; r = 0
          :: else -> REJECT(F_REG)
          fi }
     fi;
fcrash:
     atomic { obj = 0; n = 0; r = 0; aobj[0] = NONE }
  od
}
#endif

/* ================================================================== maintenance (§5) */

/* The sweep and the cleaner (ObjectCleanup: one round = the sweep transaction, the due deletions,
   sometimes a listing). Each action below is one transaction or one store call; they keep nothing
   between actions but the READ_COMMITTED sweep's selected key, so for them a crash is a delay.
   The grace period: the sweep may expire any registration at any time, so the model assumes
   nothing about how long an upload and its commit take. The grace period only makes rejected
   commits rare; safety does not rest on it. (EARLY bounds how many registrations expire under a
   live uploader, to bound the search.) */
#define EXPIRABLE(x)  (ost[x] == REG && (!ALIVE(x) || early < EARLY))
#define EXPIRE(x)     if :: ALIVE(x) -> early++ :: else -> skip fi
#ifndef READ_COMMITTED
/* LogCleanup#scheduleUnreferenced, as one transaction: expire a registration; schedule an object
   no batch row points to */
#define SWEEP(x)      :: EXPIRABLE(x) -> EXPIRE(x); objDelete(x); ost[x] = GONE \
                      :: ost[x] == COMMITTED && ref[x] == 0 -> ost[x] = DELETING
#else
/* At READ COMMITTED: SELECT the expired registrations without a lock; later statements DELETE the
   objects rows by key alone (ObjectReferences#schedule). The foreign key from batches rejects the
   DELETE of a row that batch rows point to, and the whole transaction rolls back. */
#define SWEEP(x)      :: sx == NONE && EXPIRABLE(x) -> EXPIRE(x); sx = x \
                      :: ost[x] == COMMITTED && ref[x] == 0 -> ost[x] = DELETING
#ifndef NO_FOREIGN_KEY
#define FK_ALLOWS(x)  (REFSUM(x) == 0)
#else
#define FK_ALLOWS(x)  true
#endif
#endif
/* ObjectCleanup#deleteDue: delete a scheduled object, then forget its row (a crash in between
   deletes again: merged). #deleteUnknown: delete a listed object that no row knows (an upload
   that arrived after its registration was swept). */
#define CLEAN(x)      :: ost[x] == DELETING -> objDelete(x); ost[x] = GONE
#ifndef NO_LISTING
#define LIST(x)       :: ost[x] == GONE && sto[x] == PRESENT -> objDelete(x)
#else
#define LIST(x)
#endif
proctype Janitor() {
#ifdef READ_COMMITTED
  byte sx = NONE;
#endif
end_j:
  do
  :: atomic {
       if
       SWEEP(0) SWEEP(1) SWEEP(2) SWEEP(3)
#if MAXOBJ == 5
       SWEEP(4)
#endif
       fi }
#ifdef READ_COMMITTED
  :: atomic {                                  /* the DELETE by key, in a later statement */
       sx != NONE ->
       if
#ifndef FIX_SWEEP
       :: (ost[sx] == REG || ost[sx] == COMMITTED) && FK_ALLOWS(sx) -> objDelete(sx); ost[sx] = GONE
#else
       :: ost[sx] == REG -> objDelete(sx); ost[sx] = GONE   /* DELETE ... AND state = 'REGISTERED' */
#endif
       :: else -> skip                         /* rolled back (foreign key), or no row any more */
       fi;
       sx = NONE }
#endif
  :: atomic {
       if
       CLEAN(0) CLEAN(1) CLEAN(2) CLEAN(3)
       LIST(0) LIST(1) LIST(2) LIST(3)
#if MAXOBJ == 5
       CLEAN(4) LIST(4)
#endif
       fi }
  od
}

#ifdef MAINTAIN
/* Retention (LogCleanup#truncate): remove the first batch row and release its reference. Never past
   what Tableflow has read (see README: a requirement on Tableflow's design). Removing several rows in
   one transaction is a sequence of these steps with nothing in between, so one row per step covers it. */
#ifndef NO_TABLE_HOLD
#define TRUNCATABLE   (ls < hw && ls < tableWM)
#else
#define TRUNCATABLE   (ls < hw)
#endif
proctype Retention() {
#if defined(READ_COMMITTED) && !defined(FIX_TRUNCATE)
  byte tx;
end_r:
  do
  :: atomic { TRUNCATABLE -> tx = rowObj[ls] }   /* lock the partition row; SELECT object_key, COUNT(*) */
     d_step {                                  /* DELETE the rows below the target as they are now,
                                                  then release what the SELECT counted */
       if
#ifndef NO_FOREIGN_KEY
       :: ost[tx] == COMMITTED && ref[tx] == 1 && REFSUM(tx) - (rowObj[ls] == tx) > 0 ->
          skip                                 /* the schedule's DELETE violates the foreign key: rolled back */
#endif
       :: else ->
          release(tx); rowObj[ls] = NONE; rowRec[ls] = NONE; setLs(ls + 1)
       fi;
       tx = 0 }
  od
#else
end_r:
  do
  :: d_step {
       TRUNCATABLE ->
       release(rowObj[ls]); rowObj[ls] = NONE; rowRec[ls] = NONE; setLs(ls + 1) }
  od
#endif
}

/* Compaction (SegmentCompaction#run): plan two neighbouring batch rows in different objects; read
   the inputs; register the output; write it; swap the rows in one conditional transaction
   (ObjectRewrites#rewrite). A crash after any step; a rejected swap leaves its output registered,
   for the sweep. The inputs are released by the swap and deleted by the cleaner. */
#ifndef NO_COMPACTION_CAS
#define SWAP_OK   (a >= ls && rowObj[a] == o0 && rowObj[a + 1] == o1)
#else
#define SWAP_OK   true
#endif
#define PLAN(i)   (ls <= i && i + 1 < hw && rowObj[i] != rowObj[i + 1])
#define TAKE(i)   :: PLAN(i) -> a = i
byte ncomp;             /* compaction runs started */
proctype Compactor() {
  byte a, o0, o1, r0, r1, c, bits;
end_c:
  do
  :: atomic {                                  /* plan from the batch rows */
       ncomp < MAXCOMP && (PLAN(0) || PLAN(1) || PLAN(2)) ->
       if TAKE(0) TAKE(1) TAKE(2) fi;
       o0 = rowObj[a]; o1 = rowObj[a + 1]; r0 = rowRec[a]; r1 = rowRec[a + 1]; ncomp++ }
     if
     :: CRASH -> goto reset
     :: atomic {                               /* GET the inputs; a missing one fails the round */
          sto[o0] == PRESENT && sto[o1] == PRESENT ->
          bits = (content[o0] & (1 << r0)) | (content[o1] & (1 << r1)) }
     :: atomic { !(sto[o0] == PRESENT && sto[o1] == PRESENT) -> goto reset }
     fi;
     if
     :: CRASH -> goto reset
     :: atomic {                               /* register the output */
          assert(nextObj < MAXOBJ); c = nextObj; nextObj++; ost[c] = REG; cobj = c }
     fi;
     if
     :: CRASH -> goto reset
     :: d_step { sto[c] = PRESENT; content[c] = bits }   /* PUT, create-only */
     fi;
     if
     :: CRASH -> goto reset
     :: d_step {                               /* the swap: one conditional transaction */
          if
          :: ost[c] == REG && SWAP_OK ->
             if :: !(a >= ls && rowObj[a] == o0 && rowObj[a + 1] == o1) -> fence = fence | F_PLAN
                :: else -> skip fi;
             if :: a >= ls -> rowObj[a] = c; rowRec[a] = r0 :: else -> skip fi;
             if :: a + 1 >= ls -> rowObj[a + 1] = c; rowRec[a + 1] = r1 :: else -> skip fi;
             ost[c] = COMMITTED; ref[c] = 2;
             release(o0); release(o1)
          :: else ->                           /* rejected: nothing applied */
             if :: ost[c] != REG -> REJECT(F_REG)
                :: else -> REJECT(F_PLAN) fi
          fi }
     fi;
reset:
     atomic { a = 0; o0 = 0; o1 = 0; r0 = 0; r1 = 0; c = 0; bits = 0; cobj = NONE }
  :: ncomp == MAXCOMP -> break
  od
}

/* ================================================================== Tableflow (§6) */

/* Not implemented yet: modelled on DESIGN §6. The Iceberg snapshot summary holds the watermark; a
   catalog commit adds the data files and the new summary together, with a compare-and-swap on
   the table's metadata pointer. A writer resumes from the table's own summary. */
#ifndef NO_TABLE_CAS
#define TABLE_OK  (tableVer == v)
#else
#define TABLE_OK  true
#endif
/* every row the writer must read points to a stored object that holds its record (else it waits:
   a failed read is retried) */
#define READABLE(o) (o < tableWM || o < ls || o >= hw || \
                     (rowObj[o] != NONE && sto[rowObj[o]] == PRESENT && HAS(rowObj[o], rowRec[o])))
/* read the summary, then the batch rows [wm, hw) that are still in the log, and their records */
#define READ_NEW  \
       v = tableVer; wm = tableWM; e = hw; o = wm; \
       do \
       :: o < e && o >= ls -> lrec = lrec | (rowRec[o] << (2*o)); got = got | (1 << o); o++ \
       :: o < e && o < ls -> o++ \
       :: else -> break \
       od
/* the catalog commit: the data files and the summary together */
#define MATERIALIZE  \
       o = wm; \
       do \
       :: o < e && (got & (1 << o)) != 0 -> tblCnt[o]++; tblRec[o] = (lrec >> (2*o)) & 3; o++ \
       :: o < e && (got & (1 << o)) == 0 -> o++ \
       :: else -> break \
       od; \
       setWm(e); tableVer++

/* The job holding the lease: read and commit in one step (its split interleavings are the zombie's). */
proctype Writer() {
  byte v, wm, e, o, lrec, got;
end_w:
  do
  :: d_step {
       hw > tableWM && ALLOFF(READABLE) ->
       READ_NEW;
       if :: TABLE_OK -> MATERIALIZE :: else -> skip fi;
       v = 0; wm = 0; e = 0; o = 0; lrec = 0; got = 0 }
  od
}

/* A zombie: the same job on an agent that lost the lease and has not noticed. It read the summary
   and the records at one time and commits at a later one. */
proctype Zombie() {
  byte v, wm, e, o, lrec, got;
end_z:
  atomic { hw > tableWM && ALLOFF(READABLE) -> READ_NEW; o = 0 }
  if
  :: CRASH
  :: d_step {
       if
       :: TABLE_OK ->
          if :: tableVer != v -> fence = fence | F_TABLE :: else -> skip fi;
          MATERIALIZE
       :: else -> REJECT(F_TABLE)     /* CommitFailedException */
       fi;
       o = 0 }
  fi;
  d_step { v = 0; wm = 0; e = 0; o = 0; lrec = 0; got = 0 }
}

/* ================================================================== fetch (§4) */

/* A consumer's fetch of one visible offset: find its batch row, then GET the object; an object that
   is gone (compacted or removed since) makes the fetch plan once more from the store
   (FetchReader#read). The model assumes nothing about object.delete.delay.ms: the delay only makes
   replans rare. */
#define PICK(i)   :: ls <= i && i < hw -> o = i
proctype Fetcher() {
  byte o, x, r;
  bit replanned;
end_f:
  atomic {
    ls < hw ->
    if PICK(0) PICK(1) PICK(2) PICK(3) fi;
    x = rowObj[o]; r = rowRec[o] }
  do
  :: atomic {                                  /* the GET finds the object: serve the record */
       sto[x] == PRESENT ->
       if :: !HAS(x, r) || r != seen[o] -> readWrong = 1 :: else -> skip fi;
       break }
  :: atomic {                                  /* gone: plan once more from the batch rows */
       sto[x] != PRESENT && !replanned ->
       replanned = 1;
       if
       :: o < ls -> break                      /* below the log start now: OFFSET_OUT_OF_RANGE */
       :: else -> x = rowObj[o]; r = rowRec[o]
       fi }
  :: atomic { sto[x] != PRESENT && replanned -> break }   /* a retriable error; the client asks again */
  od;
  atomic { o = 0; x = 0; r = 0; replanned = 0 }
}
#endif

init {
  atomic {
    run Janitor();
#ifndef MAINTAIN
    run Producer(0); run Producer(1);
    run Agent(0); run Agent(1)
#else
    run Flusher(); run Compactor(); run Retention(); run Writer();
#ifndef NO_ZOMBIE
    run Zombie();
#endif
#ifdef FETCHER
    run Fetcher()
#endif
#endif
  }
}

/* ================================================================== properties */

/* NoAckedLoss: an acknowledged record sits at its offset, in a stored object that holds it, unless
   retention removed it from the log start. */
#define ACKOK(r)  (ackOff[r] == NONE || ackOff[r] < ls || \
                   (ackOff[r] < hw && rowRec[ackOff[r]] == r && rowObj[ackOff[r]] != NONE && \
                    sto[rowObj[ackOff[r]]] == PRESENT && HAS(rowObj[ackOff[r]], r)))
/* UniqueDenseOffsets: every offset below the high watermark was assigned exactly once, none above. */
#define DENSE(o)  ((o < hw && assigned[o] == 1) || (o >= hw && assigned[o] == 0))
/* NoDuplicateAppend: a (producer, epoch, sequence) is appended at most once. */
#define NODUP     (appended[0] <= 1 && appended[1] <= 1 && appended[2] <= 1 && appended[3] <= 1 && \
                   appended[4] <= 1 && appended[5] <= 1 && appended[6] <= 1 && appended[7] <= 1)
/* ConsistentRead: a visible offset's row keeps the record it first had, in an object that holds it;
   no fetch ever returned another record. */
#define CREAD(o)  (o < ls || o >= hw || (rowRec[o] == seen[o] && rowObj[o] != NONE && \
                   (sto[rowObj[o]] != PRESENT || HAS(rowObj[o], seen[o]))))
/* NoDanglingReference: the rows [ls, hw) point to stored COMMITTED objects and no other rows exist;
   no COMMITTED object and no registered upload is deleted. */
#define ROWOK(o)  ((o >= ls && o < hw && rowObj[o] != NONE && sto[rowObj[o]] == PRESENT && \
                    ost[rowObj[o]] == COMMITTED) || ((o < ls || o >= hw) && rowObj[o] == NONE))
#define OBJOK(x)  ((ost[x] != COMMITTED || sto[x] == PRESENT) && (ost[x] != REG || sto[x] != DELETED))
/* RefCountsExact (what cleanup rests on): a COMMITTED object's ref_count is its number of rows. */
#define REFOK(x)  (ost[x] != COMMITTED || ref[x] == REFSUM(x))
/* MonotoneMarkers: log start <= high watermark, the table's watermark <= high watermark; no marker
   ever went below a value it had. */
#define MONO      (ls <= hw && tableWM <= hw && ls == lsMax && hw == hwMax && tableWM == wmMax)
/* ExactlyOnceTable: each offset below the table's watermark is in the table once, with its record;
   none above. (The watermark moves only in the commit that adds the rows: MATERIALIZE.) */
#define TABLE(o)  ((o < tableWM && tblCnt[o] == 1 && tblRec[o] == seen[o]) || \
                   (o >= tableWM && tblCnt[o] == 0))

#define INV_NoAckedLoss         ALLREC(ACKOK)
#define INV_UniqueDenseOffsets  ALLOFF(DENSE)
#define INV_NoDuplicateAppend   NODUP
#define INV_ConsistentRead      (ALLOFF(CREAD) && !readWrong)
#define INV_NoDanglingReference (ALLOFF(ROWOK) && ALLOBJ(OBJOK))
#define INV_RefCountsExact      ALLOBJ(REFOK)
#define INV_Fencing             (fence == 0)
#define INV_MonotoneMarkers     MONO
#define INV_ExactlyOnceTable    ALLOFF(TABLE)

/* Each invariant as a never claim that asserts it in every reachable state (deterministic, so as
   cheap as an invariant check gets). Safety is all of them at once: the run that must hold;
   check.sh names a failing one with the single claims. */
never Safety {
  do
  :: assert(INV_NoAckedLoss && INV_UniqueDenseOffsets && INV_NoDuplicateAppend && INV_ConsistentRead &&
            INV_NoDanglingReference && INV_RefCountsExact && INV_Fencing && INV_MonotoneMarkers &&
            INV_ExactlyOnceTable)
  od
}
never NoAckedLoss         { do :: assert(INV_NoAckedLoss) od }
never UniqueDenseOffsets  { do :: assert(INV_UniqueDenseOffsets) od }
never NoDuplicateAppend   { do :: assert(INV_NoDuplicateAppend) od }
never ConsistentRead      { do :: assert(INV_ConsistentRead) od }
never NoDanglingReference { do :: assert(INV_NoDanglingReference) od }
never RefCountsExact      { do :: assert(INV_RefCountsExact) od }
never Fencing             { do :: assert(INV_Fencing) od }
never MonotoneMarkers     { do :: assert(INV_MonotoneMarkers) od }
never ExactlyOnceTable    { do :: assert(INV_ExactlyOnceTable) od }

/* Liveness (pan -a). Every process in the model does a bounded amount of work, so every infinite
   run ends by stuttering in a state where no process can move: weak fairness then holds of every
   run, and these are checked without a fairness assumption (a stronger check; pan -f agrees, slower). */
#define FETCHABLE(r) (ackOff[r] < ls || (ackOff[r] < hw && rowRec[ackOff[r]] == r && rowObj[ackOff[r]] != NONE && \
                      sto[rowObj[ackOff[r]]] == PRESENT && HAS(rowObj[ackOff[r]], r)))
/* no garbage: an object that a batch row points to, or one with neither a row in objects or
   object_deletions nor a copy in the object store */
#define SETTLED(x) (REFSUM(x) > 0 || ((ost[x] == FREE || ost[x] == GONE) && sto[x] != PRESENT))
#ifndef MAINTAIN
/* every send is answered (acknowledged, or failed to the application) and no request stays open:
   a producer past its last batch never sends again, so this is the same as [] (wait -> <> !wait) */
ltl ProduceAnswered     { <> (pb[0] == NB && pb[1] == NB1 && !wait[0] && !wait[1]) }
#endif
ltl AckedFetchable      { [] (ackOff[0] != NONE -> <> FETCHABLE(0)) && [] (ackOff[1] != NONE -> <> FETCHABLE(1)) &&
                          [] (ackOff[2] != NONE -> <> FETCHABLE(2)) && [] (ackOff[3] != NONE -> <> FETCHABLE(3)) }
ltl TableCatchesUp      { <> [] (tableWM == hw) }
ltl GarbageDeleted      { <> [] ALLOBJ(SETTLED) }

/* Coverage witnesses (compile with -DWITNESS): each fence rejects a stale commit in some run
   (check.sh expects a "violation"). */
#ifdef WITNESS
never WitnessSweptCommit  { do :: assert(!(rejected & F_REG)) od }
never WitnessStaleEpoch   { do :: assert(!(rejected & F_EPOCH)) od }
never WitnessStalePlan    { do :: assert(!(rejected & F_PLAN)) od }
never WitnessStaleTable   { do :: assert(!(rejected & F_TABLE)) od }
#endif
