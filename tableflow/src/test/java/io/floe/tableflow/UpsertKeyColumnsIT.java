package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.AppendResult;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.ProducedLog.Produced;
import io.floe.tableflow.changes.Change;
import io.floe.tableflow.changes.ChangeKind;
import io.floe.tableflow.changes.ChangeLimits;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.changes.Point;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.delta.DeltaReads;
import io.floe.tableflow.rows.UpsertKey;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upsert tables keyed by declared columns of the value ({@code floe.tableflow.upsert.key.columns}): one
 * column ({@code id}) and two ({@code region,id}), each with the key index in memory and with every round
 * looking its keys up in the table's files, published to Delta too. Records of an id carry random record
 * keys or none (so the record key decides nothing), tombstones name their row with a JSON key of the key
 * columns (as Debezium keys its events), and malformed tombstones and values are dead letters. Through
 * rounds of inserts, updates and deletes, compactions, and two crashes mid-round (a commit that applied
 * but whose answer was lost, and one that did not apply, each followed by another agent's jobs taking
 * the table over with nothing of the old ones' memory), after every round: the table holds exactly the
 * newest row of every id the produced records imply, one row an id, and Delta Kernel reads the same rows
 * by value. At the end: the dead-letter table holds exactly the malformed records, and the change
 * queries' full, min and append answers, keyed by the id columns, equal the changes the log implies.
 */
@Timeout(600)
class UpsertKeyColumnsIT {

    private static final String TOPIC = "accounts";
    private static final int PARTITIONS = 2;
    private static final int IDS = 24;
    private static final int ROUNDS = 10;
    private static final int MAX_POLLS = 100;
    private static final String SCHEMA = """
            {"type": "object", "required": ["region", "id", "balance"], "properties": {
              "region": {"type": "string"}, "id": {"type": "integer"}, "balance": {"type": "integer"},
              "note": {"type": ["string", "null"]}}}""";
    private static final String[] REGIONS = {"eu", "us"};

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock();
    private final Random random = new Random(1919);
    private final ProducedLog produced = new ProducedLog();
    /** The newest row of every live id, "partition:offset/balance/region", as the produced records imply. */
    private final Map<String, String> expected = new TreeMap<>();
    /** The malformed records, "partition:offset". */
    private final Set<String> malformed = new TreeSet<>();

    private TableflowHarness floe;
    private Topic topic;
    private TableJobs jobs;
    private CommitFaults faults;
    private SimpleMeterRegistry meters;
    private boolean twoColumns;
    private int agents;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog));
    }

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    static Stream<Arguments> tables() {
        return Stream.of(
                Arguments.of("id", "500000"),
                Arguments.of("id", "0"),
                Arguments.of("region,id", "500000"),
                Arguments.of("region, id", "0"));
    }

    @ParameterizedTest(name = "key.columns={0} index.max.keys={1}")
    @MethodSource("tables")
    void theTableHoldsTheNewestRowOfEveryIdAndItsChangesAreWhatTheLogImplies(String keyColumns, String maxKeys)
            throws IOException {
        twoColumns = keyColumns.contains(",");
        topic = floe.agent
                .topics()
                .create(
                        new NewTopic(
                                TOPIC,
                                PARTITIONS,
                                Map.of(
                                        TableflowConfigs.ENABLED, "true",
                                        TableflowConfigs.MODE, "upsert",
                                        TableflowConfigs.FORMAT, "json",
                                        TableflowConfigs.SCHEMA, SCHEMA,
                                        TableflowConfigs.UPSERT_KEY_COLUMNS, keyColumns,
                                        TableflowConfigs.UPSERT_INDEX_MAX_KEYS, maxKeys,
                                        TableflowConfigs.COMMIT_INTERVAL_MS, "1",
                                        TableflowConfigs.DELTA_ENABLED, "true")),
                        false);
        restart();
        double lookups = 0;
        double indexKeys = 0;
        for (int round = 0; round < ROUNDS; round++) {
            produceRound(round == 0 ? 0.0 : 0.2);
            if (round == 3 || round == 6) {
                crashMidRound(round == 3 ? Fault.APPLIED_THEN_UNKNOWN : Fault.UNKNOWN_NOT_APPLIED);
                lookups += meter("floe.tableflow.upsert.lookups");
                restart();
            }
            pollUntilCaughtUp();
            assertNewestRowOfEveryId();
            assertDeltaReadsTheSameRows();
            indexKeys = Math.max(indexKeys, meter("floe.tableflow.upsert.index.keys"));
        }
        lookups += meter("floe.tableflow.upsert.lookups");

        Table table = floe.tables.load(TOPIC).orElseThrow();
        assertThat(table.schema().identifierFieldNames())
                .as("the key columns are the table's identifier fields")
                .containsExactlyInAnyOrderElementsOf(
                        List.of(keyColumns.replace(" ", "").split(",")));
        if (maxKeys.equals("0")) {
            assertThat(lookups).as("rounds that looked their keys up").isPositive();
            assertThat(indexKeys).as("keys held in memory").isZero();
        } else {
            assertThat(indexKeys).as("keys held in memory").isPositive();
        }
        List<Snapshot> history = new ArrayList<>();
        table.snapshots().forEach(history::add);
        assertThat(history)
                .as("compactions dropped replaced rows with their deletion vectors")
                .anyMatch(snapshot -> snapshot.summary().containsKey("floe.compacted-at")
                        && Long.parseLong(snapshot.summary().getOrDefault("removed-dvs", "0")) > 0);
        List<String> deadLetters = new ArrayList<>();
        for (Record row :
                TableflowHarness.rows(floe.tables.loadDeadLetters(TOPIC).orElseThrow())) {
            deadLetters.add(row.getField("kafka_partition") + ":" + row.getField("kafka_offset"));
        }
        assertThat(deadLetters)
                .as("the dead letters: malformed tombstones and values, each once")
                .isNotEmpty()
                .containsExactlyInAnyOrderElementsOf(malformed);
        assertChangesAreWhatTheLogImplies(table);
    }

    /**
     * One batch a partition. An id always goes to the same partition, its record key is random or none. A
     * record is a value (a new balance, sometimes a new region), a tombstone whose key names its id, or
     * now and then malformed: a tombstone without a key, with a key that is no JSON object or lacks a key
     * column, or a value without an id.
     */
    private void produceRound(double tombstones) {
        Map<Integer, List<SimpleRecord>> batches = new HashMap<>();
        Map<Integer, List<Produced>> sent = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            int id = random.nextInt(IDS);
            String region = REGIONS[random.nextInt(2)];
            String identity = twoColumns ? region + "/" + id : Integer.toString(id);
            int partition = twoColumns ? (id + (region.equals("eu") ? 0 : 1)) % PARTITIONS : id % PARTITIONS;
            byte[] recordKey =
                    random.nextInt(4) == 0 ? null : ("rk-" + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
            long balance = random.nextInt(1_000_000);
            double kind = random.nextDouble();
            SimpleRecord record;
            Produced change;
            if (kind < 0.05) {
                record = malformed(random.nextInt(4), id, region, balance);
                change = new Produced(partition, 0, identity, balance, true);
            } else if (kind < 0.05 + tombstones) {
                String key = twoColumns
                        ? "{\"id\": " + id + ", \"region\": \"" + region + "\"}"
                        : "{\"id\": " + id + (random.nextBoolean() ? ", \"region\": \"elsewhere\"}" : "}");
                record = new SimpleRecord(clock.millis(), key.getBytes(StandardCharsets.UTF_8), null);
                change = new Produced(partition, 0, identity, null, false);
            } else {
                String value = "{\"region\": \"" + region + "\", \"id\": " + id + ", \"balance\": " + balance
                        + (random.nextBoolean() ? ", \"note\": \"n\"" : "") + "}";
                record = new SimpleRecord(clock.millis(), recordKey, value.getBytes(StandardCharsets.UTF_8));
                change = new Produced(partition, 0, identity, balance, false);
            }
            batches.computeIfAbsent(partition, p -> new ArrayList<>()).add(record);
            sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(change);
        }
        batches.forEach((partition, records) -> {
            AppendResult result = floe.agent
                    .produce()
                    .append(
                            topic,
                            partition,
                            MemoryRecords.withRecords(Compression.NONE, records.toArray(SimpleRecord[]::new))
                                    .buffer())
                    .join();
            long base = ((AppendResult.Appended) result).baseOffset();
            List<Produced> changes = sent.get(partition);
            for (int i = 0; i < changes.size(); i++) {
                Produced change = changes.get(i);
                Produced at = new Produced(partition, base + i, change.key(), change.balance(), change.bad());
                produced.add(at);
                if (at.bad()) {
                    malformed.add(partition + ":" + at.offset());
                }
                expect(at, records.get(i));
            }
        });
    }

    private SimpleRecord malformed(int kind, int id, String region, long balance) {
        byte[] value =
                ("{\"region\": \"" + region + "\", \"balance\": " + balance + "}").getBytes(StandardCharsets.UTF_8);
        String key = switch (kind) {
            case 0 -> null; // a tombstone without a key
            case 1 -> Integer.toString(id); // a key that is no JSON object
            case 2 -> twoColumns ? "{\"id\": " + id + "}" : "{\"region\": \"" + region + "\"}"; // lacks a column
            default -> "rk"; // a value without an id
        };
        return new SimpleRecord(
                clock.millis(), key == null ? null : key.getBytes(StandardCharsets.UTF_8), kind == 3 ? value : null);
    }

    private void expect(Produced record, SimpleRecord sent) {
        if (record.bad()) {
            return;
        }
        if (record.balance() == null) {
            expected.remove(record.key());
        } else {
            String value = StandardCharsets.UTF_8.decode(sent.value()).toString();
            String region = value.substring(value.indexOf("\"region\": \"") + 11, value.indexOf("\", \"id\""));
            expected.put(
                    record.key(), record.partition() + ":" + record.offset() + "/" + record.balance() + "/" + region);
        }
    }

    private void assertNewestRowOfEveryId() {
        Map<String, String> actual = new TreeMap<>();
        for (Record row : TableflowHarness.rows(floe.tables.load(TOPIC).orElseThrow())) {
            String identity = identity(row);
            String previous = actual.put(
                    identity,
                    row.getField("kafka_partition") + ":" + row.getField("kafka_offset") + "/" + row.getField("balance")
                            + "/" + row.getField("region"));
            assertThat(previous).as("a second row of id %s", identity).isNull();
        }
        assertThat(actual).as("the newest row of every id").isEqualTo(expected);
    }

    private void assertDeltaReadsTheSameRows() {
        Table table = floe.tables.load(TOPIC).orElseThrow();
        String location = floe.io.locations().location(floe.io.locations().key(table.location()));
        assertThat(DeltaReads.deltaRows(floe.objects, floe.io.locations(), location))
                .as("rows read through the Delta log")
                .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(table, TableflowHarness.rows(table)));
    }

    /** Full, min and append answers from the start and from a middle commit, as the produced records imply. */
    private void assertChangesAreWhatTheLogImplies(Table table) throws IOException {
        ChangeQueries changes = new ChangeQueries(
                floe.tables,
                floe.metadata,
                floe.metadata,
                new CommittedLog(floe.metadata, floe.objects),
                ChangeLimits.DEFAULTS,
                Clock.systemUTC(),
                floe.meters);
        List<Map.Entry<Long, Watermark>> commits = ProducedLog.commits(table);
        Offsets end = Offsets.of(commits.get(commits.size() - 1).getValue().nextOffsets());
        Map.Entry<Long, Watermark> middle = commits.get(commits.size() / 2);
        for (Point from : List.of(new Point.Earliest(), new Point.AtSnapshot(middle.getKey()))) {
            Offsets start = from instanceof Point.Earliest
                    ? new Offsets(new TreeMap<>())
                    : Offsets.of(middle.getValue().nextOffsets());
            assertThat(answer(changes, from, ChangeKind.FULL))
                    .as("full delta from %s", from)
                    .isNotEmpty()
                    .containsExactlyElementsOf(produced.full(table, start, end));
            assertThat(answer(changes, from, ChangeKind.MIN))
                    .as("min delta from %s", from)
                    .containsExactlyElementsOf(produced.min(table, start, end));
            assertThat(answer(changes, from, ChangeKind.APPEND))
                    .as("inserts from %s", from)
                    .containsExactlyElementsOf(produced.inserts(table, start, end));
        }
        assertThat(answer(changes, new Point.Earliest(), ChangeKind.FULL))
                .anyMatch(line -> line.startsWith("c "))
                .anyMatch(line -> line.startsWith("u "))
                .anyMatch(line -> line.startsWith("d "));
    }

    /** The answer's changes, each shown with its key's id columns (which must be its row's). */
    private List<String> answer(ChangeQueries changes, Point from, ChangeKind kind) throws IOException {
        UpsertKey key = UpsertKey.of(floe.tables.load(TOPIC).orElseThrow().schema());
        List<String> lines = new ArrayList<>();
        changes.plan(TOPIC, from, new Point.Latest(), kind).run(change -> {
            String identity = String.join(
                    "/",
                    Arrays.stream(key.values(change.key())).map(String::valueOf).toList());
            assertThat(identity).as("the key of %s", change).isEqualTo(identity(rowOf(change)));
            lines.add(ProducedLog.render(change, identity));
        });
        return lines;
    }

    private static Record rowOf(Change change) {
        return change.after() != null ? change.after() : change.before();
    }

    /**
     * The next round's commit ends in {@code fault}, as when the agent crashes at its commit: its jobs are
     * gone (the caller starts another agent's), and the new owner must find out from the table.
     */
    private void crashMidRound(Fault fault) {
        faults.arm(floe.tables.identifier(TOPIC), fault);
        TablePolls.poll(clock, jobs);
        assertThat(faults.fired()).as("the injected fault").anyMatch(fired -> fired.fault() == fault);
    }

    private String identity(Record row) {
        return twoColumns ? row.getField("region") + "/" + row.getField("id") : String.valueOf(row.getField("id"));
    }

    /** Another agent's jobs take the table over: nothing the old ones held in memory is left. */
    private void restart() {
        clock.step(Duration.ofMinutes(1));
        meters = new SimpleMeterRegistry();
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")),
                "agent-" + ++agents,
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                meters);
    }

    /**
     * Polls until the table holds every record produced and the Delta log mirrors its current snapshot
     * (after a crash between the two commits, a later round completes the Delta one).
     */
    private void pollUntilCaughtUp() {
        TablePolls.untilCaughtUp(floe, TOPIC, clock, jobs, MAX_POLLS, this::mirrored);
    }

    private boolean mirrored(Table table) {
        return DeltaLogs.mirroredSequence(floe, TOPIC)
                == table.currentSnapshot().sequenceNumber();
    }

    private double meter(String name) {
        Meter meter = meters.find(name).tag("topic", TOPIC).meter();
        if (meter == null) {
            return 0;
        }
        double value = 0;
        for (Measurement measurement : meter.measure()) {
            value += measurement.getValue();
        }
        return value;
    }
}
