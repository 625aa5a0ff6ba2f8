package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own {@code kafka-transactions.sh} (the {@code TransactionsCommand} of kafka-tools, run as a
 * separate JVM as the script runs it) against an agent: list, describe, describe-producers,
 * find-hanging and abort of an open transaction by its start offset, which an operator uses on a
 * hanging one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TransactionsToolIT {

    private static final String TOPIC = "payments";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final long TOOL_TIMEOUT_SECONDS = 60;

    @TempDir
    Path dataDir;

    @Test
    void listDescribeFindHangingAndAbortWork() throws Exception {
        try (InProcessFloe floe = InProcessFloe.start(dataDir);
                KafkaProducer<byte[], byte[]> committed = transactional(floe, "settled");
                KafkaProducer<byte[], byte[]> open = transactional(floe, "stuck")) {
            Records.createTopic(floe.bootstrap(), TOPIC, 1);
            committed.initTransactions();
            committed.beginTransaction();
            committed.send(new ProducerRecord<>(TOPIC, 0, null, Records.bytes("paid")));
            committed.commitTransaction();
            open.initTransactions();
            open.beginTransaction();
            open.send(new ProducerRecord<>(TOPIC, 0, null, Records.bytes("pending")));
            open.flush();
            long openAt = 2; // after the committed record (0) and its marker (1)

            String list = tool(floe, "list");
            assertThat(list)
                    .containsPattern("(?m)^settled\\s+0\\s+\\d+\\s+CompleteCommit\\s*$")
                    .containsPattern("(?m)^stuck\\s+0\\s+\\d+\\s+Ongoing\\s*$");

            String describe = tool(floe, "describe", "--transactional-id", "stuck");
            assertThat(describe)
                    .containsPattern("(?m)^0\\s+stuck\\s+\\d+\\s+\\d+\\s+Ongoing\\s+60000\\s.*\\s" + TOPIC + "-0\\s*$");

            String producers = tool(floe, "describe-producers", "--topic", TOPIC, "--partition", "0");
            // The open transaction's producer, with the offset its transaction began at.
            assertThat(producers).containsPattern("(?m)^\\d+\\s+\\d+\\s+0\\s+0\\s+\\d+\\s+" + openAt + "\\s*$");

            String hanging = tool(floe, "find-hanging", "--broker-id", "0", "--max-transaction-timeout", "1");
            // Its coordinator knows the open transaction: it is not hanging, and the table has its header only.
            assertThat(hanging.strip().lines()).singleElement().asString().startsWith("Topic\tPartition");

            assertThat(lastStableOffset(floe)).isEqualTo(openAt);
            tool(floe, "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", Long.toString(openAt));
            assertThat(lastStableOffset(floe))
                    .as("the open transaction no longer holds readers back")
                    .isEqualTo(4);
        }
    }

    private static KafkaProducer<byte[], byte[]> transactional(InProcessFloe floe, String transactionalId) {
        return Records.producer(floe.bootstrap(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId));
    }

    private static long lastStableOffset(InProcessFloe floe) throws Exception {
        try (Admin admin = Records.admin(floe.bootstrap())) {
            return admin.listOffsets(
                            Map.of(PARTITION, OffsetSpec.latest()),
                            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .partitionResult(PARTITION)
                    .get()
                    .offset();
        }
    }

    /** Runs {@code kafka-transactions.sh ARGS} against the agent; returns its output, failing on a non-zero exit. */
    private static String tool(InProcessFloe floe, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.TransactionsCommand",
                "--bootstrap-server",
                floe.bootstrap()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(TOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("kafka-transactions.sh " + String.join(" ", args) + " did not end in "
                    + TOOL_TIMEOUT_SECONDS + " s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue())
                .as("kafka-transactions.sh %s exited with output:%n%s", String.join(" ", args), output)
                .isZero();
        return output;
    }
}
