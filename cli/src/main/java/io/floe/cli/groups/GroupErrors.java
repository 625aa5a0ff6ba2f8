package io.floe.cli.groups;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/** One-line messages for the errors Admin group calls fail with. */
final class GroupErrors {

    private GroupErrors() {}

    static String describe(Throwable error, String subject, GroupAdminOptions options) {
        if (error instanceof TimeoutException) {
            return "no answer from " + options.connection.bootstrap() + " within " + options.connection.timeoutMs()
                    + " ms (is an agent listening there?)";
        }
        if (error instanceof GroupIdNotFoundException) {
            return subject + " does not exist";
        }
        if (error instanceof GroupNotEmptyException) {
            return subject + " still has members; stop its consumers first";
        }
        if (error instanceof UnknownMemberIdException) {
            return subject + " has active members; stop its consumers first";
        }
        if (error instanceof UnknownTopicOrPartitionException) {
            return "a topic or partition does not exist: " + error.getMessage();
        }
        if (error instanceof UnsupportedVersionException) {
            return options.connection.bootstrap() + " does not support this request: " + error.getMessage();
        }
        if (error instanceof KafkaException && error.getMessage() != null) {
            return subject + ": " + error.getMessage();
        }
        return subject + ": " + error;
    }
}
