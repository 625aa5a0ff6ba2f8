package io.floe.cli.groups;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe groups delete GROUP...}: deletes groups without members, with their committed offsets. */
@Command(name = "delete", description = "Deletes consumer groups that have no members, with their committed offsets.")
final class DeleteGroupsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private GroupAdminOptions admin;

    @Parameters(paramLabel = "GROUP", arity = "1..*", description = "Groups to delete.")
    private List<String> groups;

    @Override
    public Integer call() {
        return admin.run("delete", subject(groups), spec.commandLine().getErr(), client -> {
            client.deleteConsumerGroups(groups).all().get();
            groups.forEach(group -> spec.commandLine().getOut().println("Deleted group " + group + "."));
        });
    }

    static String subject(List<String> groups) {
        return groups.size() == 1 ? "group '" + groups.get(0) + "'" : "one of the groups " + groups;
    }
}
