package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MigrationsTest {

    @Test
    void versionsRunFromOneWithoutGaps() {
        for (int i = 0; i < Migrations.ALL.size(); i++) {
            assertThat(Migrations.ALL.get(i).version()).isEqualTo(i + 1);
            assertThat(Migrations.ALL.get(i).statements()).isNotEmpty();
        }
        assertThat(Migrations.LATEST).isEqualTo(Migrations.ALL.size());
    }
}
