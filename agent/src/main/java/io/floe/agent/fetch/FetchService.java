package io.floe.agent.fetch;

import io.floe.agent.AgentConfig;
import io.floe.agent.cache.ObjectCache;
import io.floe.agent.cluster.Cluster;
import io.floe.agent.produce.CommittedObject;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.object.ObjectStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetch path: answers at once when enough bytes are committed, otherwise parks the fetch until a
 * commit to one of its partitions brings enough bytes or its max wait passes (Kafka's long poll).
 * Reads and store look-ups run on the fetch executor, never on the caller's thread.
 */
public final class FetchService implements AutoCloseable {

    private static final int FETCH_THREADS = 4;
    /** How soon a parked fetch sees another agent's commit (PostgreSQL LISTEN/NOTIFY could replace the poll). */
    private static final long FETCH_POLL_INTERVAL_MS = 100;

    private static final Logger LOGGER = LoggerFactory.getLogger(FetchService.class);

    private final AgentConfig config;
    private final PartitionLogs logs;
    private final FetchReader reader;
    private final OffsetsInFiles offsetsInFiles;
    private final ScheduledExecutorService scheduler;
    private final Cluster cluster;
    private final ExecutorService executor;
    private final Map<TopicPartition, Set<PendingFetch>> waiting = new ConcurrentHashMap<>();
    private final Set<PendingFetch> pending = ConcurrentHashMap.newKeySet();
    private final AtomicLong fetchIds = new AtomicLong();
    private final MeterRegistry meters;
    private final Timer readLatency;
    private final Counter inline;

    public FetchService(
            AgentConfig config,
            PartitionLogs logs,
            ObjectStore objects,
            ObjectCache cache,
            Cluster cluster,
            ScheduledExecutorService scheduler,
            Concurrency concurrency,
            MeterRegistry meters) {
        this.config = config;
        this.executor = concurrency.pool("floe-fetch", FETCH_THREADS);
        this.logs = logs;
        this.offsetsInFiles = new OffsetsInFiles(objects);
        this.reader = new FetchReader(logs, objects, offsetsInFiles, cache, meters);
        logs.onAppended(this::wake);
        this.scheduler = scheduler;
        this.cluster = cluster;
        scheduler.scheduleWithFixedDelay(
                () -> runOnExecutor(this::pollForOtherAgents),
                FETCH_POLL_INTERVAL_MS,
                FETCH_POLL_INTERVAL_MS,
                TimeUnit.MILLISECONDS);
        Gauge.builder("floe.fetch.waiting", pending, Set::size)
                .description("Fetches parked in a long poll")
                .register(meters);
        this.meters = meters;
        this.readLatency = Timer.builder("floe.fetch.read.latency")
                .description("Time to read a fetch's answer from the cache and the object store")
                .register(meters);
        this.inline = Counter.builder("floe.fetch.inline")
                .description("Fetches answered on the caller's thread from memory and local object files")
                .register(meters);
    }

    /**
     * Answers a fetch, waiting (without blocking the caller's thread) until {@code minBytes} are
     * available or {@code maxWait} passes. A fetch that can be answered at once from this agent's
     * in-memory index and local object files, with an embedded metadata store, is answered on the
     * caller's thread (for the Kafka listener, the connection's event loop, where Kafka's network
     * threads likewise send from its segments): no hand-off to the fetch executor and back. Anything
     * that may wait on a store runs on the fetch executor.
     */
    public CompletableFuture<FetchResult> fetch(FetchQuery query) {
        PendingFetch fetch = new PendingFetch(fetchIds.incrementAndGet(), query, new CompletableFuture<>());
        if (answerableHere(query)) {
            inline.increment();
            finish(fetch);
        } else {
            executor.execute(() -> start(fetch));
        }
        return fetch.future;
    }

    private boolean answerableHere(FetchQuery query) {
        try {
            return reader.readsLocallyOnly(query) && reader.satisfied(query);
        } catch (RuntimeException e) {
            return false; // the fetch executor finds out properly
        }
    }

    /**
     * Records a commit of this agent and wakes the fetches waiting on its partitions. After a commit
     * whose outcome is unknown, or that answered duplicates, the views of those partitions are dropped
     * (the store may hold more than they do) and their fetches woken to look.
     */
    public void onCommitted(CommittedObject committed) {
        offsetsInFiles.write(committed); // before the batches become readable: fetches may rely on it at once
        logs.onCommitted(committed);
        committed.stalePartitions().forEach(logs::forget);
        Set<TopicPartition> partitions = new HashSet<>(committed.stalePartitions());
        for (CommittedObject.Appended appended : committed.appended()) {
            partitions.add(appended.batch().topicPartition());
        }
        wake(partitions);
    }

    /**
     * Records transaction markers the store just wrote and wakes the fetches waiting on their
     * partitions: a commit marker moves the last stable offset that read-committed fetches wait for.
     * Same as {@link PartitionLogs#onMarkers}. After a marker write whose outcome is unknown, the
     * caller calls {@link #onMarkersMayHaveBeenWritten} instead.
     */
    public void onMarkers(List<TransactionMarker> markers) {
        logs.onMarkers(markers);
    }

    /**
     * A transaction operation that may have written markers failed (the store may have applied it):
     * which partitions it touched is unknown, so every view is dropped and reloads from the store,
     * and every waiting fetch is woken to look. Rare: it takes a store fault.
     */
    public void onMarkersMayHaveBeenWritten() {
        logs.forgetAll();
        wake(Set.copyOf(waiting.keySet()));
    }

    /**
     * Other agents' commits reach no callback here: while other agents are live, the partitions that
     * parked fetches wait on are checked against the store every {@code fetchPollInterval}, and the
     * fetches on those that moved are woken.
     */
    private void pollForOtherAgents() {
        if (cluster.liveAgents().size() < 2 || waiting.isEmpty()) {
            return;
        }
        Set<TopicPartition> moved = new HashSet<>();
        for (TopicPartition tp : waiting.keySet()) {
            try {
                if (logs.refresh(tp)) {
                    moved.add(tp);
                }
            } catch (RuntimeException e) {
                LOGGER.debug("cannot check {} for other agents' commits: {}", tp, e.toString());
            }
        }
        wake(moved);
    }

    private void wake(Set<TopicPartition> partitions) {
        Set<PendingFetch> toWake = new HashSet<>();
        for (TopicPartition tp : partitions) {
            Set<PendingFetch> watchers = waiting.get(tp);
            if (watchers != null) {
                toWake.addAll(watchers);
            }
        }
        for (PendingFetch fetch : toWake) {
            runOnExecutor(() -> {
                try {
                    if (reader.satisfied(fetch.query)) {
                        finish(fetch);
                    }
                } catch (RuntimeException e) {
                    // The store could not say; the fetch stays parked and its max wait answers it.
                    LOGGER.debug("cannot check a woken fetch: {}", e.toString());
                }
            });
        }
    }

    private void start(PendingFetch fetch) {
        try {
            Duration maxWait = min(fetch.query.maxWait(), config.fetchMaxWait());
            if (maxWait.isZero() || maxWait.isNegative() || reader.satisfied(fetch.query)) {
                finish(fetch);
                return;
            }
            park(fetch);
            // A commit may have landed between the check and parking: check once more.
            if (reader.satisfied(fetch.query)) {
                finish(fetch);
                return;
            }
            scheduler.schedule(() -> runOnExecutor(() -> finish(fetch)), maxWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            unpark(fetch);
            fetch.future.completeExceptionally(e);
        }
    }

    private void park(PendingFetch fetch) {
        pending.add(fetch);
        for (PartitionQuery partition : fetch.query.partitions()) {
            waiting.computeIfAbsent(partition.topicPartition(), tp -> ConcurrentHashMap.newKeySet())
                    .add(fetch);
        }
    }

    private void unpark(PendingFetch fetch) {
        pending.remove(fetch);
        for (PartitionQuery partition : fetch.query.partitions()) {
            waiting.computeIfPresent(partition.topicPartition(), (tp, watchers) -> {
                watchers.remove(fetch);
                return watchers.isEmpty() ? null : watchers;
            });
        }
    }

    private void finish(PendingFetch fetch) {
        if (!fetch.claim()) {
            return;
        }
        unpark(fetch);
        try {
            Timer.Sample reading = Timer.start(meters);
            FetchResult result = reader.read(fetch.query);
            reading.stop(readLatency);
            if (!fetch.future.complete(result)) {
                result.release(); // answered already (the service closed): nobody will send these files
            }
        } catch (RuntimeException e) {
            fetch.future.completeExceptionally(e);
        }
    }

    private void runOnExecutor(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException closing) {
            // The service is closing; close() answers every parked fetch itself.
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Answers every parked fetch with what is there now and stops the fetch executor. */
    @Override
    public void close() {
        for (PendingFetch fetch : Set.copyOf(pending)) {
            executor.execute(() -> finish(fetch));
        }
        executor.shutdown();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A fetch in progress; completed exactly once, by whichever of wake-up and timeout claims it first. */
    private static final class PendingFetch {
        final FetchQuery query;
        final CompletableFuture<FetchResult> future;
        private final AtomicBoolean claimed = new AtomicBoolean();
        /** Numbered, so that sets of fetches iterate in the same order in every run (identity hashes do not). */
        private final long id;

        PendingFetch(long id, FetchQuery query, CompletableFuture<FetchResult> future) {
            this.id = id;
            this.query = query;
            this.future = future;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id);
        }

        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        boolean claim() {
            return claimed.compareAndSet(false, true);
        }
    }
}
