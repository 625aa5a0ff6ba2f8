package io.floe.agent.produce;

import io.floe.core.concurrency.Concurrency;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.metadata.ProducerState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Steps 5 and 6 of the produce protocol for one uploaded flush: commit its batches in one metadata
 * transaction, publish what was appended to the read path, then answer each producer. An outcome
 * that is not a commit answers every producer with a retriable failure, never with an offset.
 */
final class SegmentCommit {

    private static final Logger LOGGER = LoggerFactory.getLogger(SegmentCommit.class);

    private final LogAppends metadata;
    private final Consumer<CommittedObject> onCommitted;
    private final ProduceMetrics metrics;
    private final Concurrency concurrency;

    SegmentCommit(
            LogAppends metadata,
            Consumer<CommittedObject> onCommitted,
            ProduceMetrics metrics,
            Concurrency concurrency) {
        this.metadata = metadata;
        this.onCommitted = onCommitted;
        this.metrics = metrics;
        this.concurrency = concurrency;
    }

    void commit(UploadedObject uploaded) {
        long started = concurrency.nanoTime();
        CommitOutcome outcome;
        try {
            outcome = metadata.commit(new ObjectCommit(uploaded.key(), uploaded.sizeBytes(), uploaded.batches()));
        } catch (RuntimeException e) {
            outcome = new CommitOutcome.Unknown(e);
        }
        metrics.commitLatency(concurrency.nanoTime() - started);
        if (outcome instanceof CommitOutcome.Committed committed) {
            answer(uploaded, committed.results());
        } else if (outcome instanceof CommitOutcome.Rejected rejected) {
            LOGGER.warn(
                    "Commit rejected object={} batches={} reason={}",
                    uploaded.key(),
                    uploaded.batches().size(),
                    rejected.reason());
            metrics.flushOutcome("rejected");
            failAll(uploaded.appends(), "commit rejected: " + rejected.reason());
        } else if (outcome instanceof CommitOutcome.Unknown unknown) {
            LOGGER.warn(
                    "Commit outcome unknown object={} batches={}: {}",
                    uploaded.key(),
                    uploaded.batches().size(),
                    unknown.cause().toString());
            metrics.flushOutcome("unknown");
            Set<TopicPartition> touched = new HashSet<>();
            uploaded.batches().forEach(batch -> touched.add(batch.topicPartition()));
            onCommitted.accept(CommittedObject.unknown(touched));
            failAll(
                    uploaded.appends(),
                    "commit outcome unknown: " + unknown.cause().getMessage());
        }
    }

    private void answer(UploadedObject uploaded, List<AppendResult> results) {
        List<CommittedObject.Appended> appended = new ArrayList<>();
        Set<TopicPartition> stored = new HashSet<>();
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof AppendResult.Duplicate) {
                stored.add(uploaded.batches().get(i).topicPartition());
            }
            if (results.get(i) instanceof AppendResult.Appended done) {
                BatchAppend batch = uploaded.batches().get(i);
                appended.add(new CommittedObject.Appended(
                        new BatchCoordinate(
                                batch.topicPartition(),
                                done.baseOffset(),
                                done.baseOffset() + batch.recordCount() - 1,
                                uploaded.key(),
                                batch.range(),
                                batch.maxTimestamp()),
                        done.logStartOffset(),
                        batch.transaction().transactional()
                                ? batch.producer().producerId()
                                : ProducerState.NO_PRODUCER_ID));
            }
        }
        // Publish to the read path before answering, so a producer's ack is never ahead of what fetches see.
        onCommitted.accept(new CommittedObject(appended, stored));
        metrics.flushOutcome("committed");
        for (int i = 0; i < results.size(); i++) {
            uploaded.appends().get(i).result().complete(results.get(i));
        }
    }

    static void failAll(List<PendingAppend> appends, String reason) {
        AppendResult failed = new AppendResult.Failed(AppendError.NOT_COMMITTED, reason);
        for (PendingAppend append : appends) {
            append.result().complete(failed);
        }
    }
}
