package io.floe.tableflow.config;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The topic a table's changes are published to ({@link TableflowConfigs#CHANGES_TOPIC}), in Debezium's
 * envelope; none when the config is empty. Kept apart from {@link TableSettings} because it names a
 * second topic rather than shaping the table.
 */
public record ChangesTopic(String name) {

    /** Kafka's rule for topic names. */
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    public ChangesTopic {
        if (!LEGAL.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("Invalid value " + name + " for configuration "
                    + TableflowConfigs.CHANGES_TOPIC
                    + ": a topic name of 1 to 249 letters, digits, '.', '_' and '-' (not . or ..), or empty for"
                    + " no change topic");
        }
    }

    /** The change topic the configs name; {@link IllegalArgumentException} when the name is no topic name. */
    public static Optional<ChangesTopic> from(Map<String, String> topicConfigs) {
        String name =
                topicConfigs.getOrDefault(TableflowConfigs.CHANGES_TOPIC, "").trim();
        return name.isEmpty() ? Optional.empty() : Optional.of(new ChangesTopic(name));
    }
}
