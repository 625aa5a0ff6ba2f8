package io.floe.cli.topics;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe topics delete TOPIC...}. */
@Command(name = "delete", description = "Deletes topics and their data.")
final class DeleteTopicCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminOptions admin;

    @Parameters(paramLabel = "TOPIC", arity = "1..*", description = "Topics to delete.")
    private List<String> topics;

    @Override
    public Integer call() {
        return admin.run("delete", subject(topics), spec.commandLine().getErr(), client -> {
            client.deleteTopics(topics).all().get();
            topics.forEach(topic -> spec.commandLine().getOut().println("Deleted topic " + topic + "."));
        });
    }

    static String subject(List<String> topics) {
        return topics.size() == 1 ? "topic '" + topics.get(0) + "'" : "one of the topics " + topics;
    }
}
