package io.floe.cli.topics;

import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code floe topics list}: topic names, one a line, sorted. */
@Command(name = "list", description = "Lists topic names, one a line.")
final class ListTopicsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminOptions admin;

    @Option(names = "--internal", description = "Include internal topics.")
    private boolean internal;

    @Override
    public Integer call() {
        return admin.run(
                "list",
                "topics",
                spec.commandLine().getErr(),
                client -> client.listTopics(new ListTopicsOptions().listInternal(internal)).names().get().stream()
                        .sorted()
                        .forEach(spec.commandLine().getOut()::println));
    }
}
