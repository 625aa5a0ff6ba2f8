package io.floe.agent.produce;

import io.floe.core.metadata.ProducerState;
import java.nio.ByteBuffer;

/** A batch that passed validation: its bytes (exactly as sent) and the facts the commit needs. */
record ValidatedBatch(ByteBuffer bytes, int recordCount, long maxTimestamp, ProducerState producer) {}
