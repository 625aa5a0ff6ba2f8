package io.floe.benchmarks.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The Markdown report of a {@link ClusterRun}: the figures the "many agents" issue asks for (throughput, produce
 * latency, object-store requests per GiB written and read, share of tail reads the caches served, metadata
 * transactions per second), the two targets and whether they were met, then per-agent and per-phase detail.
 */
final class ClusterReport {

    /** At most this many PUTs per second per agent at the default flush settings under full load. */
    static final double PUTS_PER_AGENT_SECOND_MAX = 4.0;
    /** At least this share of tail reads served from the agents' caches. */
    static final double TAIL_CACHE_SHARE_MIN = 0.90;

    static final double PEAK_WINDOW_SECONDS = 5;

    static final String REQUESTS = "floe_objectstore_requests_seconds_count";
    static final String OBJECT_BYTES = "floe_objectstore_bytes_total";
    static final Map<String, String> PUT = Map.of("kind", "PUT");
    static final Map<String, String> GET = Map.of("kind", "GET");
    static final String FLUSHES = "floe_produce_flushes_total";
    static final String FLUSH_BYTES = "floe_produce_flush_bytes";
    static final String FLUSH_AGE = "floe_produce_flush_age_seconds";
    static final String UPLOAD = "floe_produce_upload_latency_seconds";
    static final String COMMIT = "floe_produce_commit_latency_seconds";
    static final String APPEND = "floe_produce_append_latency_seconds";
    static final String REQUEST_SECONDS = "floe_objectstore_requests_seconds";
    static final String REFUSED = "floe_produce_refused_batches_total";
    static final String FETCH_READS = "floe_fetch_reads_total";
    static final String FETCH_BYTES = "floe_fetch_read_bytes_total";
    static final String CACHE_REQUESTS = "floe_cache_requests_total";
    static final Map<String, String> FROM_CACHE = Map.of("source", "cache");
    static final Map<String, String> FROM_STORE = Map.of("source", "object-store");
    static final String OFFSET_COMMITS = "floe_group_offset_commits_total";
    static final String COMPACTION_WRITTEN = "floe_compaction_bytes_written_bytes_total";
    static final String COMPACTION_READ = "floe_compaction_bytes_read_bytes_total";
    static final String COMPACTION_SWAPS = "floe_compaction_swaps_total";
    static final String CLEANUP_DELETED = "floe_cleanup_objects_deleted_total";

    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final double MIB = 1024.0 * 1024;
    private static final double MB = 1_000_000.0;

    private final ClusterOptions options;
    private final ClusterRun run;

    ClusterReport(ClusterOptions options, ClusterRun run) {
        this.options = options;
        this.run = run;
    }

    String markdown(String command, String machine) {
        StringBuilder md = new StringBuilder();
        md.append("### Cluster run (").append(run.startedAt()).append(")\n\n");
        setup(md, command, machine);
        summary(md);
        run.produce().ifPresent(phase -> produceDetail(md, phase, "Produce phase"));
        run.catchUp().ifPresent(phase -> catchUpDetail(md, phase));
        run.steady()
                .ifPresent(phase -> produceDetail(
                        md, phase, "Steady-rate phase (" + f0(options.steadyRate()) + " records/s asked)"));
        StoreTables.objectStore(md, phases());
        StoreTables.metadata(md, phases(), run.produce().map(this::activeTransactionRate));
        notes(md);
        return md.toString();
    }

    private void setup(StringBuilder md, String command, String machine) {
        md.append("- Machine: ")
                .append(machine)
                .append("; 1-minute load average ")
                .append(f1(run.loadAtStart()))
                .append(" at the start");
        run.produce().ifPresent(p -> md.append(", ").append(loadRange(p)).append(" during produce"));
        run.catchUp().ifPresent(p -> md.append(", ").append(loadRange(p)).append(" during catch-up"));
        md.append(".\n");
        md.append("- Stores, on the same machine: PostgreSQL 17 (")
                .append(
                        options.pgDurable()
                                ? "durable: fsync, synchronous_commit and full_page_writes on"
                                : "fsync, synchronous_commit and full_page_writes off")
                .append("), S3Proxy 4.1.0 (filesystem-nio2" + " backend, files under /tmp), both on 127.0.0.1.\n");
        md.append("- Agents: ")
                .append(options.agents())
                .append(" × `bin/floe agent --node-id N --metadata "
                        + "postgresql://… --objects s3://floe-data/cluster --s3-endpoint http://127.0.0.1:… "
                        + "--s3-path-style true`");
        md.append(
                options.agentArguments().isEmpty()
                        ? ", flush and cache settings at their defaults for an s3: "
                                + "store (flush every 250 ms or at 32 MiB, 4 flushes in flight, 256 MiB cache)"
                        : " " + String.join(" ", options.agentArguments()));
        md.append(", maintenance on; FLOE_JAVA_OPTS ")
                .append(
                        options.floeJavaOptions().isBlank()
                                ? "unset (bin/floe's `-Xms1g -Xmx1g`, G1)"
                                : "`" + options.floeJavaOptions() + "`")
                .append(".\n");
        md.append("- Workload: topic `")
                .append(Tools.TOPIC)
                .append("`, ")
                .append(options.partitions())
                .append(" partitions; ")
                .append(String.format(Locale.ROOT, "%,d", options.records()))
                .append(" records of ")
                .append(options.recordSizeBytes())
                .append(" bytes (random, no key); ")
                .append(options.producerProcesses())
                .append(" producer JVM(s) × ")
                .append(options.producers())
                .append(" KafkaProducers (")
                .append(String.join(" ", options.producerPropertyArgs()))
                .append("), unthrottled, bootstrapping at all agents; ")
                .append(
                        options.tailConsumer()
                                ? options.tailConsumers() + " tail consumers (assign(), the "
                                        + "partitions split between them, no client CRC check) reading while they write; "
                                : "no tail consumer; ")
                .append("then a consumer group of ")
                .append(options.groupMembers())
                .append(" members reading from the start (Kafka's default consumer settings, auto commit). Before "
                        + "anything is measured, ")
                .append(String.format(Locale.ROOT, "%,d", options.warmupRecords()))
                .append(" records go to a topic of their own (warm-up).\n");
        md.append("- Command: `").append(command).append("`\n");
        md.append("- Tools, each a child JVM (-Xmx512m): ");
        md.append(run.toolCommands().stream().map(c -> "`" + c + "`").collect(Collectors.joining("; ")));
        md.append("\n\n");
    }

    private void summary(StringBuilder md) {
        md.append("| figure | value |\n|---|---|\n");
        run.produced().ifPresent(p -> {
            md.append("| produce throughput | ")
                    .append(f1(p.bytes() / MB / p.seconds()))
                    .append(" MB/s, ")
                    .append(String.format(Locale.ROOT, "%,.0f", p.records() / p.seconds()))
                    .append(" records/s (")
                    .append(String.format(Locale.ROOT, "%,d", p.records()))
                    .append(" records in ")
                    .append(f1(p.seconds()))
                    .append(" s) |\n");
            LatencyHistogram l = p.latency();
            md.append("| produce latency p50 / p95 / p99 / p99.9 / max (send to ack) | ")
                    .append(l.percentileMs(0.5))
                    .append(" / ")
                    .append(l.percentileMs(0.95))
                    .append(" / ")
                    .append(l.percentileMs(0.99))
                    .append(" / ")
                    .append(l.percentileMs(0.999))
                    .append(" / ")
                    .append(l.maxMs())
                    .append(" ms |\n");
        });
        run.tailed()
                .ifPresent(t -> md.append("| tail consumer | ")
                        .append(f1(t.bytes() / MB / t.seconds()))
                        .append(" MB/s; create-to-read latency p50 ")
                        .append(t.latency().percentileMs(0.5))
                        .append(" ms, p99 ")
                        .append(t.latency().percentileMs(0.99))
                        .append(" ms |\n"));
        run.caughtUp()
                .ifPresent(c -> md.append("| catch-up consume (group, after the join) | ")
                        .append(f1(c.bytes() / MB / Math.max(1, c.elapsedMs()) * 1000))
                        .append(" MB/s, ")
                        .append(String.format(Locale.ROOT, "%,.0f", c.records() * 1000.0 / Math.max(1, c.elapsedMs())))
                        .append(" records/s; join ")
                        .append(c.joinMs())
                        .append(" ms |\n"));
        run.produce().ifPresent(phase -> {
            md.append("| PUTs per second per agent, produce phase | ")
                    .append(putRates(phase))
                    .append(" |\n");
            run.produced().ifPresent(p -> {
                double gib = p.bytes() / GIB;
                md.append("| PUTs per GiB written | ")
                        .append(f1(phase.agents(REQUESTS, PUT) / gib))
                        .append(" by the agents' produce path; ")
                        .append(f1(phase.s3("PutObject") / gib))
                        .append(" PutObject seen by S3Proxy (maintenance included) |\n");
            });
            run.tailed()
                    .ifPresent(t -> md.append("| GETs per GiB read, tail | ")
                            .append(f1(phase.agents(REQUESTS, GET) / (t.bytes() / GIB)))
                            .append(" |\n"));
            md.append("| tail reads served from the caches | ")
                    .append(cacheShare(phase))
                    .append(" |\n");
        });
        run.catchUp()
                .ifPresent(phase -> run.caughtUp().ifPresent(c -> {
                    md.append("| GETs per GiB read, catch-up | ")
                            .append(f1(phase.agents(REQUESTS, GET) / (c.bytes() / GIB)))
                            .append(" by the agents' fetch path; ")
                            .append(f1(phase.s3("GetObject") / (c.bytes() / GIB)))
                            .append(" GetObject seen by S3Proxy |\n");
                    md.append("| catch-up reads served from the caches | ")
                            .append(cacheShare(phase))
                            .append(" |\n");
                }));
        run.steady()
                .ifPresent(phase -> run.steadyProduced().ifPresent(p -> {
                    LatencyHistogram l = p.latency();
                    md.append("| steady rate: ")
                            .append(f0(options.steadyRate()))
                            .append(" records/s asked | ")
                            .append(String.format(Locale.ROOT, "%,.0f", p.records() / p.seconds()))
                            .append(" records/s; latency p50 / p95 / p99 / p99.9 / max ")
                            .append(l.percentileMs(0.5))
                            .append(" / ")
                            .append(l.percentileMs(0.95))
                            .append(" / ")
                            .append(l.percentileMs(0.99))
                            .append(" / ")
                            .append(l.percentileMs(0.999))
                            .append(" / ")
                            .append(l.maxMs())
                            .append(" ms (first fifth left out) |\n");
                    md.append("| PUTs per second per agent, steady rate | ")
                            .append(putRates(phase))
                            .append(" |\n");
                }));
        md.append("| metadata transactions per second (PostgreSQL commits) | ");
        List<String> rates = new ArrayList<>();
        run.idle().ifPresent(p -> rates.add(f1(p.transactions().commits() / p.seconds()) + " idle"));
        run.produce().ifPresent(p -> rates.add(f1(activeTransactionRate(p)) + " producing"));
        run.catchUp().ifPresent(p -> rates.add(f1(p.transactions().commits() / p.seconds()) + " catching up"));
        run.steady().ifPresent(p -> rates.add(f1(p.transactions().commits() / p.seconds()) + " at the steady rate"));
        md.append(String.join(", ", rates)).append(" |\n\n");
        targets(md);
    }

    private void targets(StringBuilder md) {
        if (run.produce().isEmpty() || run.produced().isEmpty()) {
            md.append("Targets: not measured (the produce phase did not complete).\n\n");
            return;
        }
        Phase phase = run.produce().get();
        double worst = 0;
        for (int i = 0; i < phase.agents(); i++) {
            worst = Math.max(worst, putsPerSecond(phase, i));
        }
        md.append("Targets (issue \"Many agents\"):\n");
        md.append("- at most ")
                .append(f0(PUTS_PER_AGENT_SECOND_MAX))
                .append(" PUTs per second per agent at the " + "default flush settings under full load: **")
                .append(worst <= PUTS_PER_AGENT_SECOND_MAX ? "met" : "not met")
                .append("** (highest agent ")
                .append(f2(worst))
                .append(" PUT/s over the producers' active time");
        run.steady().ifPresent(steady -> {
            double steadyWorst = 0;
            for (int i = 0; i < steady.agents(); i++) {
                steadyWorst = Math.max(steadyWorst, putsPerSecond(steady, i));
            }
            md.append("; ").append(f2(steadyWorst)).append(" at the steady rate");
        });
        if (!options.agentArguments().isEmpty()) {
            md.append("; note: agent arguments were given, check they leave the flush settings at their defaults");
        }
        md.append(")\n");
        if (run.tailed().isPresent()) {
            double share = cacheFraction(phase);
            md.append("- at least ")
                    .append(f0(TAIL_CACHE_SHARE_MIN * 100))
                    .append("% of tail reads served from " + "the agents' caches: **")
                    .append(share >= TAIL_CACHE_SHARE_MIN ? "met" : "not met")
                    .append("** (")
                    .append(pct(share))
                    .append(" of fetch reads)\n\n");
        } else {
            md.append("- tail reads from the caches: not measured (--no-tail-consumer)\n\n");
        }
    }

    private void produceDetail(StringBuilder md, Phase phase, String title) {
        md.append("#### ")
                .append(title)
                .append(", per agent (")
                .append(f1(phase.seconds()))
                .append(" s between snapshots, ")
                .append(f1(activeSeconds(phase)))
                .append(" s of producing)\n\n");
        md.append("| agent | partitions led | PUTs | PUT/s | peak PUT/s (")
                .append(f0(PEAK_WINDOW_SECONDS))
                .append(" s) | flushes committed | mean flush MiB | mean flush age ms | mean upload ms (of which PUT)"
                        + " | mean commit ms | mean append ms | MiB PUT | fetch reads cache / store | GETs | refused "
                        + "batches |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        for (int i = 0; i < phase.agents(); i++) {
            md.append("| ")
                    .append(i + 1)
                    .append(" | ")
                    .append(run.partitionsLed().getOrDefault(i + 1, 0))
                    .append(" | ")
                    .append(f0(phase.agent(i, REQUESTS, PUT)))
                    .append(" | ")
                    .append(f2(putsPerSecond(phase, i)))
                    .append(" | ")
                    .append(f2(RateSampler.peakRate(samples(phase), i, PEAK_WINDOW_SECONDS)))
                    .append(" | ")
                    .append(f0(phase.agent(i, FLUSHES, Map.of("outcome", "committed"))))
                    .append(" | ")
                    .append(f2(mean(phase, i, FLUSH_BYTES) / MIB))
                    .append(" | ")
                    .append(f0(mean(phase, i, FLUSH_AGE) * 1000))
                    .append(" | ")
                    .append(f0(mean(phase, i, UPLOAD) * 1000))
                    .append(" (")
                    .append(f0(meanOf(phase, i, REQUEST_SECONDS, PUT) * 1000))
                    .append(")")
                    .append(" | ")
                    .append(f0(mean(phase, i, COMMIT) * 1000))
                    .append(" | ")
                    .append(f0(mean(phase, i, APPEND) * 1000))
                    .append(" | ")
                    .append(f1(phase.agent(i, OBJECT_BYTES, PUT) / MIB))
                    .append(" | ")
                    .append(f0(reads(phase, i, true)))
                    .append(" / ")
                    .append(f0(reads(phase, i, false)))
                    .append(" | ")
                    .append(f0(phase.agent(i, REQUESTS, GET)))
                    .append(" | ")
                    .append(f0(phase.agent(i, REFUSED)))
                    .append(" |\n");
        }
        md.append("\nPUT/s: the agent's PUTs over the producers' active time (first send to last acknowledgement); "
                        + "peak: the highest rate over any ")
                .append(f0(PEAK_WINDOW_SECONDS))
                .append(" s window, sampled "
                        + "every second. PUTs, GETs and fetch reads are the agent's `floe_objectstore_requests` and "
                        + "`floe_fetch_reads` (one read = one partition's back-to-back batches of one object, served from "
                        + "the cache or read from the object store); flush sizes and ages from `floe_produce_flush_*`; "
                        + "upload: registration, segment writing and PUT of one flush; PUT: the object-store request alone; "
                        + "append: a batch's arrival at the agent to its answer (the producers' latency less their own "
                        + "queueing and the network).\n\n");
    }

    private void catchUpDetail(StringBuilder md, Phase phase) {
        md.append("#### Catch-up phase, per agent (")
                .append(f1(phase.seconds()))
                .append(" s between snapshots)\n\n");
        md.append("| agent | GETs | MiB GET | fetch reads cache / store | reads from cache | MiB from cache / store | "
                + "offset commits |\n|---:|---:|---:|---|---:|---|---:|\n");
        for (int i = 0; i < phase.agents(); i++) {
            double cache = reads(phase, i, true);
            double store = reads(phase, i, false);
            md.append("| ")
                    .append(i + 1)
                    .append(" | ")
                    .append(f0(phase.agent(i, REQUESTS, GET)))
                    .append(" | ")
                    .append(f1(phase.agent(i, OBJECT_BYTES, GET) / MIB))
                    .append(" | ")
                    .append(f0(cache))
                    .append(" / ")
                    .append(f0(store))
                    .append(" | ")
                    .append(cache + store == 0 ? "n/a" : pct(cache / (cache + store)))
                    .append(" | ")
                    .append(f1(phase.agent(i, FETCH_BYTES, FROM_CACHE) / MIB))
                    .append(" / ")
                    .append(f1(phase.agent(i, FETCH_BYTES, FROM_STORE) / MIB))
                    .append(" | ")
                    .append(f0(phase.agent(i, OFFSET_COMMITS)))
                    .append(" |\n");
        }
        md.append("\n");
    }

    private void notes(StringBuilder md) {
        List<String> notes = new ArrayList<>(run.notes());
        run.produced().ifPresent(p -> {
            p.failures().forEach(f -> notes.add("producer: " + f));
            if (p.errors() > 0) {
                notes.add(p.errors() + " records failed to produce");
            }
            if (p.records() < options.records()) {
                notes.add("only " + p.records() + " of " + options.records() + " records were acknowledged");
            }
        });
        run.tailed().flatMap(Tools.Tailed::failure).ifPresent(f -> notes.add("tail consumer: " + f));
        run.tailed()
                .ifPresent(t -> run.produced().ifPresent(p -> {
                    double read = t.bytes() / MB / t.seconds();
                    double written = p.bytes() / MB / p.seconds();
                    if (read < 0.9 * written) {
                        notes.add(String.format(
                                Locale.ROOT,
                                "The tail consumers read %.1f MB/s while the producers wrote "
                                        + "%.1f MB/s: they fell behind (create-to-read p50 %d ms), and a read further behind than an "
                                        + "agent's cache reaches (its cache bytes over its write rate) goes to the object store.",
                                read,
                                written,
                                t.latency().percentileMs(0.5)));
                    }
                }));
        run.caughtUp().flatMap(Tools.CaughtUp::failure).ifPresent(f -> notes.add("group consumer: " + f));
        if (run.produce().map(p -> p.load().max()).orElse(0.0)
                > Runtime.getRuntime().availableProcessors()) {
            notes.add("The load average exceeded the core count: other processes competed for the CPU, so "
                    + "throughput is low and latencies are inflated.");
        }
        if (!run.agentPeakRssBytes().isEmpty()) {
            notes.add("Agents' peak RSS: "
                    + run.agentPeakRssBytes().stream()
                            .map(b -> f0(b / MIB) + " MiB")
                            .collect(Collectors.joining(", ")) + ".");
        }
        if (!notes.isEmpty()) {
            md.append("Notes:\n");
            notes.forEach(n -> md.append("- ").append(n).append("\n"));
            md.append("\n");
        }
    }

    private List<Phase> phases() {
        List<Phase> phases = new ArrayList<>();
        run.idle().ifPresent(phases::add);
        run.produce().ifPresent(phases::add);
        run.catchUp().ifPresent(phases::add);
        run.steady().ifPresent(phases::add);
        return phases;
    }

    private String putRates(Phase phase) {
        List<String> rates = new ArrayList<>();
        for (int i = 0; i < phase.agents(); i++) {
            rates.add(f2(putsPerSecond(phase, i)));
        }
        List<String> peaks = new ArrayList<>();
        for (int i = 0; i < phase.agents(); i++) {
            peaks.add(f2(RateSampler.peakRate(samples(phase), i, PEAK_WINDOW_SECONDS)));
        }
        return String.join(" / ", rates) + " (peak over " + f0(PEAK_WINDOW_SECONDS) + " s: " + String.join(" / ", peaks)
                + ")";
    }

    /** An agent's PUTs over the producers' active time; the phase's window when the producers did not report. */
    double putsPerSecond(Phase phase, int agent) {
        return phase.agent(agent, REQUESTS, PUT) / activeSeconds(phase);
    }

    /** How long the phase's producers ran, first send to last acknowledgement; the phase's window otherwise. */
    private double activeSeconds(Phase phase) {
        Optional<Tools.Produced> producers =
                run.produce().filter(p -> p == phase).isPresent()
                        ? run.produced()
                        : run.steady().filter(p -> p == phase).isPresent() ? run.steadyProduced() : Optional.empty();
        return producers.map(Tools.Produced::seconds).orElse(phase.seconds());
    }

    private List<RateSampler.Sample> samples(Phase phase) {
        return run.steady().filter(p -> p == phase).isPresent() ? run.steadySamples() : run.produceSamples();
    }

    /**
     * Commits per second while producing: the phase's commits less the idle rate over the part of its window the
     * producers were not running (tool start-up, the tail's last reads, the settle pause), over the active time.
     */
    double activeTransactionRate(Phase produce) {
        double active = activeSeconds(produce);
        double idleRate =
                run.idle().map(p -> p.transactions().commits() / p.seconds()).orElse(0.0);
        double outside = Math.max(0, produce.seconds() - active);
        return Math.max(0, produce.transactions().commits() - idleRate * outside) / active;
    }

    /** Fetch reads served from the cache (or from the store) at one agent; falls back to the cache's counters. */
    static double reads(Phase phase, int agent, boolean fromCache) {
        double cache = phase.agent(agent, FETCH_READS, FROM_CACHE);
        double store = phase.agent(agent, FETCH_READS, FROM_STORE);
        if (cache + store > 0 || phase.after().agents().get(agent).sum(FETCH_READS) > 0) {
            return fromCache ? cache : store;
        }
        // An agent built before floe_fetch_reads: the cache's own counters (which ListOffsets' lookups also use).
        return phase.agent(agent, CACHE_REQUESTS, Map.of("result", fromCache ? "hit" : "miss"));
    }

    static double cacheFraction(Phase phase) {
        double cache = 0;
        double all = 0;
        for (int i = 0; i < phase.agents(); i++) {
            cache += reads(phase, i, true);
            all += reads(phase, i, true) + reads(phase, i, false);
        }
        return all == 0 ? Double.NaN : cache / all;
    }

    private static String cacheShare(Phase phase) {
        double bytesCache = phase.agents(FETCH_BYTES, FROM_CACHE);
        double bytesStore = phase.agents(FETCH_BYTES, FROM_STORE);
        double cache = 0;
        double store = 0;
        for (int i = 0; i < phase.agents(); i++) {
            cache += reads(phase, i, true);
            store += reads(phase, i, false);
        }
        return pct(cacheFraction(phase)) + " of fetch reads (" + f0(cache) + " from the cache, " + f0(store)
                + " from the object store); " + pct(bytesCache / (bytesCache + bytesStore)) + " of bytes";
    }

    /** A summary's mean over the phase: the change of its sum over the change of its count. */
    private static double mean(Phase phase, int agent, String summary) {
        return meanOf(phase, agent, summary, Map.of());
    }

    private static double meanOf(Phase phase, int agent, String summary, Map<String, String> labels) {
        double count = phase.agent(agent, summary + "_count", labels);
        return count == 0 ? Double.NaN : phase.agent(agent, summary + "_sum", labels) / count;
    }

    private static String loadRange(Phase phase) {
        return phase.load().min() == phase.load().max()
                ? f1(phase.load().max())
                : f1(phase.load().min()) + "–" + f1(phase.load().max());
    }

    static String pct(double fraction) {
        return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    static String f0(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String f1(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }
}
