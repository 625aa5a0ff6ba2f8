package io.floe.kafka.api;

import java.util.UUID;
import org.apache.kafka.common.Uuid;

/** Conversions between Floe's topic ids ({@link UUID}) and Kafka's ({@link Uuid}): the same 128 bits. */
final class TopicIds {

    private TopicIds() {}

    static Uuid toKafka(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static UUID toFloe(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
