package io.floe.tableflow.rows;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;

/**
 * JSON values checked against a declared JSON Schema. The schema's root is an object; its properties
 * become columns: {@code string} (with {@code format} {@code date-time} a timestamp with zone,
 * {@code date} a date), {@code integer} a long, {@code number} a double, {@code boolean}, {@code array}
 * of {@code items} a list, {@code object} with {@code properties} a struct, and an {@code object}
 * without properties its JSON text. A type may be a list with {@code "null"}. A value misses a
 * {@code required} property, has the wrong type or a value outside its {@code enum}: it does not fit.
 * Properties the schema does not name are ignored. A top-level property that is {@code required} and
 * does not allow {@code null} is a required field of {@link #valueType} (what an upsert table's key
 * columns must be); nested ones are optional.
 */
public final class JsonValueDecoder implements ValueDecoder {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final JsonField root;
    private final Types.StructType valueType;

    public JsonValueDecoder(String schemaText) {
        this(parseRoot(schemaText));
    }

    private static JsonField parseRoot(String schemaText) {
        JsonNode schema;
        try {
            schema = MAPPER.readTree(schemaText);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("floe.tableflow.schema is not valid JSON: " + e.getOriginalMessage());
        }
        if (schema == null || !schema.isObject()) {
            throw new IllegalArgumentException("floe.tableflow.schema must be a JSON Schema object");
        }
        return JsonField.parse("(root)", schema, true);
    }

    private JsonValueDecoder(JsonField root) {
        if (root.kind != Kind.OBJECT) {
            throw new IllegalArgumentException("the JSON Schema's root must have type object with properties");
        }
        this.root = root;
        int[] ids = {1};
        List<Types.NestedField> fields = new ArrayList<>();
        for (Types.NestedField field : root.icebergType(ids).asStructType().fields()) {
            JsonField property = root.properties.get(field.name());
            fields.add(
                    root.required.contains(field.name()) && !property.nullable
                            ? Types.NestedField.required(field.fieldId(), field.name(), field.type())
                            : field);
        }
        this.valueType = Types.StructType.of(fields);
    }

    /**
     * Reads a JSON object with the top-level properties {@code columns}, all required, as this schema
     * declares them: the record key of a tombstone that names its row by the table's key columns.
     */
    @Override
    public ValueDecoder keyDecoder(List<String> columns) {
        Map<String, JsonField> properties = new java.util.LinkedHashMap<>();
        root.properties.forEach((name, field) -> {
            if (columns.contains(name)) {
                properties.put(name, field);
            }
        });
        return new JsonValueDecoder(
                new JsonField(Kind.OBJECT, List.of(), properties, List.copyOf(properties.keySet()), null, false));
    }

    @Override
    public Types.StructType valueType() {
        return valueType;
    }

    @Override
    public Map<String, Object> decode(ByteBuffer value) throws RowException {
        if (value == null) {
            return new HashMap<>();
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(bytes(value));
        } catch (IOException e) {
            throw new RowException("value is not valid JSON", e);
        }
        if (node == null || !node.isObject()) {
            throw new RowException("value is not a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> columns = (Map<String, Object>) root.read(node, "");
        return columns;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private enum Kind {
        STRING,
        TIMESTAMP,
        DATE,
        LONG,
        DOUBLE,
        BOOLEAN,
        ARRAY,
        OBJECT,
        JSON_TEXT
    }

    /** One schema node: its kind, nullability, and children. */
    private static final class JsonField {
        private final Kind kind;
        private final List<String> enumValues;
        private final Map<String, JsonField> properties;
        private final List<String> required;
        private final JsonField items;
        /** Whether the declared type lists {@code "null"}. */
        private final boolean nullable;

        private JsonField(
                Kind kind,
                List<String> enumValues,
                Map<String, JsonField> properties,
                List<String> required,
                JsonField items,
                boolean nullable) {
            this.kind = kind;
            this.enumValues = enumValues;
            this.properties = properties;
            this.required = required;
            this.items = items;
            this.nullable = nullable;
        }

        static JsonField parse(String path, JsonNode schema, boolean root) {
            if (!schema.isObject()) {
                throw new IllegalArgumentException("JSON Schema of " + path + " must be an object");
            }
            if (schema.has("$ref") || schema.has("oneOf") || schema.has("anyOf") || schema.has("allOf")) {
                throw new IllegalArgumentException("JSON Schema of " + path
                        + ": $ref, oneOf, anyOf and allOf are not supported; declare the type directly");
            }
            String type = typeOf(path, schema.get("type"));
            boolean nullable = allowsNull(schema.get("type"));
            List<String> enumValues = new ArrayList<>();
            if (schema.has("enum")) {
                schema.get("enum").forEach(item -> enumValues.add(item.asText()));
            }
            switch (type) {
                case "string" -> {
                    String format = schema.path("format").asText("");
                    Kind kind = switch (format) {
                        case "date-time" -> Kind.TIMESTAMP;
                        case "date" -> Kind.DATE;
                        default -> Kind.STRING;
                    };
                    return new JsonField(kind, enumValues, Map.of(), List.of(), null, nullable);
                }
                case "integer" -> {
                    return new JsonField(Kind.LONG, List.of(), Map.of(), List.of(), null, nullable);
                }
                case "number" -> {
                    return new JsonField(Kind.DOUBLE, List.of(), Map.of(), List.of(), null, nullable);
                }
                case "boolean" -> {
                    return new JsonField(Kind.BOOLEAN, List.of(), Map.of(), List.of(), null, nullable);
                }
                case "array" -> {
                    if (!schema.has("items")) {
                        throw new IllegalArgumentException("JSON Schema of " + path + ": an array needs items");
                    }
                    return new JsonField(
                            Kind.ARRAY,
                            List.of(),
                            Map.of(),
                            List.of(),
                            parse(path + "[]", schema.get("items"), false),
                            nullable);
                }
                case "object" -> {
                    JsonNode props = schema.get("properties");
                    if (props == null || !props.isObject() || props.isEmpty()) {
                        if (root) {
                            throw new IllegalArgumentException("the JSON Schema's root object needs properties");
                        }
                        return new JsonField(Kind.JSON_TEXT, List.of(), Map.of(), List.of(), null, nullable);
                    }
                    Map<String, JsonField> properties = new java.util.LinkedHashMap<>();
                    for (Map.Entry<String, JsonNode> field : props.properties()) {
                        properties.put(field.getKey(), parse(path + "." + field.getKey(), field.getValue(), false));
                    }
                    List<String> required = new ArrayList<>();
                    schema.path("required").forEach(name -> required.add(name.asText()));
                    for (String name : required) {
                        if (!properties.containsKey(name)) {
                            throw new IllegalArgumentException(
                                    "JSON Schema of " + path + ": required property " + name + " is not declared");
                        }
                    }
                    return new JsonField(Kind.OBJECT, List.of(), properties, required, null, nullable);
                }
                default ->
                    throw new IllegalArgumentException(
                            "JSON Schema of " + path + ": type " + type + " is not supported");
            }
        }

        private static boolean allowsNull(JsonNode type) {
            if (type == null || !type.isArray()) {
                return false;
            }
            for (JsonNode item : type) {
                if (item.asText().equals("null")) {
                    return true;
                }
            }
            return false;
        }

        /** The one non-null type: {@code "t"} or {@code ["t", "null"]}. */
        private static String typeOf(String path, JsonNode type) {
            if (type == null) {
                throw new IllegalArgumentException("JSON Schema of " + path + " declares no type");
            }
            if (type.isTextual()) {
                return type.asText();
            }
            if (type.isArray()) {
                List<String> types = new ArrayList<>();
                type.forEach(item -> {
                    if (!item.asText().equals("null")) {
                        types.add(item.asText());
                    }
                });
                if (types.size() == 1) {
                    return types.get(0);
                }
            }
            throw new IllegalArgumentException("JSON Schema of " + path + ": type " + type
                    + " is not supported (one type, optionally with \"null\")");
        }

        org.apache.iceberg.types.Type icebergType(int[] ids) {
            return switch (kind) {
                case STRING, JSON_TEXT -> Types.StringType.get();
                case TIMESTAMP -> Types.TimestampType.withZone();
                case DATE -> Types.DateType.get();
                case LONG -> Types.LongType.get();
                case DOUBLE -> Types.DoubleType.get();
                case BOOLEAN -> Types.BooleanType.get();
                case ARRAY -> Types.ListType.ofOptional(ids[0]++, items.icebergType(ids));
                case OBJECT -> {
                    List<Types.NestedField> fields = new ArrayList<>();
                    properties.forEach((name, field) ->
                            fields.add(Types.NestedField.optional(ids[0]++, name, field.icebergType(ids))));
                    yield Types.StructType.of(fields);
                }
            };
        }

        Object read(JsonNode node, String path) throws RowException {
            if (node == null || node.isNull() || node.isMissingNode()) {
                return null;
            }
            switch (kind) {
                case STRING -> {
                    String text =
                            expect(node, JsonNodeType.STRING, "string", path).asText();
                    if (!enumValues.isEmpty() && !enumValues.contains(text)) {
                        throw new RowException(name(path) + ": " + text + " is not one of " + enumValues);
                    }
                    return text;
                }
                case TIMESTAMP -> {
                    String text = expect(node, JsonNodeType.STRING, "date-time string", path)
                            .asText();
                    try {
                        return OffsetDateTime.parse(text);
                    } catch (DateTimeParseException e) {
                        throw new RowException(name(path) + ": " + text + " is not an RFC 3339 date-time");
                    }
                }
                case DATE -> {
                    String text = expect(node, JsonNodeType.STRING, "date string", path)
                            .asText();
                    try {
                        return LocalDate.parse(text);
                    } catch (DateTimeParseException e) {
                        throw new RowException(name(path) + ": " + text + " is not a date (yyyy-mm-dd)");
                    }
                }
                case LONG -> {
                    if (!node.isIntegralNumber()
                            && !(node.isNumber() && node.asDouble() == Math.rint(node.asDouble()))) {
                        throw mismatch("integer", node, path);
                    }
                    if (node.isBigInteger() && !node.canConvertToLong()) {
                        throw new RowException(name(path) + ": " + node + " does not fit a 64-bit integer");
                    }
                    return node.asLong();
                }
                case DOUBLE -> {
                    return expect(node, JsonNodeType.NUMBER, "number", path).asDouble();
                }
                case BOOLEAN -> {
                    return expect(node, JsonNodeType.BOOLEAN, "boolean", path).asBoolean();
                }
                case JSON_TEXT -> {
                    return expect(node, JsonNodeType.OBJECT, "object", path).toString();
                }
                case ARRAY -> {
                    expect(node, JsonNodeType.ARRAY, "array", path);
                    List<Object> list = new ArrayList<>(node.size());
                    for (int i = 0; i < node.size(); i++) {
                        list.add(items.read(node.get(i), path + "[" + i + "]"));
                    }
                    return list;
                }
                case OBJECT -> {
                    expect(node, JsonNodeType.OBJECT, "object", path);
                    Map<String, Object> struct = new HashMap<>();
                    for (Map.Entry<String, JsonField> property : properties.entrySet()) {
                        String childPath = path.isEmpty() ? property.getKey() : path + "." + property.getKey();
                        Object child = property.getValue().read(node.get(property.getKey()), childPath);
                        if (child == null && required.contains(property.getKey())) {
                            throw new RowException("required field " + childPath + " is missing");
                        }
                        struct.put(property.getKey(), child);
                    }
                    return struct;
                }
                default -> throw new IllegalStateException(kind.name());
            }
        }

        private static JsonNode expect(JsonNode node, JsonNodeType type, String what, String path) throws RowException {
            if (node.getNodeType() != type) {
                throw mismatch(what, node, path);
            }
            return node;
        }

        private static RowException mismatch(String expected, JsonNode node, String path) {
            return new RowException(name(path) + ": expected " + expected + ", got "
                    + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }

        private static String name(String path) {
            return "field " + (path.isEmpty() ? "(root)" : path);
        }
    }
}
