package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.ForwardingTableOperations;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Table leases against long rounds, with two agents' table jobs on one clock the test steps: a round slower
 * than the lease keeps none of the agent's other tables from being renewed (their leases are renewed on
 * a schedule of their own), a round that hangs lets its own table go, a poll starts no round past its
 * budget, and a round that lost its lease (its agent paused past it) commits nothing once the new holder
 * took the table over, even when all the new holder did was remove the orphan files the old round was
 * about to commit.
 */
@Timeout(120)
class TableLeasesIT {

    @TempDir
    Path dataDir;

    /** Starts at the wall clock: orphan removal compares the clock with the files' modification times. */
    private final ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));

    private final Hooks hooks = new Hooks();

    @Test
    void aRoundSlowerThanTheLeaseLosesNoOtherTableAndAHungRoundLetsItsOwnGo() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir, hooks::decorate)) {
            TableJobs first = jobs(floe, "agent-1", new SimpleMeterRegistry());
            Topic quick = topic(floe, "quick", Map.of());
            Topic slow = topic(floe, "slow", Map.of());
            produce(floe, quick, 0, 5);
            produce(floe, slow, 0, 5);
            step(first);
            assertThat(holder(floe, "quick")).isEqualTo("agent-1");
            assertThat(holder(floe, "slow")).isEqualTo("agent-1");

            // The next round of the slow table waits in its first catalog read until the test lets it go.
            CountDownLatch inRound = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            hooks.onLoad = identifier -> {
                if (identifier.name().equals("slow") && inRound.getCount() > 0) {
                    inRound.countDown();
                    await(letGo);
                }
            };
            produce(floe, slow, 5, 5);
            clock.step(Duration.ofSeconds(1));
            CompletableFuture<Void> polling = CompletableFuture.runAsync(first::poll);
            assertThat(inRound.await(30, TimeUnit.SECONDS)).isTrue();

            // A minute passes (four lease TTLs) with the renewals running as scheduled, 10 s apart; then
            // another agent polls.
            TableJobs second = jobs(floe, "agent-2", new SimpleMeterRegistry());
            renewFor(first, Duration.ofMinutes(1));
            second.poll();
            assertThat(holder(floe, "quick"))
                    .as("renewed while the slow round ran")
                    .isEqualTo("agent-1");
            assertThat(holder(floe, "slow"))
                    .as("renewed: its round is younger than the round timeout")
                    .isEqualTo("agent-1");

            // The slow round hangs past the round timeout: its lease is no longer renewed, and the table moves.
            renewFor(first, Duration.ofSeconds(90)); // past the timeout and the last renewal's TTL
            second.poll();
            assertThat(holder(floe, "slow")).as("a hung round's table moves").isEqualTo("agent-2");
            assertThat(holder(floe, "quick")).isEqualTo("agent-1");

            letGo.countDown();
            polling.get(30, TimeUnit.SECONDS);
            assertThat(rows(floe, "slow"))
                    .as("the new holder's rounds; the old round committed nothing")
                    .isEqualTo(10);
        }
    }

    @Test
    void aPollStartsNoRoundPastItsBudgetAndTheNextPollStartsWithTheTablesItLeft() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir, hooks::decorate)) {
            TableJobs jobs = jobs(floe, "agent-1", new SimpleMeterRegistry());
            Topic a = topic(floe, "a", Map.of());
            Topic b = topic(floe, "b", Map.of());
            produce(floe, a, 0, 5);
            produce(floe, b, 0, 5);
            // Every catalog read of table a takes 2 s; a poll's budget is 5 s.
            hooks.onLoad = identifier -> {
                if (identifier.name().equals("a")) {
                    clock.step(Duration.ofSeconds(2));
                }
            };

            step(jobs);
            assertThat(floe.tables.load("a")).as("a's round ran").isPresent();
            assertThat(floe.tables.load("b")).as("b waits for the next poll").isEmpty();
            step(jobs);
            assertThat(rows(floe, "b")).as("the next poll started with b").isEqualTo(5);
        }
    }

    @Test
    void aRoundThatLostItsLeaseCannotCommitAfterTheNewHolderRemovedItsFiles() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir, hooks::decorate)) {
            MeterRegistry firstMeters = new SimpleMeterRegistry();
            TableJobs first = jobs(floe, "agent-1", firstMeters);
            // Compaction once two files are in excess; nothing expires within the test.
            Topic topic = topic(
                    floe,
                    "orders",
                    Map.of(
                            TableflowConfigs.COMPACTION_TRIGGER_FILES,
                            "2",
                            TableflowConfigs.SNAPSHOT_RETENTION_MS,
                            Long.toString(Duration.ofDays(30).toMillis())));
            produce(floe, topic, 0, 5);
            step(first);
            produce(floe, topic, 5, 5);
            step(first);
            assertThat(rows(floe, "orders")).isEqualTo(10);

            // The first agent's next round commits, then its compaction pauses right before its commit (the
            // agent is paused: it renews nothing either). The compaction the new holder runs meanwhile loses
            // to another writer, as compactions do.
            CountDownLatch paused = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            List<String> replaces = new ArrayList<>();
            hooks.onCommit = (identifier, updated) -> {
                if (identifier.name().equals("orders")
                        && updated.currentSnapshot() != null
                        && DataOperations.REPLACE.equals(
                                updated.currentSnapshot().operation())) {
                    replaces.add(Thread.currentThread().getName());
                    if (replaces.size() == 1) {
                        paused.countDown();
                        await(resume);
                    } else if (replaces.size() == 2) {
                        throw new org.apache.iceberg.exceptions.CommitFailedException(
                                "injected: the new holder's compaction lost to another commit");
                    }
                }
            };
            produce(floe, topic, 10, 5);
            clock.step(Duration.ofSeconds(1));
            CompletableFuture<Void> zombie = CompletableFuture.runAsync(first::poll);
            assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();

            // Two days on, another agent takes the table: nothing new to commit; its maintenance removes the
            // files older than the orphan age (a day) that no snapshot references: the paused compaction's.
            clock.step(Duration.ofDays(2));
            MeterRegistry secondMeters = new SimpleMeterRegistry();
            TableJobs second = jobs(floe, "agent-2", secondMeters);
            step(second);
            assertThat(holder(floe, "orders")).isEqualTo("agent-2");
            assertThat(counter(secondMeters, "floe.tableflow.maintenance.orphans.removed"))
                    .as("the paused compaction's files, removed as orphans")
                    .isPositive();

            resume.countDown();
            zombie.get(30, TimeUnit.SECONDS);
            assertThat(counter(firstMeters, "floe.tableflow.maintenance.files.rewritten"))
                    .as("the paused compaction committed nothing")
                    .isZero();
            Table table = floe.tables.load("orders").orElseThrow();
            assertThat(missingFiles(table))
                    .as("files the table references that do not exist")
                    .isEmpty();
            assertThat(rows(floe, "orders")).isEqualTo(15);
        }
    }

    private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(2);

    private TableJobs jobs(TableflowHarness floe, String agent, MeterRegistry meters) {
        return new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool-" + agent))
                        .withRoundLimits(Duration.ofSeconds(5), ROUND_TIMEOUT),
                agent,
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                meters);
    }

    private static Topic topic(TableflowHarness floe, String name, Map<String, String> more) {
        Map<String, String> configs = new HashMap<>(Map.of(
                TableflowConfigs.ENABLED, "true",
                TableflowConfigs.COMMIT_INTERVAL_MS, "1"));
        configs.putAll(more);
        return floe.agent.topics().create(new NewTopic(name, 1, configs), false);
    }

    /** Renews {@code jobs}' leases every 10 s for {@code duration}. */
    private void renewFor(TableJobs jobs, Duration duration) {
        for (Duration passed = Duration.ZERO; passed.compareTo(duration) < 0; passed = passed.plusSeconds(10)) {
            clock.step(Duration.ofSeconds(10));
            jobs.renewLeases();
        }
    }

    private void step(TableJobs jobs) {
        clock.step(Duration.ofSeconds(1));
        jobs.poll();
    }

    private void produce(TableflowHarness floe, Topic topic, int from, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] =
                    new SimpleRecord(clock.millis(), null, ("value " + (from + i)).getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, records).buffer();
        floe.agent.produce().append(topic, 0, batch).join();
    }

    /** Who holds the table's lease at the clock's time, as the store has it ("nobody" once it ran out). */
    private String holder(TableflowHarness floe, String topic) {
        String url = "jdbc:sqlite:" + dataDir.resolve("metadata.db").toAbsolutePath();
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement select =
                        connection.prepareStatement("SELECT owner, expires_at FROM job_leases WHERE job = ?")) {
            select.setString(1, "tableflow/" + topic);
            try (ResultSet row = select.executeQuery()) {
                return row.next() && row.getLong(2) > clock.millis() ? row.getString(1) : "nobody";
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int rows(TableflowHarness floe, String topic) {
        return floe.tables
                .load(topic)
                .map(TableflowHarness::rows)
                .map(List::size)
                .orElse(0);
    }

    private static double counter(MeterRegistry meters, String name) {
        return meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static List<String> missingFiles(Table table) {
        List<String> missing = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                if (!table.io().newInputFile(task.file().location()).exists()) {
                    missing.add(task.file().location());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return missing;
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the test did not let the round go on in 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A hook on the commits of the tables the catalog loads: the table and the metadata it would commit. */
    private interface CommitHook {
        void committing(TableIdentifier table, TableMetadata updated);
    }

    /** The catalog's hooks: before each table load, before each commit of a loaded table. */
    private static final class Hooks {
        volatile Consumer<TableIdentifier> onLoad = identifier -> {};
        volatile CommitHook onCommit = (identifier, updated) -> {};

        Catalog decorate(Catalog catalog) {
            return (Catalog) Proxy.newProxyInstance(
                    Catalog.class.getClassLoader(),
                    new Class<?>[] {Catalog.class, SupportsNamespaces.class, AutoCloseable.class},
                    (proxy, method, args) -> {
                        boolean load = method.getName().equals("loadTable") && args != null && args.length == 1;
                        if (load) {
                            onLoad.accept((TableIdentifier) args[0]);
                        }
                        Object result;
                        try {
                            result = method.invoke(catalog, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (load) {
                            TableIdentifier identifier = (TableIdentifier) args[0];
                            Table table = (Table) result;
                            return new BaseTable(
                                    new ForwardingTableOperations(((HasTableOperations) table).operations()) {
                                        @Override
                                        public void commit(TableMetadata base, TableMetadata updated) {
                                            if (!Objects.equals(base.currentSnapshot(), updated.currentSnapshot())) {
                                                onCommit.committing(identifier, updated);
                                            }
                                            delegate.commit(base, updated);
                                        }
                                    },
                                    table.name());
                        }
                        return result;
                    });
        }
    }
}
