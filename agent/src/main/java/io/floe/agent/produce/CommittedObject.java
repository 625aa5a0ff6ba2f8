package io.floe.agent.produce;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ProducerState;
import java.util.List;
import java.util.Set;

/**
 * What one commit did for the read path: the batches it appended, now readable, in commit order; and
 * the partitions whose views may now be behind the store, to be read from it again: those of a commit
 * whose outcome is unknown (it may have applied), and those where a batch was answered as a duplicate
 * (an earlier attempt stored it: through an agent that died, or a commit whose answer was lost). Without
 * that, an agent that commits nothing more to such a partition would never show those records.
 */
public record CommittedObject(List<Appended> appended, Set<TopicPartition> stalePartitions) {

    public CommittedObject {
        appended = List.copyOf(appended);
        stalePartitions = Set.copyOf(stalePartitions);
    }

    public CommittedObject(List<Appended> appended) {
        this(appended, Set.of());
    }

    /** A commit whose outcome is not known, to the partitions of {@code batches}. */
    static CommittedObject unknown(Set<TopicPartition> partitions) {
        return new CommittedObject(List.of(), partitions);
    }

    /**
     * One appended batch and its partition's log start after the commit; {@code transactionalProducerId}
     * is the producer id of a transactional batch, {@link ProducerState#NO_PRODUCER_ID} for others.
     */
    public record Appended(BatchCoordinate batch, long logStartOffset, long transactionalProducerId) {

        /** A batch outside any transaction. */
        public Appended(BatchCoordinate batch, long logStartOffset) {
            this(batch, logStartOffset, ProducerState.NO_PRODUCER_ID);
        }
    }
}
