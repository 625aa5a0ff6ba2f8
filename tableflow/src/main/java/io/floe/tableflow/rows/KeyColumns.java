package io.floe.tableflow.rows;

import io.floe.tableflow.config.TableflowConfigs;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Checks the key columns of an upsert table against the declared value schema, with Iceberg's rules
 * for identifier fields (which they become) and one of Floe's: each names a top-level field (Floe
 * flattens no struct into a key), of a primitive type other than float or double (NaN and -0.0 make
 * equality of floating-point values ill-defined), required and not nullable in the declared schema (a
 * row without it has no key, and an identifier field must be required).
 */
final class KeyColumns {

    private KeyColumns() {}

    /** Throws {@link IllegalArgumentException}, with the column and what to do, when one does not qualify. */
    static void check(Types.StructType valueType, List<String> columns) {
        for (String name : columns) {
            Types.NestedField field = valueType.field(name);
            String prefix = TableflowConfigs.UPSERT_KEY_COLUMNS + " names " + name + ", ";
            if (field == null) {
                throw new IllegalArgumentException(prefix + "which is not a top-level field of the declared schema"
                        + alike(valueType, name) + " (its fields: "
                        + valueType.fields().stream()
                                .map(Types.NestedField::name)
                                .toList()
                        + "); key columns are top-level fields of the value");
            }
            Type type = field.type();
            if (!type.isPrimitiveType() || type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
                throw new IllegalArgumentException(prefix + "a field of type " + type + "; a key column must be of"
                        + " a primitive type other than float or double (Iceberg's rule for identifier fields)");
            }
            if (field.isOptional()) {
                throw new IllegalArgumentException(prefix + "which the declared schema lets be missing or null; a"
                        + " key column must be required (JSON Schema: list it in \"required\" and do not allow"
                        + " \"null\"; Avro: not a union with null), as a row without it has no key");
            }
        }
    }

    private static String alike(Types.StructType valueType, String name) {
        return valueType.fields().stream()
                .filter(field -> field.name().equalsIgnoreCase(name))
                .findFirst()
                .map(field -> " (names are case-sensitive: did you mean " + field.name() + "?)")
                .orElse("");
    }
}
