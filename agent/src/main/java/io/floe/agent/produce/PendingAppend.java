package io.floe.agent.produce;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** A validated batch waiting in a flush for its commit, and the producer's future for it. */
record PendingAppend(
        TopicPartition topicPartition, UUID topicId, ValidatedBatch batch, CompletableFuture<AppendResult> result) {

    int sizeBytes() {
        return batch.bytes().remaining();
    }
}
