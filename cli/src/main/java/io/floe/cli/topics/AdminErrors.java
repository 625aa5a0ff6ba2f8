package io.floe.cli.topics;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/** One-line messages for the errors Admin calls fail with. */
final class AdminErrors {

    private AdminErrors() {}

    static String describe(Throwable error, String subject, AdminOptions options) {
        if (error instanceof TimeoutException) {
            return "no answer from " + options.connection.bootstrap() + " within " + options.connection.timeoutMs()
                    + " ms (is an agent listening there?)";
        }
        if (error instanceof TopicExistsException) {
            return subject + " already exists";
        }
        if (error instanceof UnknownTopicOrPartitionException) {
            return subject + " does not exist";
        }
        if (error instanceof UnsupportedVersionException) {
            return options.connection.bootstrap() + " does not support this request: " + message(error, "unsupported");
        }
        if (error instanceof KafkaException && error.getMessage() != null) {
            return subject + ": " + error.getMessage();
        }
        return subject + ": " + error;
    }

    private static String message(Throwable error, String fallback) {
        return error.getMessage() == null || error.getMessage().isBlank() ? fallback : error.getMessage();
    }
}
