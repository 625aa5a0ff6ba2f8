package io.floe.cli.tables;

import io.floe.tableflow.config.TableflowConfigs;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe tables disable TOPIC}: stops materializing; the table and its settings stay. */
@Command(
        name = "disable",
        description = "Stops materializing a topic; the table stays readable and resumes where"
                + " it stopped when enabled again.")
final class DisableTableCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TablesOptions options;

    @Parameters(paramLabel = "TOPIC", description = "The topic.")
    private String topic;

    @Override
    public Integer call() {
        return options.run("disable", spec.commandLine().getErr(), admin -> {
            TablesOptions.set(admin, topic, Map.of(TableflowConfigs.ENABLED, "false"));
            spec.commandLine().getOut().println("Tableflow disabled for topic '" + topic + "'");
        });
    }
}
