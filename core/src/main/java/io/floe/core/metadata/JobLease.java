package io.floe.core.metadata;

import java.time.Instant;
import java.util.Objects;

/**
 * The right to run one background job until {@code expiresAt}. {@code epoch} grows with every change
 * of holder, so a holder that lost its lease (paused past expiry) can tell from a newer epoch.
 */
public record JobLease(String job, String owner, long epoch, Instant expiresAt) {

    public JobLease {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
