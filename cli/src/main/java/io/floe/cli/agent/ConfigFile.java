package io.floe.cli.agent;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The settings in a {@code --config} file: a Java properties file whose keys are the long option
 * names without dashes ({@code flush-interval-ms=20}).
 *
 * @param name where the values came from, for messages
 * @param values the properties, trimmed
 */
record ConfigFile(String name, Map<String, String> values) {

    /** No config file: every setting comes from flags, environment or defaults. */
    static final ConfigFile NONE = new ConfigFile("(none)", Map.of());

    ConfigFile {
        values = Map.copyOf(values);
    }

    /** Reads {@code path}; a missing or unreadable file is an {@link InvalidSettingException}. */
    static ConfigFile load(Path path) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (NoSuchFileException e) {
            throw new InvalidSettingException("config file " + path + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            throw new InvalidSettingException("cannot read config file " + path + ": " + e.getMessage(), e);
        }
        Map<String, String> values = new TreeMap<>();
        properties
                .stringPropertyNames()
                .forEach(key ->
                        values.put(key.trim(), properties.getProperty(key).trim()));
        return new ConfigFile(path.toString(), values);
    }
}
