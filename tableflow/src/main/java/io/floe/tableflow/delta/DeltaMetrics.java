package io.floe.tableflow.delta;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The Delta mirror's meters, tagged with the table's topic and name. */
public final class DeltaMetrics {

    private final MeterRegistry meters;
    private final String topic;

    public DeltaMetrics(MeterRegistry meters, String topic) {
        this.meters = meters;
        this.topic = topic;
    }

    void committed(String table) {
        counter("floe.tableflow.delta.commits", "Delta log versions committed", table)
                .increment();
    }

    void failed(String table) {
        counter(
                        "floe.tableflow.delta.failures",
                        "Delta log updates that failed (the next round tries again; Iceberg is unaffected)",
                        table)
                .increment();
    }

    private Counter counter(String name, String description, String table) {
        return Counter.builder(name)
                .tag("topic", topic)
                .tag("table", table)
                .description(description)
                .register(meters);
    }
}
