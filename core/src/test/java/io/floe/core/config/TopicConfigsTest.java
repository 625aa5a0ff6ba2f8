package io.floe.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Key compaction's topic configs: Kafka's defaults and the ranges Kafka's LogConfig accepts. */
class TopicConfigsTest {

    private final TopicConfigs configs = new TopicConfigs(Map.of());

    @Test
    void keyCompactionConfigsHaveKafkasDefaults() {
        assertThat(TopicConfigs.builtInDefault(TopicConfigs.SEGMENT_BYTES)).isEqualTo("1073741824");
        assertThat(TopicConfigs.builtInDefault(TopicConfigs.SEGMENT_MS)).isEqualTo("604800000");
        assertThat(TopicConfigs.builtInDefault(TopicConfigs.MIN_COMPACTION_LAG_MS))
                .isEqualTo("0");
        assertThat(TopicConfigs.builtInDefault(TopicConfigs.MAX_COMPACTION_LAG_MS))
                .isEqualTo(Long.toString(Long.MAX_VALUE));
        assertThat(TopicConfigs.builtInDefault(TopicConfigs.MIN_CLEANABLE_DIRTY_RATIO))
                .isEqualTo("0.5");
        assertThat(TopicConfigs.builtInDefault(TopicConfigs.DELETE_RETENTION_MS))
                .isEqualTo("86400000");
    }

    @Test
    void valuesOutsideKafkasRangesAreRefusedWithTheBound() {
        assertRefused(TopicConfigs.SEGMENT_BYTES, "1048575", "Value must be at least 1048576");
        assertRefused(TopicConfigs.SEGMENT_MS, "0", "Value must be at least 1");
        assertRefused(TopicConfigs.MIN_COMPACTION_LAG_MS, "-1", "Value must be at least 0");
        assertRefused(TopicConfigs.MAX_COMPACTION_LAG_MS, "0", "Value must be at least 1");
        assertRefused(TopicConfigs.DELETE_RETENTION_MS, "-5", "Value must be at least 0");
        assertRefused(TopicConfigs.MIN_CLEANABLE_DIRTY_RATIO, "1.5", "Value must be no more than 1.0");
        assertRefused(TopicConfigs.MIN_CLEANABLE_DIRTY_RATIO, "-0.1", "Value must be at least 0.0");
        assertThatNoException()
                .isThrownBy(() -> configs.validate(Map.of(
                        TopicConfigs.SEGMENT_BYTES, "1048576",
                        TopicConfigs.SEGMENT_MS, "1",
                        TopicConfigs.MIN_CLEANABLE_DIRTY_RATIO, "0")));
    }

    @Test
    void theMinimumCompactionLagMayNotExceedTheMaximum() {
        assertThatThrownBy(() -> configs.validate(
                        Map.of(TopicConfigs.MIN_COMPACTION_LAG_MS, "10", TopicConfigs.MAX_COMPACTION_LAG_MS, "5")))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)");
        assertThatNoException()
                .isThrownBy(() -> configs.validate(Map.of(TopicConfigs.MIN_COMPACTION_LAG_MS, "86400000")));
        TopicConfigs agentLagged = new TopicConfigs(Map.of(TopicConfigs.MIN_COMPACTION_LAG_MS, "100"));
        assertThatThrownBy(() -> agentLagged.validate(Map.of(TopicConfigs.MAX_COMPACTION_LAG_MS, "50")))
                .isInstanceOf(InvalidConfigException.class);
    }

    private void assertRefused(String name, String value, String message) {
        assertThatThrownBy(() -> configs.validate(Map.of(name, value)))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("Invalid value " + value + " for configuration " + name + ": " + message);
    }
}
