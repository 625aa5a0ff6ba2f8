package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent in a child JVM killed with SIGKILL (no shutdown hook runs) while producers are sending:
 * after a restart on the same data directory, every acknowledged record is there, once.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CrashRecoveryIT {

    private static final String TOPIC = "crash";

    @TempDir
    Path dataDir;

    private AgentProcess agent;

    @AfterEach
    void killLeftovers() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void anAbruptKillLosesNoAcknowledgedRecord() throws Exception {
        int port = InProcessFloe.freePort();
        String bootstrap = "127.0.0.1:" + port;
        agent = startAgent(port);
        awaitReady(bootstrap);
        Records.createTopic(bootstrap, TOPIC, 3);

        ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
        CountDownLatch enoughAcked = new CountDownLatch(5_000);
        try (KafkaProducer<byte[], byte[]> producer = Records.producer(
                bootstrap,
                Map.of(
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                        5_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        2_000,
                        ProducerConfig.MAX_BLOCK_MS_CONFIG,
                        2_000))) {
            for (int i = 0; i <= 10_000; i++) {
                String value = "value-" + i;
                producer.send(
                        new ProducerRecord<>(TOPIC, Records.bytes("k" + i), Records.bytes(value)), (ack, error) -> {
                            if (error == null) {
                                acknowledged.add(value);
                                enoughAcked.countDown();
                            }
                        });
            }
            // Kill while sends are still in flight; no more sends after it (each would block on metadata).
            assertThat(enoughAcked.await(60, TimeUnit.SECONDS))
                    .as("acks before the kill")
                    .isTrue();
            agent.kill();
            producer.flush();
            producer.close(Duration.ofSeconds(10));
        }
        Set<String> acked = new HashSet<>(acknowledged);
        assertThat(acked).hasSizeGreaterThanOrEqualTo(5_000);

        agent = startAgent(port);
        awaitReady(bootstrap);
        List<TopicPartition> partitions = IntStream.range(0, 3)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
        // Read to the end: the log may hold more than what was acknowledged (batches committed whose
        // answers the kill cut off), so a count of acknowledged records is not where to stop.
        List<ConsumerRecord<byte[], byte[]>> read = Records.readToEnd(bootstrap, partitions, Duration.ofMinutes(1));
        // Everything acknowledged is there; more may be (a batch committed whose answer the kill cut off).
        List<String> values = new ArrayList<>();
        read.forEach(r -> values.add(Records.text(r.value())));
        assertThat(new HashSet<>(values)).containsAll(acked);
        assertThat(values).doesNotHaveDuplicates();
        for (TopicPartition tp : partitions) {
            List<Long> offsets = read.stream()
                    .filter(r -> r.partition() == tp.partition())
                    .map(ConsumerRecord::offset)
                    .toList();
            assertThat(offsets)
                    .as("dense offsets of %s", tp)
                    .containsExactlyElementsOf(IntStream.range(0, offsets.size())
                            .mapToObj(i -> (long) i)
                            .toList());
        }
    }

    private AgentProcess startAgent(int port) throws IOException {
        return AgentProcess.start(
                List.of("-Xmx512m"),
                List.of(
                        "--listen",
                        "127.0.0.1:" + port,
                        "--http-listen",
                        "127.0.0.1:" + InProcessFloe.freePort(),
                        "--data-dir",
                        dataDir.toString(),
                        "--flush-interval-ms",
                        "10"),
                Map.of(),
                dataDir.resolveSibling(dataDir.getFileName() + "-agent.log"));
    }

    private static void awaitReady(String bootstrap) throws Exception {
        try (Admin admin = Records.admin(bootstrap)) {
            // The admin client retries connecting until its timeout; no fixed sleep.
            admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
        }
    }
}
