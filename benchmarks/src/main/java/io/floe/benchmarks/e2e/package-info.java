/**
 * End-to-end produce/consume benchmark comparing a Floe agent with an Apache Kafka broker on one machine.
 *
 * <p>{@link io.floe.benchmarks.e2e.ProduceConsumeBenchmark} starts each system as a child process
 * ({@link io.floe.benchmarks.e2e.KafkaBroker}, {@link io.floe.benchmarks.e2e.FloeAgent}), drives it with
 * Kafka's own {@code ProducerPerformance} and {@code ConsumerPerformance} tools run as child JVMs
 * ({@link io.floe.benchmarks.e2e.PerfRunner}), and prints a side-by-side {@link io.floe.benchmarks.e2e.Report}.
 * Runs are interleaved round by round because throughput on small machines varies severalfold between runs:
 * only figures taken side by side, in one run, are compared. Nothing here is part of the build's pass/fail.
 */
package io.floe.benchmarks.e2e;
