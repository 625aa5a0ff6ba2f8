/*
 * transactions.pml -- Floe's Kafka transactions (issue 18; docs/architecture.md "Transactions", the design as
 * decided on main at 5782480): the transaction row in the metadata store, InitProducerId, produce
 * of transactional batches, TxnOffsetCommit, EndTxn, the timeout abort, markers as log entries, the
 * last stable offset, retention, key compaction's removal of aborted records and markers, a
 * read_committed reader and a Tableflow-like materializer. Checked by spec/check.sh; spec/README.md
 * says what each part means and docs/verification.md ("Issue 18: transactions, model") what it found.
 *
 * Scope: one transactional id; two producer incarnations (process 0 and 1: whichever calls
 * InitProducerId later fences the other, so each is in turn the zombie and the successor), two
 * partitions; two agents serving the coordinator role (the timeout abort; every producer request is
 * served by some agent in one step), each of which may crash between its steps. Every store
 * operation is ONE atomic step (d_step): that is the design's claim that each transaction operation
 * is one store transaction. A producer or agent may stop between any two steps (a crash, a lost
 * request, the application giving up); no step is ever half done.
 *
 * Configurations:
 *   default      transaction version 2 (KIP-890): a produce joins (and begins) the transaction,
 *                EndTxn bumps the epoch; reader; two coordinators
 *   TV1          transaction version 1: AddPartitionsToTxn before a partition's first produce
 *   MAINT        with retention, key compaction and the materializer (smaller producers)
 * Negative controls (each must give a counterexample):
 *   NO_EPOCH_CHECK    the produce commit does not compare the batch's epoch with the row's
 *   SPLIT_END         EndTxn writes one partition's marker per store transaction, then the state
 *                     row and the offsets in a last one (the coordinator may die in between)
 *   NO_LSO_OPEN       the LSO is the high watermark, open transactions ignored
 *   NO_LAG_GUARD      (MAINT) a marker is removed while a fetch that planned below it is in flight
 *   NO_RECORDS_FIRST  (MAINT) an abort marker is removed while aborted records it covers remain
 *   NO_TIMEOUT        no agent aborts expired transactions (liveness)
 * Variant:
 *   ATOMIC_FETCH      a fetch reads its entries and the aborted index in one store read
 */

#define NONE     255
#ifndef MAXOFF
#define MAXOFF   8              /* offsets per partition (data + markers); asserted */
#endif
#ifdef ONEPART
#define NPART    1
#else
#define NPART    2
#endif
#define E(p, o)  ((p) * MAXOFF + (o))
#define BIT(x)   (1 << (x))
#define HAS(m, x) ((((m) >> (x)) & 1) == 1)

/* bounds of the producers: transactions and records per incarnation */
#ifndef NTX1
#define NTX1     1                      /* the later incarnation's transactions */
#endif
#ifndef NREC0
#define NREC0    2
#endif
#ifndef NREC1
#define NREC1    2
#endif
#define NTX(i)   (i == 0 -> 1 : NTX1)
#define NREC(i)  (i == 0 -> NREC0 : NREC1)   /* records over all its transactions */
#ifndef NFETCH
#define NFETCH   2                      /* fetches per reader */
#endif
#ifndef NCOMP
#define NCOMP    3                      /* compaction attempts */
#endif
#ifndef NRET
#define NRET     2                      /* retention steps */
#endif

/* ------------------------------------------------------------------ the partition logs */
#define DATA     1
#define CMARK    2                      /* commit marker (a metadata row, one offset) */
#define AMARK    3                      /* abort marker: also the aborted-transactions index */
byte ek[2 * MAXOFF];    /* entry kind at each offset; 0: none (above hw, or removed) */
byte et[2 * MAXOFF];    /* the transaction the data batch was committed into / the marker ends;
                           kept after removal: what an object still holds for a fetch in flight */
bit  ez[2 * MAXOFF];    /* ghost: the batch was sent by a producer whose epoch was fenced */
byte hw[2], ls[2];      /* high watermark (next offset), log start */
byte openFirst[2] = NONE;   /* first offset of the producer's open transaction on the partition */
byte amPres[2];         /* derived: transactions with an abort marker present in the partition */

#ifdef NO_LSO_OPEN
#define LSOF(p)  (hw[p])
#else
#define LSOF(p)  (openFirst[p] == NONE -> hw[p] : (openFirst[p] > ls[p] -> openFirst[p] : ls[p]))
#endif
byte lso[2];            /* derived: LSOF, the last stable offset (LogReads.offsets), set by observe() */
#define LSO(p)   (lso[p])

/* ------------------------------------------------------------------ the transactional id's row */
#define EMPTY    0
#define ONGOING  1
#define CCOMMIT  2              /* COMPLETE_COMMIT */
#define CABORT   3              /* COMPLETE_ABORT */
byte tEpoch;            /* 0: no producer yet */
byte tPrev;             /* the epoch before the last bump (an EndTxn retry of TV2) */
byte tState;
byte tNum;              /* the open (or last) transaction; ghost name, 1.. */
byte tParts;            /* partitions added (TV1: AddPartitionsToTxn; TV2: by produce) */
byte tWritten;          /* partitions the transaction wrote: they get a marker */
bit  tPend;             /* offsets pending (TxnOffsetCommit) */
byte offMoved;          /* the group's committed offsets: bit t = transaction t's offsets */

/* ------------------------------------------------------------------ ghosts (observation only) */
byte outC, outA;        /* transactions the row ended committed / aborted */
byte cmW, amW;          /* transactions with a commit / abort marker written in some partition */
byte mW[2];             /* transactions with a marker written in the partition */
byte pendT;             /* transactions that had offsets pending */
byte retT;              /* transactions whose records a reader was given or the table holds */
bit  zombieRead;        /* a record sent after its producer was fenced was read or materialized */
bit  lsoDown;
byte lsoMax[2];
byte rdP[2] = NONE;     /* a fetch in flight (reader 0, materializer 1): its partition ... */
byte rdFrom[2];         /* ... and first offset */

#define OPEN(t)       (!HAS(outC | outA, t))
#define LAG(p, o)     ((rdP[0] == p && rdFrom[0] <= o) || (rdP[1] == p && rdFrom[1] <= o))
/* Sticky ghost flags, computed by observe() after every step that can make them true (one that
 * appends, ends a transaction or moves the LSO; removing entries never does): */
bit  openBelow;         /* a record of a still open transaction lies below the LSO */
bit  partial;           /* a record below the LSO whose transaction is open or has no marker in
                           its partition yet */
byte q;                 /* observe()'s loop variable, always 0 between steps */

/* ------------------------------------------------------------------ invariants */
ltl NoAbortedRead    { [] ((retT & outA) == 0) }
ltl AtomicVisibility { [] ((cmW & amW) == 0 && !partial) }
ltl LsoMonotone      { [] !lsoDown }
ltl LsoBelowOpen     { [] !openBelow }
ltl ZombieFenced     { [] !zombieRead }
ltl OffsetsAtomic    { [] (offMoved == ((cmW | outC) & pendT)) }
ltl TxnSafety        { [] ((retT & outA) == 0 && (cmW & amW) == 0 && !partial && !lsoDown && !openBelow &&
                           !zombieRead && offMoved == ((cmW | outC) & pendT)) }
ltl TxnEnds          { [] (tState == ONGOING -> <> (tState != ONGOING)) }

/* ------------------------------------------------------------------ store steps (inside d_step) */
/* after every step that moves hw, ls or openFirst: the LSO, and whether it went down */
inline observe() {
  lso[0] = LSOF(0); lso[1] = LSOF(1);
  if :: lso[0] < lsoMax[0] -> lsoDown = 1 :: else -> lsoMax[0] = lso[0] fi;
  if :: lso[1] < lsoMax[1] -> lsoDown = 1 :: else -> lsoMax[1] = lso[1] fi;
  q = 0;
  do
  :: q < 2 * MAXOFF ->
     if
     :: ek[q] == DATA && q % MAXOFF < lso[q / MAXOFF] ->
        if :: OPEN(et[q]) -> openBelow = 1; partial = 1 :: else fi;
        if :: !HAS(mW[q / MAXOFF], et[q]) -> partial = 1 :: else fi
     :: else
     fi;
     q++
  :: else -> break
  od;
  q = 0
}

/* appends a marker of the current transaction to partition p */
inline mark(p, kind) {
  o = hw[p];
  assert(o < MAXOFF);
  ek[E(p, o)] = kind; et[E(p, o)] = tNum; hw[p] = o + 1;
  openFirst[p] = NONE;
  mW[p] = mW[p] | BIT(tNum);
  if
  :: kind == CMARK -> cmW = cmW | BIT(tNum)
  :: else -> amW = amW | BIT(tNum); amPres[p] = amPres[p] | BIT(tNum)
  fi;
  o = 0
}

/* the row's outcome: pending offsets moved (commit) or dropped, state recorded */
inline outcome(kind) {
  if
  :: kind == CMARK -> offMoved = offMoved | (tPend << tNum); outC = outC | BIT(tNum); tState = CCOMMIT
  :: else -> outA = outA | BIT(tNum); tState = CABORT
  fi;
  tPend = 0; tWritten = 0; tParts = 0
}

/* ending a transaction (EndTxn, InitProducerId's fence, the timeout abort): ONE store transaction */
inline endTxn(kind) {
  if :: HAS(tWritten, 0) -> mark(0, kind) :: else fi;
  if :: HAS(tWritten, 1) -> mark(1, kind) :: else fi;
  outcome(kind)
}

inline bump() { tPrev = tEpoch; tEpoch++ }

inline begin() {
  tNum++; tState = ONGOING; tParts = 0; tWritten = 0; tPend = 0
}

#define OK       0
#define FENCED   1              /* PRODUCER_FENCED / INVALID_PRODUCER_EPOCH */
#define INVALID  2              /* INVALID_TXN_STATE */

/* the produce commit of one transactional batch to partition p, checked against the row */
inline produce(p) {
  if
#ifndef NO_EPOCH_CHECK
  :: tEpoch != ep -> res = FENCED
#endif
  :: else ->
#ifdef TV1
     if :: tState != ONGOING || !HAS(tParts, p) -> res = INVALID :: else -> res = OK fi
#else
     if :: tState != ONGOING -> begin() :: else fi;
     tParts = tParts | BIT(p); res = OK
#endif
  fi;
  if
  :: res == OK ->
     o = hw[p];
     assert(o < MAXOFF);
     ek[E(p, o)] = DATA; et[E(p, o)] = tNum; ez[E(p, o)] = (tEpoch != ep); hw[p] = o + 1;
     if :: openFirst[p] == NONE -> openFirst[p] = o :: else fi;
     tWritten = tWritten | BIT(p);
     o = 0; observe()
  :: else
  fi
}

/* ------------------------------------------------------------------ producers */
proctype Producer(byte i) {
  byte ep;              /* the epoch this incarnation holds */
  byte k, n, sent;      /* transactions begun, records sent in this one, records sent in all */
  byte p, o, kind, res;
  byte added;           /* TV1: partitions it added to this transaction */
  bit pend;

  /* InitProducerId: aborts an open transaction, bumps the epoch (fences the other incarnation) */
  if
  :: d_step {
       if :: tState == ONGOING -> endTxn(AMARK) :: else fi;
       bump(); ep = tEpoch; observe()
     }
  :: goto done                          /* never starts (or its request never arrives) */
  fi;
  do
  :: k < NTX(i) && sent < NREC(i) ->
     n = 0; pend = 0; added = 0;
     do
     :: sent < NREC(i) ->
        atomic {
        if :: p = 0
#ifndef ONEPART
           :: p = 1
#endif
        fi;
#ifdef TV1
        if
        :: !HAS(added, p) ->            /* AddPartitionsToTxn */
           d_step {
             if
             :: tEpoch == ep -> if :: tState != ONGOING -> begin() :: else fi;
                tParts = tParts | BIT(p); res = OK
             :: else -> res = FENCED
             fi
           };
           if :: res != OK -> goto done :: else fi;
           added = added | BIT(p); res = OK
        :: else
        fi;
#endif
        d_step { produce(p) }
        };
        if :: res != OK -> goto done :: else fi;
        n++; sent++; p = 0
     :: n > 0 && !pend ->               /* AddOffsetsToTxn + TxnOffsetCommit */
        d_step {
          if
          :: tEpoch == ep && tState == ONGOING -> tPend = 1; pendT = pendT | BIT(tNum); res = OK
          :: else -> res = FENCED
          fi
        };
        if :: res != OK -> goto done :: else fi;
        pend = 1
     :: n > 0 -> break                  /* to EndTxn */
     :: goto done                       /* the application or the producer dies, txn left open */
     od;
     atomic {
     if :: kind = CMARK :: kind = AMARK fi;
#ifndef SPLIT_END
     d_step {                           /* EndTxn: markers, offsets, outcome, (TV2) bump at once */
       if
       :: tEpoch == ep && tState == ONGOING -> endTxn(kind);
#ifndef TV1
          bump();
#endif
          observe(); res = OK
       :: else -> res = FENCED
       fi
     }
     };
#else
     /* the control: one marker per store transaction, resumable, the row and offsets last */
     d_step {
       if
       :: tEpoch == ep && tState == ONGOING -> res = OK;
          if :: HAS(tWritten, 0) -> mark(0, kind); tWritten = tWritten & ~BIT(0); observe() :: else fi
       :: else -> res = FENCED
       fi
     }
     };
     if :: res != OK -> goto done :: else fi;
     if :: goto done :: skip fi;        /* the coordinator dies */
     d_step {
       if
       :: tEpoch == ep && tState == ONGOING ->
          if :: HAS(tWritten, 1) -> mark(1, kind); tWritten = tWritten & ~BIT(1); observe() :: else fi
       :: else -> res = FENCED
       fi
     };
     if :: res != OK -> goto done :: else fi;
     if :: goto done :: skip fi;        /* the coordinator dies */
     d_step {
       if
       :: tEpoch == ep && tState == ONGOING -> outcome(kind); observe();
#ifndef TV1
          bump();
#endif
          res = OK
       :: else -> res = FENCED
       fi
     };
#endif
     if :: res != OK -> goto done :: else fi;
     if
     :: ep = tEpoch                     /* answered: Done, with the epoch to go on with */
     :: d_step {                        /* the answer is lost: the client retries the EndTxn */
          if
#ifdef TV1
          :: tEpoch == ep && tState == (kind == CMARK -> CCOMMIT : CABORT) -> res = OK
#else
          :: tPrev == ep && tEpoch == ep + 1 && tState == (kind == CMARK -> CCOMMIT : CABORT) ->
             ep = tEpoch; res = OK      /* Done again, no markers */
#endif
          :: else -> res = FENCED
          fi
        };
        if :: res != OK -> goto done :: else fi
     fi;
     k++; kind = 0
  :: else -> break
  od;
done:
  atomic { ep = 0; k = 0; n = 0; sent = 0; p = 0; o = 0; kind = 0; res = 0; added = 0; pend = 0 }
}

/* ------------------------------------------------------------------ the coordinator role */
/* An agent's periodic abort of expired transactions (expiredTransactions, then abortExpired: abort
 * if still open at the epoch read, bump the epoch). Time is abstracted: an open transaction may
 * expire at any moment. The read and the conditional abort are merged into one step: a read
 * followed by a refused abort changes nothing, and an applied abort is this step at that moment
 * (with time abstracted, the transaction open then may be taken as expired); so an agent that
 * crashes between them, or two agents both trying, add no behaviour. */
proctype Coordinator() {
  byte o;               /* mark()'s scratch, 0 between steps */
#ifndef NO_TIMEOUT
end:
  do
  :: d_step { tState == ONGOING -> endTxn(AMARK); bump(); observe() }
  od
#else
  skip
#endif
}

/* ------------------------------------------------------------------ readers */
/* A read_committed fetch (who = 0) or Tableflow's read (who = 1) of one partition, from its position
 * up to the LSO. Two store reads: the entries below the LSO (LogReads.entries / batches, with
 * LogReads.offsets), then the aborted transactions that meet the range (LogReads.abortedTransactions);
 * the records' bytes come from immutable objects, so a batch removed in between is still served.
 * Kafka's client (and the materializer) drops a batch of a transaction the index lists. */
proctype Reader(byte who) {
  byte pos[2];          /* the consumer's position / the table's watermark */
  byte p, to, o, t, plan, nf;
end:
  do
  :: atomic {
       nf < NFETCH && (pos[0] < LSO(0) || pos[1] < LSO(1)) ->
       if
       :: pos[0] < LSO(0) -> p = 0
       :: pos[1] < LSO(1) -> p = 1
       fi;
       d_step {
         if :: pos[p] < ls[p] -> pos[p] = ls[p] :: else fi;   /* OFFSET_OUT_OF_RANGE: from the start */
         to = LSO(p); plan = 0; o = pos[p];
         do
         :: o < to -> if :: ek[E(p, o)] == DATA -> plan = plan | BIT(o) :: else fi; o++
         :: else -> break
         od;
         rdP[who] = p; rdFrom[who] = pos[p]; o = 0
       }
#ifdef ATOMIC_FETCH
       ;
#else
     };
     atomic {
#endif
       d_step {                                              /* the aborted index, then filter */
         o = 0;
         do
         :: o < MAXOFF ->
            if
            :: HAS(plan, o) -> t = et[E(p, o)];
               if
               :: HAS(amPres[p], t) -> skip                  /* aborted: dropped */
               :: else -> retT = retT | BIT(t); if :: ez[E(p, o)] -> zombieRead = 1 :: else fi
               fi
            :: else
            fi;
            o++
         :: else -> break
         od;
         pos[p] = to; rdP[who] = NONE; rdFrom[who] = 0; nf++;
         p = 0; to = 0; o = 0; t = 0; plan = 0
       }
     }
  od
}

/* ------------------------------------------------------------------ maintenance */
#define DATAOF(p, t) (ek[E(p,0)] == DATA && et[E(p,0)] == t || ek[E(p,1)] == DATA && et[E(p,1)] == t || \
                      ek[E(p,2)] == DATA && et[E(p,2)] == t || ek[E(p,3)] == DATA && et[E(p,3)] == t || \
                      ek[E(p,4)] == DATA && et[E(p,4)] == t || ek[E(p,5)] == DATA && et[E(p,5)] == t || \
                      ek[E(p,6)] == DATA && et[E(p,6)] == t || ek[E(p,7)] == DATA && et[E(p,7)] == t)
#ifdef NO_LAG_GUARD
#define NOLAG(p, o)  true
#else
#define NOLAG(p, o)  (!LAG(p, o))
#endif
#ifdef NO_RECORDS_FIRST
#define GONE(p, t)   true
#else
#define GONE(p, t)   (!DATAOF(p, t))
#endif

/* Key compaction: removes an aborted record (its abort marker is present); removes an abort marker
 * once no record it covers is left, a commit marker once it is old enough (delete.retention.ms: any
 * time here); either marker only while no fetch that planned below it is in flight. */
#define REMOVABLE(p, o) \
  (ek[E(p, o)] == DATA && HAS(amPres[p], et[E(p, o)]) || \
   ek[E(p, o)] == AMARK && GONE(p, et[E(p, o)]) && NOLAG(p, o) || \
   ek[E(p, o)] == CMARK && NOLAG(p, o))

proctype Compactor() {
  byte nc, p, o;
end:
  do
  :: atomic {
       nc < NCOMP ->
       if :: p = 0
#ifndef ONEPART
          :: p = 1
#endif
       fi;
       do                               /* one removal (a scan that removes nothing changes nothing) */
       :: o < MAXOFF && REMOVABLE(p, o) ->
          if :: ek[E(p, o)] == AMARK -> amPres[p] = amPres[p] & ~BIT(et[E(p, o)]) :: else fi;
          ek[E(p, o)] = 0; nc++; break
       :: o < MAXOFF -> o++
       :: o >= MAXOFF -> break
       od;
       p = 0; o = 0
     }
  od
}

/* Retention (or DeleteRecords): moves the log start by one, dropping the entry below it; an abort
 * marker waits, like compaction, for the fetches in flight below it. */
proctype Retention() {
  byte nr, p, o;
end:
  do
  :: atomic {
       nr < NRET ->
       if :: p = 0
#ifndef ONEPART
          :: p = 1
#endif
       fi;
       d_step {
         o = ls[p];
         if
         :: o < hw[p] && (ek[E(p, o)] != AMARK || NOLAG(p, o)) ->
            if :: ek[E(p, o)] == AMARK -> amPres[p] = amPres[p] & ~BIT(et[E(p, o)]) :: else fi;
            ek[E(p, o)] = 0; ls[p] = o + 1; observe(); nr++
         :: else                        /* nothing to remove yet: changes nothing */
         fi;
         p = 0; o = 0
       }
     }
  od
}

init {
  atomic {
    run Producer(0); run Producer(1);
    run Coordinator(); run Coordinator();
    run Reader(0);
#ifdef MAINT
#ifndef NO_MAT
    run Reader(1);
#endif
    run Compactor(); run Retention()
#endif
  }
}
