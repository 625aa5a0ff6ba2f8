package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit through the Kafka layer: a flush is sealed before its interval once every connection
 * with produce requests unanswered waits, and only when the agent is configured so.
 */
@Timeout(120)
class FlushWhenProducersWaitTest {

    private static final int SENDS = 20;

    @TempDir
    Path dir;

    @Test
    void aProducerWaitingForEachAnswerIsFlushedWithoutWaitingForTheInterval() throws Exception {
        // An hour's interval: every send would wait for it if the waiting producer did not seal the flush.
        try (AgentFixture floe = AgentFixture.withServer(
                dir, config -> config.withFlush(Duration.ofHours(1), 8L << 20).withFlushWhenProducersWait(true))) {
            List<RecordMetadata> acks = sendOneAtATime(floe);

            assertThat(acks)
                    .extracting(RecordMetadata::offset)
                    .containsExactlyElementsOf(
                            LongStream.range(0, SENDS).boxed().toList());
            assertThat(seals(floe.meters(), "producers_waiting"))
                    .as("one flush per request, each sealed early")
                    .isEqualTo(SENDS);
            assertThat(seals(floe.meters(), "interval")).isZero();
        }
    }

    @Test
    void switchedOffAFlushWaitsForItsInterval() throws Exception {
        try (AgentFixture floe = AgentFixture.withServer(
                dir, config -> config.withFlush(Duration.ofMillis(5), 8L << 20).withFlushWhenProducersWait(false))) {
            List<RecordMetadata> acks = sendOneAtATime(floe);

            assertThat(acks).hasSize(SENDS);
            assertThat(seals(floe.meters(), "producers_waiting")).isZero();
            assertThat(seals(floe.meters(), "interval")).isEqualTo(SENDS);
        }
    }

    private static List<RecordMetadata> sendOneAtATime(AgentFixture floe) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<RecordMetadata> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < SENDS; i++) {
                acks.add(producer.send(new ProducerRecord<>("waits", 0, "k", "v" + i))
                        .get(30, TimeUnit.SECONDS));
            }
        }
        return acks;
    }

    private static double seals(MeterRegistry meters, String reason) {
        return meters.get("floe.produce.flush.seals")
                .tag("reason", reason)
                .counter()
                .count();
    }
}
