package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresConfigTest {

    @Test
    void theCliUrlFormBecomesAJdbcUrlWithCredentials() {
        PostgresConfig config =
                PostgresConfig.parse("postgresql://floe:s3cr%40t+x@db.example:6543/metadata?sslmode=require");

        assertThat(config.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/metadata?sslmode=require");
        assertThat(config.user()).isEqualTo("floe");
        assertThat(config.password()).isEqualTo("s3cr@t+x");
        assertThat(config.poolSize()).isEqualTo(PostgresConfig.DEFAULT_POOL_SIZE);
        assertThat(config.connectionTimeout()).isEqualTo(PostgresConfig.DEFAULT_CONNECTION_TIMEOUT);
        assertThat(config.location()).isEqualTo("postgresql://db.example:6543/metadata");
    }

    @Test
    void portCredentialsAndParametersAreOptional() {
        PostgresConfig config = PostgresConfig.parse("postgres://db.example/metadata");

        assertThat(config.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:5432/metadata");
        assertThat(config.user()).isNull();
        assertThat(config.password()).isNull();
        assertThat(PostgresConfig.parse("postgresql://floe@db.example/m").user())
                .isEqualTo("floe");
        assertThat(PostgresConfig.parse("postgresql://floe@db.example/m").password())
                .isNull();
    }

    @Test
    void jdbcUrlsPassThroughAndExplicitCredentialsWin() {
        PostgresConfig config = PostgresConfig.of("jdbc:postgresql://10.0.0.5:5432/floe?password=p", "admin", "pw");

        assertThat(config.jdbcUrl()).isEqualTo("jdbc:postgresql://10.0.0.5:5432/floe?password=p");
        assertThat(config.user()).isEqualTo("admin");
        assertThat(config.location()).isEqualTo("postgresql://10.0.0.5:5432/floe");
        assertThat(PostgresConfig.of("postgresql://a:b@h/d", "c", null).user()).isEqualTo("c");
        assertThat(PostgresConfig.of("postgresql://a:b@h/d", "c", null).password())
                .isEqualTo("b");
    }

    @Test
    void descriptionsNeverShowThePassword() {
        PostgresConfig config = PostgresConfig.parse("postgresql://floe:hunter2@db.example/metadata");

        assertThat(config.toString()).doesNotContain("hunter2").contains("password=***", "db.example");
        assertThatThrownBy(() -> PostgresConfig.parse("mysql://floe:hunter2@db.example/metadata"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void limitsAreChecked() {
        PostgresConfig config = PostgresConfig.parse("postgresql://db.example/metadata");

        assertThat(config.withPoolSize(32)
                        .withConnectionTimeout(Duration.ofSeconds(3))
                        .poolSize())
                .isEqualTo(32);
        assertThatThrownBy(() -> config.withPoolSize(0)).hasMessageContaining("pool size must be in [1, 200], got 0");
        assertThatThrownBy(() -> config.withConnectionTimeout(Duration.ofMillis(10)))
                .hasMessageContaining("at least 250 ms, got 10 ms");
        assertThatThrownBy(() -> PostgresConfig.parse("postgresql:///metadata")).hasMessageContaining("names no host");
        assertThatThrownBy(() -> PostgresConfig.of("jdbc:sqlite:/tmp/x.db", null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
