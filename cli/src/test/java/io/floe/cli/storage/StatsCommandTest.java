package io.floe.cli.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StatsCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out, true));
        floe.setErr(new PrintWriter(err, true));
        return floe.execute(args);
    }

    @Test
    void printsWhatTheStoreReferences() {
        Path db = dir.resolve("metadata.db");
        try (MetadataStore store = SqlMetadataStore.openSqlite(db)) {
            Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
            ProduceFixture produce = new ProduceFixture(store);
            produce.commit(produce.batch(topic, 0, 5));
            produce.commit(produce.batch(topic, 1, 5), produce.batch(topic, 0, 1));
            produce.registerUpload(); // registered, never committed
        }

        assertThat(run("storage", "stats", "--metadata", "sqlite:" + db)).isZero();

        assertThat(out.toString().lines())
                .containsExactly(
                        "Metadata store: sqlite:" + db,
                        "Committed objects: 2",
                        "Committed bytes: " + 3 * ProduceFixture.BATCH_BYTES,
                        "Registered uploads, not committed: 1",
                        "Objects pending deletion: 0");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void aStoreInUseByAnAgentIsReportedAsLocked() {
        Path db = dir.resolve("metadata.db");
        MetadataStore running = SqlMetadataStore.openSqlite(db); // holds the lock, as an agent does
        try {
            assertThat(run("storage", "stats", "--metadata", "sqlite:" + db)).isEqualTo(1);
        } finally {
            running.close();
        }

        assertThat(err.toString())
                .startsWith("floe storage stats: cannot open metadata store " + db)
                .contains("another Floe agent is using this embedded metadata store")
                .contains("Stop that agent first, or read the same figures from its /metrics endpoint")
                .hasLineCount(1);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aMissingStoreIsNotCreated() {
        Path db = dir.resolve("nothing/metadata.db");

        assertThat(run("storage", "stats", "--metadata", "sqlite:" + db)).isEqualTo(1);

        assertThat(err.toString())
                .isEqualTo("floe storage stats: no metadata store at " + db + ": the file does not exist"
                        + System.lineSeparator());
        assertThat(db.getParent()).doesNotExist();
    }

    @Test
    void aBadUrlIsAUsageError() {
        assertThat(run("storage", "stats", "--metadata", "postgresql://floe:hunter2@/floe"))
                .isEqualTo(2);

        assertThat(err.toString())
                .startsWith("floe storage stats: invalid value for --metadata:")
                .contains("names no host")
                .doesNotContain("hunter2");
        assertThat(run("storage")).isEqualTo(2);
    }

    @Test
    void sizesAreAlsoShownInBinaryUnits() {
        assertThat(StatsCommand.bytes(1023)).isEmpty();
        assertThat(StatsCommand.bytes(1536)).isEqualTo(" (1.5 KiB)");
        assertThat(StatsCommand.bytes(64L << 20)).isEqualTo(" (64.0 MiB)");
    }
}
