package io.floe.agent.transaction;

import io.floe.core.transaction.OpenTransaction;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The coordinator's meters: transactions started, committed, aborted (by their producer, by a fencing
 * InitProducerId or by timeout) and timed out; the open transactions of the transactional ids this
 * agent coordinates and the age of the oldest, as the timeout loop's last scan saw them; refusals
 * and failures by kind. The coordinator keeps no transaction state, so a transaction counts as
 * started when this agent first sees it: open in a scan, or ended through this agent without a scan
 * having seen it (the retry of an end that applied counts again). Thread-safe.
 */
final class TransactionMetrics {

    private final MeterRegistry meters;
    private final Counter started;
    private final Counter committed;
    private final Counter aborted;
    private final Counter timedOut;
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();
    private final AtomicLong open = new AtomicLong();
    private final AtomicLong oldestOpenAgeMs = new AtomicLong();
    /** Open transactions already counted as started: transactional id to its start time. */
    private final Map<String, Long> seenOpen = new ConcurrentHashMap<>();

    TransactionMetrics(MeterRegistry meters) {
        this.meters = meters;
        this.started = Counter.builder("floe.transactions.started")
                .description("Transactions begun, counted when this agent first sees them (a scan or their end)")
                .register(meters);
        this.committed = Counter.builder("floe.transactions.committed")
                .description("Transactions committed through this agent")
                .register(meters);
        this.aborted = Counter.builder("floe.transactions.aborted")
                .description("Transactions aborted through this agent: by their producer, a fencing"
                        + " InitProducerId or their timeout")
                .register(meters);
        this.timedOut = Counter.builder("floe.transactions.timed.out")
                .description("Transactions this agent aborted because they ran past transaction.timeout.ms")
                .register(meters);
        Gauge.builder("floe.transactions.open", open, AtomicLong::get)
                .description("Open transactions of the transactional ids this agent coordinates, at the last scan")
                .register(meters);
        Gauge.builder("floe.transactions.open.oldest.age", oldestOpenAgeMs, age -> age.get() / 1000.0)
                .description("How long the oldest open transaction this agent coordinates has been open, as timed"
                        + " on this agent's clock from the scan that first saw it")
                .baseUnit("seconds")
                .register(meters);
    }

    void committed(String transactionalId) {
        ended(transactionalId);
        committed.increment();
    }

    void aborted(String transactionalId) {
        ended(transactionalId);
        aborted.increment();
    }

    void timedOut(String transactionalId) {
        aborted(transactionalId);
        timedOut.increment();
    }

    /** A refusal or failure of kind {@code kind} (an error name, lower case). */
    void error(String kind) {
        errors.computeIfAbsent(
                        kind.toLowerCase(Locale.ROOT),
                        k -> Counter.builder("floe.transaction.errors")
                                .tag("kind", k)
                                .description("Transaction requests refused or failed, by kind")
                                .register(meters))
                .increment();
    }

    /**
     * The open transactions of the ids this agent coordinates, as the timeout loop read them, and how long
     * the oldest has been seen open here.
     */
    void scanned(List<OpenTransaction> coordinated, Duration oldestAge) {
        Map<String, Long> openNow = new HashMap<>();
        for (OpenTransaction transaction : coordinated) {
            openNow.put(transaction.transactionalId(), transaction.startedAtMs());
        }
        openNow.forEach((id, startedAt) -> {
            Long before = seenOpen.put(id, startedAt);
            if (before == null || before.longValue() != startedAt) {
                started.increment();
            }
        });
        seenOpen.keySet().retainAll(openNow.keySet());
        open.set(openNow.size());
        oldestOpenAgeMs.set(oldestAge.toMillis());
    }

    private void ended(String transactionalId) {
        if (seenOpen.remove(transactionalId) == null) {
            started.increment();
        }
    }
}
