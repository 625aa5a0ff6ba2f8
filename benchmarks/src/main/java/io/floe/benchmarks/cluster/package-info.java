/**
 * The cluster benchmark: several Floe agents sharing one PostgreSQL metadata store and one S3 bucket, driven by
 * idempotent producers at full load, a consumer tailing the log while it is written and a consumer group catching
 * up from the start afterwards.
 *
 * <p>{@link io.floe.benchmarks.cluster.ClusterBenchmark} starts the stores ({@link io.floe.benchmarks.cluster.
 * ClusterStores}: a real PostgreSQL 17 and S3Proxy, each a child process on 127.0.0.1), the agents
 * ({@code bin/floe agent}) and the load tools ({@link io.floe.benchmarks.cluster.LoadProducer},
 * {@link io.floe.benchmarks.cluster.TailConsumer}, {@link io.floe.benchmarks.cluster.GroupConsumer}, each a child
 * JVM), reads every agent's {@code /metrics}, S3Proxy's request metrics and PostgreSQL's {@code pg_stat_database}
 * before and after each phase, and prints a Markdown {@link io.floe.benchmarks.cluster.ClusterReport}. What it
 * measures is what a diskless system costs to run: object-store requests per GiB, the share of reads the agents'
 * caches answer, metadata transactions per second. Nothing here is part of the build's pass/fail.
 */
package io.floe.benchmarks.cluster;
