package io.floe.tableflow.rest;

import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spec's error replies: {@code {"error": {"message", "type", "code"}}} in Iceberg's
 * {@link ErrorResponse}, never with a stack trace. The {@code type} is the exception's simple name
 * where Iceberg's client switches on it (a 404 is {@code NoSuchNamespaceException} or
 * {@code NoSuchTableException}).
 */
final class RestErrors {

    private static final Logger LOGGER = LoggerFactory.getLogger(RestErrors.class);

    static final String ALLOWED_METHODS = "GET, HEAD";

    private RestErrors() {}

    static RestReply of(int code, String type, String message) {
        ErrorResponse error = ErrorResponse.builder()
                .responseCode(code)
                .withType(type)
                .withMessage(message)
                .build();
        return RestReply.json(code, RestJson.write(error));
    }

    /** Any write: Tableflow is the only writer of its tables, so the catalog refuses them all. */
    static RestReply readOnly(RestRequest request) {
        return of(
                        405,
                        "MethodNotAllowedException",
                        "the Floe Iceberg catalog is read-only: Tableflow owns these"
                                + " tables and writes them from their topics, so " + request.method() + " "
                                + request.path()
                                + " is not served (only GET and HEAD are)")
                .withHeader("Allow", ALLOWED_METHODS);
    }

    static RestReply noRoute(RestRequest request, String routes) {
        return of(
                404,
                "NotFoundException",
                "no route for " + request.method() + " " + request.path() + "; this catalog serves " + routes);
    }

    static RestReply badRequest(String message) {
        return of(400, "BadRequestException", message);
    }

    /** The reply for an exception from the catalog; unexpected ones are logged with their stack trace. */
    static RestReply fromException(RestRequest request, RuntimeException e) {
        if (e instanceof NoSuchNamespaceException
                || e instanceof NoSuchTableException
                || e instanceof NoSuchViewException
                || e instanceof NotFoundException) {
            return of(404, e.getClass().getSimpleName(), e.getMessage());
        }
        if (e instanceof IllegalArgumentException || e instanceof ValidationException) {
            return badRequest(e.getMessage());
        }
        LOGGER.warn(
                "Iceberg REST request failed method={} path={} query={}",
                request.method(),
                request.path(),
                request.query(),
                e);
        return of(
                500,
                "ServiceFailureException",
                "the catalog failed to answer " + request.method() + " " + request.path() + ": " + e);
    }
}
