package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * README.md's table of {@code floe agent} settings is generated from the {@link Setting}
 * declarations. Run with {@code -Dfloe.readme.write=true} to rewrite it.
 */
class ReadmeSettingsTableTest {

    private static final Path README = Path.of("..", "README.md");
    private static final String HEADER = "| Flag | Environment | Default | Meaning |\n|---|---|---|---|\n";
    private static final String REGENERATE = "README.md's settings table differs from the Setting declarations;"
            + " regenerate it with: mvn -o -q -pl cli -am test -Dtest=ReadmeSettingsTableTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dfloe.readme.write=true";

    @Test
    void theReadmeTableIsTheDeclarationsTable() throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        int start = readme.indexOf(HEADER);
        assertThat(start).as("README.md has a table starting with " + HEADER).isNotNegative();
        int rows = start + HEADER.length();
        int end = readme.indexOf("\n\n", rows);
        String table = AgentCommand.readmeTable();

        if (Boolean.getBoolean("floe.readme.write")) {
            Files.writeString(
                    README, readme.substring(0, rows) + table + readme.substring(end), StandardCharsets.UTF_8);
            return;
        }
        assertThat(readme.substring(rows, end)).as(REGENERATE).isEqualTo(table);
    }
}
