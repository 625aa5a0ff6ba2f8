package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionState;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.TransactionErrors;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListTransactionsResponse;

/**
 * ListTransactions (v0-2): the transactional ids this agent coordinates, filtered by state (Kafka's
 * names; unknown ones are echoed in UnknownStateFilters), by producer id, from v1 by how long the open
 * transaction has run (DurationFilter, strictly longer; an id with no open transaction has run for
 * none), and from v2 by a regular expression the whole id matches (INVALID_REGULAR_EXPRESSION when it
 * does not compile). The Admin client asks every broker and joins the answers, so each agent lists its
 * own share, as each Kafka broker lists its transaction log partitions. Blocking.
 */
final class ListTransactionsApi implements KafkaApi<ListTransactionsRequestData, ListTransactionsResponseData> {

    private static final short FIRST_VERSION_WITH_DURATION = 1;
    private static final short FIRST_VERSION_WITH_PATTERN = 2;

    private final TransactionCoordinator coordinator;
    private final Predicate<String> coordinatedHere;
    private final Clock clock;

    ListTransactionsApi(TransactionCoordinator coordinator, Predicate<String> coordinatedHere, Clock clock) {
        this.coordinator = coordinator;
        this.coordinatedHere = coordinatedHere;
        this.clock = clock;
    }

    @Override
    public CompletionStage<ListTransactionsResponseData> handle(
            RequestContext context, ListTransactionsRequestData request) {
        short version = context.apiVersion();
        ListTransactionsResponseData response = new ListTransactionsResponseData().setThrottleTimeMs(0);
        Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
        for (String name : request.stateFilters()) {
            stateNamed(name)
                    .ifPresentOrElse(
                            states::add, () -> response.unknownStateFilters().add(name));
        }
        Predicate<String> idMatches;
        try {
            idMatches = idFilter(version >= FIRST_VERSION_WITH_PATTERN ? request.transactionalIdPattern() : null);
        } catch (PatternSyntaxException e) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
        }
        Set<Long> producerIds = new HashSet<>(request.producerIdFilters());
        long durationMs = version >= FIRST_VERSION_WITH_DURATION ? request.durationFilter() : -1;
        boolean stateFiltered = !request.stateFilters().isEmpty();
        long nowMs = clock.millis();
        List<TransactionDescription> all;
        try {
            all = coordinator.list();
        } catch (RuntimeException e) {
            throw TransactionErrors.failure(e);
        }
        List<ListTransactionsResponseData.TransactionState> listed = new ArrayList<>();
        for (TransactionDescription transaction : all) {
            if (coordinatedHere.test(transaction.transactionalId())
                    && idMatches.test(transaction.transactionalId())
                    && (!stateFiltered || states.contains(transaction.state()))
                    && (producerIds.isEmpty()
                            || producerIds.contains(transaction.producer().producerId()))
                    && (durationMs < 0 || runningLongerThan(transaction, durationMs, nowMs))) {
                listed.add(new ListTransactionsResponseData.TransactionState()
                        .setTransactionalId(transaction.transactionalId())
                        .setProducerId(transaction.producer().producerId())
                        .setTransactionState(transaction.state().kafkaName()));
            }
        }
        return CompletableFuture.completedFuture(
                response.setErrorCode(Errors.NONE.code()).setTransactionStates(listed));
    }

    private static boolean runningLongerThan(TransactionDescription transaction, long durationMs, long nowMs) {
        return transaction.startedAtMs() >= 0 && nowMs - transaction.startedAtMs() > durationMs;
    }

    private static Predicate<String> idFilter(String pattern) {
        if (pattern == null || pattern.isEmpty()) {
            return id -> true;
        }
        Pattern compiled = Pattern.compile(pattern);
        return id -> compiled.matcher(id).matches();
    }

    private static Optional<TransactionState> stateNamed(String name) {
        for (TransactionState state : TransactionState.values()) {
            if (state.kafkaName().equals(name)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }

    @Override
    public Map<Errors, Integer> errorCounts(ListTransactionsResponseData response) {
        return new ListTransactionsResponse(response).errorCounts();
    }
}
