package io.floe.tableflow.changes;

import java.io.IOException;

/** Receives a query's changes in order (by commit, then partition, then offset). */
@FunctionalInterface
public interface ChangeSink {
    void accept(Change change) throws IOException;
}
