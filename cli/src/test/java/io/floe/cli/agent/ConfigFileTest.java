package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {

    @TempDir
    Path dir;

    @Test
    void readsPropertiesTrimmed() throws IOException {
        Path path = Files.writeString(
                dir.resolve("floe.properties"), "# comment\nflush-interval-ms = 25 \nlisten=127.0.0.1:9192\n");

        ConfigFile file = ConfigFile.load(path);

        assertThat(file.name()).isEqualTo(path.toString());
        assertThat(file.values()).isEqualTo(Map.of("flush-interval-ms", "25", "listen", "127.0.0.1:9192"));
    }

    @Test
    void aMissingFileIsAnInvalidSetting() {
        Path missing = dir.resolve("missing.properties");

        assertThatThrownBy(() -> ConfigFile.load(missing))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("config file " + missing + " does not exist");
    }
}
