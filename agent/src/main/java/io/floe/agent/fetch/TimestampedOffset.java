package io.floe.agent.fetch;

/** A record's offset with its timestamp, as ListOffsets answers. */
public record TimestampedOffset(long offset, long timestamp) {}
