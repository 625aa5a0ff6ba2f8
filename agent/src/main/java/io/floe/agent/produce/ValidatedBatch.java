package io.floe.agent.produce;

import io.floe.core.metadata.ProducerState;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.record.StoredBatch;
import java.nio.ByteBuffer;

/**
 * A batch that passed validation: its bytes (exactly as sent) and the facts the commit needs, with how
 * it takes part in its producer's transaction.
 */
record ValidatedBatch(
        ByteBuffer bytes, int recordCount, long maxTimestamp, ProducerState producer, TransactionalAppend transaction) {

    /**
     * The batch stamped with the agent's time, for a topic with {@code message.timestamp.type=LogAppendTime}:
     * its timestamp type and max timestamp are rewritten in place (the CRC with them), as Kafka's broker
     * does; records keep their create times, which readers ignore for such batches.
     */
    ValidatedBatch stampedAt(long logAppendTimeMs) {
        StoredBatch.of(bytes).stampLogAppendTime(logAppendTimeMs);
        return new ValidatedBatch(bytes, recordCount, logAppendTimeMs, producer, transaction);
    }
}
