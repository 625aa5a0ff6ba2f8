package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.rows.Rows;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Many small rounds through a real agent: the job's maintenance keeps the table's file count low. */
@Timeout(180)
class TableMaintenanceIT {

    private static final int BATCHES = 40;
    private static final int RECORDS_PER_BATCH = 25;
    private static final int TRIGGER_FILES = 4;

    @TempDir
    Path dataDir;

    @Test
    void manySmallRoundsAreCompactedAndEveryRecordStaysOnce() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir).startTableflow(dataDir.resolve("spool"));
                Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic("clicks", 2, (short) 1)
                            .configs(Map.of(
                                    TableflowConfigs.ENABLED, "true",
                                    TableflowConfigs.COMMIT_INTERVAL_MS, "100",
                                    TableflowConfigs.COMPACTION_TRIGGER_FILES, Integer.toString(TRIGGER_FILES)))))
                    .all()
                    .get();
            try (KafkaProducer<byte[], byte[]> producer = producer(floe.bootstrap())) {
                for (int batch = 0; batch < BATCHES; batch++) {
                    for (int i = 0; i < RECORDS_PER_BATCH; i++) {
                        producer.send(new ProducerRecord<>(
                                "clicks", i % 2, null, ("click " + batch + "/" + i).getBytes(StandardCharsets.UTF_8)));
                    }
                    producer.flush();
                    Thread.sleep(150); // a round or more per batch: each would leave a small file
                }
            }
            Table table = floe.awaitCaughtUp("clicks", Duration.ofSeconds(60));

            List<Record> rows = TableflowHarness.rows(table);
            assertThat(rows).hasSize(BATCHES * RECORDS_PER_BATCH);
            Set<String> positions = new HashSet<>();
            rows.forEach(row -> positions.add(row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET)));
            assertThat(positions).hasSize(BATCHES * RECORDS_PER_BATCH);
            // The rounds wrote more files than the bound, so without maintenance the table would exceed it.
            double committed = floe.meters
                    .get("floe.tableflow.files")
                    .tag("topic", "clicks")
                    .counter()
                    .count();
            assertThat(committed).isGreaterThan(2.0 * (1 + TRIGGER_FILES));
            // The bytes need one file; maintenance compacts once the trigger's worth of excess files
            // accumulated (the last round's may not have been compacted yet).
            assertThat(dataFiles(table)).isLessThanOrEqualTo(1 + TRIGGER_FILES);
            double rewritten = floe.meters
                    .get("floe.tableflow.maintenance.files.rewritten")
                    .tag("topic", "clicks")
                    .counter()
                    .count();
            assertThat(rewritten).isGreaterThanOrEqualTo(committed - (1 + TRIGGER_FILES));
        }
    }

    private static int dataFiles(Table table) throws Exception {
        int count = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask ignored : tasks) {
                count++;
            }
        }
        return count;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
