package io.floe.tableflow.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeltaRetentionTest {

    @Test
    void defaultsAreDeltas() {
        DeltaRetention retention = DeltaRetention.of(Map.of());
        assertThat(retention.deletedFiles()).isEqualTo(Duration.ofDays(7));
        assertThat(retention.log()).isEqualTo(Duration.ofDays(30));
        assertThat(retention.logCleanupEnabled()).isTrue();
    }

    @Test
    void readsCalendarIntervalsAsDeltaWritesThem() {
        DeltaRetention retention = DeltaRetention.of(Map.of(
                "delta.deletedFileRetentionDuration", "interval 2 days 12 hours",
                "delta.logRetentionDuration", "168 HOURS",
                "delta.enableExpiredLogCleanup", "false"));
        assertThat(retention.deletedFiles()).isEqualTo(Duration.ofHours(60));
        assertThat(retention.log()).isEqualTo(Duration.ofDays(7));
        assertThat(retention.logCleanupEnabled()).isFalse();
        assertThat(DeltaRetention.interval("p", "interval 1 week 1 minute 1 second 1 millisecond"))
                .isEqualTo(Duration.ofDays(7).plusMinutes(1).plusSeconds(1).plusMillis(1));
    }

    @Test
    void writesDurationsInTheirLargestWholeUnitAndReadsThemBack() {
        assertThat(DeltaRetention.interval(Duration.ofDays(14))).isEqualTo("interval 2 weeks");
        assertThat(DeltaRetention.interval(Duration.ofDays(1))).isEqualTo("interval 1 days");
        assertThat(DeltaRetention.interval(Duration.ofMinutes(90))).isEqualTo("interval 90 minutes");
        assertThat(DeltaRetention.interval(Duration.ofMillis(1500))).isEqualTo("interval 1500 milliseconds");
        assertThat(DeltaRetention.interval(Duration.ZERO)).isEqualTo("interval 0 milliseconds");
        for (Duration duration : new Duration[] {
            Duration.ofDays(14), Duration.ofHours(25), Duration.ofSeconds(61), Duration.ofMillis(1), Duration.ZERO
        }) {
            assertThat(DeltaRetention.interval("p", DeltaRetention.interval(duration)))
                    .isEqualTo(duration);
        }
    }

    @Test
    void refusesWhatItCannotRead() {
        for (String value : new String[] {"interval 1 month", "interval", "1", "one day", "interval -1 day", ""}) {
            assertThatThrownBy(() -> DeltaRetention.interval("delta.logRetentionDuration", value))
                    .as(value)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("delta.logRetentionDuration='" + value + "'");
        }
    }
}
