package io.floe.simulation;

/**
 * A deliberately broken system, to show the checkers can fail: each control removes one guarantee,
 * and the simulation must report the invariant that guarantee protects. {@link #NONE} is the real system.
 */
public enum Control {
    /** The real system. */
    NONE,
    /** The object store now and then answers a PUT as done without storing it (an acknowledged write lost). */
    LOSSY_OBJECT_STORE,
    /** The producers send without a producer id (idempotence off), so a retry after a lost answer appends again. */
    PRODUCERS_WITHOUT_IDEMPOTENCE
}
