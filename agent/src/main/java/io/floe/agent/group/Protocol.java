package io.floe.agent.group;

import java.util.Arrays;
import java.util.Objects;

/**
 * One protocol a member supports (for consumers: an assignor) with the member's metadata for it,
 * opaque to the coordinator.
 */
public record Protocol(String name, byte[] metadata) {

    public Protocol {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(metadata, "metadata");
    }

    /** Value equality, including the metadata bytes. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Protocol that && name.equals(that.name) && Arrays.equals(metadata, that.metadata);
    }

    @Override
    public int hashCode() {
        return 31 * name.hashCode() + Arrays.hashCode(metadata);
    }

    @Override
    public String toString() {
        return name + "(" + metadata.length + " bytes)";
    }
}
