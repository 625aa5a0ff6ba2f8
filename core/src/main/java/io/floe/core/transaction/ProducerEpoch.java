package io.floe.core.transaction;

/** A producer id at one epoch: who a transactional request says it is. */
public record ProducerEpoch(long producerId, short epoch) {

    public ProducerEpoch {
        if (producerId < 0) {
            throw new IllegalArgumentException("producer id must be >= 0, got " + producerId);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("producer epoch must be >= 0, got " + epoch);
        }
    }

    @Override
    public String toString() {
        return producerId + "/" + epoch;
    }
}
