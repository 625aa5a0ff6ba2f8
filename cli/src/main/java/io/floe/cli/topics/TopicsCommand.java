package io.floe.cli.topics;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code floe topics}: the parent of the topic commands. */
@Command(
        name = "topics",
        description = "Manages topics: create, list, describe, delete.",
        subcommands = {
            CreateTopicCommand.class,
            ListTopicsCommand.class,
            DescribeTopicCommand.class,
            DeleteTopicCommand.class
        })
public final class TopicsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** {@code floe topics} without a subcommand prints the usage and counts as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }
}
