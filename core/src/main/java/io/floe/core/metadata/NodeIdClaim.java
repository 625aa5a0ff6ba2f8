package io.floe.core.metadata;

import java.util.Objects;

/** The answer to claiming (or renewing) one node id. Callers switch over it. */
public sealed interface NodeIdClaim {

    /** The caller holds the id until the lease's expiry; a renewal keeps the epoch. */
    record Granted(NodeIdLease lease) implements NodeIdClaim {

        public Granted {
            Objects.requireNonNull(lease, "lease");
        }
    }

    /** Another agent's lease on the id runs: the caller must not show this id to clients. */
    record Held(NodeIdLease holder) implements NodeIdClaim {

        public Held {
            Objects.requireNonNull(holder, "holder");
        }
    }
}
