package io.floe.cli.topics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe topics create TOPIC [--partitions N] [--config k=v]...}. */
@Command(name = "create", description = "Creates a topic.")
final class CreateTopicCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminOptions admin;

    @Parameters(paramLabel = "TOPIC", description = "Name of the topic.")
    private String topic;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            description = "Number of partitions. Default: the agent's --default-partitions.")
    private Integer partitions;

    @Option(
            names = "--config",
            paramLabel = "KEY=VALUE",
            description = {"A topic config override. Repeatable.", "Example: --config retention.ms=86400000"})
    private Map<String, String> configs = new LinkedHashMap<>();

    @Option(names = "--if-not-exists", description = "Succeed when the topic exists already.")
    private boolean ifNotExists;

    @Override
    public Integer call() {
        if (partitions != null && partitions < 1) {
            spec.commandLine()
                    .getErr()
                    .println("floe topics create: invalid value '" + partitions
                            + "' for --partitions: expected a positive integer");
            return CommandLine.ExitCode.USAGE;
        }
        return admin.run("create", "topic '" + topic + "'", spec.commandLine().getErr(), client -> {
            NewTopic newTopic = new NewTopic(topic, Optional.ofNullable(partitions), Optional.empty()).configs(configs);
            try {
                client.createTopics(List.of(newTopic)).all().get();
                spec.commandLine().getOut().println("Created topic " + topic + ".");
            } catch (ExecutionException e) {
                if (!(ifNotExists && e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                spec.commandLine().getOut().println("Topic " + topic + " exists already.");
            }
        });
    }
}
