package io.floe.agent.transaction;

import io.floe.core.log.TransactionMarker;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/** Who the coordinator tells about the transaction markers its store operations write. */
public interface MarkerListener {

    /** Markers the store just wrote, in partition order. */
    void written(List<TransactionMarker> markers);

    /**
     * A store operation that may write markers failed: it may have written some (the store applied it
     * and then failed to answer), and the coordinator does not know which.
     */
    void mayHaveWritten();

    static MarkerListener of(Consumer<List<TransactionMarker>> written, Runnable mayHaveWritten) {
        Objects.requireNonNull(written, "written");
        Objects.requireNonNull(mayHaveWritten, "mayHaveWritten");
        return new MarkerListener() {
            @Override
            public void written(List<TransactionMarker> markers) {
                written.accept(markers);
            }

            @Override
            public void mayHaveWritten() {
                mayHaveWritten.run();
            }
        };
    }
}
