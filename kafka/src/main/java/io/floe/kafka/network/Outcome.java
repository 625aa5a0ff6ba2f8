package io.floe.kafka.network;

import java.util.concurrent.CompletionStage;

/** What a connection does with one inbound frame, as the dispatcher decided. */
sealed interface Outcome {

    /**
     * Queue an answer in request order; {@code reply} never fails. With {@code closeAfter} the
     * connection reads nothing more and closes once this answer is written.
     */
    record Respond(String api, int correlationId, CompletionStage<Reply> reply, boolean closeAfter)
            implements Outcome {}

    /** A request answered by silence (acks=0); the stage says whether it failed, which closes the connection. */
    record Silent(String api, CompletionStage<Boolean> failed) implements Outcome {}

    /** Close the connection once earlier answers are written. */
    record Close(String reason) implements Outcome {}
}
