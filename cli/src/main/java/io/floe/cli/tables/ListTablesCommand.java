package io.floe.cli.tables;

import io.floe.cli.groups.Table;
import io.floe.tableflow.config.TableflowConfigs;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code floe tables list}: the topics with Tableflow enabled and their table settings. */
@Command(name = "list", description = "Lists the topics materialized as tables, with their settings.")
final class ListTablesCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TablesOptions options;

    @Override
    public Integer call() {
        return options.run("list", spec.commandLine().getErr(), admin -> {
            List<ConfigResource> topics = admin.listTopics().names().get().stream()
                    .sorted()
                    .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name))
                    .toList();
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(topics).all().get();
            Table table = new Table("TABLE", "TOPIC", "FORMAT", "PARTITIONING", "COMMIT-INTERVAL-MS");
            for (ConfigResource topic : topics) {
                Config config = configs.get(topic);
                if (!"true".equalsIgnoreCase(value(config, TableflowConfigs.ENABLED))) {
                    continue;
                }
                table.add(
                        "floe." + topic.name(),
                        topic.name(),
                        value(config, TableflowConfigs.FORMAT),
                        value(config, TableflowConfigs.PARTITIONING),
                        value(config, TableflowConfigs.COMMIT_INTERVAL_MS));
            }
            if (table.isEmpty()) {
                spec.commandLine()
                        .getOut()
                        .println("No topic has Tableflow enabled" + " (floe tables enable TOPIC turns it on).");
            } else {
                table.print(spec.commandLine().getOut());
            }
        });
    }

    /** The topic's value of a Tableflow config, or its default. */
    static String value(Config config, String name) {
        ConfigEntry entry = config == null ? null : config.get(name);
        if (entry != null && entry.value() != null) {
            return entry.value();
        }
        return TableflowConfigs.DEFINITIONS.stream()
                .filter(def -> def.name().equals(name))
                .findFirst()
                .map(TableflowConfigs.Definition::defaultValue)
                .orElse("");
    }
}
