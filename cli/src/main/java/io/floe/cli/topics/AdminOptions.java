package io.floe.cli.topics;

import io.floe.cli.AdminConnection;
import java.io.PrintWriter;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * The connection options every topic command shares, and the one place that opens an {@link Admin}
 * client, runs an action with it and turns a failure into a one-line message and exit code 1.
 */
final class AdminOptions {

    @Mixin
    AdminConnection connection;

    /** What a command does with the client; its output goes to {@code out}. */
    @FunctionalInterface
    interface Action {
        void run(Admin admin) throws ExecutionException, InterruptedException;
    }

    /**
     * Runs {@code action} and returns the exit code; a failure is reported on {@code err} as one line,
     * "floe topics COMMAND: ...".
     *
     * @param subject what the command acts on, for messages: "topic 'orders'"
     */
    int run(String command, String subject, PrintWriter err, Action action) {
        int timeoutMs = connection.timeoutMs();
        if (timeoutMs < 1) {
            err.println("floe topics " + command + ": invalid value '" + timeoutMs + "' for --timeout-ms:"
                    + " expected a positive integer");
            return CommandLine.ExitCode.USAGE;
        }
        try (Admin admin = Admin.create(connection.adminConfig())) {
            action.run(admin);
            return CommandLine.ExitCode.OK;
        } catch (ExecutionException e) {
            err.println("floe topics " + command + ": " + AdminErrors.describe(e.getCause(), subject, this));
            return CommandLine.ExitCode.SOFTWARE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("floe topics " + command + ": interrupted");
            return CommandLine.ExitCode.SOFTWARE;
        } catch (RuntimeException e) {
            err.println("floe topics " + command + ": " + AdminErrors.describe(e, subject, this));
            return CommandLine.ExitCode.SOFTWARE;
        }
    }
}
