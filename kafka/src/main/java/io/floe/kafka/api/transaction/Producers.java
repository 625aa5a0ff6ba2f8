package io.floe.kafka.api.transaction;

import io.floe.core.transaction.ProducerEpoch;
import org.apache.kafka.common.errors.InvalidRequestException;

/** A request's producer id and epoch, checked. */
final class Producers {

    private Producers() {}

    /** The producer a request names; INVALID_REQUEST when its id or epoch is negative. */
    static ProducerEpoch of(long producerId, short epoch) {
        if (producerId < 0 || epoch < 0) {
            throw new InvalidRequestException(
                    "a producer id and epoch >= 0 are required, got " + producerId + "/" + epoch);
        }
        return new ProducerEpoch(producerId, epoch);
    }
}
