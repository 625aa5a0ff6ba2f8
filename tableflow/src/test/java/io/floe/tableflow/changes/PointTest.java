package io.floe.tableflow.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PointTest {

    @Test
    void readsEachForm() {
        assertThat(Point.parse("5937117119577207286")).isEqualTo(new Point.AtSnapshot(5937117119577207286L));
        assertThat(Point.parse("2026-01-02T03:04:05Z"))
                .isEqualTo(new Point.AtTime(Instant.parse("2026-01-02T03:04:05Z")));
        assertThat(Point.parse("2026-01-02T04:04:05+01:00"))
                .isEqualTo(new Point.AtTime(Instant.parse("2026-01-02T03:04:05Z")));
        assertThat(Point.parse("0:120,1:98"))
                .isEqualTo(new Point.AtOffsets(new Offsets(new TreeMap<>(Map.of(0, 120L, 1, 98L)))));
        assertThat(Point.parse("3:0")).isEqualTo(new Point.AtOffsets(new Offsets(new TreeMap<>(Map.of(3, 0L)))));
        assertThat(Point.parse(" Earliest ")).isEqualTo(new Point.Earliest());
        assertThat(Point.parse("latest")).isEqualTo(new Point.Latest());
        assertThat(Offsets.parse("1:98,0:120")).hasToString("0:120,1:98");
    }

    @Test
    void refusesWhatItCannotReadSayingWhatItReads() {
        assertThatThrownBy(() -> Point.parse("yesterday"))
                .hasMessageContaining("cannot read the point 'yesterday'")
                .hasMessageContaining("offsets per partition (0:120,1:98)");
        assertThatThrownBy(() -> Point.parse("2026-01-02T03:04:05")).hasMessageContaining("ISO-8601 with a zone");
        assertThatThrownBy(() -> Point.parse("0:1,0:2")).hasMessageContaining("name partition 0 twice");
        assertThatThrownBy(() -> Point.parse("0:-1")).hasMessageContaining("write PARTITION:OFFSET pairs");
        assertThatThrownBy(() -> Point.parse("99999999999999999999")).hasMessageContaining("out of range");
    }
}
