package io.floe.tableflow.rest;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.UncheckedIOException;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.RESTSerializers;

/**
 * Writes Iceberg's REST response classes exactly as Iceberg's own client reads them. Iceberg keeps
 * its configured mapper package-private ({@code RESTObjectMapper}), so this one repeats its settings:
 * fields visible, kebab-case names, and {@link RESTSerializers} for the types with parsers of their
 * own (config, load-table, errors, namespaces, identifiers). Jackson is iceberg-core's own dependency.
 */
final class RestJson {

    private static final ObjectMapper MAPPER = mapper();

    private RestJson() {}

    static byte[] write(RESTResponse response) {
        try {
            return MAPPER.writeValueAsBytes(response);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write " + response.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private static ObjectMapper mapper() {
        ObjectMapper mapper = new ObjectMapper();
        mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
        mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
        RESTSerializers.registerAll(mapper);
        return mapper;
    }
}
