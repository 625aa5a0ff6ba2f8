package io.floe.cli.tables;

import io.floe.cli.AdminConnection;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/** The options every tables command shares, and running an action with an admin client. */
final class TablesOptions {

    @Mixin
    AdminConnection connection;

    /** A command's own refusal, reported as its message. */
    static final class CommandFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CommandFailure(String message) {
            super(message);
        }
    }

    @FunctionalInterface
    interface Action {
        void run(Admin admin) throws ExecutionException, InterruptedException;
    }

    /** Runs {@code action}; a failure becomes one line on {@code err}, "floe tables COMMAND: ...", and exit code 1. */
    int run(String command, PrintWriter err, Action action) {
        int timeoutMs = connection.timeoutMs();
        if (timeoutMs < 1) {
            err.println("floe tables " + command + ": invalid value '" + timeoutMs + "' for --timeout-ms");
            return CommandLine.ExitCode.USAGE;
        }
        try (Admin admin = Admin.create(connection.adminConfig())) {
            action.run(admin);
            return CommandLine.ExitCode.OK;
        } catch (ExecutionException e) {
            err.println("floe tables " + command + ": " + message(e.getCause()));
            return CommandLine.ExitCode.SOFTWARE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("floe tables " + command + ": interrupted");
            return CommandLine.ExitCode.SOFTWARE;
        } catch (RuntimeException e) {
            err.println("floe tables " + command + ": " + message(e));
            return CommandLine.ExitCode.SOFTWARE;
        }
    }

    /** Sets topic configs of {@code topic} (incrementally: the topic's other configs stay). */
    static void set(Admin admin, String topic, Map<String, String> configs)
            throws ExecutionException, InterruptedException {
        List<AlterConfigOp> ops = configs.entrySet().stream()
                .map(entry ->
                        new AlterConfigOp(new ConfigEntry(entry.getKey(), entry.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops))
                .all()
                .get();
    }

    private String message(Throwable error) {
        if (error instanceof CommandFailure) {
            return error.getMessage();
        }
        if (error instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "no answer from " + connection.bootstrap() + " within " + connection.timeoutMs()
                    + " ms (is an agent running there?)";
        }
        String text = error.getMessage();
        return text == null ? error.getClass().getSimpleName() : text;
    }
}
