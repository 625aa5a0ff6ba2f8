package io.floe.tableflow.changes;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.iceberg.Schema;

/** Writes a query's changes to a stream in one of the answer formats. */
interface ChangeWriter extends ChangeSink {

    /** Ends the answer (Parquet's footer); the stream stays open. */
    void finish() throws IOException;

    /**
     * Says in the answer that it broke off, where the format can ({@code {"error": ...}} as the last JSON
     * line); the connection is then dropped so no reader takes the answer for whole.
     */
    void fail(String message) throws IOException;

    /** The answer formats. */
    enum Format {
        JSON("application/x-ndjson"),
        PARQUET("application/vnd.apache.parquet");

        private final String contentType;

        Format(String contentType) {
            this.contentType = contentType;
        }

        String contentType() {
            return contentType;
        }

        static Format parse(String text) {
            for (Format format : values()) {
                if (format.name().equalsIgnoreCase(text.trim())) {
                    return format;
                }
            }
            throw new IllegalArgumentException("unknown format '" + text + "': give json or parquet");
        }

        ChangeWriter open(OutputStream out, Schema rowSchema) throws IOException {
            return switch (this) {
                case JSON -> new ChangeJson(out, rowSchema);
                case PARQUET -> new ChangeParquet(out, rowSchema);
            };
        }

        String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
