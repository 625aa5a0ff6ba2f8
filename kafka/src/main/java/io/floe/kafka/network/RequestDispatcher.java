package io.floe.kafka.network;

import io.floe.kafka.api.ApiRegistry;
import io.floe.kafka.api.ClientConnection;
import io.floe.kafka.api.RegisteredApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.codec.AdvertisedVersions;
import io.floe.kafka.codec.DecodedRequest;
import io.floe.kafka.codec.ErrorResponses;
import io.floe.kafka.codec.RequestDecoder;
import io.floe.kafka.error.KafkaErrors;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each request frame through the steps every API shares, on the connection's event loop:
 * decode it, refusing versions the registry does not declare ({@link #dispatch}); admit it
 * ({@link #admit}, where authorization goes); call its API there or on the blocking executor, as
 * registered ({@link #run}); and answer. Every kind of bad input and every handler failure becomes
 * the answer the protocol expects. Shared by all connections; keeps no per-connection state.
 */
final class RequestDispatcher {

    private static final Logger LOGGER = LoggerFactory.getLogger(RequestDispatcher.class);

    private final ApiRegistry registry;
    private final Executor blocking;
    private final RequestDecoder decoder;
    private final NetworkMetrics metrics;
    private final int maxFrameBytes;

    /** {@code blocking} runs the APIs registered as blocking. */
    RequestDispatcher(ApiRegistry registry, Executor blocking, NetworkMetrics metrics, int maxFrameBytes) {
        this.registry = registry;
        this.blocking = blocking;
        this.decoder = new RequestDecoder(registry.servedVersions());
        this.metrics = metrics;
        this.maxFrameBytes = maxFrameBytes;
    }

    Outcome dispatch(ByteBuffer frame, ClientConnection connection) {
        int size = frame.remaining();
        SocketAddress peer = connection.peer();
        DecodedRequest decoded = decoder.decode(frame);
        if (decoded instanceof DecodedRequest.Valid valid) {
            metrics.requestReceived(valid.header().apiKey().name, size);
            return call(valid.header(), valid.body(), connection);
        } else if (decoded instanceof DecodedRequest.UnknownApi unknown) {
            metrics.requestReceived(NetworkMetrics.UNKNOWN_API, size);
            metrics.badFrame("unknown_api");
            metrics.error(NetworkMetrics.UNKNOWN_API, Errors.UNSUPPORTED_VERSION);
            LOGGER.warn(
                    "Unknown API key, answering UNSUPPORTED_VERSION peer={} apiKey={} apiVersion={} "
                            + "correlationId={} size={}",
                    peer,
                    unknown.apiKey(),
                    unknown.apiVersion(),
                    unknown.correlationId(),
                    size);
            return respond(
                    NetworkMetrics.UNKNOWN_API,
                    new Reply.ErrorCode(unknown.correlationId(), Errors.UNSUPPORTED_VERSION),
                    false);
        } else if (decoded instanceof DecodedRequest.UnsupportedVersion unsupported) {
            RequestHeader header = unsupported.header();
            metrics.requestReceived(header.apiKey().name, size);
            metrics.badFrame("unsupported_version");
            metrics.error(header.apiKey().name, Errors.UNSUPPORTED_VERSION);
            LOGGER.warn(
                    "Unsupported API version peer={} api={} apiVersion={} served={} correlationId={} clientId={}",
                    peer,
                    header.apiKey().name,
                    header.apiVersion(),
                    registry.servedVersions().get(header.apiKey()),
                    header.correlationId(),
                    header.clientId());
            return respond(header.apiKey().name, unsupportedVersion(header, unsupported.body()), false);
        } else if (decoded instanceof DecodedRequest.MalformedBody malformed) {
            RequestHeader header = malformed.header();
            metrics.requestReceived(header.apiKey().name, size);
            metrics.badFrame("malformed_body");
            metrics.error(header.apiKey().name, Errors.INVALID_REQUEST);
            LOGGER.warn(
                    "Malformed request body, answering INVALID_REQUEST peer={} api={} apiVersion={} "
                            + "correlationId={} clientId={} size={} cause={}",
                    peer,
                    header.apiKey().name,
                    header.apiVersion(),
                    header.correlationId(),
                    header.clientId(),
                    size,
                    malformed.cause().toString());
            return respond(
                    header.apiKey().name,
                    errorReply(
                            header,
                            null,
                            new InvalidRequestException(
                                    "Error parsing " + header.apiKey().name + " v" + header.apiVersion() + " request: "
                                            + malformed.cause().getMessage())),
                    false);
        }
        DecodedRequest.MalformedHeader malformed = (DecodedRequest.MalformedHeader) decoded;
        metrics.requestReceived(NetworkMetrics.UNKNOWN_API, size);
        metrics.badFrame("malformed_header");
        LOGGER.warn(
                "Malformed request header, closing connection peer={} size={} cause={}",
                peer,
                size,
                malformed.cause().toString());
        return new Outcome.Close("malformed request header");
    }

    /** A frame above the size limit: answered from its header if it parses, then the connection closes. */
    Outcome oversized(ByteBuffer head, int size, SocketAddress peer) {
        metrics.badFrame("oversized");
        DecodedRequest decoded = decoder.decode(head);
        RequestHeader header = headerOf(decoded);
        String detail = "request of " + size + " bytes exceeds the maximum frame size " + maxFrameBytes;
        if (header == null) {
            LOGGER.warn(
                    "Oversized frame without a readable header, closing connection peer={} size={} max={}",
                    peer,
                    size,
                    maxFrameBytes);
            if (decoded instanceof DecodedRequest.UnknownApi unknown) {
                return respond(
                        NetworkMetrics.UNKNOWN_API,
                        new Reply.ErrorCode(unknown.correlationId(), Errors.INVALID_REQUEST),
                        true);
            }
            return new Outcome.Close("oversized frame");
        }
        LOGGER.warn(
                "Oversized frame, answering with an error and closing connection peer={} api={} apiVersion={} "
                        + "correlationId={} clientId={} size={} max={}",
                peer,
                header.apiKey().name,
                header.apiVersion(),
                header.correlationId(),
                header.clientId(),
                size,
                maxFrameBytes);
        ApiException error = header.apiKey() == ApiKeys.PRODUCE
                ? new RecordTooLargeException(detail)
                : new InvalidRequestException(detail);
        metrics.error(header.apiKey().name, Errors.forException(error));
        return respond(header.apiKey().name, errorReply(header, null, error), true);
    }

    private static RequestHeader headerOf(DecodedRequest decoded) {
        if (decoded instanceof DecodedRequest.Valid valid) {
            return valid.header();
        } else if (decoded instanceof DecodedRequest.MalformedBody malformed) {
            return malformed.header();
        } else if (decoded instanceof DecodedRequest.UnsupportedVersion unsupported) {
            return unsupported.header();
        }
        return null;
    }

    /** A request of a registered API at a version it serves: admitted, run, then answered. */
    private Outcome call(RequestHeader header, ApiMessage body, ClientConnection connection) {
        RegisteredApi api = registry.get(header.apiKey()).orElseThrow();
        RequestContext context = new RequestContext(header, connection);
        SocketAddress peer = connection.peer();
        Optional<ApiException> refusal = admit(context, api, body);
        CompletionStage<ApiMessage> stage =
                refusal.isPresent() ? CompletableFuture.failedFuture(refusal.get()) : run(api, context, body);
        String name = header.apiKey().name;
        if (!api.expectsResponse(body)) {
            return new Outcome.Silent(name, stage.handle((response, failure) -> {
                if (failure != null) {
                    metrics.error(name, logFailure(header, peer, failure));
                    return true;
                }
                Map<Errors, Integer> errors = api.errorCounts(response);
                metrics.errors(name, errors);
                return errors.keySet().stream().anyMatch(error -> error != Errors.NONE);
            }));
        }
        CompletionStage<Reply> reply = stage.handle((response, failure) -> {
            if (failure == null) {
                metrics.errors(name, api.errorCounts(response));
                return new Reply.Message(header.apiKey(), header.apiVersion(), header.correlationId(), response);
            }
            Errors error = logFailure(header, peer, failure);
            metrics.error(name, error);
            return errorReply(header, body, KafkaErrors.toApiException(failure));
        });
        return new Outcome.Respond(name, header.correlationId(), reply, false);
    }

    /**
     * The one step between a decoded request and its API, for every API; security (DESIGN §8) goes
     * here. Until the connection has authenticated only the handshake APIs would pass; after, the
     * connection's principal would be checked against the ACLs for this API and request, a refusal
     * being the ApiException (an *_AUTHORIZATION_FAILED error) answered as the API's error response.
     * Checks of single resources inside a request would use what this step puts in the context.
     * Floe has no security yet, so every request is admitted.
     */
    private static Optional<ApiException> admit(RequestContext context, RegisteredApi api, ApiMessage request) {
        return Optional.empty();
    }

    /**
     * Calls {@code api} on this event loop, or on the blocking executor when it is registered as
     * blocking, so no API hands work off itself. Never throws: a handler's exception and a task the
     * executor refuses (answered as REQUEST_TIMED_OUT, "agent busy") fail the stage.
     */
    private CompletionStage<ApiMessage> run(RegisteredApi api, RequestContext context, ApiMessage request) {
        try {
            return switch (api.execution()) {
                case EVENT_LOOP -> api.handle(context, request);
                case BLOCKING ->
                    CompletableFuture.supplyAsync(() -> api.handle(context, request), blocking)
                            .thenCompose(Function.identity());
            };
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Errors logFailure(RequestHeader header, SocketAddress peer, Throwable failure) {
        Throwable cause = KafkaErrors.unwrap(failure);
        Errors error = KafkaErrors.errorOf(cause);
        if (error == Errors.UNKNOWN_SERVER_ERROR) {
            LOGGER.error(
                    "Request failed api={} apiVersion={} correlationId={} clientId={} peer={}",
                    header.apiKey().name,
                    header.apiVersion(),
                    header.correlationId(),
                    header.clientId(),
                    peer,
                    cause);
        } else {
            LOGGER.warn(
                    "Request failed api={} apiVersion={} correlationId={} clientId={} peer={} error={} cause={}",
                    header.apiKey().name,
                    header.apiVersion(),
                    header.correlationId(),
                    header.clientId(),
                    peer,
                    error.name(),
                    cause.toString());
        }
        return error;
    }

    private Reply unsupportedVersion(RequestHeader header, ApiMessage body) {
        Map<ApiKeys, ?> served = registry.servedVersions();
        if (header.apiKey() == ApiKeys.API_VERSIONS) {
            // KIP-511: answer at v0, which every client reads, with the versions Floe serves.
            return new Reply.Message(
                    ApiKeys.API_VERSIONS,
                    (short) 0,
                    header.correlationId(),
                    AdvertisedVersions.unsupportedVersionResponse(registry.servedVersions()));
        }
        String detail = served.containsKey(header.apiKey())
                ? header.apiKey().name + " v" + header.apiVersion() + " is not supported, only "
                        + registry.servedVersions().get(header.apiKey())
                : header.apiKey().name + " is not supported by Floe";
        return errorReply(header, body, new UnsupportedVersionException(detail));
    }

    /**
     * The API's own error response at the request's version, which is what the client will parse;
     * the minimal frame when kafka-clients cannot build one at that version.
     */
    private static Reply errorReply(RequestHeader header, ApiMessage request, ApiException error) {
        return ErrorResponses.of(header.apiKey(), header.apiVersion(), request, error)
                .<Reply>map(
                        body -> new Reply.Message(header.apiKey(), header.apiVersion(), header.correlationId(), body))
                .orElseGet(() -> new Reply.ErrorCode(header.correlationId(), Errors.forException(error)));
    }

    private static Outcome respond(String api, Reply reply, boolean closeAfter) {
        return new Outcome.Respond(api, reply.correlationId(), CompletableFuture.completedFuture(reply), closeAfter);
    }

    /** An answer for a handler failure that escaped everything else. */
    static Reply lastResort(int correlationId) {
        return new Reply.ErrorCode(correlationId, Errors.forException(new UnknownServerException("internal error")));
    }
}
