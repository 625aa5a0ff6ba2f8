/*
 * floe.pml -- the Floe protocol model: produce/commit (DESIGN §3), maintenance (§5: orphan sweep,
 * compaction, retention) and Tableflow (§6). Checked by spec/check.sh; spec/README.md states the
 * invariants in words and maps each part of the model to the code.
 *
 * One partition. Two idempotent producers send one-record batches (producer 0 two, producer 1
 * NB1) through two agents; a flush may carry both producers' batches in one object. Around them:
 * the orphan sweeper and the object cleaner, one compactor, retention, the Tableflow writer, a
 * second, stale Tableflow writer (a zombie), and a consumer's fetch.
 *
 * Granularity: one metadata transaction = one atomic step; one object-store PUT, GET or DELETE =
 * one atomic step; everything between them interleaves with every other process. An agent may
 * crash (or stall for good) after every step, losing its flush and the producers' replies; the
 * compactor and the zombie writer may crash after every step; the sweeper, the cleaner and
 * retention keep no state between their steps, so for them a crash is the same as a delay.
 *
 * Fences, each switchable off for a negative control (spin -DNAME -a floe.pml):
 *   NO_SWEEP_FENCE     the commit does not consume the upload's registration: the sweep is
 *                      then in effect purely time-based
 *   NO_COMPACTION_CAS  the compaction swap does not compare-and-swap the rows it planned from
 *   NO_TABLE_CAS       the table commit does not compare-and-swap the table's current metadata
 *   NO_DELETE_DELAY    the cleaner deletes objects that an in-flight read still holds
 * LIVENESS bounds the crashes of the restarting jobs (a job that crashes forever never heals).
 */

/* ------------------------------------------------------------------ bounds */
#define NP        2     /* producers */
#define NB        2     /* producer 0's batches; records are r = p*NB + b, one per batch */
#ifndef NB1
#define NB1       1     /* producer 1's batches */
#endif
#define NBATCH(p) (p == 0 -> NB : NB1)
#define NREC      4     /* records */
#ifndef RETRIES
#define RETRIES   1     /* idempotent retries, both producers together */
#endif
#define NEPOCH    2     /* producer epochs: one bump, after a failed send */
#define NA        2     /* agents */
#define MAXCOMP   1     /* compaction runs (each registers one output object) */
#define MAXOBJ    6     /* flushes (at most one per attempt: NB + NB1 + RETRIES) + MAXCOMP */
#define MAXOFF    4     /* each record is appended at most once */
#ifndef MAXCRASH
#define MAXCRASH  2     /* with LIVENESS: crashes of the compactor and the zombie, all together */
#endif
#define NONE      255

#define ANYOBJ(P) (P(0)||P(1)||P(2)||P(3)||P(4)||P(5))
#define ALLOBJ(P) (P(0)&&P(1)&&P(2)&&P(3)&&P(4)&&P(5))
#define ALLOFF(P) (P(0)&&P(1)&&P(2)&&P(3))
#define ALLREC(P) (P(0)&&P(1)&&P(2)&&P(3))

/* ------------------------------------------------------------------ metadata store */
/* objects table (state column); FREE = no row yet, GONE = row removed */
#define FREE      0
#define REG       1     /* REGISTERED: an upload may be under way, no batch row points to it */
#define COMMITTED 2     /* batch rows point into it; ref = their number */
#define DELETING  3     /* tombstone: unreferenced, to be deleted after the delay */
#define GONE      4
byte ost[MAXOBJ];
byte ref[MAXOBJ];       /* ref_count */
byte nextObj;           /* keys are time-ordered, never reused: index order = registration order */

/* the partition: batch rows for the offsets [ls, hw) */
byte ls, hw;            /* log start offset, high watermark (next_offset) */
byte rowObj[MAXOFF] = NONE;
byte rowRec[MAXOFF] = NONE;   /* the batch's position in its object: which record it is */

/* producer_state: epoch, last sequence, base offsets of the recent batches (by sequence) */
byte hEpoch[NP] = NONE;
byte hLast[NP]  = NONE;
byte hOff[NP*NB] = NONE;

/* ------------------------------------------------------------------ object store */
#define ABSENT    0     /* never written (a DELETE of an absent key changes nothing) */
#define PRESENT   1
#define DELETED   2
byte sto[MAXOBJ];
byte content[MAXOBJ];   /* bit r: the object holds record r's batch */
#define HAS(x, r) (((content[x] >> (r)) & 1) == 1)

/* ------------------------------------------------------------------ tableflow catalog */
byte tableVer;          /* the table's current metadata version: what the catalog commit compares */
byte tableWM;           /* snapshot summary: the offsets below it are in the table */
byte tblCnt[MAXOFF];    /* how often the table holds the record of each offset */
byte tblRec[MAXOFF] = NONE;

/* ------------------------------------------------------------------ producers (Kafka clients) */
byte pb[NP];            /* the batch being sent (NBATCH(p) when done) */
byte pa[NP];            /* its attempt */
byte pe[NP];            /* producer epoch */
byte ps[NP];            /* its sequence number in the epoch */
bit  wait[NP];          /* a request is out and not yet answered */
bit  live[NP];          /* ... and sits in an agent's buffer or flush (else: error reply, lost reply, crash) */
#define TAG(p)    (pb[p]*(RETRIES + 1) + pa[p] + 1)   /* the attempt a reply must match */
byte retries;           /* retries used */
byte ackOff[NREC] = NONE;       /* the offset the producer was acknowledged */
bit  failed[NREC];              /* the application was told that the send failed */

/* ------------------------------------------------------------------ agents */
byte buf[NA];           /* open flush buffer: bit p = producer p's batch waits in it */
bit  busy[NA];          /* its flush is sealed and in progress */
byte bufE[NA*NP]; byte bufS[NA*NP]; byte bufB[NA*NP]; byte bufT[NA*NP];

/* ------------------------------------------------------------------ readers and jobs */
byte fHeld = NONE;      /* the object an in-flight fetch read holds */
byte ncomp;             /* compaction outputs registered */
byte aobj[NA] = NONE;   /* the object each agent's flush uploads */
byte cobj = NONE;       /* the compaction output being written */
byte early;             /* registrations swept while their uploader was at work */
byte crashes;           /* with LIVENESS: crashes so far */

/* ------------------------------------------------------------------ ghosts (observation only) */
byte seen[MAXOFF] = NONE;       /* the record at each offset when it became visible */
byte assigned[MAXOFF];          /* how often each offset was assigned */
byte appended[NP*NEPOCH*NB];    /* how often each (producer, epoch, sequence) was appended */
bit  readMissing;               /* an in-flight fetch found its object deleted */
bit  readWrong;                 /* a fetch read another record than the offset's */
byte fence;                     /* accepted stale commits (bits F_*); Fencing keeps it 0 */
byte rejected;                  /* rejected stale commits (bits F_*); coverage witnesses */
#define F_REG     1             /* producer commit whose registration was swept */
#define F_EPOCH   2             /* batch of an older producer epoch */
#define F_PLAN    4             /* compaction swap of rows that changed since the plan */
#define F_TABLE   8             /* table commit of a writer whose view is stale */

#ifdef LIVENESS
#define CRASHJ    atomic { crashes < MAXCRASH -> crashes++ }
#else
#define CRASHJ    true
#endif

/* Delete an unreferenced object, then remove its row. Used in one step with the transaction that
   made the object unreferenced only where no reader can know the object: a swept registration
   (no batch row ever pointed to it; an upload arriving later is found by listing), a commit that
   appended nothing, a compaction output whose swap was rejected. */
inline DESTROY(x) {
  if :: sto[x] == PRESENT -> sto[x] = DELETED; content[x] = 0 :: else -> skip fi;
  ost[x] = GONE
}

inline decref(x) {
  if
  :: ref[x] > 0 -> ref[x]--
  :: else -> skip
  fi;
  if
  :: ref[x] == 0 && ost[x] == COMMITTED -> ost[x] = DELETING   /* delete after the delay */
  :: else -> skip
  fi
}

#ifndef MAINTAIN
/* ================================================================== produce (§3) */

/* A Kafka producer, idempotent, one request in flight. An attempt that got an error or no answer is
   retried with the same producer id, epoch and sequence (a new flush: a new object) while the
   retry budget lasts; or the send fails (delivery timeout, also while the request is still in
   flight): the application is told, and the producer bumps its epoch and starts its next batch at
   sequence 0, as Kafka's idempotent producer does. The agent applies an acknowledgement. */
#define FAIL_SEND failed[p*NB + pb[p]] = 1; pa[p] = 0; \
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
       :: FREEAGENT(1) && !(!busy[0] && buf[0] == 0 && buf[1] == 0) -> k = 1   /* idle empty agents are alike */
       fi;
       buf[k] = buf[k] | (1 << p);
       bufE[k*NP + p] = pe[p]; bufS[k*NP + p] = ps[p]; bufB[k*NP + p] = pb[p]; bufT[k*NP + p] = TAG(p);
       wait[p] = 1; live[p] = 1; k = 0 }
  :: atomic {                                  /* error or no answer: retry, or fail the send */
       wait[p] && !live[p] -> wait[p] = 0;
       if
       :: p == 0 && retries < RETRIES -> retries++; pa[p]++         /* producer 0 only */
       :: true -> FAIL_SEND
       fi }
  :: atomic {                                  /* delivery timeout while the request is in flight */
       p == 0 && wait[p] && live[p] -> wait[p] = 0; live[p] = 0; FAIL_SEND }   /* producer 0 only */
  od
}

/* An agent: seal its flush buffer, register, upload, commit, answer. Crashes after every step. */
#define MINE(p)   ((fl & (1 << p)) != 0 && wait[p] && live[p] && TAG(p) == ft[p])
proctype Agent(byte k) {
  byte fl, obj, p, n, v, r;
  bit lost;
  byte fe[NP], fs[NP], fb[NP], ft[NP];
end_idle:
  atomic {                                     /* seal the flush (any time after its first batch) */
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
    /* 3. register the upload (keys are registered ahead: RegisteredKeys) */
    assert(nextObj < MAXOBJ); obj = nextObj; nextObj++; ost[obj] = REG; aobj[k] = obj }
  d_step {                                     /* 4. upload under the key, create-only */
    sto[obj] = PRESENT;
    p = 0;
    do
    :: p < NP && (fl & (1 << p)) != 0 -> content[obj] = content[obj] | (1 << (p*NB + fb[p])); p++
    :: p < NP && (fl & (1 << p)) == 0 -> p++
    :: else -> break
    od;
    p = 0 };
  if                                           /* 5. commit: one transaction; 6. answer */
  :: goto crash
  :: atomic {
       if
       :: lost = 0
       :: lost = 1                             /* the replies will be lost */
       fi;
       if
#ifndef NO_SWEEP_FENCE
       :: ost[obj] == REG ->                   /* the commit consumes the registration */
#else
       :: true ->                              /* no fence: the registration is not consulted */
#endif
          if :: ost[obj] != REG -> fence = fence | F_REG :: else -> skip fi;
          n = 0; p = 0;
          do
          :: p < NP && (fl & (1 << p)) == 0 -> p++
          :: p < NP && (fl & (1 << p)) != 0 ->
             /* SequenceCheck: v = 0 append, 1 duplicate, 2 refuse */
             if
             :: hEpoch[p] == NONE -> v = 0
             :: hEpoch[p] != NONE && fe[p] < hEpoch[p] -> v = 2                 /* PRODUCER_FENCED */
             :: hEpoch[p] != NONE && fe[p] > hEpoch[p] && fs[p] == 0 -> v = 0
             :: hEpoch[p] != NONE && fe[p] > hEpoch[p] && fs[p] != 0 -> v = 2   /* OUT_OF_ORDER */
             :: hEpoch[p] != NONE && fe[p] == hEpoch[p] && fs[p] <= hLast[p] -> v = 1
             :: hEpoch[p] != NONE && fe[p] == hEpoch[p] && fs[p] == hLast[p] + 1 -> v = 0
             :: hEpoch[p] != NONE && fe[p] == hEpoch[p] && fs[p] > hLast[p] + 1 -> v = 2
             fi;
             if
             :: v == 0 ->                      /* assign the next offset, insert the batch row */
                assert(hw < MAXOFF);
                if :: hEpoch[p] != NONE && fe[p] < hEpoch[p] -> fence = fence | F_EPOCH :: else -> skip fi;
                r = p*NB + fb[p];
                rowObj[hw] = obj; rowRec[hw] = r; seen[hw] = r; assigned[hw]++;
                appended[p*NEPOCH*NB + fe[p]*NB + fs[p]]++;
                if
                :: hEpoch[p] != fe[p] -> hOff[p*NB] = NONE; hOff[p*NB + 1] = NONE; hEpoch[p] = fe[p]
                :: else -> skip
                fi;
                hLast[p] = fs[p]; hOff[p*NB + fs[p]] = hw;
                v = hw; hw++; n++
             :: v == 1 -> v = hOff[p*NB + fs[p]]     /* Duplicate: answered with the original offset */
             :: v == 2 -> v = NONE;
                if :: fe[p] < hEpoch[p] -> rejected = rejected | F_EPOCH :: else -> skip fi
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
          if
          :: n > 0 -> ost[obj] = COMMITTED; ref[obj] = n
          :: else -> ost[obj] = DELETING; DESTROY(obj)   /* nothing appended (duplicates): garbage */
          fi;
          n = 0; p = 0
       :: else ->                              /* Rejected: the sweeper took the registration */
          rejected = rejected | F_REG
       fi }
  fi;
crash:
  atomic {                                     /* done, or crashed: whoever still waits times out */
    if :: MINE(0) -> live[0] = 0 :: else -> skip fi;
    if :: MINE(1) -> live[1] = 0 :: else -> skip fi;
    fl = 0; obj = 0; p = 0; n = 0; v = 0; r = 0; lost = 0;
    fe[0] = 0; fe[1] = 0; fs[0] = 0; fs[1] = 0; fb[0] = 0; fb[1] = 0; ft[0] = 0; ft[1] = 0;
    busy[k] = 0; aobj[k] = NONE };
  goto end_idle
}

#else
/* ================================================================== produce, coarse (§3) */

/* The MAINTAIN configuration's producer side: one agent's flushes of the records 0..NREC-1, in
   order, one or two per flush (the second is another producer's batch); register, upload, commit,
   each step interleaved, a crash after each. The detailed produce path (two producers, retries,
   epochs, two agents) is the PRODUCE configuration's. */
#ifndef FLUSHES
#define FLUSHES   3     /* flush objects */
#endif
#ifndef MREC
#define MREC      4     /* records */
#endif
byte nextRec;           /* records committed so far */
proctype Flusher() {
  byte obj, n, r;
end_fl:
  do
  :: atomic {                                  /* seal the flush, register its key */
       nextRec < MREC && nextObj < FLUSHES ->
       if
       :: n = 1
       :: nextRec + 1 < MREC -> n = 2
       fi;
       obj = nextObj; nextObj++; ost[obj] = REG; aobj[0] = obj }
     if                                        /* upload, create-only */
     :: goto fcrash
     :: d_step { sto[obj] = PRESENT; content[obj] = ((1 << n) - 1) << nextRec }
     fi;
     if                                        /* commit: one transaction, and acknowledge */
     :: goto fcrash
     :: d_step {
          if
#ifndef NO_SWEEP_FENCE
          :: ost[obj] == REG ->
#else
          :: true ->
#endif
             if :: ost[obj] != REG -> fence = fence | F_REG :: else -> skip fi;
             r = 0;
             do
             :: r < n ->
                rowObj[hw] = obj; rowRec[hw] = nextRec; seen[hw] = nextRec; assigned[hw]++;
                appended[nextRec]++; ackOff[nextRec] = hw; hw++; nextRec++; r++
             :: else -> break
             od;
             ost[obj] = COMMITTED; ref[obj] = n; r = 0
          :: else -> rejected = rejected | F_REG
          fi }
     fi;
fcrash:
     atomic { obj = 0; n = 0; r = 0; aobj[0] = NONE }
  od
}
#endif

/* ================================================================== maintenance (§5) */

/* The orphan sweeper and the cleaner. Each action is one transaction or one store call and they
   keep nothing between actions, so for them a crash is the same as a delay.
   Grace: the sweep transaction takes the oldest REGISTERED row at any time (keys are registered in
   time order, so the oldest passes the grace period first). The model thus assumes nothing about
   how long an upload and its commit take -- a grace period shorter than some agent pause. The grace
   period only buys progress (commits are rarely rejected); safety must not, and does not, rest on it. */
#define ALIVE(x)      (aobj[0] == x || aobj[1] == x || cobj == x)   /* its uploader is still at it */
#ifndef EARLY
#define EARLY         1     /* registrations that expire while their uploader is still at work */
#endif
#define SWEEP(x, older_done) \
       :: ost[x] == REG && (older_done) && (!ALIVE(x) || early < EARLY) -> \
          if :: ALIVE(x) -> early++ :: else -> skip fi; \
          ost[x] = DELETING;   /* the transaction: from now on the upload's commit is rejected */ \
          DESTROY(x)
#ifndef NO_DELETE_DELAY
#define HELD(x)       (fHeld == x)     /* object.delete.delay.ms outlasts every in-flight read */
#else
#define HELD(x)       false
#endif
/* delete a tombstone's object (after the delay), then drop the row; or delete an object listed
   without a row (an upload that arrived after its registration was swept) */
#ifndef NO_LISTING
#define CLEAN(x)      :: ost[x] == DELETING && !HELD(x) -> DESTROY(x) \
                      :: ost[x] == GONE && sto[x] == PRESENT -> sto[x] = DELETED; content[x] = 0
#else
#define CLEAN(x)      :: ost[x] == DELETING && !HELD(x) -> DESTROY(x)
#endif
proctype Janitor() {
  byte x;
end_j:
  do
  :: atomic {                                  /* sweep the oldest registration (it has no batch row):
                                                  the transaction, then the DELETE, then the row */
       if
       SWEEP(0, true)
       SWEEP(1, ost[0] != REG)
       SWEEP(2, ost[0] != REG && ost[1] != REG)
       SWEEP(3, ost[0] != REG && ost[1] != REG && ost[2] != REG)
       SWEEP(4, ost[0] != REG && ost[1] != REG && ost[2] != REG && ost[3] != REG)
       SWEEP(5, ost[0] != REG && ost[1] != REG && ost[2] != REG && ost[3] != REG && ost[4] != REG)
       fi }
  :: atomic {                                  /* clean: delete an object nothing references */
       if CLEAN(0) CLEAN(1) CLEAN(2) CLEAN(3) CLEAN(4) CLEAN(5) fi }
  od
}

/* Retention: drop the first batch row (never past what the table has materialized). */
proctype Retention() {
end_r:
  do
  :: d_step {
       ls < hw && ls < tableWM ->
       decref(rowObj[ls]); rowObj[ls] = NONE; rowRec[ls] = NONE; ls++ }
  od
}

/* Compaction: plan two neighbouring rows in different objects and register the output; read the
   inputs and write the output; swap the rows in one conditional transaction; the inputs are
   deleted after the delay once nothing references them. */
#ifndef NO_COMPACTION_CAS
#define SWAP_OK   (a >= ls && rowObj[a] == o0 && rowObj[a + 1] == o1)
#else
#define SWAP_OK   true
#endif
#define PLAN(i)   (ls <= i && i + 1 < hw && rowObj[i] != rowObj[i + 1] && \
                   sto[rowObj[i]] == PRESENT && sto[rowObj[i + 1]] == PRESENT)
#define TAKE(i)   :: PLAN(i) -> a = i
proctype Compactor() {
  byte a, o0, o1, r0, r1, c;
end_c:
  do
  :: ncomp == MAXCOMP -> break
  :: atomic {                                  /* plan from the batch rows, register the output,
                                                  read the inputs, write the output */
       ncomp < MAXCOMP && (PLAN(0) || PLAN(1) || PLAN(2)) ->
       if TAKE(0) TAKE(1) TAKE(2) fi;
       o0 = rowObj[a]; o1 = rowObj[a + 1]; r0 = rowRec[a]; r1 = rowRec[a + 1];
       assert(nextObj < MAXOBJ); c = nextObj; nextObj++; ncomp++; ost[c] = REG; cobj = c;
       sto[c] = PRESENT; content[c] = (content[o0] & (1 << r0)) | (content[o1] & (1 << r1)) }
     if
     :: CRASHJ -> goto reset
     :: d_step {                               /* the swap: one conditional transaction */
          if
          :: ost[c] == REG && SWAP_OK ->
             if :: !(a >= ls && rowObj[a] == o0 && rowObj[a + 1] == o1) -> fence = fence | F_PLAN
                :: else -> skip fi;
             if :: a >= ls -> rowObj[a] = c; rowRec[a] = r0 :: else -> skip fi;
             if :: a + 1 >= ls -> rowObj[a + 1] = c; rowRec[a + 1] = r1 :: else -> skip fi;
             ost[c] = COMMITTED; ref[c] = 2;
             decref(o0); decref(o1)
          :: else ->                           /* rejected: the output is garbage */
             if :: ost[c] == REG -> ost[c] = DELETING; DESTROY(c) :: else -> skip fi;
             if :: !(a >= ls && rowObj[a] == o0 && rowObj[a + 1] == o1) -> rejected = rejected | F_PLAN
                :: else -> skip fi
          fi }
     fi;
reset:
     atomic { a = 0; o0 = 0; o1 = 0; r0 = 0; r1 = 0; c = 0; cobj = NONE }
  od
}

/* ================================================================== tableflow (§6) */

/* A reader finds every new row's object (rows never point to missing objects: NoDanglingReference). */
#define READABLE(o) (o < tableWM || o >= hw || (sto[rowObj[o]] == PRESENT && HAS(rowObj[o], rowRec[o])))
#ifndef NO_TABLE_CAS
#define TABLE_OK  (tableVer == v)
#else
#define TABLE_OK  true
#endif
#define MATERIALIZE  \
       o = wm; \
       do \
       :: o < e -> tblCnt[o]++; tblRec[o] = (lrec >> (2*o)) & 3; o++ \
       :: else -> break \
       od; \
       tableWM = e; tableVer++
#define READ_NEW  /* the table's summary, then the batch rows [wm, hw) and their records */ \
       v = tableVer; wm = tableWM; e = hw; o = wm; \
       do \
       :: o < e -> lrec = lrec | (rowRec[o] << (2*o)); o++ \
       :: else -> break \
       od

/* The Tableflow job holding the lease: resume from the table's own summary, read the new records,
   write the data files and commit them with the new summary in one catalog commit. One step: the
   lease holder's own interleavings are those of the zombie below. */
proctype Writer() {
  byte v, wm, e, o;
  byte lrec;                                   /* the records read, 2 bits per offset */
end_w:
  do
  :: d_step {
       hw > tableWM && ALLOFF(READABLE) ->
       READ_NEW;
       if :: TABLE_OK -> MATERIALIZE :: else -> skip fi;
       v = 0; wm = 0; e = 0; o = 0; lrec = 0 }
  od
}

/* A zombie: the same job on an agent that lost the lease and has not noticed. It read the summary
   and the records at some time and commits them at a later one. */
proctype Zombie() {
  byte v, wm, e, o;
  byte lrec;
end_z:
  atomic {
    hw > tableWM && ALLOFF(READABLE) -> READ_NEW; o = 0 }
  if
  :: CRASHJ
  :: d_step {                                  /* catalog commit: compare-and-swap */
       if
       :: TABLE_OK ->
          if :: tableVer != v -> fence = fence | F_TABLE :: else -> skip fi;
          MATERIALIZE
       :: else -> rejected = rejected | F_TABLE     /* CommitFailedException */
       fi;
       o = 0 }
  fi;
  d_step { v = 0; wm = 0; e = 0; o = 0; lrec = 0 }
}

/* ================================================================== fetch (§4) */

/* A consumer's fetch, at any time: look up a visible offset's batch row, then read its object. One
   read is enough: reads do not interact, and any single read's timing is explored. */
#define PICK(i)   :: ls <= i && i < hw -> o = i
proctype Fetcher() {
  byte o, x, r;
end_f:
  atomic {
    ls < hw ->
    if PICK(0) PICK(1) PICK(2) PICK(3) fi;
    x = rowObj[o]; r = rowRec[o]; fHeld = x }
  d_step {
    if
    :: sto[x] != PRESENT -> readMissing = 1
    :: sto[x] == PRESENT && (!HAS(x, r) || r != seen[o]) -> readWrong = 1
    :: else -> skip
    fi;
    fHeld = NONE; o = 0; x = 0; r = 0 }
}

init {
  atomic {
    run Janitor();
#ifndef MAINTAIN
    run Producer(0); run Producer(1);
    run Agent(0); run Agent(1)
#else
    run Flusher(); run Compactor(); run Retention(); run Writer(); run Zombie();
#ifndef NO_FETCHER
    run Fetcher()
#endif
#endif
  }
}

/* ================================================================== properties */

/* NoAckedLoss: an acknowledged record sits at its offset in a stored object, unless retained away. */
#define ACKOK(r)  (ackOff[r] == NONE || ackOff[r] < ls || \
                   (ackOff[r] < hw && rowRec[ackOff[r]] == r && rowObj[ackOff[r]] != NONE && \
                    sto[rowObj[ackOff[r]]] == PRESENT && HAS(rowObj[ackOff[r]], r)))
/* UniqueDenseOffsets: every offset below the high watermark was assigned exactly once, none above. */
#define DENSE(o)  ((o < hw && assigned[o] == 1) || (o >= hw && assigned[o] == 0))
/* ConsistentRead: a visible offset's row keeps its record, and its object holds that record. */
#define CREAD(o)  (o < ls || o >= hw || (rowRec[o] == seen[o] && \
                   (sto[rowObj[o]] != PRESENT || HAS(rowObj[o], seen[o]))))
/* NoDanglingReference: the rows [ls, hw) point to stored COMMITTED objects, and no other rows
   exist; no COMMITTED object and no registered, unswept upload is deleted; no in-flight read misses. */
#define ROWOK(o)  ((o >= ls && o < hw && rowObj[o] != NONE && sto[rowObj[o]] == PRESENT && \
                    ost[rowObj[o]] == COMMITTED) || ((o < ls || o >= hw) && rowObj[o] == NONE))
#define OBJOK(x)  ((ost[x] != COMMITTED || sto[x] == PRESENT) && (ost[x] != REG || sto[x] != DELETED))
/* RefCountsExact (what NoDanglingReference rests on): a COMMITTED object's ref_count is its row count. */
#define REFS(x)   ((rowObj[0] == x) + (rowObj[1] == x) + (rowObj[2] == x) + (rowObj[3] == x))
#define REFOK(x)  (ost[x] != COMMITTED || ref[x] == REFS(x))
/* ExactlyOnceTable: the offsets below the watermark are in the table once, with their records; none above. */
#define TABLE(o)  ((o < tableWM && tblCnt[o] == 1 && tblRec[o] == seen[o]) || (o >= tableWM && tblCnt[o] == 0))
/* MonotoneMarkers: once a marker reaches k it stays at k or above. */
#define MONO(v)   ([] (v >= 1 -> [] (v >= 1)) && [] (v >= 2 -> [] (v >= 2)) && \
                   [] (v >= 3 -> [] (v >= 3)) && [] (v >= 4 -> [] (v >= 4)))

ltl NoAckedLoss         { [] (ALLREC(ACKOK)) }
ltl UniqueDenseOffsets  { [] (ALLOFF(DENSE)) }
ltl NoDuplicateAppend   { [] (appended[0] <= 1 && appended[1] <= 1 && appended[2] <= 1 && appended[3] <= 1 &&
                              appended[4] <= 1 && appended[5] <= 1 && appended[6] <= 1 && appended[7] <= 1) }
ltl ConsistentRead      { [] (ALLOFF(CREAD) && !readWrong) }
ltl NoDanglingReference { [] (ALLOFF(ROWOK) && ALLOBJ(OBJOK) && !readMissing) }
ltl RefCountsExact      { [] (ALLOBJ(REFOK)) }
ltl Fencing             { [] (fence == 0) }
ltl MonotoneMarkers     { [] (ls <= hw && tableWM <= hw) && MONO(ls) && MONO(hw) && MONO(tableWM) }
ltl ExactlyOnceTable    { [] (ALLOFF(TABLE) && tableWM <= hw) }

/* Liveness, under weak fairness (compile with -DLIVENESS). */
#define FETCHABLE(r) (ackOff[r] < ls || (ackOff[r] < hw && rowRec[ackOff[r]] == r && \
                      sto[rowObj[ackOff[r]]] == PRESENT && HAS(rowObj[ackOff[r]], r)))
#define SETTLED(x) (ost[x] != REG && ost[x] != DELETING && (sto[x] != PRESENT || (ost[x] == COMMITTED && ref[x] > 0)))
ltl ProduceAnswered     { [] (wait[0] -> <> !wait[0]) && [] (wait[1] -> <> !wait[1]) &&
                          <> (pb[0] == NB && pb[1] == NB1) }
ltl AckedFetchable      { [] (ackOff[0] != NONE -> <> FETCHABLE(0)) && [] (ackOff[1] != NONE -> <> FETCHABLE(1)) &&
                          [] (ackOff[2] != NONE -> <> FETCHABLE(2)) && [] (ackOff[3] != NONE -> <> FETCHABLE(3)) }
ltl TableCatchesUp      { <> [] (tableWM == hw) }
ltl GarbageDeleted      { <> [] (ALLOBJ(SETTLED)) }

/* Coverage witnesses: each fence does reject something in some run (check.sh expects a "violation"). */
ltl WitnessSweptCommit  { [] !(rejected & F_REG) }
ltl WitnessStaleEpoch   { [] !(rejected & F_EPOCH) }
ltl WitnessStalePlan    { [] !(rejected & F_PLAN) }
ltl WitnessStaleTable   { [] !(rejected & F_TABLE) }
