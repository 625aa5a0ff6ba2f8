package io.floe.tableflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The upsert key index bound: its default, an override, and values rejected with the user's message. */
class UpsertSettingsTest {

    @Test
    void theBoundDefaultsToHalfAMillionKeys() {
        assertThat(TableSettings.from(Map.of()).upsertIndexMaxKeys()).isEqualTo(500_000);
    }

    @Test
    void zeroAndLargerBoundsAreTaken() {
        assertThat(TableSettings.from(Map.of(TableflowConfigs.UPSERT_INDEX_MAX_KEYS, "0"))
                        .upsertIndexMaxKeys())
                .isZero();
        assertThat(TableSettings.from(Map.of(TableflowConfigs.UPSERT_INDEX_MAX_KEYS, " 20000000 "))
                        .upsertIndexMaxKeys())
                .isEqualTo(20_000_000);
    }

    @Test
    void aNegativeOrMalformedBoundIsRejectedWithItsNameAndValue() {
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.UPSERT_INDEX_MAX_KEYS, "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(TableflowConfigs.UPSERT_INDEX_MAX_KEYS)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> TableSettings.from(Map.of(TableflowConfigs.UPSERT_INDEX_MAX_KEYS, "1M")))
                .hasMessageContaining(TableflowConfigs.UPSERT_INDEX_MAX_KEYS)
                .hasMessageContaining("expected a long");
    }
}
