package io.floe.cli.topics;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe topics describe [TOPIC...]}: partitions, leaders and configs with their sources. */
@Command(
        name = "describe",
        description = "Shows topics' partitions, leaders and configs (with where each config value comes from).")
final class DescribeTopicCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminOptions admin;

    @Parameters(paramLabel = "TOPIC", arity = "0..*", description = "Topics to describe. Default: all topics.")
    private List<String> topics = new ArrayList<>();

    @Override
    public Integer call() {
        String subject = topics.isEmpty() ? "topics" : DeleteTopicCommand.subject(topics);
        return admin.run("describe", subject, spec.commandLine().getErr(), this::describe);
    }

    private void describe(Admin client) throws ExecutionException, InterruptedException {
        List<String> names = topics.isEmpty()
                ? client.listTopics().names().get().stream().sorted().collect(Collectors.toList())
                : topics;
        Map<String, TopicDescription> descriptions =
                client.describeTopics(names).allTopicNames().get();
        Optional<Map<ConfigResource, Config>> configs = configs(client, names);
        PrintWriter out = spec.commandLine().getOut();
        for (String name : names) {
            TopicDescription description = descriptions.get(name);
            out.println("Topic: " + name + "\tTopicId: " + description.topicId() + "\tPartitionCount: "
                    + description.partitions().size());
            for (TopicPartitionInfo partition : description.partitions()) {
                out.println("\tPartition: " + partition.partition() + "\tLeader: " + node(partition.leader())
                        + "\tReplicas: " + nodes(partition.replicas()) + "\tIsr: " + nodes(partition.isr()));
            }
            if (configs.isEmpty()) {
                out.println("\tConfigs: not available from this server");
                continue;
            }
            configs.get().get(new ConfigResource(ConfigResource.Type.TOPIC, name)).entries().stream()
                    .sorted((a, b) -> a.name().compareTo(b.name()))
                    .forEach(entry -> out.println(
                            "\tConfig: " + entry.name() + "=" + value(entry) + "\t(" + source(entry.source()) + ")"));
        }
    }

    /** The topics' configs; empty when the server does not answer DescribeConfigs. */
    private static Optional<Map<ConfigResource, Config>> configs(Admin client, List<String> names)
            throws ExecutionException, InterruptedException {
        List<ConfigResource> resources = names.stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name))
                .collect(Collectors.toList());
        try {
            return Optional.of(client.describeConfigs(resources).all().get());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnsupportedVersionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static String value(ConfigEntry entry) {
        if (entry.isSensitive()) {
            return "(sensitive)";
        }
        return entry.value() == null ? "(none)" : entry.value();
    }

    private static String source(ConfigEntry.ConfigSource source) {
        return switch (source) {
            case DYNAMIC_TOPIC_CONFIG -> "topic";
            case DEFAULT_CONFIG -> "default";
            case STATIC_BROKER_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG -> "agent";
            default -> source.name().toLowerCase(Locale.ROOT);
        };
    }

    private static String node(Node node) {
        return node == null || node.isEmpty() ? "none" : Integer.toString(node.id());
    }

    private static String nodes(List<Node> nodes) {
        return nodes.stream().map(DescribeTopicCommand::node).collect(Collectors.joining(","));
    }
}
