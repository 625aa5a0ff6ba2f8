package io.floe.tableflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The maintenance topic configs: defaults, and values rejected with the user's message. */
class MaintenanceSettingsTest {

    @Test
    void defaults() {
        TableSettings settings = TableSettings.from(Map.of());
        assertThat(settings.maintenanceEnabled()).isTrue();
        assertThat(settings.maintenanceInterval()).isEqualTo(Duration.ofHours(1));
        assertThat(settings.compactionTriggerFiles()).isEqualTo(32);
        assertThat(settings.orphanAge()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void overrides() {
        TableSettings settings = TableSettings.from(Map.of(
                TableflowConfigs.MAINTENANCE_ENABLED,
                "false",
                TableflowConfigs.MAINTENANCE_INTERVAL_MS,
                "60000",
                TableflowConfigs.COMPACTION_TRIGGER_FILES,
                "4",
                TableflowConfigs.ORPHAN_AGE_MS,
                "600000"));
        assertThat(settings.maintenanceEnabled()).isFalse();
        assertThat(settings.maintenanceInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(settings.compactionTriggerFiles()).isEqualTo(4);
        assertThat(settings.orphanAge()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void badValuesAreRejectedWithTheirConfigName() {
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.ORPHAN_AGE_MS, "1000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(TableflowConfigs.ORPHAN_AGE_MS)
                .hasMessageContaining("600000");
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "0")))
                .hasMessageContaining(TableflowConfigs.COMPACTION_TRIGGER_FILES);
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "many")))
                .hasMessageContaining("expected an int");
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.MAINTENANCE_INTERVAL_MS, "0")))
                .hasMessageContaining(TableflowConfigs.MAINTENANCE_INTERVAL_MS);
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.MAINTENANCE_ENABLED, "yes")))
                .hasMessageContaining(TableflowConfigs.MAINTENANCE_ENABLED);
    }
}
