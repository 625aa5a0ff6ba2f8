package io.floe.cli.groups;

import io.floe.cli.AdminConnection;
import java.io.PrintWriter;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * The connection options every group command shares, and the one place that opens an {@link Admin}
 * client, runs an action with it and turns a failure into a one-line message and exit code 1.
 */
final class GroupAdminOptions {

    @Mixin
    AdminConnection connection;

    /** What a command does with the client. */
    @FunctionalInterface
    interface Action {
        void run(Admin admin) throws ExecutionException, InterruptedException;
    }

    /**
     * Runs {@code action} and returns the exit code; a failure is reported on {@code err} as one line,
     * "floe groups COMMAND: ...". A {@link CommandFailure} is the command's own refusal, reported as is.
     *
     * @param subject what the command acts on, for messages: "group 'billing'"
     */
    int run(String command, String subject, PrintWriter err, Action action) {
        int timeoutMs = connection.timeoutMs();
        if (timeoutMs < 1) {
            err.println("floe groups " + command + ": invalid value '" + timeoutMs + "' for --timeout-ms:"
                    + " expected a positive integer");
            return CommandLine.ExitCode.USAGE;
        }
        try (Admin admin = Admin.create(connection.adminConfig())) {
            action.run(admin);
            return CommandLine.ExitCode.OK;
        } catch (ExecutionException e) {
            err.println("floe groups " + command + ": " + GroupErrors.describe(e.getCause(), subject, this));
            return CommandLine.ExitCode.SOFTWARE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("floe groups " + command + ": interrupted");
            return CommandLine.ExitCode.SOFTWARE;
        } catch (CommandFailure e) {
            err.println("floe groups " + command + ": " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        } catch (RuntimeException e) {
            err.println("floe groups " + command + ": " + GroupErrors.describe(e, subject, this));
            return CommandLine.ExitCode.SOFTWARE;
        }
    }

    /** A command's refusal to go on, with the one-line reason the user sees. */
    static final class CommandFailure extends RuntimeException {

        CommandFailure(String message) {
            super(message);
        }
    }
}
