package io.floe.tableflow.table;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.config.ValueFormat;
import io.floe.tableflow.rows.ValueDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The settings a round decoded its records with: the value format, its declared schema and the Avro
 * framing, which decide whether a record becomes a row or a dead letter, and which row. Every commit of
 * a round names them by {@link #fingerprint} in its snapshot summary ({@link #SUMMARY_PROPERTY}), and
 * the table keeps the settings of each fingerprint as a table property ({@link #PROPERTY_PREFIX} and the
 * fingerprint), set before the first commit that names them. A replay of the log (an upsert table's
 * change queries) decodes each commit's records with that commit's settings, so an edit of the topic's
 * settings since (a JSON {@code enum} narrowed, a property made required, another format) does not
 * change what the replay says the table applied.
 *
 * <p>The fingerprint, not the settings, goes into the summary: a schema may be many kilobytes, and the
 * table's metadata file lists the summary of every snapshot it keeps.
 */
public record RecordDecoding(ValueFormat format, String schema, boolean confluentFraming) {

    /** The snapshot summary property naming the settings the commit's round decoded with. */
    public static final String SUMMARY_PROPERTY = "floe.tableflow.decoding";

    /** The table properties holding the settings, one per fingerprint a kept snapshot may name. */
    public static final String PROPERTY_PREFIX = SUMMARY_PROPERTY + ".";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public RecordDecoding {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(schema, "schema");
    }

    public static RecordDecoding of(TableSettings settings) {
        return new RecordDecoding(settings.format(), settings.schema(), settings.confluentFraming());
    }

    /** 32 hex digits of the SHA-256 of the settings' JSON: their name in summaries and table properties. */
    public String fingerprint() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(toJson().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The decoder these settings make; {@link IllegalArgumentException} when they are invalid. */
    public ValueDecoder decoder() {
        return ValueDecoder.of(TableSettings.from(Map.of(
                TableflowConfigs.FORMAT,
                format.name().toLowerCase(Locale.ROOT),
                TableflowConfigs.SCHEMA,
                schema,
                TableflowConfigs.AVRO_FRAMING,
                confluentFraming ? "confluent" : "none")));
    }

    /** The settings as the topic configs that declare them, as a JSON object in a fixed order. */
    String toJson() {
        ObjectNode root = MAPPER.createObjectNode();
        root.put(TableflowConfigs.FORMAT, format.name().toLowerCase(Locale.ROOT));
        root.put(TableflowConfigs.SCHEMA, schema);
        root.put(TableflowConfigs.AVRO_FRAMING, confluentFraming ? "confluent" : "none");
        return root.toString();
    }

    static RecordDecoding parse(String json) {
        try {
            JsonNode root = MAPPER.readTree(json);
            return new RecordDecoding(
                    ValueFormat.valueOf(
                            root.path(TableflowConfigs.FORMAT).asText().toUpperCase(Locale.ROOT)),
                    root.path(TableflowConfigs.SCHEMA).asText(),
                    root.path(TableflowConfigs.AVRO_FRAMING).asText().equals("confluent"));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalStateException("table property " + PROPERTY_PREFIX + "* is malformed: " + json, e);
        }
    }

    /**
     * The settings the commit of {@code snapshot} decoded with; empty when it names none (a commit made
     * before commits named them, or not a round's) or the table no longer keeps the ones it names.
     */
    public static Optional<RecordDecoding> of(Table table, Snapshot snapshot) {
        String fingerprint = snapshot.summary().get(SUMMARY_PROPERTY);
        if (fingerprint == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(table.properties().get(PROPERTY_PREFIX + fingerprint))
                .map(RecordDecoding::parse);
    }
}
