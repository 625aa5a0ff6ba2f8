package io.floe.tableflow.changes.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OutboxTest {

    /** What was sent, in order: "partition value progress". */
    private final List<String> sent = new ArrayList<>();

    private final StreamLink.Transactions producer = new StreamLink.Transactions() {
        @Override
        public void begin() {}

        @Override
        public void send(String topic, int partition, byte[] key, byte[] value, String progress) {
            sent.add(partition + " " + (value == null ? "tombstone" : new String(value)) + " " + progress);
        }

        @Override
        public void commit(String group, Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public void abort() {}

        @Override
        public void close() {}
    };

    @Test
    void theLastRecordOfEachPartitionCarriesTheProgressAndOrderIsKept() {
        Outbox outbox = new Outbox(producer, "changes");
        outbox.send(0, null, "a".getBytes());
        outbox.send(1, null, "b".getBytes());
        outbox.send(0, null, "c".getBytes());
        outbox.send(0, null, null);

        outbox.flush("P");

        assertThat(sent).containsExactly("0 a null", "0 c null", "0 tombstone P", "1 b P");
        assertThat(outbox.events()).as("tombstones are no events").isEqualTo(3);
    }
}
