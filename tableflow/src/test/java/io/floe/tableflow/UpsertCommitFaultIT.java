package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.UpsertRounds.Change;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An upsert table's row-delta commit whose outcome is lost, that fails before the swap, or that is
 * rejected: after later rounds the table still holds exactly the newest row of every key (one row
 * per key, deleted keys absent) and every data and delete file of its snapshot exists. The job's key
 * index must not trust a commit it cannot see in the table: when it assumes a lost commit applied,
 * or one that applied did not, a key ends up with two rows or none. Each fault runs with the key
 * index in memory and with every round looking its keys up in the table's files.
 */
@Timeout(180)
class UpsertCommitFaultIT {

    private static final int PARTITIONS = 2;

    @TempDir
    Path dataDir;

    private CommitFaults faults;
    private TableflowHarness floe;
    private UpsertRounds rounds;

    @AfterEach
    void stop() throws Exception {
        if (floe != null) {
            floe.close();
        }
    }

    /** Every fault, with the key index in memory (the default bound) and with every round looking its keys up. */
    static Stream<Arguments> faults() {
        return Stream.of(Fault.values())
                .flatMap(fault -> Stream.of(Arguments.of(fault, "500000"), Arguments.of(fault, "0")));
    }

    @ParameterizedTest(name = "{0} index.max.keys={1}")
    @MethodSource("faults")
    void aFailedOrUnknownUpsertCommitLeavesTheNewestRowOfEveryKeyOnce(Fault fault, String indexMaxKeys) {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog));
        rounds = new UpsertRounds(
                floe,
                dataDir.resolve("spool"),
                PARTITIONS,
                Map.of("floe.tableflow.upsert.index.max.keys", indexMaxKeys));
        produceRound(0);
        rounds.pollUntilCaughtUp();

        produceRound(1);
        TableIdentifier table = floe.tables.identifier(UpsertRounds.TOPIC);
        faults.arm(table, fault);
        rounds.poll();
        assertThat(faults.fired()).containsExactly(new CommitFaults.Fired(table, fault));

        produceRound(2);
        rounds.pollUntilCaughtUp();
        produceRound(3);
        rounds.pollUntilCaughtUp();
        assertEveryFileOfTheSnapshotExists();
        rounds.assertNewestRowOfEveryKey();
    }

    /**
     * One batch on each partition: twelve records over five keys of that partition, every fourth a
     * tombstone, so each round updates and deletes rows of earlier rounds.
     */
    private void produceRound(int round) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            List<Change> changes = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                String key = "p" + partition + "-k" + ((i + round) % 5);
                boolean tombstone = (i + round) % 4 == 3;
                changes.add(new Change(key, tombstone ? null : round * 1000L + partition * 100L + i));
            }
            rounds.produce(partition, changes);
        }
    }

    private void assertEveryFileOfTheSnapshotExists() {
        Table table = rounds.table();
        List<String> missing = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                List<ContentFile<?>> files = new ArrayList<>(task.deletes());
                files.add(task.file());
                files.stream()
                        .map(ContentFile::location)
                        .filter(location -> !table.io().newInputFile(location).exists())
                        .forEach(missing::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(missing)
                .as("data and delete files of the current snapshot that do not exist")
                .isEmpty();
    }
}
