package io.floe.agent.group.consumer;

/**
 * Where a member is on its way to its target assignment.
 *
 * <pre>
 *            new target, partitions to give up               member reported them revoked
 * STABLE ─────────────────────────────────▶ UNREVOKED_PARTITIONS ──────────────────────────▶ (next step)
 * STABLE ─────────────────────────────────▶ UNRELEASED_PARTITIONS ─────────────────────────▶ STABLE
 *            new target, some partitions still owned by others    the owners released them
 * </pre>
 */
public enum MemberState {
    /** The member owns exactly its target assignment at the target epoch. */
    STABLE,
    /** The member must give up partitions; it stays at its epoch until it reports them revoked. */
    UNREVOKED_PARTITIONS,
    /** The member is at the target epoch but waits for partitions that other members still own. */
    UNRELEASED_PARTITIONS
}
