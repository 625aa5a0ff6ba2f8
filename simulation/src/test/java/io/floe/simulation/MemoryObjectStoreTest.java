package io.floe.simulation;

import io.floe.core.object.ObjectStore;
import io.floe.testkit.object.ObjectStoreContract;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** The simulation's store keeps the contract every store keeps, its local files included. */
class MemoryObjectStoreTest extends ObjectStoreContract {

    @Override
    protected ObjectStore createStore() {
        return new MemoryObjectStore(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    }
}
