package io.floe.agent.fetch;

import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** A spy on a metadata store: forwards every operation unchanged and counts the calls of each. */
final class CountingStore extends ForwardingMetadataStore {

    private final Map<MetadataOperation, Integer> calls = new ConcurrentHashMap<>();

    CountingStore(MetadataStore store) {
        super(store);
    }

    @Override
    protected <T> T call(MetadataOperation operation, Supplier<T> call) {
        calls.merge(operation, 1, Integer::sum);
        return call.get();
    }

    /** Calls of {@code operation} so far. */
    int calls(MetadataOperation operation) {
        return calls.getOrDefault(operation, 0);
    }
}
