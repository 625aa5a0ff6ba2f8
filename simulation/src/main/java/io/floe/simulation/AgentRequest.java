package io.floe.simulation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One request of a simulated client to an agent: handed to one of the agent's executors, answered on
 * the client's executor exactly once, with the agent's answer or with null when none comes (the agent
 * died, threw, took longer than the timeout, or the client gave the request up).
 */
final class AgentRequest<T> {

    private final SimExecutor client;
    private final Consumer<T> onAnswer;
    private boolean answered;

    private AgentRequest(SimExecutor client, Consumer<T> onAnswer) {
        this.client = client;
        this.onAnswer = onAnswer;
    }

    /**
     * Runs {@code call} on {@code executor} (one of {@code agent}'s) and hands its answer to {@code onAnswer}
     * on {@code client}; a call that throws, as a failed store call does, gets no answer.
     */
    static <T> AgentRequest<T> send(
            SimExecutor client,
            SimAgent agent,
            SimExecutor executor,
            Function<SimAgent, CompletableFuture<T>> call,
            long timeoutNanos,
            Consumer<T> onAnswer) {
        return send(client, agent, executor, call, timeoutNanos, onAnswer, false);
    }

    /** As {@link #send}; {@code now}: the agent takes the request at once, without the usual hand-over delay. */
    static <T> AgentRequest<T> send(
            SimExecutor client,
            SimAgent agent,
            SimExecutor executor,
            Function<SimAgent, CompletableFuture<T>> call,
            long timeoutNanos,
            Consumer<T> onAnswer,
            boolean now) {
        AgentRequest<T> request = new AgentRequest<>(client, onAnswer);
        Runnable handle = () -> {
            CompletableFuture<T> result;
            try {
                result = call.apply(agent);
            } catch (RuntimeException e) {
                result = CompletableFuture.failedFuture(e);
            }
            result.whenComplete((answer, failure) -> {
                if (agent.alive()) {
                    client.execute(() -> request.answer(failure == null ? answer : null));
                }
            });
        };
        if (now) {
            executor.schedule(handle, 0, TimeUnit.NANOSECONDS);
        } else {
            executor.execute(handle);
        }
        client.schedule(() -> request.answer(null), timeoutNanos, TimeUnit.NANOSECONDS);
        return request;
    }

    /** The client gives the request up (it learned its agent is gone): it is answered null now. */
    void abandon() {
        client.execute(() -> answer(null));
    }

    private void answer(T answer) {
        if (!answered) {
            answered = true;
            onAnswer.accept(answer);
        }
    }
}
