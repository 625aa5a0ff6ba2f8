package io.floe.agent.produce;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The produce pipeline's meters: flush sizes and ages, upload and commit latency, outcomes. */
final class ProduceMetrics {

    private final MeterRegistry meters;
    private final DistributionSummary flushBytes;
    private final DistributionSummary flushBatches;
    private final Timer flushAge;
    private final Timer uploadLatency;
    private final Timer commitLatency;
    private final Timer ackLatency;
    private final Map<SealReason, Counter> seals = new EnumMap<>(SealReason.class);

    ProduceMetrics(MeterRegistry meters) {
        this.meters = meters;
        this.flushBytes = DistributionSummary.builder("floe.produce.flush.bytes")
                .baseUnit("bytes")
                .description("Size of each flushed segment object")
                .publishPercentiles(0.5, 0.99)
                .register(meters);
        this.flushBatches = DistributionSummary.builder("floe.produce.flush.batches")
                .description("Record batches in each flushed object")
                .register(meters);
        this.flushAge = Timer.builder("floe.produce.flush.age")
                .description("Time from a flush's first batch to its sealing")
                .publishPercentiles(0.5, 0.99)
                .register(meters);
        this.uploadLatency = Timer.builder("floe.produce.upload.latency")
                .description("Register and upload of one segment object")
                .publishPercentiles(0.5, 0.99)
                .register(meters);
        this.commitLatency = Timer.builder("floe.produce.commit.latency")
                .description("Metadata commit of one segment object")
                .publishPercentiles(0.5, 0.99)
                .register(meters);
        this.ackLatency = Timer.builder("floe.produce.append.latency")
                .description("From a batch's arrival to its answer")
                .publishPercentiles(0.5, 0.99)
                .register(meters);
        for (SealReason reason : SealReason.values()) {
            seals.put(
                    reason,
                    Counter.builder("floe.produce.flush.seals")
                            .tag("reason", reason.tag())
                            .description(
                                    "Flushes sealed, by what sealed them: size, interval, producers_waiting, shutdown")
                            .register(meters));
        }
    }

    void sealed(SealReason reason, long bytes, int batches, long ageNanos) {
        seals.get(reason).increment();
        flushBytes.record(bytes);
        flushBatches.record(batches);
        flushAge.record(ageNanos, TimeUnit.NANOSECONDS);
    }

    void uploadLatency(long nanos) {
        uploadLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    void commitLatency(long nanos) {
        commitLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    void appendLatency(long nanos) {
        ackLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    void flushOutcome(String outcome) {
        Counter.builder("floe.produce.flushes")
                .tag("outcome", outcome)
                .description("Flushes by outcome: committed, upload_failed, rejected, unknown")
                .register(meters)
                .increment();
    }

    void refused(String reason) {
        Counter.builder("floe.produce.refused.batches")
                .tag("reason", reason)
                .description("Batches refused before reaching storage")
                .register(meters)
                .increment();
    }
}
