/*
 * spec/sequences.pml: one idempotent producer's sequences on one partition, with two of its requests
 * in flight at once and failures between them (issue 16, defect 1). floe.pml models the storage
 * protocol with one request in flight per producer; this model is about what that leaves out: which
 * retries the producer rules may answer as duplicates.
 *
 * The producer sends batch A (sequence 0) and batch B (sequence 1) without waiting, as the Java client
 * does (up to five in flight). An agent takes the requests in any order (two agents, or a leadership
 * change, reorder them; so does a flush whose upload failed while the next one committed), and each
 * request may fail before it is applied (a failed upload: a retriable error), be applied with its
 * answer lost (an unknown outcome, or a timeout that the producer gives up on while the request still
 * waits in an agent's buffer) or be applied and answered. The producer handles the answers as
 * kafka-clients' idempotent producer does: a duplicate is success; out of order is retried, and when
 * the refused batch is the next one it expects, it bumps its epoch and numbers its unacknowledged
 * batches from 0 again.
 *
 * The rule checked is SequenceCheck's: a batch is a duplicate only within what its epoch stored on the
 * partition, and an epoch must start at sequence 0 also when the partition has no state of the
 * producer. -DOLD_RULE is the rule before issue 16 (any first sequence accepted without state, any
 * retry behind the last stored sequence a duplicate): it must give a NoAckedLoss counterexample.
 * -DEXPIRY lets the producer's state on the partition expire once, at any time
 * (producer.id.expiration.ms): acknowledged batches must still never be lost or reordered.
 */

#define BATCHES   2      /* A = 0, B = 1, in send order */
#define POOL      4      /* requests that agents hold at once */
#define SENDS_MAX 6
#define FAULTS_MAX 2
#define NONE      255

mtype = { ACCEPT, DUPLICATE, OUT_OF_ORDER, FENCED };

/* The metadata store: the partition's log and the producer's state row on it. */
byte stored[BATCHES];        /* how many times each batch is in the log */
bool orderBroken = false;    /* A first appended after B */
bool hasState = false;
byte stateEpoch;
byte stateFirst;
byte stateLast;
#ifdef EXPIRY
bool expired = false;
#endif

/* The producer. */
byte seqOf[BATCHES];
byte epochOf[BATCHES];
bool acked[BATCHES];
byte waiting[BATCHES] = NONE;  /* id of the request the producer waits on for the batch */
byte epoch = 0;
byte lastAcked = NONE;         /* highest acknowledged sequence of the current epoch */
bool bumped = false;
byte sends = 0;
byte faults = 0;

/* Requests held by agents. */
bool poolUsed[POOL];
byte poolBatch[POOL];
byte poolEpoch[POOL];
byte poolSeq[POOL];
byte poolId[POOL];

inline verdictOf(e, s, v) {
#ifdef OLD_RULE
    if
    :: !hasState -> v = ACCEPT
    :: hasState && e < stateEpoch -> v = FENCED
    :: hasState && e > stateEpoch && s == 0 -> v = ACCEPT
    :: hasState && e > stateEpoch && s != 0 -> v = OUT_OF_ORDER
    :: hasState && e == stateEpoch && s == stateLast + 1 -> v = ACCEPT
    :: hasState && e == stateEpoch && s <= stateLast -> v = DUPLICATE
    :: hasState && e == stateEpoch && s > stateLast + 1 -> v = OUT_OF_ORDER
    fi
#else
    if
    :: !hasState && s == 0 -> v = ACCEPT
    :: !hasState && s != 0 -> v = OUT_OF_ORDER
    :: hasState && e < stateEpoch -> v = FENCED
    :: hasState && e > stateEpoch && s == 0 -> v = ACCEPT
    :: hasState && e > stateEpoch && s != 0 -> v = OUT_OF_ORDER
    :: hasState && e == stateEpoch && s == stateLast + 1 -> v = ACCEPT
    :: hasState && e == stateEpoch && s >= stateFirst && s <= stateLast -> v = DUPLICATE
    :: hasState && e == stateEpoch && s != stateLast + 1 && !(s >= stateFirst && s <= stateLast)
        -> v = OUT_OF_ORDER
    fi
#endif
}

inline append(b, e, s) {
    if
    :: b == 0 && stored[0] == 0 && stored[1] > 0 -> orderBroken = true
    :: else -> skip
    fi;
    stored[b]++;
    if
    :: !hasState || e != stateEpoch -> stateFirst = s
    :: else -> skip
    fi;
    hasState = true;
    stateEpoch = e;
    stateLast = s
}

#define NEXT_EXPECTED(s) ((lastAcked == NONE && s == 0) || (lastAcked != NONE && s == lastAcked + 1))

/* The producer's handling of an answer to the request it waits on for batch b. */
inline answer(b, e, s, v) {
    waiting[b] = NONE;
    if
    :: v == ACCEPT || v == DUPLICATE ->
        acked[b] = true;
        if
        :: e == epoch && (lastAcked == NONE || s > lastAcked) -> lastAcked = s
        :: else -> skip
        fi
    :: (v == OUT_OF_ORDER && e == epoch && !bumped && NEXT_EXPECTED(s)) ->
        /* the next batch expected was refused: bump the epoch, number the unacknowledged from 0 */
        bumped = true;
        epoch++;
        lastAcked = NONE;
        next = 0;
        c = 0;
        do
        :: c < BATCHES ->
            if
            :: !acked[c] -> seqOf[c] = next; epochOf[c] = epoch; next++
            :: else -> skip
            fi;
            c++
        :: else -> break
        od
    :: else -> skip  /* retriable: sent again later */
    fi
}

#define POOL_FREE (!poolUsed[0] || !poolUsed[1] || !poolUsed[2] || !poolUsed[3])

inline send(b) {
    i = 0;
    do
    :: poolUsed[i] -> i++
    :: else -> break
    od;
    poolUsed[i] = true;
    poolBatch[i] = b;
    poolEpoch[i] = epochOf[b];
    poolSeq[i] = seqOf[b];
    poolId[i] = sends;
    waiting[b] = sends;
    sends++
}

/* Request timeout: the producer gives up on a request that an agent still holds, and sends again. */
inline giveUp(b) {
    waiting[b] = NONE;
    faults++
}

active proctype Producer() {
    byte i;
    seqOf[1] = 1;
end:
    do
    :: atomic { sends < SENDS_MAX && POOL_FREE && !acked[0] && waiting[0] == NONE -> send(0) }
    :: atomic { sends < SENDS_MAX && POOL_FREE && !acked[1] && waiting[1] == NONE -> send(1) }
    :: atomic { faults < FAULTS_MAX && waiting[0] != NONE -> giveUp(0) }
    :: atomic { faults < FAULTS_MAX && waiting[1] != NONE -> giveUp(1) }
#ifdef EXPIRY
    :: atomic { !expired && hasState -> expired = true; hasState = false }
#endif
    od
}

/* One request taken by an agent: fails before its commit, or is committed and answered (or not). */
inline process(i) {
    b = poolBatch[i];
    poolUsed[i] = false;
    if
    :: faults < FAULTS_MAX ->
        /* the flush failed before its commit: a retriable error, nothing stored */
        faults++;
        if
        :: waiting[b] == poolId[i] -> waiting[b] = NONE
        :: else -> skip
        fi
    :: true ->
        verdictOf(poolEpoch[i], poolSeq[i], v);
        if
        :: v == ACCEPT -> append(b, poolEpoch[i], poolSeq[i])
        :: else -> skip
        fi;
        if
        :: waiting[b] == poolId[i] -> answer(b, poolEpoch[i], poolSeq[i], v)
        :: waiting[b] == poolId[i] && faults < FAULTS_MAX ->
            /* applied, answer lost: the producer sees an error and retries */
            faults++;
            waiting[b] = NONE
        :: waiting[b] != poolId[i] -> skip
        fi
    fi
}

active proctype Agent() {
    byte b;
    byte next;
    byte c;
    mtype v;
end:
    do
    :: atomic { poolUsed[0] -> process(0) }
    :: atomic { poolUsed[1] -> process(1) }
    :: atomic { poolUsed[2] -> process(2) }
    :: atomic { poolUsed[3] -> process(3) }
    od
}

/* An acknowledged batch is in the log. */
ltl NoAckedLoss { [] ((!acked[0] || stored[0] > 0) && (!acked[1] || stored[1] > 0)) }
/* A batch is stored once (not claimed under EXPIRY: a retry after the state expired is stored again). */
ltl NoDuplicateAppend { [] (stored[0] <= 1 && stored[1] <= 1) }
/* A is never first appended after B (a second copy of A, after an expiry, is NoDuplicateAppend's). */
ltl ProducerOrder { [] !orderBroken }
