package io.floe.agent.transaction;

import io.floe.core.transaction.OpenTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The open transactions this agent coordinates, each timed on this agent's clock alone: from the scan
 * that first saw it open (a transaction names itself by its producer epoch and its begin stamp), it may
 * run for its timeout. The begin stamp comes from whichever agent began the transaction, on that agent's
 * clock, so it is not compared with this one's except as a backstop: a transaction whose stamp is older
 * than twice its timeout is due too, which bounds how long one can outlive coordinator moves (each move
 * starts its timer again) while tolerating clocks apart by up to a timeout. Holds only transactions open
 * now. Thread-safe.
 */
final class TransactionTimeouts {

    /** A transaction as first seen here, and when. */
    private record Watched(OpenTransaction transaction, Instant seenAt) {

        Instant deadline() {
            Instant timedHere = seenAt.plusMillis(transaction.timeoutMs());
            Instant backstop = Instant.ofEpochMilli(transaction.startedAtMs()).plusMillis(2L * transaction.timeoutMs());
            return timedHere.isBefore(backstop) ? timedHere : backstop;
        }

        boolean same(OpenTransaction other) {
            return transaction.producer().equals(other.producer()) && transaction.startedAtMs() == other.startedAtMs();
        }
    }

    private Map<String, Watched> watched = new HashMap<>();

    /**
     * Takes a scan of the open transactions this agent coordinates, made at {@code now}: a transaction
     * seen for the first time starts its timer, one no longer open is forgotten. Returns those past their
     * timeout, the longest overdue first.
     */
    synchronized List<OpenTransaction> scan(List<OpenTransaction> open, Instant now) {
        Map<String, Watched> next = new HashMap<>();
        for (OpenTransaction transaction : open) {
            Watched before = watched.get(transaction.transactionalId());
            next.put(
                    transaction.transactionalId(),
                    before != null && before.same(transaction) ? before : new Watched(transaction, now));
        }
        watched = next;
        List<Watched> due = new ArrayList<>();
        for (Watched candidate : next.values()) {
            if (!now.isBefore(candidate.deadline())) {
                due.add(candidate);
            }
        }
        due.sort(Comparator.comparing(Watched::deadline));
        return due.stream().map(Watched::transaction).toList();
    }

    /** How long {@code transaction} has been seen open here, at {@code now}; zero when it is not. */
    synchronized Duration seenFor(OpenTransaction transaction, Instant now) {
        Watched seen = watched.get(transaction.transactionalId());
        return seen == null || !seen.same(transaction) ? Duration.ZERO : Duration.between(seen.seenAt(), now);
    }

    /** The transaction is no longer open (this agent aborted it, or it ended meanwhile). */
    synchronized void forget(OpenTransaction transaction) {
        Watched seen = watched.get(transaction.transactionalId());
        if (seen != null && seen.same(transaction)) {
            watched.remove(transaction.transactionalId());
        }
    }

    /** The nearest deadline after {@code now}, if any: when the next round should run at the latest. */
    synchronized Optional<Instant> nextDeadlineAfter(Instant now) {
        return watched.values().stream()
                .map(Watched::deadline)
                .filter(deadline -> deadline.isAfter(now))
                .min(Comparator.naturalOrder());
    }

    synchronized int open() {
        return watched.size();
    }

    /** How long the oldest open transaction has been seen open here, at {@code now}. */
    synchronized Duration oldestAge(Instant now) {
        return watched.values().stream()
                .map(seen -> Duration.between(seen.seenAt(), now))
                .max(Comparator.naturalOrder())
                .orElse(Duration.ZERO);
    }
}
