package io.floe.agent.produce;

import io.floe.core.log.BatchCoordinate;
import java.util.List;

/** What one commit appended: the batches now readable, in commit order. */
public record CommittedObject(List<Appended> appended) {

    public CommittedObject {
        appended = List.copyOf(appended);
    }

    /** One appended batch and its partition's log start after the commit. */
    public record Appended(BatchCoordinate batch, long logStartOffset) {}
}
