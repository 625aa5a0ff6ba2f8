package io.floe.kafka.error;

import io.floe.agent.produce.InvalidBatchException;
import io.floe.agent.transaction.InvalidTransactionRequestException;
import io.floe.core.config.InvalidConfigException;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.object.ObjectStoreException;
import io.floe.core.topic.UnknownTopicException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Maps exceptions from the agent and the stores to Kafka's exceptions, whose class fixes the error
 * code ({@link Errors#forException}) and whose message reaches clients in the versions that carry one.
 * Store failures the store calls retriable become {@code KAFKA_STORAGE_ERROR}, which clients retry;
 * the rest become {@code UNKNOWN_SERVER_ERROR}.
 */
public final class KafkaErrors {

    private KafkaErrors() {}

    /** The Kafka exception a client should see for {@code failure}, with the original message. */
    public static ApiException toApiException(Throwable failure) {
        Throwable cause = unwrap(failure);
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        if (cause instanceof ApiException api) {
            return api;
        } else if (cause instanceof UnknownTopicException) {
            return new UnknownTopicOrPartitionException(message);
        } else if (cause instanceof io.floe.core.topic.TopicExistsException) {
            return new TopicExistsException(message);
        } else if (cause instanceof io.floe.agent.topic.InvalidTopicException) {
            return new InvalidTopicException(message);
        } else if (cause instanceof InvalidConfigException) {
            return new InvalidConfigurationException(message);
        } else if (cause instanceof io.floe.core.metadata.InvalidPartitionsException) {
            return new InvalidPartitionsException(message);
        } else if (cause instanceof InvalidBatchException invalid) {
            return forInvalidBatch(invalid);
        } else if (cause instanceof InvalidTransactionRequestException invalid) {
            return TransactionErrors.invalidRequest(invalid);
        } else if (cause instanceof MetadataStoreException store) {
            return storage("metadata store", store.retriable(), message);
        } else if (cause instanceof ObjectStoreException store) {
            return storage("object store", store.retriable(), message);
        } else if (cause instanceof RejectedExecutionException) {
            return new TimeoutException("agent busy, request not started: " + message);
        }
        return new UnknownServerException(cause.getClass().getSimpleName() + ": " + message);
    }

    /** The Kafka error code for {@code failure}. */
    public static Errors errorOf(Throwable failure) {
        return Errors.forException(toApiException(failure));
    }

    /** CORRUPT_MESSAGE, MESSAGE_TOO_LARGE or INVALID_RECORD, by the reason the agent refused the batch. */
    public static ApiException forInvalidBatch(InvalidBatchException invalid) {
        return switch (invalid.reason()) {
            case CORRUPT_MESSAGE -> new CorruptRecordException(invalid.getMessage());
            case MESSAGE_TOO_LARGE -> new RecordTooLargeException(invalid.getMessage());
            case INVALID_RECORD -> new InvalidRecordException(invalid.getMessage());
        };
    }

    /** The exception inside the wrappers that futures and executors add. */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static ApiException storage(String store, boolean retriable, String message) {
        String text = store + " failed: " + message;
        return retriable ? new KafkaStorageException(text) : new UnknownServerException(text);
    }
}
