package io.floe.cli;

import io.floe.cli.agent.AgentCommand;
import io.floe.cli.debug.DebugCommand;
import io.floe.cli.groups.GroupsCommand;
import io.floe.cli.storage.StorageCommand;
import io.floe.cli.tables.TablesCommand;
import io.floe.cli.topics.TopicsCommand;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code floe} command: {@code floe agent} runs an agent, {@code floe topics ...} manages topics.
 * Exit codes: 0 success, 1 failure, 2 invalid usage or configuration.
 */
@Command(
        name = "floe",
        scope = CommandLine.ScopeType.INHERIT, // subcommands get --help, --version and the exit codes
        mixinStandardHelpOptions = true,
        versionProvider = FloeVersion.class,
        description = "Floe: diskless, Kafka-compatible streaming on object storage.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:failure", "2:invalid usage or configuration"})
public final class Floe implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** Runs {@code floe} with the process's arguments and environment, and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(commandLine(System.getenv()).execute(args));
    }

    /**
     * The command tree. {@code env} stands for the process environment, so tests can pass their own.
     */
    public static CommandLine commandLine(Map<String, String> env) {
        return new CommandLine(new Floe())
                .addSubcommand(new AgentCommand(env))
                .addSubcommand(new TopicsCommand())
                .addSubcommand(new GroupsCommand())
                .addSubcommand(new TablesCommand())
                .addSubcommand(new DebugCommand())
                .addSubcommand(new StorageCommand());
    }

    /** {@code floe} without a command prints the usage and counts as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }
}
