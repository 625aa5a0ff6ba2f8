package io.floe.core.transaction;

import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** What a transaction operation of the store did. Callers switch over it. */
public sealed interface TransactionOutcome {

    /**
     * Applied. {@code producer} is the producer id and epoch the client holds from now on (a new epoch
     * after InitProducerId, or after an end of transaction that bumps it); {@code markers} are the
     * transaction markers the operation appended (an end, or the abort of an open transaction that
     * InitProducerId or a timeout fenced), in partition order.
     */
    record Done(ProducerEpoch producer, List<TransactionMarker> markers) implements TransactionOutcome {
        public Done {
            Objects.requireNonNull(producer, "producer");
            markers = List.copyOf(markers);
        }

        public Done(ProducerEpoch producer) {
            this(producer, List.of());
        }
    }

    /** Not applied, for {@code error}; nothing changed. */
    record Refused(TransactionError error, String message) implements TransactionOutcome {
        public Refused {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(message, "message");
        }
    }

    /** Not applied: these partitions do not exist; nothing changed (the others were not attempted). */
    record UnknownPartitions(Set<TopicPartition> partitions) implements TransactionOutcome {
        public UnknownPartitions {
            partitions = Set.copyOf(partitions);
        }
    }
}
