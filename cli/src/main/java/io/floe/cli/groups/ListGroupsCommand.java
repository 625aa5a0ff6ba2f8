package io.floe.cli.groups;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code floe groups list [--state]}: consumer group ids, one a line, sorted. */
@Command(name = "list", description = "Lists consumer group ids, one a line.")
final class ListGroupsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private GroupAdminOptions admin;

    @Option(names = "--state", description = "Show each group's state next to its id.")
    private boolean state;

    @Override
    public Integer call() {
        return admin.run("list", "groups", spec.commandLine().getErr(), client -> {
            List<GroupListing> groups = client.listGroups(ListGroupsOptions.forConsumerGroups()).all().get().stream()
                    .sorted(Comparator.comparing(GroupListing::groupId))
                    .toList();
            PrintWriter out = spec.commandLine().getOut();
            if (!state) {
                groups.forEach(group -> out.println(group.groupId()));
                return;
            }
            Table table = new Table("GROUP", "STATE");
            groups.forEach(group -> table.add(
                    group.groupId(), group.groupState().map(Object::toString).orElse("Unknown")));
            table.print(out);
        });
    }
}
