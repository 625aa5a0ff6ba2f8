package io.floe.cli.agent;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Command-line options made from {@link Setting} declarations, as a picocli mixin: one option per
 * setting, with its flag, placeholder and {@code --help} text. The values given are kept as text, by
 * setting, for {@link SettingsResolver} to check.
 */
final class SettingFlags {

    private final Map<Setting, String> given = new EnumMap<>(Setting.class);
    private final CommandSpec mixin = CommandSpec.create();

    SettingFlags(Collection<Setting> settings) {
        for (Setting setting : settings) {
            mixin.addOption(option(setting));
        }
    }

    /** The options, for {@code @Mixin} or {@link CommandSpec#addMixin}. */
    CommandSpec mixin() {
        return mixin;
    }

    /** The values given on the command line so far. */
    Map<Setting, String> given() {
        return given;
    }

    private OptionSpec option(Setting setting) {
        OptionSpec.Builder option = OptionSpec.builder(setting.flag())
                .type(String.class)
                .paramLabel(setting.declaration().kind().label())
                .description(setting.help())
                .order(setting.ordinal() + 1)
                .setter(new ISetter() {
                    @Override
                    public <T> T set(T value) {
                        if (value == null) {
                            given.remove(setting);
                        } else {
                            given.put(setting, (String) value);
                        }
                        return null;
                    }
                });
        if (setting.declaration().kind() instanceof Declaration.Kind.Bool) {
            option.arity("0..1").parameterConsumer(BARE_BOOLEAN);
        } else {
            option.arity("1");
        }
        return option.build();
    }

    /**
     * A boolean flag alone means {@code true}. The next argument is its value when it is {@code true}
     * or {@code false}, or, for a command without positional parameters, any word that is not an
     * option: that word then fails as a boolean with the usual message. {@code --flag=value} reaches
     * here as the value on top of the stack, so it is taken the same way.
     */
    private static final IParameterConsumer BARE_BOOLEAN = new IParameterConsumer() {
        @Override
        public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
            String next = args.isEmpty() ? null : args.peek();
            boolean isBoolean = next != null
                    && (next.toLowerCase(Locale.ROOT).equals("true")
                            || next.toLowerCase(Locale.ROOT).equals("false"));
            boolean isWord = next != null
                    && !next.startsWith("-")
                    && commandSpec.positionalParameters().isEmpty()
                    && !commandSpec.subcommands().containsKey(next);
            argSpec.setValue(isBoolean || isWord ? args.pop() : "true");
        }
    };
}
