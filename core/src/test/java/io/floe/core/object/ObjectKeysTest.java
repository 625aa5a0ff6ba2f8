package io.floe.core.object;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {

    @Test
    void aKeyTellsWhenItsWriterMadeIt() {
        Instant made = Instant.ofEpochMilli(1_700_000_123_456L);
        ObjectKey key = new ObjectKeys(Clock.fixed(made, ZoneOffset.UTC), "agent/1").next();

        assertThat(ObjectKeys.createdAt(key)).hasValue(made);
    }

    @Test
    void aKeyFromElsewhereTellsNothing() {
        assertThat(ObjectKeys.createdAt(new ObjectKey("segments/00/by-hand.seg")))
                .isEmpty();
        assertThat(ObjectKeys.createdAt(new ObjectKey("tables/1700000123456-x.parquet")))
                .isEmpty();
    }
}
