package io.floe.agent.produce;

import io.floe.agent.AgentConfig;
import io.floe.agent.cache.ObjectCache;
import io.floe.agent.topic.Topics;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.config.TopicConfigs;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.object.ObjectKeys;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.Topic;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The produce path of DESIGN §3: one flush buffer shared by every connection and partition; a flush
 * becomes one segment object (register, upload) and one metadata transaction (commit), and only then
 * are its producers answered.
 *
 * <p>A flush is sealed when it holds {@code flushMaxBytes} or its first batch is
 * {@code flushInterval} old, or, with {@code flushWhenProducersWait}, as soon as every connection with
 * a produce request unanswered has as many unanswered as it ever had (group commit): a Kafka producer
 * sends at most {@code max.in.flight.requests.per.connection} requests before it waits for an answer,
 * so once all of them wait, no batch can join the flush before it is answered and the rest of the
 * interval would only delay them. Connections tell the pipeline through their {@link ProducerWindow}.
 * Up to {@code flushesInFlightMax} flushes upload at once; while all are busy the open flush keeps
 * filling (objects grow under load, requests per byte fall). Commits run one at a time in sealing
 * order, so a producer's pipelined batches commit in the order it sent them.
 */
public final class ProducePipeline implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(ProducePipeline.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 30;
    /** Well below any orphan grace period, so a reserved registration is never swept before use. */
    private static final Duration KEY_RESERVE_MAX_AGE = Duration.ofSeconds(60);

    private final AgentConfig config;
    private final Topics topics;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ProduceMetrics metrics;
    private final SegmentUpload upload;
    private final SegmentCommit commit;
    private final ExecutorService uploadExecutor;
    private final ExecutorService registerExecutor;
    private final ExecutorService commitExecutor;
    private final Concurrency concurrency;
    private final long bufferBytesMax;

    private final Object lock = new Object();
    private Flush open;
    private ScheduledFuture<?> openTimer;
    private long nextFlushSequence;
    private int flushesInFlight;
    private long bufferedBytes;
    private boolean closed;
    private CompletableFuture<Void> commitChain = CompletableFuture.completedFuture(null);
    private final WaitingProducers producers = new WaitingProducers();

    public ProducePipeline(
            AgentConfig config,
            LogAppends metadata,
            ObjectStore objects,
            ObjectCache cache,
            Topics topics,
            Clock clock,
            ScheduledExecutorService scheduler,
            Concurrency concurrency,
            MeterRegistry meters,
            Consumer<CommittedObject> onCommitted) {
        this.config = config;
        this.clock = clock;
        this.topics = topics;
        this.scheduler = scheduler;
        this.concurrency = concurrency;
        this.metrics = new ProduceMetrics(meters);
        this.commitExecutor = concurrency.pool("floe-commit", 1);
        this.registerExecutor = concurrency.pool("floe-register", 1);
        RegisteredKeys keys = new RegisteredKeys(
                new ObjectKeys(clock, config.agentId()),
                metadata,
                config.agentId(),
                clock,
                registerExecutor,
                4 * config.flushesInFlightMax(),
                KEY_RESERVE_MAX_AGE);
        this.upload = new SegmentUpload(keys, objects, cache);
        this.commit = new SegmentCommit(metadata, onCommitted, metrics, concurrency);
        this.uploadExecutor = concurrency.pool("floe-upload", config.flushesInFlightMax());
        this.bufferBytesMax = Math.max(4 * config.flushMaxBytes(), 64L * 1024 * 1024);
        Gauge.builder("floe.produce.buffered.bytes", this, p -> p.bufferedBytesNow())
                .description("Bytes accepted and not yet answered")
                .baseUnit("bytes")
                .register(meters);
    }

    /**
     * Validates the records a client sent for one partition and buffers them for the next flush.
     * Returns at once; the future completes when the batch is durable in the object store and
     * committed (or refused). Must be called in the order batches arrived on a connection: the
     * buffer keeps that order. Never blocks. The pipeline keeps {@code records} without copying
     * until the future completes: the caller must not reuse or modify its bytes.
     *
     * @throws InvalidBatchException when the records are refused before reaching storage
     */
    public CompletableFuture<AppendResult> append(Topic topic, int partition, ByteBuffer records) {
        return append(topic, partition, records, TransactionalAppend.NONE);
    }

    /**
     * As {@link #append(Topic, int, ByteBuffer)}, from a producer with a transactional id:
     * {@code transactional} is how a transactional batch takes part in its producer's transaction,
     * {@link TransactionalAppend#NONE} when the request has no transactional id (a transactional batch
     * is then refused). A batch without the transactional attribute is appended outside any transaction.
     */
    public CompletableFuture<AppendResult> append(
            Topic topic, int partition, ByteBuffer records, TransactionalAppend transactional) {
        TopicPartition topicPartition = new TopicPartition(topic.name(), partition);
        ValidatedBatch batch;
        try {
            batch = BatchValidator.validate(
                    topicPartition,
                    records,
                    topics.configs().maxMessageBytes(topic),
                    topics.configs().compacted(topic),
                    transactional);
        } catch (InvalidBatchException e) {
            metrics.refused(e.reason().name().toLowerCase());
            throw e;
        }
        long logAppendTimeMs = -1;
        if ("LogAppendTime".equals(topics.configs().value(topic, TopicConfigs.MESSAGE_TIMESTAMP_TYPE))) {
            logAppendTimeMs = clock.millis();
            batch = batch.stampedAt(logAppendTimeMs);
        }
        long arrived = concurrency.nanoTime();
        CompletableFuture<AppendResult> result = new CompletableFuture<>();
        PendingAppend append = new PendingAppend(topicPartition, topic.id(), batch, result);
        synchronized (lock) {
            String refusal = closed
                    ? "agent is shutting down"
                    : bufferedBytes + append.sizeBytes() > bufferBytesMax
                            ? "produce buffer full (" + bufferedBytes + " of " + bufferBytesMax + " bytes)"
                            : null;
            if (refusal != null) {
                metrics.refused("busy");
                return CompletableFuture.completedFuture(new AppendResult.Failed(AppendError.NOT_COMMITTED, refusal));
            }
            bufferedBytes += append.sizeBytes();
            if (open == null) {
                open = new Flush(nextFlushSequence++, concurrency.nanoTime());
                long sequence = open.sequence();
                openTimer = scheduler.schedule(
                        () -> onFlushDue(sequence), config.flushInterval().toNanos(), TimeUnit.NANOSECONDS);
            }
            open.add(append);
            if (open.bytes() >= config.flushMaxBytes()) {
                sealIfSlotFree(SealReason.SIZE);
            }
        }
        CompletableFuture<AppendResult> answered =
                result.whenComplete((r, e) -> metrics.appendLatency(concurrency.nanoTime() - arrived));
        if (logAppendTimeMs < 0) {
            return answered;
        }
        long stamp = logAppendTimeMs;
        return answered.thenApply(r -> r instanceof AppendResult.Appended appended
                ? new AppendResult.Appended(appended.baseOffset(), appended.logStartOffset(), stamp)
                : r);
    }

    /**
     * The count of one connection's produce requests, for sealing a flush early once every producer
     * waits on it. The caller closes it when the connection closes.
     */
    public ProducerWindow openWindow() {
        return new ProducerWindow(this);
    }

    void onRequestBuffered(ProducerWindow window) {
        onWindowChange(() -> producers.buffered(window));
    }

    void onRequestAnswered(ProducerWindow window) {
        onWindowChange(() -> producers.answered(window));
    }

    void onWindowClosed(ProducerWindow window) {
        onWindowChange(() -> producers.closed(window));
    }

    /**
     * Applies a change of one connection's counts and seals the open flush if every producer now waits.
     * Without group commit nothing is counted: no lock is taken per request.
     */
    private void onWindowChange(Runnable change) {
        if (!config.flushWhenProducersWait()) {
            return;
        }
        synchronized (lock) {
            change.run();
            if (open != null && producers.allWaiting()) {
                sealIfSlotFree(SealReason.PRODUCERS_WAITING);
            }
        }
    }

    private void onFlushDue(long sequence) {
        synchronized (lock) {
            if (open != null && open.sequence() == sequence) {
                sealIfSlotFree(SealReason.INTERVAL);
            }
        }
    }

    /** Seals the open flush and starts its upload, if an upload slot is free. Caller holds the lock. */
    private void sealIfSlotFree(SealReason reason) {
        if (open == null || (flushesInFlight >= config.flushesInFlightMax() && !closed)) {
            return;
        }
        Flush flush = open;
        open = null;
        if (openTimer != null) {
            openTimer.cancel(false);
            openTimer = null;
        }
        flushesInFlight++;
        metrics.sealed(reason, flush.bytes(), flush.appends().size(), concurrency.nanoTime() - flush.openedAtNanos());
        CompletableFuture<UploadedObject> uploaded =
                CompletableFuture.supplyAsync(() -> timedUpload(flush), uploadExecutor);
        // Chained under the lock, so commits run one at a time in sealing order although uploads race. A link
        // that failed (an Error out of finish) still lets the next one run: every flush gets answered.
        CompletableFuture<Void> uploadedAndPreviousCommitted = commitChain
                .handle((previous, failure) -> null)
                .thenCompose(previous -> uploaded.handle((object, failure) -> null));
        commitChain = uploadedAndPreviousCommitted.thenRunAsync(() -> finish(flush, uploaded), commitExecutor);
    }

    private UploadedObject timedUpload(Flush flush) {
        long started = concurrency.nanoTime();
        UploadedObject object = upload.upload(flush);
        metrics.uploadLatency(concurrency.nanoTime() - started);
        return object;
    }

    /**
     * Runs on the commit thread, in sealing order, once the flush's upload is done. Answers every batch of
     * the flush whatever happens; throws only an {@link Error}, after answering.
     */
    private void finish(Flush flush, CompletableFuture<UploadedObject> uploaded) {
        try {
            UploadedObject object = uploaded.join();
            commit.commit(object);
        } catch (CompletionException failed) {
            Throwable cause = failed.getCause() != null ? failed.getCause() : failed;
            LOGGER.warn(
                    "Upload failed flush={} batches={} bytes={}: {}",
                    flush.sequence(),
                    flush.appends().size(),
                    flush.bytes(),
                    cause.toString());
            metrics.flushOutcome("upload_failed");
            SegmentCommit.failAll(flush.appends(), "upload failed: " + cause.getMessage());
        } catch (RuntimeException e) {
            LOGGER.error("Unexpected failure finishing flush={}", flush.sequence(), e);
            metrics.flushOutcome("internal_error");
            SegmentCommit.failAll(flush.appends(), "internal error: " + e);
        } catch (Error e) {
            LOGGER.error("Error finishing flush={}; its producers get a retriable error", flush.sequence(), e);
            metrics.flushOutcome("internal_error");
            SegmentCommit.failAll(flush.appends(), "internal error: " + e);
            throw e;
        } finally {
            onFlushDone(flush);
        }
    }

    private void onFlushDone(Flush flush) {
        synchronized (lock) {
            flushesInFlight--;
            bufferedBytes -= flush.bytes();
            if (open == null) {
                return;
            }
            if (open.bytes() >= config.flushMaxBytes()) {
                sealIfSlotFree(SealReason.SIZE);
            } else if (concurrency.nanoTime() - open.openedAtNanos()
                    >= config.flushInterval().toNanos()) {
                sealIfSlotFree(SealReason.INTERVAL);
            } else if (producers.allWaiting()) { // never, without group commit: nothing is counted
                sealIfSlotFree(SealReason.PRODUCERS_WAITING);
            }
        }
    }

    private long bufferedBytesNow() {
        synchronized (lock) {
            return bufferedBytes;
        }
    }

    /** Refuses new batches, flushes what is buffered and waits (bounded) until every batch is answered. */
    @Override
    public void close() {
        CompletableFuture<Void> drained;
        synchronized (lock) {
            closed = true;
            sealIfSlotFree(SealReason.SHUTDOWN);
            drained = commitChain;
        }
        try {
            drained.get(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOGGER.error("Flushes still in flight after {} s at shutdown", CLOSE_TIMEOUT_SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOGGER.error("Flush failed at shutdown", e.getCause());
        }
        uploadExecutor.shutdown();
        commitExecutor.shutdown();
        registerExecutor.shutdown();
        LOGGER.info("Produce pipeline closed: every buffered batch was flushed and answered");
    }
}
